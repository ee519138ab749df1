/*
 * expo_out.h - the text exposition's writer: a buffer of its own in front
 * of a stdio stream, flushed in large blocks, with label escaping and the
 * plain-decimal number format done without stdio or printf per series
 * (/metrics is ~370,000 series at 10,000 nodes).  Two modes: in front
 * of a stream the caller owns (eo_init: nothing allocated), or into a
 * buffer of its own that grows (eo_init_mem; eo_take hands it over, or
 * eo_fini frees it).  The caller owns the struct (its stack is fine).
 */
#ifndef WP_EXPO_OUT_H
#define WP_EXPO_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define EXPO_OUT_BUF	(64 * 1024)

struct expo_out {
	FILE	*f;		/* NULL: into memory */
	char	*b;		/* fixed, or the memory's */
	size_t	 n, cap;	/* bytes in b, its room */
	bool	 err;		/* a write failed, or out of memory */
	char	 fixed[EXPO_OUT_BUF];
};

void	 eo_init(struct expo_out *o, FILE *f);
/* Into memory, with room for hint bytes to start with; 0, or -1 out of
 * memory. */
int	 eo_init_mem(struct expo_out *o, size_t hint);
/* The memory's text (caller frees; NUL-terminated, not counted in *len),
 * or NULL after an error (freed); o is empty after. */
char	*eo_take(struct expo_out *o, size_t *len);
void	 eo_fini(struct expo_out *o);	/* frees the memory's buffer */
/* Appends what fn(stream, arg) writes to a stream: for the writers that
 * take a FILE; returns fn's result, or -1 out of memory. */
int	 eo_stream(struct expo_out *o, int (*fn)(FILE *, const void *),
	    const void *arg);
void	 eo_put(struct expo_out *o, const char *s, size_t n);
void	 eo_str(struct expo_out *o, const char *s);	/* s may be NULL */
void	 eo_chr(struct expo_out *o, char c);
/* s as a label value: backslash, double quote and newline escaped. */
void	 eo_esc(struct expo_out *o, const char *s);
/* v as expo_fmt_value writes it (expo_metrics.h). */
void	 eo_num(struct expo_out *o, double v);
/* Writes out what is buffered (to the stream): 0, or -1 when any write
 * failed (or, into memory, on an earlier failure). */
int	 eo_flush(struct expo_out *o);

/* Formats v into buf (room for len, at least 64): a plain decimal, no
 * exponent, at most 6 decimals (more below 1, for ~7 significant
 * digits), trailing zeros trimmed, "0" for zero and non-finite values;
 * byte for byte what snprintf's "%.*f" then trimming gives.  Returns the
 * length. */
size_t	 eo_fmt(char *buf, size_t len, double v);

#endif
