/*
 * strpool.h - a pool of NUL-ended strings in one buffer, for records kept
 * compact between polls (lastset, the journal's previous records).
 *
 * A string is stored once among the last few put (STRPOOL_RECENT), and a
 * string that ends like the last long one stored whole (the labels of a
 * PDU's outlets differ only in their head: "name=Outlet 7;index=1.7;"
 * before a long common tail) is stored as its head and a reference to that
 * tail.  A reference is a uint32_t offset, stable while the pool grows;
 * strpool_get writes the whole string back.  strpool_reset empties the pool
 * and keeps its memory; strpool_fini frees it.  Not thread-safe.
 */
#ifndef WP_STRPOOL_H
#define WP_STRPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STRPOOL_RECENT	8	/* strings compared with the last few */

struct strpool {
	char		*p;		/* entries: 4-byte tail, head, NUL */
	size_t		 len, cap;
	uint32_t	 base;		/* the last long string stored whole */
	uint32_t	 base_len;
	bool		 has_base;
	uint32_t	 recent[STRPOOL_RECENT];
	size_t		 nrecent;
};

void	 strpool_reset(struct strpool *sp);	/* empty; memory kept */
void	 strpool_fini(struct strpool *sp);	/* frees; zeroed */
/* Stores str (or finds it among the recent); its reference, or -1 (out of
 * memory, or the pool past 4 GiB). */
int64_t	 strpool_put(struct strpool *sp, const char *str);
/* Writes string ref into out[len] (cut to fit), the rest of out zeroed
 * when zero_rest; returns its length. */
size_t	 strpool_get(const struct strpool *sp, uint32_t ref, char *out,
	    size_t len, bool zero_rest);
/* Whether string ref is str. */
bool	 strpool_eq(const struct strpool *sp, uint32_t ref, const char *str);
/* Gives back the buffer's slack (realloc to the length in use). */
void	 strpool_trim(struct strpool *sp);

#endif
