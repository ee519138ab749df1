/* strcopy.c - bounded string copies without printf; see strcopy.h. */
#include <string.h>

#include "strcopy.h"

/* Writes n bytes of src at dst + at (as many as fit before len - 1) and
 * the NUL; returns at + n. */
static size_t
put(char *dst, size_t len, size_t at, const char *src, size_t n)
{
	size_t room, k;

	if (at < len) {
		room = len - 1 - at;
		k = n < room ? n : room;
		memcpy(dst + at, src, k);
		dst[at + k] = '\0';
	}
	return at + n;
}

size_t
str_copy(char *dst, size_t len, const char *src)
{
	return put(dst, len, 0, src, strlen(src));
}

size_t
str_copy_n(char *dst, size_t len, const char *src, size_t n)
{
	return put(dst, len, 0, src, strnlen(src, n));
}

size_t
str_append(char *dst, size_t len, size_t at, const char *src)
{
	return put(dst, len, at, src, strlen(src));
}
