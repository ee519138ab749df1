/*
 * Unit tests: collector/secret.c - private-file checks, newline stripping,
 * environment variables, size and content limits, messages without the
 * secret.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../collector/lib/secret.h"

static char dir[64];

static const char *
mk(const char *name, const char *content, size_t len, mode_t mode)
{
	static char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
	assert_non_null(f = fopen(p, "w"));
	assert_int_equal(fwrite(content, 1, len, f), len);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
	return p;
}

static void
test_private_file_loads_and_strips_one_newline(void **st)
{
	struct wp_err err;
	char *s;

	(void)st;
	s = secret_load(mk("a", "s3cret\n", 7, 0600), NULL, &err);
	assert_non_null(s);
	assert_string_equal(s, "s3cret");
	secret_free(s);
	s = secret_load(mk("b", "s3cret\r\n", 8, 0400), NULL, &err);
	assert_string_equal(s, "s3cret");
	secret_free(s);
	/* only one newline goes; inner spaces stay */
	s = secret_load(mk("c", "pass word\n\n", 11, 0600), NULL, &err);
	assert_string_equal(s, "pass word\n");
	secret_free(s);
	s = secret_load(mk("d", "nonl", 4, 0600), NULL, &err);
	assert_string_equal(s, "nonl");
	secret_free(s);
	assert_int_equal(secret_check_file(mk("e", "x", 1, 0600), &err), 0);
}

static void
test_open_modes_refused(void **st)
{
	static const mode_t modes[] = { 0644, 0640, 0604, 0660, 0602, 0610 };
	struct wp_err err;
	const char *p;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		p = mk("open", "topsecret\n", 10, modes[i]);
		assert_int_equal(secret_check_file(p, &err), -1);
		assert_int_equal(err.class, WP_E_CONFIG);
		assert_non_null(strstr(err.msg, p));
		assert_non_null(strstr(err.msg, "group or others"));
		assert_null(strstr(err.msg, "topsecret"));
		assert_null(secret_load(p, NULL, &err));
		assert_null(strstr(err.msg, "topsecret"));
	}
}

static void
test_missing_dir_empty_binary_large(void **st)
{
	struct wp_err err;
	char big[5000], p[128];

	(void)st;
	snprintf(p, sizeof(p), "%s/nope", dir);
	assert_int_equal(secret_check_file(p, &err), -1);
	assert_non_null(strstr(err.msg, "No such file"));
	assert_null(secret_load(p, NULL, &err));
	assert_null(secret_load(dir, NULL, &err));	/* a directory */
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(secret_check_file("/dev/null", &err), -1);
	assert_null(secret_load(mk("empty", "", 0, 0600), NULL, &err));
	assert_non_null(strstr(err.msg, "empty"));
	assert_null(secret_load(mk("nl", "\n", 1, 0600), NULL, &err));
	assert_non_null(strstr(err.msg, "empty"));
	assert_null(secret_load(mk("nul", "ab\0cd", 5, 0600), NULL, &err));
	assert_non_null(strstr(err.msg, "NUL"));
	memset(big, 'x', sizeof(big));
	assert_null(secret_load(mk("big", big, sizeof(big), 0600), NULL, &err));
	assert_non_null(strstr(err.msg, "larger than"));
	assert_int_equal(secret_check_file(NULL, &err), -1);
	assert_null(secret_load(NULL, NULL, &err));
}

static void
test_symlink_to_private_file(void **st)
{
	struct wp_err err;
	char link[128];
	const char *p;
	char *s;

	(void)st;
	p = mk("target", "linked\n", 7, 0600);
	snprintf(link, sizeof(link), "%s/link", dir);
	unlink(link);
	assert_int_equal(symlink(p, link), 0);
	assert_non_null(s = secret_load(link, NULL, &err));
	assert_string_equal(s, "linked");
	secret_free(s);
}

static void
test_foreign_owner_refused(void **st)
{
	struct wp_err err;
	const char *p;

	(void)st;
	p = mk("foreign", "x\n", 2, 0600);
	if (geteuid() != 0) {
		/* our own file is fine; another owner needs root to make */
		assert_int_equal(secret_check_file(p, &err), 0);
		skip();
	}
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(secret_check_file(p, &err), -1);
	assert_non_null(strstr(err.msg, "owned by uid 65534"));
	assert_null(secret_load(p, NULL, &err));
}

