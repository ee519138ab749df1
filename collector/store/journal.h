/*
 * journal.h - the append-only, tamper-evident raw journal.
 *
 * One record per target per poll, holding every value as read plus the
 * counter result (delta, reset-corrected cumulative).  Records are chained
 * by SHA-256: each record's hash covers the previous record's hash and its
 * own bytes.  Segments rotate hourly (UTC); a manifest chains the segments'
 * final hashes, so verification still works after old segments expire.
 * The on-disk format is documented in docs/journal.md.  The journal is the
 * audit trail, the source of exact window edges for reports, and (with
 * state.h) what restores counter state after a crash.
 */
#ifndef WP_JOURNAL_H
#define WP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/clock.h"
#include "../lib/err.h"
#include "../lib/sample.h"
#include "record.h"

struct journal;

enum journal_fsync { JOURNAL_FSYNC_POLL, JOURNAL_FSYNC_SEGMENT,
    JOURNAL_FSYNC_NONE };

struct journal_opts {
	wp_time		 retention;	/* 0: 90 days */
	int		 fsync;		/* enum journal_fsync */
	wp_time		 segment_len;	/* 0: 1 h (tests use less) */
	wp_time		 summary_slot;	/* summary span length (jsum.h);
					   0: 10 min, < 0: no summaries */
	wp_time		 sync_interval;	/* FSYNC_POLL group commit: fdatasync
					   at most this often, on a thread of
					   the journal's own (the appending
					   thread does not wait for it),
					   journal_sync starts one for the
					   rest; 0: every append, at once */
	const char	*ledger_dir;	/* ledger.h: a block per closed
					   segment there; NULL: none */
	wp_time		 ledger_slot;	/* 0: 1 h */
	wp_time		 ledger_retention;	/* 0: 10 years */
	int		 compress;	/* 0: zstd at segment close (jzst.c);
					   < 0: closed segments stay plain */
	int		 record_version;	/* 0: the current (2);
					   1: the old encoding (tests) */
};

/* Opens (creating) dir for appending; resumes the chain.  Caller closes. */
struct journal	*journal_open(const char *dir, const struct journal_opts *o,
		    struct wp_err *err);
/* Appends one record (copied); rotates and expires as due.  0; 1 when
 * the record is written but its sync, or an earlier background one,
 * failed (err says; the record is in the file, and what the sync covered
 * is synced again later, though the kernel may have dropped it after the
 * error); -1 with err when it is not written. */
int		 journal_append(struct journal *j,
		    const struct journal_record *r, struct wp_err *err);
/* fdatasync of what is appended, waited for (a background sync too): 0,
 * or -1 with err (also when background syncs fail and none has succeeded
 * since: this one's success does not cover what the kernel may have
 * dropped).  Checkpoints and tests. */
int		 journal_flush(struct journal *j, struct wp_err *err);
/* Group commit's timer: starts the background fdatasync of what is
 * appended, unless one runs (a sync that failed is told by the next
 * append's 1, not here).  0, or -1 with err when no thread could start
 * and the sync made here failed.  Without a sync interval, journal_flush
 * when dirty. */
int		 journal_sync(struct journal *j, struct wp_err *err);
void		 journal_close(struct journal *j);	/* NULL-safe */

struct journal_verify_stats {
	size_t	 segments, records, expired_segments;
	size_t	 summaries;	/* summaries checked against their segment */
	char	 first_bad[256];	/* where verification failed, or "" */
	char	 note[256];	/* tolerated: torn tail after a crash, or "" */
};

/*
 * Verifies every segment and the manifest chain, and each closed
 * segment's summary (if present) against the segment.  Returns 0 if intact,
 * -1 with err naming the first bad segment and record otherwise.
 */
int	 journal_verify(const char *dir, struct journal_verify_stats *st,
	    struct wp_err *err);

/*
 * Calls cb for each record with from <= t_real < to (to = 0: no end), in
 * order; the record is borrowed for the call.  cb returns 0 to go on,
 * non-zero to stop.  Returns 0, or -1 on a read error.
 */
typedef int (*journal_cb)(const struct journal_record *r, void *arg);
int	 journal_scan(const char *dir, wp_time from, wp_time to, journal_cb cb,
	    void *arg, struct wp_err *err);

/*
 * journal_scan, with summaries (jsum.h): each closed segment whose
 * records all lie in [from, to) and whose summary is valid (trailer hash,
 * chain values and count as in the MANIFEST) is first offered to scb,
 * which returns 1 (taken: its records are not read), 0 (read the records
 * as usual) or -1 (stop: error).  st (may be NULL) counts both.
 */
struct jsum;
typedef int (*journal_sum_cb)(const struct jsum *s, void *arg);
struct journal_scan_stats {
	size_t	 segments_read, summaries_used;
	size_t	 ledger_used;	/* ledger blocks taken by scb */
	size_t	 ledger_days;	/* ledger day blocks taken by scb */
	size_t	 ledger_forced;	/* blocks given to fcb: raw gone */
};
int	 journal_scan_sum(const char *dir, wp_time from, wp_time to,
	    journal_cb cb, journal_sum_cb scb, void *arg,
	    struct journal_scan_stats *st, struct wp_err *err);

/*
 * journal_scan_sum over the journal dir and the ledger ldir (ledger.h):
 * segment by segment in time order, the ledger block (when valid) is
 * offered to scb first; if not taken, the segment's summary and records
 * as journal_scan_sum does; when the raw segment is gone (expired), the
 * block is given to fcb, which applies what it can (its return as scb's,
 * 0 meaning skipped).  A missing or invalid ledger index: the journal
 * alone.  The blocks come from a ledger_rd: the next one is read and
 * hashed on a second thread while the callbacks run (they run on the
 * caller's thread; the thread is joined before this returns), and a block
 * given to scb and fcb is valid only during the call.  With days, a UTC
 * day inside [from, to] is offered first as its day block (DAYS), which
 * holds its blocks' spans series by series; taken, the day's segments
 * and blocks are skipped; not taken (or absent), they are read as above.
 */
int	 journal_scan_ledger(const char *dir, const char *ldir, bool days,
	    wp_time from, wp_time to, journal_cb cb, journal_sum_cb scb,
	    journal_sum_cb fcb, void *arg, struct journal_scan_stats *st,
	    struct wp_err *err);

/* Writes records in [from, to) as CSV, one row per value, header first. */
int	 journal_export_csv(const char *dir, wp_time from, wp_time to,
	    FILE *out, struct wp_err *err);

#endif
