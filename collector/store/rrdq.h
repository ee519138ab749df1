/*
 * rrdq.h - the RRD store off the loop.
 *
 * librrd and rrdcached calls block (a stalled rrdcached holds a call for
 * as long as it is stopped), so the loop never makes them: it puts each
 * value and each end of poll into a bounded queue, without blocking, and
 * one writer thread that owns the struct store (store.h) does the writing.
 * Woken by a value put on an empty queue, the writer waits a second for
 * more (less once 1/8 of the queue is taken) and takes them in one go, so
 * the thread wakes about once a second, not once per poll.
 * When the queue is full the value is dropped and counted (the RRD files
 * are the dashboards' history; the journal, which is written on the loop,
 * keeps every reading).  The writer's health (writes done, failures with
 * the real reason, drops, when it last got through) is for the log,
 * /healthz and /metrics.
 */
#ifndef WP_RRDQ_H
#define WP_RRDQ_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/clock.h"
#include "../lib/err.h"
#include "../lib/sample.h"
#include "store.h"

struct rrdq;

#define RRDQ_DEFAULT_CAP	16384	/* values queued at most */

struct rrdq_health {
	bool		 ok;		/* the last write got through */
	wp_time		 since;		/* realtime of the last change of ok */
	wp_time		 last_ok;	/* realtime of the last good write, 0 */
	unsigned long	 written;	/* values handed to librrd/rrdcached */
	unsigned long	 failed;	/* writes that failed */
	unsigned long	 dropped;	/* values the full queue left out */
	size_t		 queued;	/* waiting now */
	char		 error[WP_ERR_MSG];	/* the last failure, or "" */
};

/* Takes st over (freed by rrdq_free) and starts its writer.  cap: values
 * queued at most (0: RRDQ_DEFAULT_CAP).  NULL with err; st is freed. */
struct rrdq	*rrdq_new(struct store *st, size_t cap, struct wp_err *err);
/*
 * Stops the writer once it has written everything queued and freed (so
 * flushed) the store, waiting at most grace; a writer still blocked then
 * (a stalled rrdcached) is left behind with what it holds, for the
 * process's exit to end.  NULL-safe.
 */
void		 rrdq_free(struct rrdq *q, wp_time grace);

/* Batch writers (the simulator's history) wait for room instead of
 * dropping; the daemon never does. */
void		 rrdq_set_blocking(struct rrdq *q, bool block);
/* Queues store_update(target, s, cum, t); never blocks (unless set so).
 * 0, or -1 when the queue is full (the value is dropped and counted). */
int		 rrdq_put(struct rrdq *q, const char *target,
		    const struct wp_sample *s, double cum, wp_time t);
/* Queues store_commit: the values put since the last commit are a poll. */
void		 rrdq_commit(struct rrdq *q);
/* Queues store_write_due(now): values held past twice the write delay. */
void		 rrdq_due(struct rrdq *q, wp_time now);
/* A copy of the writer's health. */
void		 rrdq_health(struct rrdq *q, struct rrdq_health *h);

#endif
