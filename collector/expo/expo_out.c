/* expo_out.c - the exposition's buffered writer (expo_out.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo_out.h"

void
eo_init(struct expo_out *o, FILE *f)
{
	o->f = f;
	o->b = o->fixed;
	o->n = 0;
	o->cap = sizeof(o->fixed);
	o->err = false;
}

int
eo_init_mem(struct expo_out *o, size_t hint)
{
	o->f = NULL;
	o->n = 0;
	o->cap = hint < 4096 ? 4096 : hint;
	o->err = (o->b = malloc(o->cap)) == NULL;
	return o->err ? -1 : 0;
}

void
eo_fini(struct expo_out *o)
{
	if (o->f == NULL)
		free(o->b);
	o->b = NULL;
	o->n = o->cap = 0;
}

char *
eo_take(struct expo_out *o, size_t *len)
{
	char *b;

	eo_chr(o, '\0');
	if (o->f != NULL || o->err) {
		eo_fini(o);
		return NULL;
	}
	b = o->b;
	*len = o->n - 1;
	o->b = NULL;
	o->n = o->cap = 0;
	return b;
}

int
eo_flush(struct expo_out *o)
{
	if (o->f == NULL)
		return o->err ? -1 : 0;
	if (o->n > 0 && fwrite(o->b, 1, o->n, o->f) != o->n)
		o->err = true;
	o->n = 0;
	return o->err || ferror(o->f) ? -1 : 0;
}

/* Into memory: room for n more bytes (doubling; a large block's realloc
 * moves pages, not bytes); false out of memory. */
static bool
grow(struct expo_out *o, size_t n)
{
	size_t cap = o->cap;
	char *b;

	if (o->err)
		return false;
	while (cap - o->n < n)
		cap *= 2;
	if ((b = realloc(o->b, cap)) == NULL) {
		o->err = true;
		return false;
	}
	o->b = b;
	o->cap = cap;
	return true;
}

void
eo_put(struct expo_out *o, const char *s, size_t n)
{
	if (o->cap - o->n < n) {
		if (o->f == NULL) {
			if (!grow(o, n))
				return;
		} else {
			eo_flush(o);
			if (n > o->cap) {
				if (fwrite(s, 1, n, o->f) != n)
					o->err = true;
				return;
			}
		}
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

int
eo_stream(struct expo_out *o, int (*fn)(FILE *, const void *),
    const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (o->f != NULL) {
		if (eo_flush(o) == -1)
			return -1;
		rc = fn(o->f, arg);
		return rc;
	}
	if ((m = open_memstream(&buf, &len)) == NULL) {
		o->err = true;
		return -1;
	}
	rc = fn(m, arg);
	if (fclose(m) != 0)
		rc = -1;
	if (buf != NULL)
		eo_put(o, buf, len);
	free(buf);
	return rc;
}

void
eo_str(struct expo_out *o, const char *s)
{
	if (s != NULL)
		eo_put(o, s, strlen(s));
}

void
eo_chr(struct expo_out *o, char c)
{
	if (o->n < o->cap)
		o->b[o->n++] = c;
	else
		eo_put(o, &c, 1);
}

void
eo_esc(struct expo_out *o, const char *s)
{
	size_t n;

	while (s != NULL && *s) {
		n = strcspn(s, "\\\"\n");
		eo_put(o, s, n);
		s += n;
		if (*s == '\0')
			break;
		eo_put(o, *s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\", 2);
		s++;
	}
}

void
eo_num(struct expo_out *o, double v)
{
	char buf[400];

	eo_put(o, buf, eo_fmt(buf, sizeof(buf), v));
}

/* The digits of x into the end of buf; returns where they start. */
static char *
digits(char *end, uint64_t x)
{
	do {
		*--end = (char)('0' + x % 10);
		x /= 10;
	} while (x != 0);
	return end;
}

#ifdef __SIZEOF_INT128__
/* 1 <= |v| < 2^53: the integer part exactly, the fraction rounded to 6
 * decimals exactly (half to even, as printf in the default rounding
 * mode): |v| >= 1 makes the fraction a whole number of 2^-52. */
static size_t
fmt_fast(char *buf, double v)
{
	double a = fabs(v);
	uint64_t ip = (uint64_t)a, fr, d = 0, rem;
	unsigned __int128 q;
	const uint64_t half = UINT64_C(1) << 51, mask = (half << 1) - 1;
	char tmp[32], *p, *e = tmp + sizeof(tmp);
	size_t n = 0, k;
	int i;

	if ((fr = (uint64_t)ldexp(a - (double)ip, 52)) != 0) {
		q = (unsigned __int128)fr * 1000000u;
		d = (uint64_t)(q >> 52);
		rem = (uint64_t)q & mask;
		if (rem > half || (rem == half && (d & 1)))
			d++;
		if (d == 1000000) {
			ip++;
			d = 0;
		}
	}
	if (v < 0)
		buf[n++] = '-';
	p = digits(e, ip);
	memcpy(buf + n, p, (size_t)(e - p));
	n += (size_t)(e - p);
	buf[n] = '\0';
	if (d == 0)
		return n;
	for (k = 6; d % 10 == 0; k--)
		d /= 10;
	buf[n++] = '.';
	for (i = (int)k - 1; i >= 0; i--, d /= 10)
		buf[n + (size_t)i] = (char)('0' + d % 10);
	n += k;
	buf[n] = '\0';
	return n;
}
#endif

static size_t
fmt_slow(char *buf, size_t len, double v)
{
	double a = fabs(v);
	int dec = 6;
	char *p;

	/* enough decimals for ~7 significant digits of a small value */
	while (a < 1 && dec < 18 && a * pow(10, dec - 6) < 1)
		dec++;
	snprintf(buf, len, "%.*f", dec, v);
	if (strchr(buf, '.') != NULL) {
		p = buf + strlen(buf) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
	return strlen(buf);
}

size_t
eo_fmt(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (v == 0 || !isfinite(v)) {
		snprintf(buf, len, "0");
		return 1;
	}
#ifdef __SIZEOF_INT128__
	if (a >= 1 && a < 9007199254740992.0 && len >= 32)
		return fmt_fast(buf, v);
#endif
	return fmt_slow(buf, len, v);
}
