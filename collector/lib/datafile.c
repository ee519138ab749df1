/* datafile.c - finding PDU profiles and meter maps; see datafile.h. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datafile.h"

#define SEARCH_STEPS	4

static bool
file_readable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, R_OK) == 0;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether dir is a source tree: etc/pdu-profiles/ and a Makefile. */
static bool
source_tree(const char *dir)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/etc/pdu-profiles", dir) >=
	    (int)sizeof(p) || !is_dir(p))
		return false;
	return snprintf(p, sizeof(p), "%s/Makefile", dir) < (int)sizeof(p) &&
	    file_readable(p);
}

int
datafile_source_etc(char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;
	int up;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return -1;
	exe[n] = '\0';
	for (up = 0; up < 3; up++) {
		if ((slash = strrchr(exe, '/')) == NULL || slash == exe)
			return -1;
		*slash = '\0';		/* the binary's directory, then up */
		if (source_tree(exe)) {
			n = snprintf(out, len, "%s/etc", exe);
			return n < 0 || (size_t)n >= len ? -1 : 0;
		}
	}
	return -1;
}

int
datafile_dir(size_t i, const char *maps_dir, const char *conf_dir,
    const char *subdir, char *out, size_t len)
{
	char base[PATH_MAX];
	const char *dir = NULL;
	int r;

	switch (i) {
	case 0: dir = maps_dir; break;
	case 1: dir = conf_dir; break;
	case 2:
		if (datafile_source_etc(base, sizeof(base)) == 0)
			dir = base;
		break;
	case 3: dir = WP_PREFIX "/share/wattpath"; break;
	default:
		return -1;
	}
	if (dir == NULL || *dir == '\0')
		return 1;
	r = snprintf(out, len, "%s/%s", dir, subdir);
	return r < 0 || (size_t)r >= len ? 1 : 0;
}

int
datafile_find(const char *maps_dir, const char *conf_dir,
    const char *subdir, const char *stem, const char *ext, char *out,
    size_t len)
{
	char dir[PATH_MAX];
	size_t i;
	int r;

	if (stem == NULL || *stem == '\0' || *stem == '.' ||
	    strchr(stem, '/') != NULL || subdir == NULL)
		return -1;
	for (i = 0; i < SEARCH_STEPS; i++) {
		if (datafile_dir(i, maps_dir, conf_dir, subdir, dir,
		    sizeof(dir)) != 0)
			continue;
		r = snprintf(out, len, "%s/%s%s", dir, stem, ext ? ext : "");
		if (r < 0 || (size_t)r >= len)
			continue;
		if (file_readable(out))
			return 0;
	}
	if (len > 0)
		*out = '\0';
	return -1;
}
