/* expo_gzip.c - gzip bodies (expo_gzip.h). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "expo_gzip.h"

/* The q-value of an element's parameters p (up to end): 1 without one. */
static double
qvalue(const char *p, const char *end)
{
	const char *q;

	for (q = p; q + 1 < end; q++)
		if ((q[0] == 'q' || q[0] == 'Q') && q[1] == '=' &&
		    (q == p || q[-1] == ';' || q[-1] == ' '))
			return strtod(q + 2, NULL);
	return 1;
}

bool
expo_accepts_gzip(const char *ae)
{
	const char *p = ae, *e, *t;
	size_t n;

	while (p != NULL && *p) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		e = p + strcspn(p, ",");
		t = p + strcspn(p, ";, \t");
		n = (size_t)(t - p);
		if (((n == 4 && strncasecmp(p, "gzip", 4) == 0) ||
		    (n == 6 && strncasecmp(p, "x-gzip", 6) == 0) ||
		    (n == 1 && *p == '*')) && qvalue(t, e) > 0)
			return true;
		p = e;
	}
	return false;
}

char *
expo_gzip(const char *in, size_t n, int level, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap;
	char *out;
	int rc;

	if (n > UINT_MAX || deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 9,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&z, (uLong)n);
	if ((out = malloc(cap)) == NULL) {
		deflateEnd(&z);
		return NULL;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*out_len = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}
