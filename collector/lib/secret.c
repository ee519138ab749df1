/*
 * secret.c - secrets from private files or the environment (secret.h).
 * Messages name the file or the variable, never the content.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret.h"

#define SECRET_MAX	4096	/* bytes; a password, a community, a token */
#define CRED_ENV	"CREDENTIALS_DIRECTORY"
#define CRED_NAME_MAX	255

/* $CREDENTIALS_DIRECTORY without trailing slashes (length in *n), or NULL
 * if it is unset or not absolute. */
static const char *
cred_dir(size_t *n)
{
	const char *d = getenv(CRED_ENV);

	if (d == NULL || d[0] != '/')
		return NULL;
	*n = strlen(d);
	while (*n > 1 && d[*n - 1] == '/')
		--*n;
	return d;
}

/* Whether path names a file directly inside $CREDENTIALS_DIRECTORY. */
static bool
in_cred_dir(const char *path)
{
	const char *d, *base;
	size_t n;

	if ((d = cred_dir(&n)) == NULL || strncmp(path, d, n) != 0 ||
	    path[n] != '/')
		return false;
	base = path + n + 1;
	return *base != '\0' && strchr(base, '/') == NULL;
}

/* Checks the stat of an opened or named secrets file. */
static int
check_stat(const char *path, const struct stat *st, struct wp_err *err)
{
	if (in_cred_dir(path)) {
		if (!S_ISREG(st->st_mode))
			return err_set(err, WP_E_CONFIG, "credential file %s "
			    "is not a regular file", path);
		if (st->st_uid != 0 && st->st_uid != geteuid())
			return err_set(err, WP_E_CONFIG, "credential file %s is "
			    "owned by uid %lu, not by root or by us (uid %lu)",
			    path, (unsigned long)st->st_uid,
			    (unsigned long)geteuid());
		if ((st->st_mode & 037) != 0)
			return err_set(err, WP_E_CONFIG, "credential file %s is "
			    "open to others or writable by its group (mode "
			    "%04o)", path, (unsigned)(st->st_mode & 07777));
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return err_set(err, WP_E_CONFIG, "secrets file %s is not a "
		    "regular file", path);
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return err_set(err, WP_E_CONFIG, "secrets file %s is owned by "
		    "uid %lu, not by root or by us (uid %lu)", path,
		    (unsigned long)st->st_uid, (unsigned long)geteuid());
	if ((st->st_mode & 077) != 0)
		return err_set(err, WP_E_CONFIG, "secrets file %s is open to "
		    "group or others (mode %04o); chmod 600 it", path,
		    (unsigned)(st->st_mode & 07777));
	return 0;
}

int
secret_check_file(const char *path, struct wp_err *err)
{
	struct stat st;

	if (path == NULL || *path == '\0')
		return err_set(err, WP_E_CONFIG, "empty secrets file name");
	if (stat(path, &st) < 0)
		return err_set(err, WP_E_CONFIG, "secrets file %s: %s", path,
		    strerror(errno));
	if (check_stat(path, &st, err) != 0)
		return -1;
	/* what loading it would refuse, known without reading it */
	if (st.st_size > SECRET_MAX + 2)
		return err_set(err, WP_E_CONFIG, "secrets file %s is larger "
		    "than %d bytes", path, SECRET_MAX);
	if (st.st_size == 0)
		return err_set(err, WP_E_CONFIG, "secrets file %s is empty",
		    path);
	return 0;
}

/* Strips one trailing "\n", "\r\n" or "\r". */
static void
strip_eol(char *s, size_t *len)
{
	if (*len > 0 && s[*len - 1] == '\n')
		s[--*len] = '\0';
	if (*len > 0 && s[*len - 1] == '\r')
		s[--*len] = '\0';
}

static void
wipe_free(char *buf, size_t n)
{
	explicit_bzero(buf, n);
	free(buf);
}

/* Reads the whole (small) file behind fd into a new string. */
static char *
read_secret(int fd, const char *path, struct wp_err *err)
{
	char *buf, *s;
	size_t len = 0;
	ssize_t r;

	if ((buf = malloc(SECRET_MAX + 2)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	while (len <= SECRET_MAX) {
		r = read(fd, buf + len, SECRET_MAX + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_set(err, WP_E_CONFIG, "secrets file %s: %s", path,
			    strerror(errno));
			wipe_free(buf, len);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	if (len > SECRET_MAX) {
		err_set(err, WP_E_CONFIG, "secrets file %s is larger than %d "
		    "bytes", path, SECRET_MAX);
		wipe_free(buf, len);
		return NULL;
	}
	strip_eol(buf, &len);
	if (len == 0 || strlen(buf) != len) {
		err_set(err, WP_E_CONFIG, "secrets file %s is %s", path,
		    len == 0 ? "empty" : "binary (contains a NUL byte)");
		wipe_free(buf, len);
		return NULL;
	}
	/* Keep only what it holds (one secret per target of a large fleet). */
	if ((s = strdup(buf)) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	wipe_free(buf, SECRET_MAX + 2);
	return s;
}

static char *
load_file(const char *path, struct wp_err *err)
{
	struct stat st;
	char *s;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err_set(err, WP_E_CONFIG, "secrets file %s: %s", path,
		    strerror(errno));
		return NULL;
	}
	/* Check what we opened, not what the name points at now. */
	if (fstat(fd, &st) < 0) {
		err_set(err, WP_E_CONFIG, "secrets file %s: %s", path,
		    strerror(errno));
		close(fd);
		return NULL;
	}
	if (check_stat(path, &st, err) < 0) {
		close(fd);
		return NULL;
	}
	s = read_secret(fd, path, err);
	close(fd);
	return s;
}

static char *
load_env(const char *env, struct wp_err *err)
{
	const char *v = getenv(env);
	char *s;

	if (v == NULL) {
		err_set(err, WP_E_CONFIG, "environment variable %s is not set",
		    env);
		return NULL;
	}
	if (*v == '\0' || strlen(v) > SECRET_MAX) {
		err_set(err, WP_E_CONFIG, "environment variable %s is %s", env,
		    *v == '\0' ? "empty" : "too long");
		return NULL;
	}
	if ((s = strdup(v)) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	return s;
}

char *
secret_load(const char *path, const char *env, struct wp_err *err)
{
	if (path != NULL)
		return load_file(path, err);
	if (env != NULL && *env != '\0')
		return load_env(env, err);
	err_set(err, WP_E_CONFIG, "no secrets file or environment variable "
	    "given");
	return NULL;
}

int
secret_cred_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > CRED_NAME_MAX || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '/' ||
		    name[i] == ':')
			return 0;
	return 1;
}

/* The credentials directory must be one that only root or we can fill. */
static int
check_cred_dir(const char *d, struct wp_err *err)
{
	struct stat st;

	if (stat(d, &st) < 0)
		return err_set(err, WP_E_CONFIG, "$" CRED_ENV " %s: %s", d,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, WP_E_CONFIG, "$" CRED_ENV " %s is not a "
		    "directory", d);
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return err_set(err, WP_E_CONFIG, "$" CRED_ENV " %s is owned by "
		    "uid %lu, not by root or by us", d,
		    (unsigned long)st.st_uid);
	if ((st.st_mode & 022) != 0)
		return err_set(err, WP_E_CONFIG, "$" CRED_ENV " %s is writable "
		    "by group or others (mode %04o)", d,
		    (unsigned)(st.st_mode & 07777));
	return 0;
}

int
secret_cred_path(const char *name, char *buf, size_t n, struct wp_err *err)
{
	const char *d;
	size_t dn;

	if (name == NULL || !secret_cred_name_ok(name))
		return err_set(err, WP_E_CONFIG, "'%s' is not a credential name "
		    "(1..255 printable characters, no '/', ':' or space)",
		    name ? name : "");
	if ((d = cred_dir(&dn)) == NULL)
		return err_set(err, WP_E_CONFIG, "$" CRED_ENV " is %s "
		    "(systemd sets it for LoadCredential=%s:...; by hand, "
		    "point it at the directory of the secrets)",
		    getenv(CRED_ENV) ? "not an absolute path" : "not set",
		    name);
	if (check_cred_dir(d, err) < 0)
		return -1;
	if ((size_t)snprintf(buf, n, "%.*s/%s", (int)dn, d, name) >= n)
		return err_set(err, WP_E_CONFIG, "credential %s: path too long",
		    name);
	return 0;
}

void
secret_free(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}
