/* strpool.c - compact strings with shared tails; see strpool.h. */
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

#define TAIL_NONE	UINT32_MAX
#define TAIL_MIN	16	/* a shorter common tail is stored again */
#define BASE_MIN	32	/* strings this long become the base */

void
strpool_reset(struct strpool *sp)
{
	sp->len = 0;
	sp->has_base = false;
	sp->nrecent = 0;
}

void
strpool_fini(struct strpool *sp)
{
	free(sp->p);
	memset(sp, 0, sizeof(*sp));
}

/* An entry: its tail reference (4 bytes), then its head and a NUL. */
static uint32_t
tail_of(const struct strpool *sp, uint32_t ref)
{
	uint32_t t;

	memcpy(&t, sp->p + ref, sizeof(t));
	return t;
}

static const char *
head_of(const struct strpool *sp, uint32_t ref)
{
	return sp->p + ref + sizeof(uint32_t);
}

bool
strpool_eq(const struct strpool *sp, uint32_t ref, const char *str)
{
	const char *h = head_of(sp, ref);
	uint32_t t = tail_of(sp, ref);
	size_t i;

	if (t == TAIL_NONE)
		return strcmp(h, str) == 0;
	for (i = 0; h[i] != '\0'; i++)
		if (h[i] != str[i])
			return false;
	return strcmp(sp->p + t, str + i) == 0;
}

size_t
strpool_get(const struct strpool *sp, uint32_t ref, char *out, size_t len,
    bool zero_rest)
{
	const char *h = head_of(sp, ref);
	size_t hl = strlen(h), tl = 0, n;
	uint32_t t = tail_of(sp, ref);

	if (len == 0)
		return 0;
	if (t != TAIL_NONE)
		tl = strlen(sp->p + t);
	n = hl < len - 1 ? hl : len - 1;
	memcpy(out, h, n);
	if (t != TAIL_NONE && n < len - 1) {
		tl = tl < len - 1 - n ? tl : len - 1 - n;
		memcpy(out + n, sp->p + t, tl);
		n += tl;
	}
	if (zero_rest)
		memset(out + n, 0, len - n);
	else
		out[n] = '\0';
	return n;
}

/* Length of the tail str shares with the base. */
static size_t
common_tail(const struct strpool *sp, const char *str, size_t l)
{
	const char *b = head_of(sp, sp->base);
	size_t k = 0;

	if (!sp->has_base)
		return 0;
	while (k < l && k < sp->base_len && str[l - 1 - k] ==
	    b[sp->base_len - 1 - k])
		k++;
	return k;
}

static int
room(struct strpool *sp, size_t need)
{
	size_t cap;
	char *np;

	if (sp->len + need <= sp->cap)
		return 0;
	if (sp->len + need > UINT32_MAX - 1)
		return -1;
	cap = sp->cap ? sp->cap * 2 : 512;
	while (cap < sp->len + need)
		cap *= 2;
	if ((np = realloc(sp->p, cap)) == NULL)
		return -1;
	sp->p = np;
	sp->cap = cap;
	return 0;
}

static void
remember(struct strpool *sp, uint32_t ref)
{
	if (sp->nrecent == STRPOOL_RECENT)
		memmove(sp->recent, sp->recent + 1, (STRPOOL_RECENT - 1) *
		    sizeof(sp->recent[0]));
	else
		sp->nrecent++;
	sp->recent[sp->nrecent - 1] = ref;
}

int64_t
strpool_put(struct strpool *sp, const char *str)
{
	size_t i, l = strlen(str), k, hl;
	uint32_t ref, t = TAIL_NONE;

	for (i = 0; i < sp->nrecent; i++)
		if (strpool_eq(sp, sp->recent[i], str))
			return sp->recent[i];
	k = common_tail(sp, str, l);
	hl = k >= TAIL_MIN ? l - k : l;
	if (room(sp, sizeof(t) + hl + 1) != 0)
		return -1;
	ref = (uint32_t)sp->len;
	if (k >= TAIL_MIN)
		t = sp->base + (uint32_t)sizeof(t) + sp->base_len - (uint32_t)k;
	memcpy(sp->p + ref, &t, sizeof(t));
	memcpy(sp->p + ref + sizeof(t), str, hl);
	sp->p[ref + sizeof(t) + hl] = '\0';
	sp->len += sizeof(t) + hl + 1;
	if (t == TAIL_NONE && l >= BASE_MIN) {
		sp->base = ref;
		sp->base_len = (uint32_t)l;
		sp->has_base = true;
	}
	remember(sp, ref);
	return ref;
}

void
strpool_trim(struct strpool *sp)
{
	char *np;

	if (sp->len == 0) {
		free(sp->p);
		sp->p = NULL;
		sp->cap = 0;
	} else if (sp->len < sp->cap && (np = realloc(sp->p, sp->len)) !=
	    NULL) {
		sp->p = np;
		sp->cap = sp->len;
	}
}
