#include <stdlib.h>

#include "hmap.h"

static void
place(struct hmap_slot *s, size_t cap, uint64_t h, void *e)
{
	size_t i, mask = cap - 1;

	for (i = h & mask; s[i].e != NULL; i = (i + 1) & mask)
		;
	s[i].h = h;
	s[i].e = e;
}

static int
resize(struct hmap *m, size_t ncap)
{
	struct hmap_slot *ns = calloc(ncap, sizeof(*ns));
	size_t i;

	if (ns == NULL)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->slot[i].e != NULL)
			place(ns, ncap, m->slot[i].h, m->slot[i].e);
	free(m->slot);
	m->slot = ns;
	m->cap = ncap;
	return 0;
}

/* Whether n entries fit cap slots filled to 3/4 at most (a dense map's,
 * and every index map's). */
static bool
fits_dense(size_t n, size_t cap)
{
	return 4 * n <= 3 * cap;
}

/* Whether n entries fit m's array of cap slots. */
static bool
fits(const struct hmap *m, size_t n, size_t cap)
{
	return m->dense ? fits_dense(n, cap) : 2 * n <= cap;
}

int
hmap_reserve(struct hmap *m, size_t n)
{
	size_t ncap = m->cap ? m->cap : m->min_cap ? m->min_cap : 16;

	while (!fits(m, n, ncap))
		ncap *= 2;
	return ncap == m->cap ? 0 : resize(m, ncap);
}

int
hmap_put(struct hmap *m, uint64_t h, void *entry)
{
	if (!fits(m, m->n + 1, m->cap) && resize(m, m->cap ? m->cap * 2 :
	    m->min_cap ? m->min_cap : 16) == -1)
		return -1;
	place(m->slot, m->cap, h, entry);
	m->n++;
	return 0;
}

void
hmap_fini(struct hmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}

bool
hmap_str_eq(const void *entry, const void *key)
{
	return strcmp(*(char *const *)entry, key) == 0;
}

/* ---- index maps ---- */

static void
hidx_place(uint64_t *s, size_t cap, uint64_t slot)
{
	size_t i, mask = cap - 1;

	for (i = (uint32_t)slot & mask; s[i] != 0; i = (i + 1) & mask)
		;
	s[i] = slot;
}

static int
hidx_resize(struct hidx *m, size_t ncap)
{
	uint64_t *ns = calloc(ncap, sizeof(*ns));
	size_t i;

	if (ns == NULL)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->slot[i] != 0)
			hidx_place(ns, ncap, m->slot[i]);
	free(m->slot);
	m->slot = ns;
	m->cap = ncap;
	return 0;
}

int
hidx_reserve(struct hidx *m, size_t n)
{
	size_t ncap = m->cap ? m->cap : 16;

	while (!fits_dense(n, ncap))
		ncap *= 2;
	return ncap == m->cap ? 0 : hidx_resize(m, ncap);
}

int
hidx_put(struct hidx *m, uint64_t h, size_t ix)
{
	if (ix >= UINT32_MAX)
		return -1;
	if (!fits_dense(m->n + 1, m->cap) &&
	    hidx_resize(m, m->cap ? m->cap * 2 : 16) == -1)
		return -1;
	hidx_place(m->slot, m->cap, (uint64_t)(ix + 1) << 32 | (uint32_t)h);
	m->n++;
	return 0;
}

void
hidx_fini(struct hidx *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}
