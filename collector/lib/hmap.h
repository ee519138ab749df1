/*
 * hmap.h - the one string-keyed hash table of wattpath.
 *
 * Open addressing with linear probing over a power-of-two array, kept at
 * most half full (it doubles before an insert would pass half), or at most
 * three quarters full when dense (the collector's per-series maps, one
 * entry per series of the fleet, where the slots are most of the map's
 * memory and a probe or two more is cheap).  Each slot
 * holds an entry's hash and a borrowed pointer to the caller's entry: the
 * map never allocates, copies or frees entries, only its slot array.  The
 * hash is Bernstein's, h = h * 33 ^ c from HMAP_SEED, which a caller may
 * compute in pieces (hmap_hash_add) for a key made of several strings
 * without building it.  A lookup compares hashes first and calls the
 * caller's eq(entry, key) only on a hash match.  No deletion.
 *
 * Iterate in slot order: for (i = 0; i < m->cap; i++) if (m->slot[i].e)...
 * Entries grown into a new array keep their relative slot order, so the
 * order depends only on the keys and the order they were put in.
 */
#ifndef WP_HMAP_H
#define WP_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HMAP_SEED	5381u

struct hmap_slot {
	uint64_t	 h;
	void		*e;		/* NULL: free */
};

struct hmap {
	struct hmap_slot *slot;		/* cap entries, or NULL */
	size_t		 cap, n;
	size_t		 min_cap;	/* first array size (power of 2); 0: 16 */
	bool		 dense;		/* fill to 3/4, not 1/2; set before use */
};

typedef bool (*hmap_eq_fn)(const void *entry, const void *key);

static inline uint64_t
hmap_hash_add(uint64_t h, const void *p, size_t len)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < len; i++)
		h = h * 33 ^ s[i];
	return h;
}

static inline uint64_t
hmap_hash(const char *s)
{
	return hmap_hash_add(HMAP_SEED, s, strlen(s));
}

/* The entry under hash h that eq says is key, or NULL (borrowed). */
static inline void *
hmap_get(const struct hmap *m, uint64_t h, hmap_eq_fn eq, const void *key)
{
	size_t i, mask;

	if (m->cap == 0)
		return NULL;
	mask = m->cap - 1;
	for (i = h & mask; m->slot[i].e != NULL; i = (i + 1) & mask)
		if (m->slot[i].h == h && eq(m->slot[i].e, key))
			return m->slot[i].e;
	return NULL;
}

/* Adds entry under hash h; the caller knows it is not there yet (borrowed:
 * it must outlive the map).  0, or -1 out of memory (map unchanged). */
int	 hmap_put(struct hmap *m, uint64_t h, void *entry);
/* Sizes the array for n entries without growing later; 0 or -1. */
int	 hmap_reserve(struct hmap *m, size_t n);
/* Frees the slot array (not the entries); the map is empty after. */
void	 hmap_fini(struct hmap *m);

/* String keys: an entry whose key is the string its first member points
 * to (struct { char *key; ... }) compares with hmap_str_eq. */
bool	 hmap_str_eq(const void *entry, const void *key);

/* Entries that live in a growing array are put as their position:
 * hmap_ix(i) in, hmap_ix_of(entry) out; the key then carries the array. */
static inline void *
hmap_ix(size_t i)
{
	return (void *)(uintptr_t)(i + 1);
}

static inline size_t
hmap_ix_of(const void *entry)
{
	return (size_t)(uintptr_t)entry - 1;
}

/*
 * An index map: the same table for entries that are positions in the
 * caller's array, in 8-byte slots (the hash's low 32 bits and the position
 * + 1) instead of 16: the per-series maps of a fleet, where the slots are
 * most of the map's memory.  Always dense (3/4 full at most); positions
 * below 2^32 - 1.  eq is called with hmap_ix(position) as the entry, and
 * hidx_get returns that (hmap_ix_of gives the position back).
 */
struct hidx {
	uint64_t	*slot;		/* cap entries, or NULL; 0: free */
	size_t		 cap, n;
};

static inline void *
hidx_get(const struct hidx *m, uint64_t h, hmap_eq_fn eq, const void *key)
{
	uint32_t h32 = (uint32_t)h;
	size_t i, mask;

	if (m->cap == 0)
		return NULL;
	mask = m->cap - 1;
	for (i = h32 & mask; m->slot[i] != 0; i = (i + 1) & mask)
		if ((uint32_t)m->slot[i] == h32 &&
		    eq(hmap_ix((size_t)(m->slot[i] >> 32) - 1), key))
			return hmap_ix((size_t)(m->slot[i] >> 32) - 1);
	return NULL;
}

/* Adds position ix under hash h; the caller knows it is not there yet.
 * 0, or -1 (out of memory, or ix too large: map unchanged). */
int	 hidx_put(struct hidx *m, uint64_t h, size_t ix);
/* Sizes the array for n entries without growing later; 0 or -1. */
int	 hidx_reserve(struct hidx *m, size_t n);
void	 hidx_fini(struct hidx *m);	/* frees the slot array; empty */

#endif
