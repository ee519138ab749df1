#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

/* Set only by tests through clock_mock(); NULL in the daemon. */
static struct wp_clock_mock *mocked;

static wp_time
now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (wp_time)ts.tv_sec * WP_SEC + ts.tv_nsec;
}

wp_time
clock_mono(void)
{
	return mocked ? mocked->mono : now(CLOCK_MONOTONIC);
}

wp_time
clock_real(void)
{
	return mocked ? mocked->real : now(CLOCK_REALTIME);
}

void
clock_mock(struct wp_clock_mock *mock)
{
	mocked = mock;
}

void
clock_iso8601(wp_time t, char *buf, unsigned long len)
{
	time_t sec = (time_t)(t / WP_SEC);
	long ms = (long)((t % WP_SEC) / WP_MS);
	struct tm tm;

	if (ms < 0) {
		ms += 1000;
		sec--;
	}
	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ms);
}

static int
parse_epoch(const char *s, wp_time *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) ||
	    v < 0 || v > 9.2e9)
		return -1;
	*out = (wp_time)llround(v * 1e9);
	return 0;
}

int
clock_parse_fraction(const char **p, wp_time *frac)
{
	wp_time scale = WP_SEC / 10;

	*frac = 0;
	if (**p != '.' && **p != ',')
		return 0;
	(*p)++;
	if (!isdigit((unsigned char)**p))
		return -1;
	while (isdigit((unsigned char)**p)) {
		*frac += (**p - '0') * scale;
		scale /= 10;
		(*p)++;
	}
	return 0;
}

static int
parse_offset(const char *p, long *off)
{
	int hh, mm, n = 0;

	if (*p == 'Z' || *p == 'z')
		return p[1] == '\0' ? (*off = 0, 0) : -1;
	if ((*p != '+' && *p != '-') ||
	    (sscanf(p + 1, "%2d:%2d%n", &hh, &mm, &n) != 2 &&
	    sscanf(p + 1, "%2d%2d%n", &hh, &mm, &n) != 2) || p[1 + n] != '\0')
		return -1;
	if (hh > 23 || mm > 59)
		return -1;
	*off = (hh * 3600L + mm * 60L) * (*p == '-' ? -1 : 1);
	return 0;
}

int
clock_parse_time(const char *s, wp_time *out)
{
	struct tm tm;
	const char *p;
	wp_time frac;
	long off;
	int n = 0;

	if (s == NULL || *s == '\0')
		return -1;
	if (strchr(s, '-') == NULL || s[0] == '-')
		return parse_epoch(s, out);
	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2d%*[Tt ]%2d:%2d:%2d%n", &tm.tm_year,
	    &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
	    &n) != 6 || n == 0)
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60)
		return -1;
	/* what a wp_time (ns since 1970 in 64 bits) holds: 1678..2261 */
	if (tm.tm_year < 1678 || tm.tm_year > 2261)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	p = s + n;
	if (clock_parse_fraction(&p, &frac) == -1 ||
	    parse_offset(p, &off) == -1)
		return -1;
	*out = ((wp_time)timegm(&tm) - off) * WP_SEC + frac;
	return 0;
}

/* One "<decimal><unit>" part at *p (digits with at most one '.', no sign,
 * exponent or hex), its nanoseconds in *ns; the unit may be absent only
 * when the number is the whole string.  0 or -1. */
static int
duration_part(const char **p, bool alone, double *ns)
{
	static const struct { const char *sfx; wp_time mul; } units[] = {
		{ "ms", WP_MS }, { "s", WP_SEC }, { "m", 60 * WP_SEC },
		{ "h", 3600 * WP_SEC }, { "d", 86400 * WP_SEC },
	};
	const char *q = *p;
	double v = 0, scale = 1;
	bool dot = false, digit = false;
	size_t i;

	for (; isdigit((unsigned char)*q) || (*q == '.' && !dot); q++) {
		if (*q == '.') {
			dot = true;
			continue;
		}
		digit = true;
		if (dot)
			v += (*q - '0') * (scale /= 10);
		else
			v = v * 10 + (*q - '0');
	}
	if (!digit)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].sfx);

		if (strncmp(q, units[i].sfx, n) == 0) {	/* "ms" first */
			*ns = v * (double)units[i].mul;
			*p = q + n;
			return 0;
		}
	}
	if (alone && *q == '\0') {
		*ns = v * (double)WP_SEC;	/* a bare number: seconds */
		*p = q;
		return 0;
	}
	return -1;
}

int
clock_parse_duration(const char *s, wp_time *out)
{
	double total = 0, ns;
	const char *p = s;

	if (s == NULL || *s == '\0')
		return -1;
	while (*p != '\0') {
		if (duration_part(&p, p == s, &ns) == -1)
			return -1;
		total += ns;
	}
	if (!isfinite(total) || total > 9.0e18)
		return -1;
	*out = (wp_time)llround(total);
	return 0;
}

/* The start of month mon (0..11, may be 12) of year y. */
static wp_time
month_start(int y, int mon)
{
	struct tm tm = { .tm_year = y - 1900 + mon / 12, .tm_mon = mon % 12,
	    .tm_mday = 1 };

	return (wp_time)timegm(&tm) * WP_SEC;
}

wp_time
clock_next_month(wp_time t)
{
	time_t sec = (time_t)(t / WP_SEC);
	struct tm tm;

	gmtime_r(&sec, &tm);
	return month_start(tm.tm_year + 1900, tm.tm_mon + 1);
}
