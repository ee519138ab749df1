/*
 * ledger.h - the long-term energy ledger (docs/ledger.md).
 *
 * <data_dir>/ledger/ holds, per closed journal segment, one block: the
 * segment's summary (jsum.h) taken at the ledger slot (default 1 h): per
 * (target, series) and slot the first and last readings (value,
 * cumulative, counter flags), count, largest gap, energy integrated as the
 * report integrates it (counters: rises of the reset-corrected cumulative;
 * gauges: trapezoid), min/max and flags (reset, back, held, wrap, order).
 * A block file NAME.wpl has the .wps layout: its trailer is SHA-256 over
 * the segment's final chain hash and the bytes, so a block is bound to the
 * segment it came from.  The index LEDGER chains the blocks:
 *   block NAME START COUNT IN FIN FILE CHAIN
 * with IN/FIN the segment's chain values (as in the journal MANIFEST),
 * FILE the SHA-256 of the block file and CHAIN = SHA-256(previous CHAIN ||
 * the line up to FILE); a first line "anchor CHAIN" carries the chain
 * value of blocks dropped by retention.  Retention: 10 years by default,
 * independent of the raw journal's.
 *
 * Day blocks: once a block of a later day is appended, the blocks of each
 * UTC day before it are merged (jsum_merge: per series its spans of the
 * whole day, in order, names and labels once) into YYYYMMDD.wpd, with
 * the same trailer (over the day's last FIN) and count (the blocks'
 * sum), IN of its first block and FIN of its last; the index DAYS chains
 * them as LEDGER chains blocks ("day NAME START COUNT IN FIN FILE CHAIN",
 * START the day's 00:00 UTC).  A report takes a whole day in one block
 * (the same spans: the same figures); verify recomputes each day from its
 * blocks.
 */
#ifndef WP_LEDGER_H
#define WP_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/clock.h"
#include "../lib/err.h"
#include "jsum.h"

#define LEDGER_SLOT_DEFAULT	(3600LL * WP_SEC)
#define LEDGER_DAY		(86400LL * WP_SEC)
#define LEDGER_RETENTION_DEFAULT (3650LL * 86400 * WP_SEC)

struct ledger_entry {
	char	 name[32];	/* the segment's file name (.wpj) */
	wp_time	 start;
	uint64_t count;
	uint8_t	 in[JSUM_HASH_LEN], fin[JSUM_HASH_LEN];
	uint8_t	 file[JSUM_HASH_LEN], chain[JSUM_HASH_LEN];
};

struct ledger_index {
	struct ledger_entry *e;
	size_t	 n, cap;
	uint8_t	 anchor[JSUM_HASH_LEN];	/* chain before the first block */
	uint8_t	 last[JSUM_HASH_LEN];	/* chain after the last */
	bool	 exists;
	bool	 days;		/* DAYS (day lines), not LEDGER */
};

/* Reads and checks ldir/LEDGER (chain, order).  A missing file is an
 * empty index.  0, or -1 with err: WP_E_PROTOCOL naming the first bad
 * line, WP_E_TRANSIENT when the file cannot be opened or read (ix->exists
 * set when it was opened). */
int	 ledger_index_read(const char *ldir, struct ledger_index *ix,
	    struct wp_err *err);
/* The same for ldir/DAYS (ix->days set). */
int	 ledger_days_read(const char *ldir, struct ledger_index *ix,
	    struct wp_err *err);
void	 ledger_index_fini(struct ledger_index *ix);
/* The first entry starting at or after t (ix->n: none). */
size_t	 ledger_index_lower(const struct ledger_index *ix, wp_time t);
/* The entry of segment name, or NULL. */
const struct ledger_entry *ledger_index_find(const struct ledger_index *ix,
	    const char *name);
/* Reads and checks (file hash, trailer, chain values) e's block.  Caller
 * frees with jsum_free.  NULL with err. */
struct jsum *ledger_block_load(const char *ldir, const struct ledger_entry *e,
	    struct wp_err *err);
/*
 * Reading blocks one after another (journal_scan_ledger): each checked as
 * a report needs it (the file hash its index line names, which the chain
 * covers, and its chain values; the trailer is left to verify), decoded
 * by a jsum_rd (a series' text unchanged since the block before is not
 * decoded again), while the next block is read and hashed on a second
 * thread.  The reader owns its buffers and the thread, joined before any
 * call returns that starts no new one and by ledger_rd_free.
 */
struct ledger_rd;
struct ledger_rd *ledger_rd_new(const char *ldir);	/* NULL: ENOMEM */
/* Block e, checked and decoded; next: the block the caller will ask for
 * after it (read ahead), or NULL.  The summary is r's until the next call.
 * NULL with err when the block is missing or does not match its line. */
