/*
 * strcopy.h - bounded string copies without printf, for hot paths (a
 * reading's names per poll, a request's URL): what snprintf(dst, len,
 * "%s", src) and "%.*s" do, at the cost of a strlen and a memcpy.
 *
 * Contract, as snprintf's: len > 0; dst is always NUL-terminated, the text
 * cut at len - 1 bytes; the return is the length the whole text has, so a
 * return >= len means it was cut.  src is never NULL.
 */
#ifndef WP_STRCOPY_H
#define WP_STRCOPY_H

#include <stddef.h>

/* snprintf(dst, len, "%s", src). */
size_t	 str_copy(char *dst, size_t len, const char *src);
/* snprintf(dst, len, "%.*s", (int)n, src): at most n bytes of src. */
size_t	 str_copy_n(char *dst, size_t len, const char *src, size_t n);
/*
 * Appends src to the text a str_copy or str_append into the same dst
 * returned (at: that return, which may be >= len: then only the length
 * grows), as one snprintf with "%s%s" would have.
 */
size_t	 str_append(char *dst, size_t len, size_t at, const char *src);

#endif
