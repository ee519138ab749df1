/*
 * expo_out.h - the text exposition's writer: a buffer of its own in front
 * of a stdio stream, flushed in large blocks, with label escaping and the
 * plain-decimal number format done without stdio or printf per series
 * (/metrics is ~370,000 series at 10,000 nodes).  The caller owns the
 * struct (on its stack is fine) and the stream; nothing is allocated.
 */
#ifndef WP_EXPO_OUT_H
#define WP_EXPO_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define EXPO_OUT_BUF	(64 * 1024)

struct expo_out {
	FILE	*f;
	size_t	 n;		/* bytes in b */
	bool	 err;		/* a write to f failed */
	char	 b[EXPO_OUT_BUF];
};

void	 eo_init(struct expo_out *o, FILE *f);
void	 eo_put(struct expo_out *o, const char *s, size_t n);
void	 eo_str(struct expo_out *o, const char *s);	/* s may be NULL */
void	 eo_chr(struct expo_out *o, char c);
/* s as a label value: backslash, double quote and newline escaped. */
void	 eo_esc(struct expo_out *o, const char *s);
/* v as expo_fmt_value writes it (expo_metrics.h). */
void	 eo_num(struct expo_out *o, double v);
/* Writes out what is buffered: 0, or -1 when any write failed. */
int	 eo_flush(struct expo_out *o);

/* Formats v into buf (room for len, at least 64): a plain decimal, no
 * exponent, at most 6 decimals (more below 1, for ~7 significant
 * digits), trailing zeros trimmed, "0" for zero and non-finite values;
 * byte for byte what snprintf's "%.*f" then trimming gives.  Returns the
 * length. */
size_t	 eo_fmt(char *buf, size_t len, double v);

#endif
