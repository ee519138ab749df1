#include <stdlib.h>
#include <string.h>

#include "wire.h"

void
wire_put(struct wire_buf *b, const void *p, size_t n)
{
	size_t ncap;
	uint8_t *np;

	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		ncap = b->cap ? b->cap * 2 : 4096;
		while (ncap < b->len + n)
			ncap *= 2;
		if ((np = realloc(b->p, ncap)) == NULL) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void
wire_put_le(struct wire_buf *b, uint64_t v, int n)
{
	uint8_t x[8];
	int i;

	for (i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	wire_put(b, x, (size_t)n);
}

void
wire_put_f64(struct wire_buf *b, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	wire_put_le(b, u, 8);
}

void
wire_put_str(struct wire_buf *b, const char *s, size_t max, int lenbytes)
{
	size_t n = strnlen(s, max);

	wire_put_le(b, n, lenbytes);
	wire_put(b, s, n);
}

uint64_t
wire_get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

uint64_t
wire_rd_le(struct wire_rd *r, int n)
{
	uint64_t v;

	if (r->bad || r->len - r->off < (size_t)n) {
		r->bad = true;
		return 0;
	}
	v = wire_get_le(r->p + r->off, n);
	r->off += (size_t)n;
	return v;
}

double
wire_rd_f64(struct wire_rd *r)
{
	uint64_t u = wire_rd_le(r, 8);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

void
wire_rd_str(struct wire_rd *r, int lenbytes, char *out, size_t outlen)
{
	size_t n = (size_t)wire_rd_le(r, lenbytes);

	if (r->bad || n >= outlen || r->len - r->off < n) {
		r->bad = true;
		out[0] = '\0';
		return;
	}
	memcpy(out, r->p + r->off, n);
	out[n] = '\0';
	if (strlen(out) != n)		/* embedded NUL */
		r->bad = true;
	r->off += n;
}
