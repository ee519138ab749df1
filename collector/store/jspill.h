/*
 * jspill.h - a writer summary's closed spans kept in a file, not in memory.
 *
 * The journal writer's summary (jsum.h) holds every series of the fleet for
 * a whole segment; a series' span whose summary slot has passed is needed
 * again only when the segment closes (its summary and ledger block are
 * written) or when the ledger's column closes a slot.  A spill keeps those
 * spans in an unlinked file: each span is one fixed-size record appended
 * with the reference of the series' record before it, so a series keeps
 * one 32-bit reference (its last record) for all its closed spans, and
 * reads them back oldest first with jspill_chain.  Records are appended a
 * block (16 KB) at a time and read back through a small cache of 4 KB
 * units, so a summary's writing reads the file a unit at a time, not a
 * span at a time.  When a block cannot be written (a full disk), it and
 * the blocks after it are kept in memory instead: nothing is lost, and
 * jspill_failed says why.  A reference is 1 + the record's number: 0
 * means none.
 * Not thread-safe; the file's bytes are the process's own (exact doubles,
 * host byte order) and are never read by anything else.
 */
#ifndef WP_JSPILL_H
#define WP_JSPILL_H

#include <stddef.h>
#include <stdint.h>

struct jsum_span;
struct jspill;

/* A spill over fd (open for reading and writing, empty), which it owns
 * from then on: the caller frees the spill with jspill_free, which closes
 * fd.  NULL out of memory (errno ENOMEM; fd closed here). */
struct jspill	*jspill_new(int fd);
void		 jspill_free(struct jspill *p);		/* NULL-safe */
/* An unlinked file for a spill in dir (O_TMPFILE, or a name removed at
 * once where the file system has none).  An fd, or -1 with errno (no file
 * made, or its name could not be removed: the file is then left there,
 * and the errno says why). */
int		 jspill_tmpfile(const char *dir);
/* Appends sp, the closed span after the one of reference prev (0: its
 * series' first).  Its reference in *ref: 0, or -1 with errno (ENOMEM, or
 * EFBIG past 2^32 - 1 records, or past 2 GiB where off_t has 32 bits):
 * sp not appended. */
int		 jspill_put(struct jspill *p, const struct jsum_span *sp,
		    uint32_t prev, uint32_t *ref);
/* The errno of the write that failed (the blocks since kept in memory),
 * or 0. */
int		 jspill_failed(const struct jspill *p);
/* The n spans of the chain that ends at reference ref, oldest first, in
 * *out (the spill's buffer: valid until the next call on p).  0, or -1
 * with errno (EIO: the chain is not n records long). */
int		 jspill_chain(struct jspill *p, uint32_t ref, size_t n,
		    const struct jsum_span **out);

#endif
