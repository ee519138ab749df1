/*
 * decimal.c - integers as decimal text (see decimal.h).
 */
#include "decimal.h"

size_t
decimal_put(char *p, long long v)
{
	char tmp[DECIMAL_MAX];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v;
	size_t n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		p[i++] = '-';
	while (n > 0)
		p[i++] = tmp[--n];
	return i;
}