const struct jsum *ledger_rd_block(struct ledger_rd *r,
	    const struct ledger_entry *e, const struct ledger_entry *next,
	    struct wp_err *err);
void	 ledger_rd_free(struct ledger_rd *r);	/* NULL-safe; joins */

/* The writer the journal keeps (journal_opts.ledger_dir). */
struct ledger;
struct ledger	*ledger_open(const char *ldir, wp_time retention, bool sync,
		    struct wp_err *err);
/* Writes the block of a closed segment (s: its summary at the ledger
 * slot), appends its index line, drops blocks older than now - retention.
 * 0 or -1. */
int		 ledger_append(struct ledger *l, const char *name,
		    wp_time start, uint64_t count, const uint8_t in[32],
		    const uint8_t fin[32], struct jsum *s, wp_time now,
		    struct wp_err *err);
void		 ledger_close(struct ledger *l);	/* NULL-safe */
/* After a crash between a segment's close and its block: the blocks of
 * the closed segments of jdir after the ledger's last block, from their
 * raw segments (slot: the ledger slot).  An empty ledger is left empty
 * (`wattpath ledger rebuild` imports an existing journal).  Returns the
 * blocks added, or -1 with err. */
int		 ledger_catch_up(struct ledger *l, const char *jdir,
		    wp_time slot, struct wp_err *err);
/* The start of the last block, or -1 when the ledger is empty. */
wp_time		 ledger_last_start(const struct ledger *l);

struct ledger_stats {
	size_t	 blocks;	/* in the ledger */
	size_t	 rebuilt;	/* recomputed from raw segments */
	size_t	 kept;		/* kept: their raw segment expired */
	size_t	 checked_raw;	/* verify: compared with the raw segment */
	size_t	 days;		/* day blocks in DAYS */
	size_t	 days_checked;	/* verify: recomputed from their blocks */
	size_t	 days_rebuilt;	/* rebuild */
	char	 first_bad[256];
};

/* Recomputes ldir from the raw journal jdir (slot: ledger slot, 0
 * default): a block for every closed segment present, the existing block
 * kept for a segment that expired, then verifies.  0 or -1. */
int	 ledger_rebuild(const char *jdir, const char *ldir, wp_time slot,
	    wp_time retention, struct ledger_stats *st, struct wp_err *err);
/* Verifies ldir against jdir: the index chain and each block's file
 * hash and trailer; each block's chain values and count against the
 * MANIFEST; no MANIFEST segment since the first block missing; a block
 * whose raw segment exists recomputed and compared byte for byte.  0 or -1
 * with err and st->first_bad. */
int	 ledger_verify(const char *jdir, const char *ldir,
	    struct ledger_stats *st, struct wp_err *err);

/* Internal to collector/store (ledger.c, ledger_check.c, journal_scan.c). */
struct evp_md_ctx_st;
/* e->chain = SHA-256(prev || e's index line up to FILE).  0 or -1. */
int	 ledger_entry_chain(struct evp_md_ctx_st *md,
	    const uint8_t prev[JSUM_HASH_LEN], struct ledger_entry *e,
	    bool days);
/* The start (00:00 UTC) of the day of t. */
wp_time	 ledger_day_start(wp_time t);
/* Pushes e (its chain computed) onto ix; ix->last takes its chain.  0, or
 * -1 out of memory. */
int	 ledger_index_push(struct ledger_index *ix,
	    const struct ledger_entry *e);
/* ldir/NAME.wpl of segment NAME.wpj, or ldir/NAME of a day block
 * (NAME.wpd), in out. */
void	 ledger_block_path(const char *ldir, const char *name, char *out,
	    size_t len);
/* "YYYYMMDD.wpd" of the UTC day starting at day. */
void	 ledger_day_name(wp_time day, char out[32]);
/* The day block of [day, day + 1 day) from ix's blocks there (read from
 * ldir and checked): merged into m (the caller's, jsum_merge_fini when 0
 * is returned; the block is m->s) and its entry (all but chain and file).
 * 0, or -1 with err (no block that day, one that does not check). */
int	 ledger_day_merge(const char *ldir, const struct ledger_index *ix,
	    wp_time day, struct ledger_entry *e, struct jsum_merge *m,
	    struct wp_err *err);
/* As ledger_day_merge, hashed: its entry (all but chain), e->file the
 * hash of the block file it makes.  0, or -1 with err. */
int	 ledger_day_hash(const char *ldir, const struct ledger_index *ix,
	    wp_time day, struct ledger_entry *e, struct wp_err *err);
int	 ledger_mkdir(const char *ldir, struct wp_err *err);
int	 ledger_index_write_sync(const char *ldir,
	    const struct ledger_index *ix, bool sync);
size_t	 ledger_index_expire(const char *ldir, struct ledger_index *ix,
	    wp_time cut);

#endif
