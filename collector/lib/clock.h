/*
 * clock.h - the one time type: signed 64-bit nanoseconds (wp_time).
 *
 * Monotonic time schedules and times out; realtime stamps samples.  Tests can
 * pin both clocks with clock_mock() (a struct they own) so that time-dependent
 * code is deterministic; clock_mock(NULL) returns to the system clocks.
 */
#ifndef WP_CLOCK_H
#define WP_CLOCK_H

#include <stdint.h>

typedef int64_t wp_time;	/* nanoseconds */

#define WP_NS		1LL
#define WP_US		1000LL
#define WP_MS		1000000LL
#define WP_SEC		1000000000LL

struct wp_clock_mock {
	wp_time	 mono;
	wp_time	 real;
};

wp_time	 clock_mono(void);
wp_time	 clock_real(void);
/* Borrowed: the mock must outlive its use.  Only tests call this. */
void	 clock_mock(struct wp_clock_mock *mock);

/* Formats a realtime stamp as ISO-8601 UTC with milliseconds. */
void	 clock_iso8601(wp_time t, char *buf, unsigned long len);
/*
 * Parses "2026-11-29T10:00:00Z", "...+01:00", fractional seconds, or plain
 * epoch seconds ("1764410400" or "1764410400.5").  Returns 0 or -1.
 */
int	 clock_parse_time(const char *s, wp_time *out);
/* ".123" or ",123" at *p into nanoseconds (nothing: 0), advancing *p
 * past it.  0, or -1 when the separator has no digit after it. */
int	 clock_parse_fraction(const char **p, wp_time *ns);
/* The start of the UTC calendar month after the one holding t. */
wp_time	 clock_next_month(wp_time t);
/*
 * Parses a duration: "10s", "5m", "1h", "250ms", "2d", compounds such as
 * "1h30m" or "1m30.5s"; a bare number alone is seconds.  Decimal digits
 * only (no sign, exponent or hex).  Returns 0 or -1.
 */
int	 clock_parse_duration(const char *s, wp_time *out);

#endif
