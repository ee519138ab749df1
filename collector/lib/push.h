/*
 * push.h - readings a device sends on its own (Redfish EventService, SSE)
 * rather than in answer to a poll: how a driver hands them to the core,
 * and what became of each report, for /metrics.
 *
 * A driver that can receive pushed readings implements wp_driver's
 * push_attach; the core gives it a sink once, after target_new, valid
 * until target_free.  The driver calls sink->report for every report it
 * received: WP_PUSH_OK with the report's samples (each with its own t_real,
 * the device's timestamp of that value; 0 means "when received"), or a
 * refusal result with none.  The core refuses, per series, a value not
 * newer than the last one it ingested (polled or pushed): equal is
 * WP_PUSH_REPLAYED, older WP_PUSH_OUT_OF_ORDER, so that nothing is
 * counted twice; report returns how many it ingested (a driver should not
 * let a channel whose values are all refused stand in for polling).
 * sink->stream tells whether the push channel is up (the
 * driver polls as usual while it is down).  All on the loop thread.
 */
#ifndef WP_PUSH_H
#define WP_PUSH_H

#include <stdbool.h>
#include <stddef.h>

#include "sample.h"

enum wp_push_result {
	WP_PUSH_OK = 0,		/* ingested (some values may be refused) */
	WP_PUSH_MALFORMED,	/* not a report we can read */
	WP_PUSH_OVERSIZED,	/* over the size cap */
	WP_PUSH_REPLAYED,	/* every value already ingested */
	WP_PUSH_OUT_OF_ORDER,	/* a value older than the last ingested */
	WP_PUSH_UNKNOWN_SENDER,	/* not from the device it claims */
	WP_PUSH_IGNORED,	/* well formed, nothing we read (events) */
	WP_PUSH_N
};

/* "ok", "malformed", "oversized", "replayed", "out_of_order",
 * "unknown_sender", "ignored". */
const char *push_result_name(int result);

struct wp_push_sink {
	/* One report: result, and its samples when WP_PUSH_OK (borrowed
	 * for the call: the core fills t_real where 0, and may reorder and
	 * overwrite them). */
	size_t	(*report)(void *owner, int result, struct wp_sample *v,
		    size_t n);	/* returns the values ingested */
	/* The push channel went up (true) or down (false). */
	void	(*stream)(void *owner, bool up);
	void	*owner;
	/* POST delivery (collector.push_listen): the URL the device is to
	 * POST its reports to (it holds this target's secret token: never
	 * log it), and a Context naming this collector and target (the
	 * same across restarts: stale subscriptions are found by it); both
	 * NULL without a listener.  What is POSTed there reaches the
	 * driver's push_post.  Borrowed until target_free. */
	const char *post_url;
	const char *post_context;
};

#endif
