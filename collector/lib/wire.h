/*
 * wire.h - little-endian encoding for the journal and its summaries: a
 * growing output buffer that remembers running out of memory (check once
 * at the end), and a bounds-checked reader that remembers running past the
 * end or a malformed string (check once at the end).
 */
#ifndef WP_WIRE_H
#define WP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wire_buf {
	uint8_t	*p;		/* owned; the user frees it */
	size_t	 len, cap;
	bool	 oom;		/* an append failed: the buffer is short */
};

struct wire_rd {
	const uint8_t *p;	/* borrowed */
	size_t	 len, off;
	bool	 bad;		/* read past the end or a bad string */
};

void	 wire_put(struct wire_buf *b, const void *p, size_t n);
void	 wire_put_le(struct wire_buf *b, uint64_t v, int n);
void	 wire_put_f64(struct wire_buf *b, double d);
/* Length (lenbytes, little-endian) then at most max bytes of s. */
void	 wire_put_str(struct wire_buf *b, const char *s, size_t max,
	    int lenbytes);

uint64_t wire_get_le(const uint8_t *p, int n);
uint64_t wire_rd_le(struct wire_rd *r, int n);
double	 wire_rd_f64(struct wire_rd *r);
/* Reads a string written by wire_put_str into out (NUL-terminated). */
void	 wire_rd_str(struct wire_rd *r, int lenbytes, char *out,
	    size_t outlen);

#endif
