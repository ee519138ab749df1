/* inband_fixture.h - reads a file of tests/fixtures/inband/ for unit tests
 * (run from the repository root, as tests/run.sh does, or set WP_ROOT). */
#ifndef WP_TEST_INBAND_FIXTURE_H
#define WP_TEST_INBAND_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

/* Returns the file's bytes, NUL-terminated (caller frees), or NULL. */
static char *
fixture(const char *name, size_t *len)
{
	const char *root = getenv("WP_ROOT");
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/inband/%s",
	    root ? root : ".", name);
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf != NULL) {
		buf[n] = '\0';
		*len = (size_t)n;
	}
	return buf;
}

#endif
