/*
 * timearg.h - the one parser of times given on a command line (--from,
 * --to, --idle-from, --idle-to of every command; docs/wattpath.8, TIMES).
 *
 * Accepted, all in UTC unless a zone is written:
 *   2026-11-29T10:00:00Z, ...+01:00, ...+0100, fractional seconds, a space
 *     for the T, seconds or the zone left out (10:00, 10:00:00 = UTC);
 *   2026-11-29 (a day), 2026-11 (a month), 2026 (a year; exactly four
 *     digits, so it is never read as epoch seconds);
 *   epoch seconds, "1764410400" or "1764410400.5";
 *   now, now-DURATION, now+DURATION (any duration a config accepts:
 *     clock_parse_duration, "1h", "90m", "1h30m");
 *   today, yesterday (UTC days).
 * A day, month, year, today or yesterday is a span: as a start (TA_FROM)
 * it is its first instant, as an end (TA_TO) its end, the start of the
 * next one, so "--from 2026-11 --to 2026-11" is all of November.  An
 * instant is the same either way.  Pure: the caller gives "now".
 */
#ifndef WP_TIMEARG_H
#define WP_TIMEARG_H

#include <stddef.h>

#include "clock.h"

enum timearg_edge { TA_FROM, TA_TO };

/*
 * Parses s as the edge of a window, now being the reference of now,
 * today and yesterday.  0 with *out, or -1 with *out untouched.
 */
int	 timearg_parse(const char *s, enum timearg_edge edge, wp_time now,
	    wp_time *out);

/*
 * timearg_parse for option opt ("--from"); on -1 msg holds the message a
 * command prints: "--from: cannot parse 'xyz' (expected ...)".
 */
int	 timearg_opt(const char *opt, const char *s, enum timearg_edge edge,
	    wp_time now, wp_time *out, char *msg, size_t len);

/* The forms accepted, in one line, for usage texts and messages. */
extern const char timearg_forms[];

#endif
