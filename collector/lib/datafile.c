/* datafile.c - finding PDU profiles and meter maps; see datafile.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datafile.h"

static bool
file_readable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, R_OK) == 0;
}

int
datafile_find(const char *maps_dir, const char *subdir,
    const char *stem, const char *ext, char *out, size_t len)
{
	const char *dirs[3];
	size_t i;
	int r;

	if (stem == NULL || *stem == '\0' || *stem == '.' ||
	    strchr(stem, '/') != NULL || subdir == NULL)
		return -1;
	dirs[0] = maps_dir;
	dirs[1] = "./etc";
	dirs[2] = WP_PREFIX "/share/wattpath";
	for (i = 0; i < 3; i++) {
		if (dirs[i] == NULL || *dirs[i] == '\0')
			continue;
		r = snprintf(out, len, "%s/%s/%s%s", dirs[i], subdir, stem,
		    ext ? ext : "");
		if (r < 0 || (size_t)r >= len)
			continue;
		if (file_readable(out))
			return 0;
	}
	if (len > 0)
		*out = '\0';
	return -1;
}

