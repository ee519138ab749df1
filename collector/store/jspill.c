/* jspill.c - a writer summary's closed spans in an unlinked file (jspill.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jspill.h"
#include "jsum.h"

/* A record: the span's bytes, then the reference of the one before. */
#define REC_LEN		(sizeof(struct jsum_span) + 8)
#define BLOCK_RECS	136		/* a block: 16,320 bytes */
#define BLOCK_LEN	(BLOCK_RECS * REC_LEN)
#define CACHE_BLOCKS	8		/* a summary's writing reads each
					   slot's records in series order:
					   one stream per slot of the hour */

struct cached {
	uint64_t	 blk;		/* block number, or UINT64_MAX */
	uint64_t	 used;		/* when last read (LRU) */
};

struct jspill {
	int		 fd;
	int		 failed;	/* errno of a failed write, or 0 */
	uint64_t	 nrec;		/* records appended (on disk: nrec
					   less those in buf) */
	uint8_t		*buf;		/* the block being filled */
	uint8_t		*cache;		/* CACHE_BLOCKS blocks, once read */
	struct cached	 tag[CACHE_BLOCKS];
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
	if (p == NULL)
		return;
	close(p->fd);
	free(p->buf);
	free(p->cache);
	free(p->chain);
	free(p);
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
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
		(void)unlink(path);
	return fd;
}

/* Writes len bytes at off, all of them.  0, or -1 with errno. */
static int
pwrite_all(int fd, const uint8_t *b, size_t len, off_t off)
{
	ssize_t w;

	while (len > 0) {
		if ((w = pwrite(fd, b, len, off)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		len -= (size_t)w;
		off += w;
	}
	return 0;
}

int
jspill_put(struct jspill *p, const struct jsum_span *sp, uint32_t prev,
    uint32_t *ref)
{
	uint64_t slot = p->nrec % BLOCK_RECS;
	uint8_t *r = p->buf + slot * REC_LEN;
	uint64_t link = prev;

	if (p->failed) {
		errno = p->failed;
		return -1;
	}
	if (p->nrec >= UINT32_MAX) {
		errno = p->failed = EFBIG;
		return -1;
	}
	memcpy(r, sp, sizeof(*sp));
	memcpy(r + sizeof(*sp), &link, sizeof(link));
	if (slot + 1 == BLOCK_RECS && pwrite_all(p->fd, p->buf, BLOCK_LEN,
	    (off_t)(p->nrec / BLOCK_RECS * BLOCK_LEN)) != 0) {
		p->failed = errno;
		return -1;
	}
	*ref = (uint32_t)++p->nrec;
	return 0;
}

/* Reads block blk (whole: only full blocks are on disk).  0 or -1. */
static int
read_block(int fd, uint8_t *b, uint64_t blk)
{
	size_t got = 0;
	ssize_t n;

	while (got < BLOCK_LEN) {
		n = pread(fd, b + got, BLOCK_LEN - got,
		    (off_t)(blk * BLOCK_LEN + got));
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

/* The bytes of record k (0-based): in the block being filled or through
 * the cache.  NULL with errno. */
static const uint8_t *
record(struct jspill *p, uint64_t k)
{
	uint64_t blk = k / BLOCK_RECS, on_disk = p->nrec / BLOCK_RECS;
	size_t i, victim = 0;

	if (blk >= on_disk)
		return p->buf + (k % BLOCK_RECS) * REC_LEN;
	if (p->cache == NULL) {
		if ((p->cache = malloc(CACHE_BLOCKS * BLOCK_LEN)) == NULL)
			return NULL;
		for (i = 0; i < CACHE_BLOCKS; i++)
			p->tag[i].blk = UINT64_MAX;
	}
	for (i = 0; i < CACHE_BLOCKS; i++) {
		if (p->tag[i].blk == blk)
			break;
		if (p->tag[i].used < p->tag[victim].used)
			victim = i;
	}
	if (i == CACHE_BLOCKS) {
		i = victim;
		p->tag[i].blk = UINT64_MAX;
		if (read_block(p->fd, p->cache + i * BLOCK_LEN, blk) != 0)
			return NULL;
		p->tag[i].blk = blk;
	}
	p->tag[i].used = ++p->clock;
	return p->cache + i * BLOCK_LEN + (k % BLOCK_RECS) * REC_LEN;
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
