/*
 * decimal.h - integers written as decimal text without printf, for hot
 * paths: RRD update lines, series names and labels made per value.
 */
#ifndef WP_DECIMAL_H
#define WP_DECIMAL_H

#include <stddef.h>

#define DECIMAL_MAX	20	/* characters of any long long, sign included */

/*
 * Writes v's digits (after a '-' if negative) at p, which has room for
 * them (DECIMAL_MAX at most); no NUL.  Returns how many it wrote.
 */
size_t	 decimal_put(char *p, long long v);

#endif
