/*
 * diskq.h - a bounded first-in first-out queue of batches on disk: one
 * file per batch in one directory, named by its sequence number (20
 * digits, ".rwb"), written to a temporary name and renamed, so that a
 * batch is either whole in the queue or absent.  Sequence numbers grow by
 * one per batch and carry on across restarts (the largest on disk, + 1);
 * a batch leaves the queue only by diskq_pop (delivered or refused) or by
 * the bound: a push that takes the queue over max_bytes drops the oldest
 * batches first, never the one being sent (diskq_peek's).  Not
 * thread-safe: one owner.  Each file: "WPRWQ1\n\0", the item count and
 * the data length (8 bytes each, little-endian), the data.
 */
#ifndef WP_DISKQ_H
#define WP_DISKQ_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct diskq;

/* Opens dir (made if missing, 0700) with the batches already there.
 * Returns a new queue (caller frees with diskq_close) or NULL with err. */
struct diskq	*diskq_open(const char *dir, uint64_t max_bytes,
		    struct wp_err *err);
void		 diskq_close(struct diskq *q);	/* NULL-safe; files stay */

/*
 * Appends data[0..len) holding items items as the newest batch; then
 * drops the oldest batches (not the one peeked) while over max_bytes,
 * adding their items to *dropped.  A batch bigger than max_bytes alone is
 * refused (-1, nothing queued).  0 or -1 with err (a write failed).
 */
int	 diskq_push(struct diskq *q, const void *data, size_t len,
	    uint64_t items, uint64_t *dropped, struct wp_err *err);
/*
 * Reads the oldest batch into a new buffer *data (caller frees) of *len
 * bytes, with its sequence number and item count, and marks it as being
 * sent.  1 when the queue is empty, 0, or -1 with err (an unreadable
 * batch is removed and its items, as far as known, added to *dropped).
 */
int	 diskq_peek(struct diskq *q, uint8_t **data, size_t *len,
	    uint64_t *seq, uint64_t *items, uint64_t *dropped,
	    struct wp_err *err);
/* Removes batch seq if it is the oldest (clearing the mark); 0, or -1
 * when it is not there. */
int	 diskq_pop(struct diskq *q, uint64_t seq);
/* Clears the being-sent mark (a failed send: the batch stays first). */
void	 diskq_unmark(struct diskq *q);

size_t	 diskq_len(const struct diskq *q);	/* batches */
uint64_t diskq_bytes(const struct diskq *q);	/* their files' bytes */
uint64_t diskq_items(const struct diskq *q);	/* their items */
uint64_t diskq_next_seq(const struct diskq *q);

#endif
