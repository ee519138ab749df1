/*
 * expo_gzip.h - gzip for the exposition's answers (zlib): whether a
 * request's Accept-Encoding takes gzip, and a body compressed in one go.
 */
#ifndef WP_EXPO_GZIP_H
#define WP_EXPO_GZIP_H

#include <stdbool.h>
#include <stddef.h>

/* The fastest level: at 10,000 nodes /metrics is ~35 MB of text that
 * compresses ~20-fold even so (docs/benchmarks.md). */
#define EXPO_GZIP_LEVEL	1

/* True when the Accept-Encoding value ae (NULL: none) lists gzip (or
 * "*") with a q-value above 0. */
bool	 expo_accepts_gzip(const char *ae);
/* Compresses in[0..n) into a gzip stream at level (0-9).  Returns the new
 * buffer (caller frees) with its length in *out_len, or NULL out of
 * memory. */
char	*expo_gzip(const char *in, size_t n, int level, size_t *out_len);

#endif
