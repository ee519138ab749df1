/*
 * ingest.h - what happens to a finished poll: counters are differenced
 * (model/counter.c, with reset, wrap and dip detection), the record goes to
 * the journal (every poll, failed ones too), values go to the RRD store,
 * and the counter state is checkpointed now and then so a restart resumes
 * exactly.  Runs on the loop thread.
 */
#ifndef WP_INGEST_H
#define WP_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "lib/sample.h"

struct wp_conf;
struct ingest;
struct sertext;

/* A counter sample's state after a poll (optional output, for the
 * exposition): the reset-corrected cumulative and this poll's delta. */
struct ingest_ctr {
	double		 cum;		/* reset-corrected cumulative, SI */
	double		 delta;		/* added by this poll, SI */
	wp_time		 span;		/* realtime since the previous reading,
					   0 unknown */
	unsigned	 resets;	/* resets seen on the series */
	uint16_t	 flags;		/* CTR_* of this poll */
	bool		 valid;		/* the sample was a counter */
	/* a power gauge (valid false): cum is its gauge-estimated energy
	 * (J, the trapezoid since the collector started), delta this
	 * poll's part; filled by the runtime, not by ingest_poll */
	bool		 integrated;
};

struct ingest_poll {
	const char	*target;
	bool		 hold_dips;	/* meters: hold reboot dips as unknown */
	wp_time		 t_real, t_mono, duration;
	wp_time		 interval;	/* the target's poll interval, 0 */
	int		 status;	/* 0, or the failure's error class */
	const char	*error;		/* "" on success */
	struct wp_sample *v;		/* flags updated in place */
	size_t		 n;
	struct ingest_ctr *ctr;		/* optional: n entries filled, or NULL */
	struct sertext	*text;		/* optional: v's strings, position by
					   position (sertext.h), which the
					   journal then holds, or NULL */
};

/*
 * Opens <data_dir>/{journal,rrd,state} (created if missing) and restores
 * counter state.  Returns a new ingest (caller frees with ingest_free).
 */
struct ingest	*ingest_new(const struct wp_conf *conf, struct wp_err *err);
/* The health of one storage part (the journal, the RRD store). */
struct ingest_part {
	bool		 ok;		/* its last write got through */
	wp_time		 since;		/* realtime of the last change of ok */
	wp_time		 last_ok;	/* realtime of the last good write, 0 */
	unsigned long	 written;	/* journal: records; RRD: values */
	unsigned long	 failed;	/* writes that failed (journal: also
					   records written whose sync failed) */
	unsigned long	 dropped;	/* RRD: values a full queue left out */
	size_t		 queued;	/* RRD: waiting to be written */
	char		 error[WP_ERR_MSG];	/* the last failure, or "" */
};

struct ingest_health {
	struct ingest_part journal, rrd;
};

/* A copy of the storage's health (for /healthz and /metrics). */
void		 ingest_health(struct ingest *in, struct ingest_health *h);
/* Batch ingest (the simulator's history): the RRD writer's queue waits
 * for room instead of dropping values.  The daemon never sets it. */
void		 ingest_set_batch(struct ingest *in);
/* Checkpoints state, flushes and closes everything.  NULL-safe. */
void		 ingest_free(struct ingest *in);
/* Ingests one poll.  0, or -1 if the journal could not be written or
 * synced (the RRD store still gets the values; the failure and the
 * recovery are logged once each; a record not written has its deltas in
 * the counters' next ones, a record written whose sync failed keeps its
 * own). */
int		 ingest_poll(struct ingest *in, const struct ingest_poll *p,
		    struct wp_err *err);
/*
 * Group commit: starts the journal's fdatasync, on the journal's own
 * thread, if records wait for it (a sync that failed is told by the next
 * poll's ingest_poll).  The loop calls this every INGEST_SYNC_EVERY, so
 * with fsync "poll" every record is on disk within that time (and the
 * disk's own), at one fdatasync per interval instead of one per poll, and
 * the loop does not wait for the disk but at a checkpoint and a segment's
 * close.  -1 with err only where no sync thread could start and the sync
 * made here instead failed.
 */
#define INGEST_SYNC_EVERY	(1 * WP_SEC)
int		 ingest_sync(struct ingest *in, struct wp_err *err);
/* Saves counter state, flushes the journal and writes the RRD values
 * held past their delay (all of them from ingest_free). */
int		 ingest_checkpoint(struct ingest *in, struct wp_err *err);

#endif
