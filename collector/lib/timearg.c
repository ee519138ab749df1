/* timearg.c - times on a command line (see timearg.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timearg.h"

#define DAY	(86400 * WP_SEC)

const char timearg_forms[] = "ISO-8601 such as 2026-11-29T10:00:00Z or "
    "2026-11-29T10:00+01:00 (UTC when no zone), a day 2026-11-29, a month "
    "2026-11, a year 2026, epoch seconds, now, now-1h, today or yesterday";

/* Exactly n digits at *p into *v, advancing *p.  0 or -1. */
static int
digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return 0;
}

/* The instant of a broken-down UTC date, checked (no 31 November).  The
 * year is limited to what a wp_time holds with a year to spare. */
static int
utc(int y, int mon, int d, int h, int min, int sec, wp_time *out)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mon - 1, .tm_mday = d,
	    .tm_hour = h, .tm_min = min, .tm_sec = sec };
	time_t t;

	if (y < 1970 || y > 2260 || mon < 1 || mon > 12 || d < 1 || d > 31 ||
	    h > 23 || min > 59 || sec > 59)
		return -1;
	t = timegm(&tm);
	if (tm.tm_mday != d || tm.tm_mon != mon - 1)
		return -1;	/* normalised: the day does not exist */
	*out = (wp_time)t * WP_SEC;
	return 0;
}

/* "Z", "+hh:mm", "+hhmm", "+hh" or nothing (UTC), then the end. */
static int
zone(const char *p, long *off)
{
	int hh, mm = 0;
	char sign = *p;

	*off = 0;
	if (*p == '\0')
		return 0;
	if (*p == 'Z' || *p == 'z')
		return p[1] == '\0' ? 0 : -1;
	if (sign != '+' && sign != '-')
		return -1;
	p++;
	if (digits(&p, 2, &hh) == -1)
		return -1;
	if (*p == ':')
		p++;
	if (*p != '\0' && digits(&p, 2, &mm) == -1)
		return -1;
	if (*p != '\0' || hh > 23 || mm > 59)
		return -1;
	*off = (hh * 3600L + mm * 60L) * (sign == '-' ? -1 : 1);
	return 0;
}

/* "hh:mm[:ss[.frac]][zone]" at p, on the day (y, mon, d). */
static int
clock_time(const char *p, int y, int mon, int d, wp_time *out)
{
	int h, min, sec = 0;
	wp_time frac = 0, t;
	long off;

	if (digits(&p, 2, &h) == -1 || *p++ != ':' ||
	    digits(&p, 2, &min) == -1)
		return -1;
	if (*p == ':') {
		p++;
		if (digits(&p, 2, &sec) == -1 ||
		    clock_parse_fraction(&p, &frac) == -1)
			return -1;
	}
	if (zone(p, &off) == -1 || utc(y, mon, d, h, min, sec, &t) == -1)
		return -1;
	*out = t - (wp_time)off * WP_SEC + frac;
	return 0;
}

/* A year, a month, a day (spans) or a date-time (an instant). */
static int
calendar(const char *s, enum timearg_edge edge, wp_time *out)
{
	const char *p = s;
	int y, mon = 0, d = 0;
	wp_time t;

	if (digits(&p, 4, &y) == -1)
		return -1;
	if (*p == '\0')		/* a year */
		return utc(edge == TA_TO ? y + 1 : y, 1, 1, 0, 0, 0, out);
	if (*p++ != '-' || digits(&p, 2, &mon) == -1)
		return -1;
	if (*p == '\0') {	/* a month */
		if (mon < 1 || mon > 12)
			return -1;
		if (edge == TA_FROM)
			return utc(y, mon, 1, 0, 0, 0, out);
		return mon == 12 ? utc(y + 1, 1, 1, 0, 0, 0, out) :
		    utc(y, mon + 1, 1, 0, 0, 0, out);
	}
	if (*p++ != '-' || digits(&p, 2, &d) == -1)
		return -1;
	if (*p == '\0') {	/* a day */
		if (utc(y, mon, d, 0, 0, 0, &t) == -1)
			return -1;
		*out = edge == TA_TO ? t + DAY : t;
		return 0;
	}
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -1;
	return clock_time(p + 1, y, mon, d, out);
}

/* Digits with at most one '.': epoch seconds. */
static int
epoch(const char *s, wp_time *out)
{
	wp_time sec = 0, frac = 0;
	const char *p = s;
	int n = 0;

	for (; isdigit((unsigned char)*p); p++, n++) {
		if (sec > 9200000000LL)
			return -1;
		sec = sec * 10 + (*p - '0');
	}
	if (n == 0 || clock_parse_fraction(&p, &frac) == -1 || *p != '\0' ||
	    sec > 9200000000LL)
		return -1;
	*out = sec * WP_SEC + frac;
	return 0;
}

/* now, now-D, now+D, today, yesterday. */
static int
relative(const char *s, enum timearg_edge edge, wp_time now, wp_time *out)
{
	wp_time d, midnight = now - ((now % DAY) + DAY) % DAY;

	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		if (s[0] == 'y')
			midnight -= DAY;
		*out = edge == TA_TO ? midnight + DAY : midnight;
		return 0;
	}
	if (strncmp(s, "now", 3) != 0)
		return -1;
	if (s[3] == '\0')
		return *out = now, 0;
	if ((s[3] != '-' && s[3] != '+') ||
	    clock_parse_duration(s + 4, &d) == -1)
		return -1;
	*out = s[3] == '-' ? now - d : now + d;
	return 0;
}

int
timearg_parse(const char *s, enum timearg_edge edge, wp_time now,
    wp_time *out)
{
	size_t n;

	if (s == NULL || *s == '\0')
		return -1;
	n = strspn(s, "0123456789");
	if (isalpha((unsigned char)s[0]))
		return relative(s, edge, now, out);
	if (n == 4 && s[4] != '.')
		return calendar(s, edge, out);
	return epoch(s, out);
}

int
timearg_opt(const char *opt, const char *s, enum timearg_edge edge,
    wp_time now, wp_time *out, char *msg, size_t len)
{
	if (timearg_parse(s, edge, now, out) == 0)
		return 0;
	snprintf(msg, len, "%s: cannot parse '%s' (expected %s)", opt,
	    s ? s : "", timearg_forms);
	return -1;
}
