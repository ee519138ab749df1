/* jspill.c - a writer summary's closed spans in an unlinked file (jspill.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jseg.h"
#include "jspill.h"
#include "jsum.h"

/* A record: the span's bytes, then the reference of the one before. */
#define REC_LEN		(sizeof(struct jsum_span) + 8)
#define BLOCK_RECS	136		/* written a block at a time: 16,320
					   bytes */
#define BLOCK_LEN	(BLOCK_RECS * REC_LEN)
#define UNIT_RECS	34		/* read a unit at a time: 4,080 bytes,
					   a quarter of a block */
#define UNIT_LEN	(UNIT_RECS * REC_LEN)
#define CACHE_UNITS	32		/* a summary's writing reads each
					   slot's records mostly in series
					   order (one stream per closed slot
					   of the hour); when the polls came
					   in another order, a miss costs
					   4 KB, not a block */
_Static_assert(BLOCK_RECS % UNIT_RECS == 0, "a unit lies in one block");

struct cached {
	uint64_t	 unit;		/* unit number, or UINT64_MAX */
	uint64_t	 used;		/* when last read (LRU) */
};

struct jspill {
	int		 fd;
	int		 failed;	/* errno of the write that failed, or
					   0: from then on, full blocks are
					   kept in memory (mem) */
	uint64_t	 nrec;		/* records appended */
	uint64_t	 on_disk;	/* blocks written (the first ones) */
	uint8_t		*buf;		/* the block being filled */
	uint8_t		**mem;		/* full blocks after on_disk, nmem */
	size_t		 nmem;
	uint8_t		*cache;		/* CACHE_UNITS units, once read */
	struct cached	 tag[CACHE_UNITS];
	uint64_t	 clock;
	struct jsum_span *chain;	/* jspill_chain's answer */
	size_t		 chain_cap;
};

struct jspill *
jspill_new(int fd)
{
	struct jspill *p = calloc(1, sizeof(*p));

	if (p == NULL || (p->buf = malloc(BLOCK_LEN)) == NULL) {
		free(p);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	p->fd = fd;
	return p;
}

void
jspill_free(struct jspill *p)
{
	size_t i;

	if (p == NULL)
		return;
	close(p->fd);
	for (i = 0; i < p->nmem; i++)
		free(p->mem[i]);
	free(p->mem);
	free(p->buf);
	free(p->cache);
	free(p->chain);
	free(p);
}

int
jspill_failed(const struct jspill *p)
{
	return p->failed;
}

int
jspill_tmpfile(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL))
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/.spill-XXXXXX", dir) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0 && unlink(path) != 0) {
		int e = errno;	/* a name left in the directory: no spill */

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The full block buf: written after the others (the file's offset is
 * theirs' end: only whole blocks are written, and none after a failure;
 * reads use pread), or kept in memory once a write failed (a full disk:
 * the spans are still all there).  0, or -1 out of memory. */
static int
block_full(struct jspill *p)
{
	uint8_t *nb, **nm;

	if (!p->failed) {
		if (jseg_write_all(p->fd, p->buf, BLOCK_LEN) == 0) {
			p->on_disk++;
			return 0;
		}
		p->failed = errno;
	}
	if ((nb = malloc(BLOCK_LEN)) == NULL ||
	    (nm = reallocarray(p->mem, p->nmem + 1, sizeof(*nm))) == NULL) {
		free(nb);
		errno = ENOMEM;
		return -1;
	}
	p->mem = nm;
	p->mem[p->nmem++] = p->buf;
	p->buf = nb;
	return 0;
}

int
jspill_put(struct jspill *p, const struct jsum_span *sp, uint32_t prev,
    uint32_t *ref)
{
	uint64_t slot = p->nrec % BLOCK_RECS;
	uint8_t *r = p->buf + slot * REC_LEN;
	uint64_t link = prev;

	/* a reference is 32 bits; an offset must fit off_t */
	if (p->nrec >= UINT32_MAX || (sizeof(off_t) < 8 &&
	    p->nrec >= INT32_MAX / REC_LEN)) {
		errno = EFBIG;
		return -1;
	}
	memcpy(r, sp, sizeof(*sp));
	memcpy(r + sizeof(*sp), &link, sizeof(link));
	if (slot + 1 == BLOCK_RECS && block_full(p) != 0)
		return -1;	/* the record not counted */
	*ref = (uint32_t)++p->nrec;
	return 0;
}

/* Reads unit u (whole: only full blocks are on disk).  0 or -1. */
static int
read_unit(int fd, uint8_t *b, uint64_t u)
{
	size_t got = 0;
	ssize_t n;

	while (got < UNIT_LEN) {
		n = pread(fd, b + got, UNIT_LEN - got,
		    (off_t)(u * UNIT_LEN + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/* The bytes of record k (0-based), on disk, through the cache.  NULL with
 * errno. */
static const uint8_t *
cached_record(struct jspill *p, uint64_t k)
{
	uint64_t u = k / UNIT_RECS;
	size_t i, victim = 0;

	if (p->cache == NULL) {
		if ((p->cache = malloc(CACHE_UNITS * UNIT_LEN)) == NULL)
			return NULL;
		for (i = 0; i < CACHE_UNITS; i++)
			p->tag[i].unit = UINT64_MAX;
	}
	for (i = 0; i < CACHE_UNITS; i++) {
		if (p->tag[i].unit == u)
			break;
		if (p->tag[i].used < p->tag[victim].used)
			victim = i;
	}
	if (i == CACHE_UNITS) {
		i = victim;
		p->tag[i].unit = UINT64_MAX;
		if (read_unit(p->fd, p->cache + i * UNIT_LEN, u) != 0)
			return NULL;
		p->tag[i].unit = u;
	}
	p->tag[i].used = ++p->clock;
	return p->cache + i * UNIT_LEN + (k % UNIT_RECS) * REC_LEN;
}

/* The bytes of record k (0-based): on disk, in a block kept in memory, or
 * in the block being filled.  NULL with errno. */
static const uint8_t *
record(struct jspill *p, uint64_t k)
{
	uint64_t blk = k / BLOCK_RECS;

	if (blk < p->on_disk)
		return cached_record(p, k);
	if (blk - p->on_disk < p->nmem)
		return p->mem[blk - p->on_disk] + (k % BLOCK_RECS) * REC_LEN;
	return p->buf + (k % BLOCK_RECS) * REC_LEN;
}

int
jspill_chain(struct jspill *p, uint32_t ref, size_t n,
    const struct jsum_span **out)
{
	const uint8_t *r;
	uint64_t link;
	void *np;
	size_t i;

	if (n > p->chain_cap) {
		if ((np = reallocarray(p->chain, n, sizeof(*p->chain))) ==
		    NULL)
			return -1;
		p->chain = np;
		p->chain_cap = n;
	}
	for (i = n; i-- > 0; ref = (uint32_t)link) {
		if (ref == 0 || ref > p->nrec) {
			errno = EIO;
			return -1;
		}
		if ((r = record(p, ref - 1)) == NULL)
			return -1;
		memcpy(&p->chain[i], r, sizeof(*p->chain));
		memcpy(&link, r + sizeof(*p->chain), sizeof(link));
		if (link >= ref) {	/* a chain only goes back */
			errno = EIO;
			return -1;
		}
	}
	if (ref != 0) {
		errno = EIO;
		return -1;
	}
	*out = p->chain;
	return 0;
}
