/*
 * redfish_push.h - what a BMC pushes, pure: the server-sent-events framing
 * of EventService's ServerSentEventUri stream, a TelemetryService
 * MetricReport (MetricReport.v1: MetricValues[] of MetricId,
 * MetricProperty, MetricValue, Timestamp) into keyed readings, each value
 * with its own Timestamp, and those readings into the samples of a plan's
 * series.  No I/O, no clock, no state beyond the caller's structs; every
 * input (any bytes, any split) is bounded by the caps given.
 */
#ifndef WP_REDFISH_PUSH_H
#define WP_REDFISH_PUSH_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/sample.h"
#include "redfish_parse.h"
#include "redfish_plan.h"

/* --- SSE framing (the WHATWG event-stream format) --- */

/* One dispatched event; borrowed, valid only during the callback. */
struct rf_sse_event {
	const char	*event;		/* "event:" field, "" if none */
	const char	*id;		/* last "id:" seen (sticky), or "" */
	const char	*data;		/* "data:" lines joined by LF */
	size_t		 len;
	bool		 oversized;	/* data or a line went over max: data
					   is "" and the event must be refused */
};

typedef void (*rf_sse_cb)(void *arg, const struct rf_sse_event *ev);

struct rf_sse {
	size_t		 max;		/* cap of one event's data and of a line */
	char		*line;		/* max + 1 bytes; owned */
	size_t		 line_len;
	char		*data;		/* max + 1 bytes; owned */
	size_t		 data_len;
	char		 event[64];
	char		 id[128];
	bool		 over, line_over, last_cr, started;
	unsigned	 bom;		/* BOM bytes matched at the start */
	unsigned long	 events, refused;	/* dispatched; oversized */
};

/* Sets s up with a cap of max bytes (>= 64).  0, or -1 (ENOMEM). */
int	 rf_sse_init(struct rf_sse *s, size_t max);
void	 rf_sse_fini(struct rf_sse *s);		/* NULL-safe */
/* Feeds n bytes (any split: lines end with CRLF, LF or CR); calls cb for
 * each event completed by a blank line.  Comments (":...") and "retry:"
 * are ignored. */
void	 rf_sse_feed(struct rf_sse *s, const char *p, size_t n, rf_sse_cb cb,
	    void *arg);

/* --- MetricReport --- */

/*
 * Parses a pushed document: a MetricReport (the report itself, as
 * EventDestination EventFormatType MetricReport and SSE deliver it).
 * Every MetricValues member whose MetricProperty is one rf_parse_resource
 * reads (EnergyJoules, EnergykWh, PowerWatts, InputPowerWatts of an
 * excerpt; Dell's SystemInputPower) becomes one reading in out, keyed as
 * polling keys it, with device_time its own Timestamp (else the report's
 * Timestamp, else 0).  A value listed twice is kept twice (a time series
 * report).  id gets the report's Id (or "").  Returns the number of
 * readings added; 0 for a document that is no report (an Event: "Events"
 * array) or carries nothing we read; -1 with err when it is malformed
 * (not JSON, MetricValues not an array, a MetricValue not a number, a
 * Timestamp that is not a date).
 */
int	 rf_push_parse(const char *body, size_t len, struct rf_readings *out,
	    char *id, size_t idlen, struct wp_err *err);

/*
 * The samples of plan's series from pushed readings: for each series and
 * each distinct Timestamp of its first pick among vals, the series' value
 * at that time (rf_series_sample over the readings of that Timestamp: a
 * sum needs all its picks at the same time), with t_real that Timestamp
 * and the plan's identity labels.  Writes at most max into out; returns
 * the number written.  *unused (may be NULL) gets the readings no series
 * took.
 */
size_t	 rf_push_samples(const struct rf_plan *plan,
	    const struct rf_readings *vals, struct wp_sample *out, size_t max,
	    size_t *unused);

/* --- EventService subscriptions (EventDestination.v1) --- */

/*
 * The body of a POST to EventService/Subscriptions: Destination dest,
 * Protocol "Redfish", SubscriptionType "RedfishEvent", EventFormatType
 * "MetricReport", Context context.  A new string (caller frees), or NULL
 * (ENOMEM).
 */
char	*rf_sub_body(const char *dest, const char *context);
/*
 * The Members' @odata.id of a collection (EventDestinationCollection),
 * at most max into uris (each RF_URI_MAX; longer ones, and ids not
 * starting with '/', are skipped).  Returns the number written, or -1
 * with err when body is no collection (not JSON, Members not an array).
 */
int	 rf_sub_members(const char *body, size_t len, char (*uris)[RF_URI_MAX],
	    size_t max, struct wp_err *err);
/* Whether the EventDestination body has Context context. */
bool	 rf_sub_has_context(const char *body, size_t len, const char *context);
/*
 * The created subscription's URI: the path of location (the Location
 * header, absolute URL or path; may be NULL), else the body's @odata.id.
 * 0, or -1 when neither names one (a path starting with '/', shorter
 * than n).
 */
int	 rf_sub_uri_of(const char *location, const char *body, size_t len,
	    char *uri, size_t n);

#endif
