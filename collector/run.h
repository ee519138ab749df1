/*
 * run.h - the collector: targets from the config, their polls on one loop,
 * ingest of every finished poll, signals (SIGTERM/SIGINT stop, SIGHUP
 * reloads by swap), and the health of each target for the exposition.
 */
#ifndef WP_RUN_H
#define WP_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "lib/sample.h"

struct wp_conf;
struct collector;
struct loop;
struct ingest_ctr;

/* Health of one target, as the exposition shows it (borrowed view). */
struct target_view {
	const char	*name;
	const char	*driver;	/* "redfish"... */
	const char	*node;		/* or NULL */
	bool		 up;
	const char	*reason;	/* error class name when down, else "" */
	const char	*error;		/* last error message, or "" */
	wp_time		 last_poll_real;
	wp_time		 last_duration;
	unsigned long	 polls, failures;
	const struct wp_sample *last;	/* samples of the last good poll */
	size_t		 n_last;
	/* Counter state per sample of last (n_last entries), or NULL. */
	const struct ingest_ctr *ctr;
	/* Pushed readings (lib/push.h): push_up -1 not a push target, 0
	 * channel down, 1 up; reports by result and values refused
	 * (replayed, out of order) by WP_PUSH_* (NULL when push_up -1). */
	int		 push_up;
	const unsigned long *push_reports;	/* WP_PUSH_N entries */
	const unsigned long *push_refused;	/* WP_PUSH_N entries */
	/* The class of its last failed poll, kept after it recovers ("" if
	 * none since the start), and when (realtime, 0 never). */
	const char	*last_error_reason;
	wp_time		 last_error_real;
};

/* Config reloads (SIGHUP): whether the last one took, when one last took
 * (realtime; the start counts as one), and how many were tried. */
struct collector_reloads {
	bool		 ok;
	wp_time		 last_ok_real;
	unsigned long	 tried, failed;
};

struct collector_opts {
	bool	 once;		/* one poll of every target, then stop */
};

/* Builds the collector on conf (taken over: freed by collector_free). */
struct collector *collector_new(struct wp_conf *conf,
		    const struct collector_opts *o, struct wp_err *err);
void		 collector_free(struct collector *co);
/* Runs until SIGTERM/SIGINT (or one cycle with once).  0 or -1. */
int		 collector_run(struct collector *co, struct wp_err *err);
/* Visits every target's health view; stops early if fn returns non-zero. */
int		 collector_each_target(const struct collector *co,
		    int (*fn)(const struct target_view *, void *), void *arg);
/* The current config (borrowed: valid until the next reload). */
const struct wp_conf *collector_conf(const struct collector *co);
struct ingest_health;
/* The storage's health (journal, RRD) now. */
void		 collector_health(const struct collector *co,
		    struct ingest_health *h);
/* The current config, held: it stays valid across reloads until
 * collector_conf_release (NULL-safe).  Both on the loop thread. */
const struct wp_conf *collector_conf_hold(struct collector *co);
void		 collector_conf_release(struct collector *co,
		    const struct wp_conf *c);
struct drift_watch;
/* The drift watch of the current config (borrowed: valid until the next
 * reload), for drift_watch_each (drift_watch.h). */
const struct drift_watch *collector_drift(const struct collector *co);
/* The push listener's refusals of POSTs that named no target
 * (WP_PUSH_N entries), or NULL without collector.push_listen. */
const unsigned long *collector_push_listen_refused(
		    const struct collector *co);
void		 collector_reloads(const struct collector *co,
		    struct collector_reloads *r);
/* The loop the collector runs on (borrowed), for servers beside it. */
struct loop	*collector_loop(const struct collector *co);

#endif