static void
test_env(void **st)
{
	struct wp_err err;
	char *s;

	(void)st;
	setenv("WP_TEST_SECRET", "from-env", 1);
	assert_non_null(s = secret_load(NULL, "WP_TEST_SECRET", &err));
	assert_string_equal(s, "from-env");
	secret_free(s);
	setenv("WP_TEST_SECRET", "", 1);
	assert_null(secret_load(NULL, "WP_TEST_SECRET", &err));
	assert_non_null(strstr(err.msg, "WP_TEST_SECRET is empty"));
	unsetenv("WP_TEST_SECRET");
	assert_null(secret_load(NULL, "WP_TEST_SECRET", &err));
	assert_string_equal(err.msg,
	    "environment variable WP_TEST_SECRET is not set");
	/* a file wins over the environment */
	setenv("WP_TEST_SECRET", "from-env", 1);
	assert_non_null(s = secret_load(mk("f", "from-file", 9, 0600),
	    "WP_TEST_SECRET", &err));
	assert_string_equal(s, "from-file");
	secret_free(s);
	unsetenv("WP_TEST_SECRET");
	secret_free(NULL);
}

/* systemd credentials: the file NAME in $CREDENTIALS_DIRECTORY. */
static void
test_credentials(void **st)
{
	char cd[96], path[256], f[160];
	struct wp_err err;
	char *s;

	(void)st;
	snprintf(cd, sizeof(cd), "%s/creds", dir);
	assert_int_equal(mkdir(cd, 0700), 0);
	unsetenv("CREDENTIALS_DIRECTORY");
	assert_int_equal(secret_cred_path("bmc", path, sizeof(path), &err), -1);
	assert_non_null(strstr(err.msg, "CREDENTIALS_DIRECTORY is not set"));
	setenv("CREDENTIALS_DIRECTORY", "relative/dir", 1);
	assert_int_equal(secret_cred_path("bmc", path, sizeof(path), &err), -1);
	assert_non_null(strstr(err.msg, "not an absolute path"));
	/* a trailing slash is fine */
	snprintf(path, sizeof(path), "%s/", cd);
	setenv("CREDENTIALS_DIRECTORY", path, 1);
	assert_int_equal(secret_cred_path("bmc", path, sizeof(path), &err), 0);
	snprintf(f, sizeof(f), "%s/bmc", cd);
	assert_string_equal(path, f);
	/* names systemd would refuse are refused */
	assert_int_equal(secret_cred_path("a/b", path, sizeof(path), &err), -1);
	assert_non_null(strstr(err.msg, "not a credential name"));
	assert_int_equal(secret_cred_path("a:b", path, sizeof(path), &err), -1);
	assert_int_equal(secret_cred_path("..", path, sizeof(path), &err), -1);
	assert_int_equal(secret_cred_path("", path, sizeof(path), &err), -1);
	/* systemd's mode: 0400, or 0440 when the user reads it by an ACL */
	s = secret_load(mk("creds/bmc", "credpw\n", 7, 0400), NULL, &err);
	assert_non_null(s);
	assert_string_equal(s, "credpw");
	secret_free(s);
	assert_int_equal(secret_check_file(mk("creds/bmc", "credpw", 6, 0440),
	    &err), 0);
	/* the same mode outside the directory is refused */
	assert_int_equal(secret_check_file(mk("bmc", "credpw", 6, 0440), &err),
	    -1);
	/* inside: others, or a writable group, are refused; content unsaid */
	assert_int_equal(secret_check_file(mk("creds/bmc", "credpw", 6, 0404),
	    &err), -1);
	assert_non_null(strstr(err.msg, "open to others or writable"));
	assert_null(strstr(err.msg, "credpw"));
	assert_null(secret_load(mk("creds/bmc", "credpw", 6, 0460), NULL, &err));
	assert_null(secret_load(mk("creds/bmc", "", 0, 0400), NULL, &err));
	assert_non_null(strstr(err.msg, "empty"));
	/* a directory others may write to is refused */
	assert_int_equal(chmod(cd, 0777), 0);
	assert_int_equal(secret_cred_path("bmc", path, sizeof(path), &err), -1);
	assert_non_null(strstr(err.msg, "writable by group or others"));
	assert_int_equal(chmod(cd, 0500), 0);
	assert_int_equal(secret_cred_path("bmc", path, sizeof(path), &err), 0);
	assert_int_equal(chmod(cd, 0700), 0);
	unsetenv("CREDENTIALS_DIRECTORY");
}

static int
setup(void **st)
{
	(void)st;
	strcpy(dir, "/tmp/wp-test-secret.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **st)
{
	char cmd[128];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_file_loads_and_strips_one_newline),
		cmocka_unit_test(test_open_modes_refused),
		cmocka_unit_test(test_missing_dir_empty_binary_large),
		cmocka_unit_test(test_symlink_to_private_file),
		cmocka_unit_test(test_foreign_owner_refused),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_credentials),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
