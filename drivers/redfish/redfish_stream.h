/*
 * redfish_stream.h - a BMC target's push channel (bmc: mode: push or auto):
 * the EventService's server-sent-event stream (ServerSentEventUri), on a
 * connection of its own beside the BMC's polling one, with the BMC's
 * authentication (the session's token, Basic) and TLS settings.
 *
 * rf_stream_kick() (from each poll) opens the stream once the target has
 * a plan and the BMC a session: GET EventService for ServerSentEventUri,
 * then GET that URI (Accept: text/event-stream).  Each event's data is a
 * MetricReport (redfish_push.h); its values become samples of the plan's
 * series, each at its own Timestamp, handed to the core's sink
 * (lib/push.h) with the result counted there (malformed, oversized,
 * ignored).  The channel is up from the first report the core takes
 * values of until the stream ends or no such report came for 3 poll
 * intervals (at least 2 s; a BMC whose clock lags ours so far that every
 * pushed value is older than a poll's is polled): then it is
 * down (logged: a warning in mode push, info in auto), the target is
 * polled, and the stream is opened again after a backoff (1 interval,
 * doubling to 60 s), with Last-Event-ID the last event's id (a BMC that
 * keeps a buffer sends what was missed; the core refuses what it has).  A BMC without ServerSentEventUri is polled; asked
 * again after 10 minutes.  rf_stream_fresh() says whether a poll may be
 * skipped.
 *
 * With collector.push_listen (the sink has a post_url) the channel is an
 * EventService subscription instead (redfish_subscr.h): the BMC POSTs
 * each MetricReport to the listener, which hands it to rf_stream_post;
 * the same reading, counting and up/down rules apply, and when POSTs
 * stop for 3 intervals (or never start) the subscription is checked and
 * made again if the BMC lost it.  All on the loop thread.
 */
#ifndef WP_REDFISH_STREAM_H
#define WP_REDFISH_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/clock.h"
#include "../../collector/lib/driver.h"
#include "redfish_bmc.h"
#include "redfish_plan.h"

enum rf_push_mode { RF_PUSH_POLL = 0, RF_PUSH_PUSH, RF_PUSH_AUTO };

#define RF_STREAM_MAX	(1u << 20)	/* one event's data, bytes */

struct rf_stream;

/* A stream for a target, mode not poll; gpu_crosscheck: GPU samples are
 * cross-checks (the node reads its GPUs in-band).  NULL on ENOMEM. */
struct rf_stream *rf_stream_new(const char *name, int mode, wp_time interval,
		    bool gpu_crosscheck, const struct wp_services *svc);
/* Closes the stream (no callback) and frees.  NULL-safe. */
void	 rf_stream_free(struct rf_stream *s);
void	 rf_stream_attach(struct rf_stream *s, const struct wp_push_sink *sink);
/* Opens the stream when it is neither open nor waiting out a backoff;
 * plan and bmc borrowed until the next kick or rf_stream_free (plan may
 * change: a new plan closes nothing, the next report uses it). */
void	 rf_stream_kick(struct rf_stream *s, const struct rf_plan *plan,
	    struct rf_bmc *bmc);
/* A body POSTed to the target's push URL by peer (numeric address):
 * refused as unknown_sender unless peer is the BMC that accepted the
 * subscription, else read as an SSE event's data is. */
void	 rf_stream_post(struct rf_stream *s, const char *body, size_t len,
	    const char *peer);
/* The plan went (rediscovery): reports wait for the next one. */
void	 rf_stream_forget_plan(struct rf_stream *s);
/* A report came within the stall limit: polling may rest. */
bool	 rf_stream_fresh(const struct rf_stream *s);

#endif
