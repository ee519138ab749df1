/* carbon.c - hourly intensity and price CSVs, location- and market-based
 * scope 2, cost. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "carbon.h"

#define HOUR		(3600 * WP_SEC)
#define MAX_FIELDS	48
#define MAX_LINE	4096
#define INTENSITY_MAX	2000.0	/* gCO2eq/kWh: above is absurd */
#define PRICE_MAX	100.0	/* per kWh, either sign */

/* ---- CSV helpers ---- */

struct csv_line {
	char	 buf[MAX_LINE];
	char	*f[MAX_FIELDS];
	int	 n;
};

/* Next physical line of buf from *pos into s (CR, LF stripped). 1/0. */
static int
next_line(const char *buf, size_t len, size_t *pos, char *s, size_t cap,
    int *truncated)
{
	size_t i = 0;

	*truncated = 0;
	if (*pos >= len)
		return 0;
	while (*pos < len && buf[*pos] != '\n') {
		if (i + 1 < cap)
			s[i++] = buf[*pos];
		else
			*truncated = 1;
		(*pos)++;
	}
	if (*pos < len)
		(*pos)++;
	if (i > 0 && s[i - 1] == '\r')
		i--;
	s[i] = '\0';
	return 1;
}

/* Splits in place on delim, honouring "quoted, fields" with "" escapes. */
static void
split(struct csv_line *l, char delim)
{
	char *r = l->buf, *w = l->buf;

	l->n = 0;
	for (;;) {
		int q = 0;

		if (l->n == MAX_FIELDS)
			return;
		l->f[l->n++] = w;
		while (*r != '\0') {
			if (q && *r == '"' && r[1] == '"') {
				*w++ = '"';
				r += 2;
			} else if (*r == '"') {
				q = !q;
				r++;
			} else if (!q && *r == delim)
				break;
			else
				*w++ = *r++;
		}
		if (*r == '\0') {
			*w = '\0';
			return;
		}
		*w++ = '\0';
		r++;
	}
}

static char
pick_delim(const char *hdr)
{
	size_t c = 0, s = 0;

	for (; *hdr; hdr++) {
		c += *hdr == ',';
		s += *hdr == ';';
	}
	return s > c ? ';' : ',';
}

/* Lowercases, maps "₂" (U+2082) to '2', collapses blanks, trims. */
static void
norm(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)in;

	if (p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		p += 3;		/* UTF-8 BOM */
	while (*p != '\0' && o + 1 < cap) {
		if (p[0] == 0xE2 && p[1] == 0x82 && p[2] == 0x82) {
			out[o++] = '2';
			p += 3;
		} else if (isspace(*p)) {
			if (o > 0 && out[o - 1] != ' ')
				out[o++] = ' ';
			p++;
		} else
			out[o++] = (char)tolower(*p++);
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* ---- time ---- */

static wp_time
mk_utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
	    .tm_hour = h, .tm_min = mi, .tm_sec = s };

	return (wp_time)timegm(&tm) * WP_SEC;
}

/* Last Sunday of month mo (31 days) at 01:00 UTC: EU DST switch. */
static wp_time
eu_switch(int y, int mo)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = 31,
	    .tm_hour = 1 };
	time_t t = timegm(&tm);

	gmtime_r(&t, &tm);
	return ((wp_time)t - (wp_time)tm.tm_wday * 86400) * WP_SEC;
}

static int
eu_dst(wp_time utc)
{
	time_t s = (time_t)(utc / WP_SEC);
	struct tm tm;

	gmtime_r(&s, &tm);
	return utc >= eu_switch(tm.tm_year + 1900, 3) &&
	    utc < eu_switch(tm.tm_year + 1900, 10);
}

enum tz_mode { TZ_NONE, TZ_UTC, TZ_CET };

struct ts_state {
	int	 tz;		/* zone the header or value states */
	wp_time	 last;	/* last UTC time produced (CET ambiguity) */
};

/* CET/CEST local time (as if UTC) to UTC; fall-back hour: first CEST. */
static int
cet_to_utc(wp_time local, struct ts_state *st, wp_time *out)
{
	wp_time cest = local - 2 * HOUR, cet = local - HOUR;
	int ok_cest = eu_dst(cest), ok_cet = !eu_dst(cet);

	if (ok_cest && ok_cet)
		*out = cest <= st->last ? cet : cest;
	else if (ok_cest)
		*out = cest;
	else if (ok_cet)
		*out = cet;
	else
		return -1;	/* spring-forward hour does not exist */
	return 0;
}

/* Parses ISO "Y-m-d[T ]H:M[:S[.f]][Z|+hh:mm|-hh:mm| UTC]" or ENTSO-E MTU
 * "d.m.Y H:M - d.m.Y H:M [(UTC)|(CET/CEST)]" (start kept). */
static int
parse_ts(const char *s, struct ts_state *st, wp_time *out)
{
	int y, mo, d, h, mi, sec = 0, n = 0, tz = st->tz;
	const char *p;
	wp_time t, off = 0;
	char sep;

	while (isspace((unsigned char)*s))
		s++;
	if (sscanf(s, "%2d.%2d.%4d %2d:%2d%n", &d, &mo, &y, &h, &mi, &n) == 5) {
		p = s + n;
		if (strstr(p, "UTC") != NULL)
			tz = TZ_UTC;
		else if (strstr(p, "CET") != NULL)
			tz = TZ_CET;
	} else if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d%n", &y, &mo, &d, &sep, &h,
	    &mi, &n) == 6 && (sep == 'T' || sep == ' ')) {
		p = s + n;
		if (*p == ':' && isdigit((unsigned char)p[1])) {
			sec = (int)strtol(p + 1, (char **)&p, 10);
			if (*p == '.')
				while (isdigit((unsigned char)*++p))
					;
		}
		while (*p == ' ')
			p++;
		if (*p == 'Z' || strncmp(p, "UTC", 3) == 0)
			tz = TZ_UTC;
		else if (*p == '+' || *p == '-') {
			int oh = 0, om = 0;

			if (sscanf(p + 1, "%2d:%2d", &oh, &om) < 1 &&
			    sscanf(p + 1, "%2d%2d", &oh, &om) < 1)
				return -1;
			off = ((wp_time)oh * 3600 + om * 60) * WP_SEC *
			    (*p == '-' ? -1 : 1);
			tz = TZ_UTC;
		} else if (*p != '\0')
			return -1;
	} else
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 24 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return -1;
	t = mk_utc(y, mo, d, h, mi, sec) - off;
	if (tz == TZ_CET) {
		if (cet_to_utc(t, st, &t) == -1)
			return -2;
	} else if (tz != TZ_UTC)
		return -3;
	st->last = t;
	*out = t;
	return 0;
}

/* ---- hourly series ---- */

struct row {
	wp_time	 t;
	double	 v;
	int	 line;
};

static int
row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->line - y->line;
}

struct cols {
	int	 t, zone, v;
	int	 tz;
	double	 scale;
};

static int
find_cols(struct csv_line *h, int kind, const char *basis, struct cols *c,
    struct hourly_series *out, struct wp_err *err)
{
	char nm[256];
	int i, alt = -1, zid = -1, zany = -1;

	c->t = c->zone = c->v = -1;
	c->tz = TZ_NONE;
	c->scale = 1;
	for (i = 0; i < h->n; i++) {
		norm(h->f[i], nm, sizeof(nm));
		if (c->t == -1 && (strstr(nm, "datetime") || strstr(nm, "mtu") ||
		    strcmp(nm, "timestamp") == 0 || strcmp(nm, "time") == 0 ||
		    strncmp(nm, "time ", 5) == 0 || strcmp(nm, "date") == 0 ||
		    strcmp(nm, "hour") == 0)) {
			c->t = i;
			if (strstr(nm, "utc"))
				c->tz = TZ_UTC;
			else if (strstr(nm, "cet"))
				c->tz = TZ_CET;
		} else if (strcmp(nm, "zone id") == 0 || strcmp(nm, "zone_id") == 0)
			zid = i;
		else if (strcmp(nm, "zone") == 0 || strcmp(nm, "area") == 0 ||
		    strcmp(nm, "bidding zone") == 0 || strcmp(nm, "zone key") == 0)
			zany = i;
		else if (kind == HOURLY_INTENSITY && (strstr(nm, "gco2") ||
		    strstr(nm, "carbon intensity") ||
		    strstr(nm, "carbon_intensity"))) {
			int direct = strstr(nm, "direct") != NULL;
			int lca = strstr(nm, "lca") || strstr(nm, "life");
			int want_lca = basis && strcasecmp(basis, "lifecycle") == 0;

			if (c->v == -1 || (want_lca ? lca : direct)) {
				if (c->v != -1)
					alt = c->v;
				c->v = i;
				snprintf(out->basis, sizeof(out->basis), "%s",
				    direct ? "direct" : lca ? "lifecycle" :
				    "unstated");
			} else
				alt = i;
		} else if (kind == HOURLY_CFE && c->v == -1 &&
		    (strstr(nm, "carbon-free") || strstr(nm, "cfe") ||
		    strstr(nm, "low carbon percentage"))) {
			c->v = i;
			c->scale = 0.01;	/* percent to share */
		} else if (kind == HOURLY_PRICE && strstr(nm, "price")) {
			c->v = i;
			if (strstr(nm, "mwh"))
				c->scale = 1e-3;
			else if (!strstr(nm, "kwh"))
				return err_set(err, WP_E_CONFIG, "price column "
				    "\"%s\" does not say per kWh or per MWh",
				    h->f[i]);
		}
	}
	(void)alt;
	c->zone = zid != -1 ? zid : zany;
	if (c->t == -1)
		return err_set(err, WP_E_CONFIG, "no datetime column in header");
	if (c->v == -1)
		return err_set(err, WP_E_CONFIG, "no %s column in header",
		    kind == HOURLY_PRICE ? "price" : kind == HOURLY_CFE ?
		    "carbon-free percentage (CFE%)" : "gCO2eq/kWh intensity");
	snprintf(out->column, sizeof(out->column), "%s", h->f[c->v]);
	snprintf(out->layout, sizeof(out->layout), "%s",
	    zid != -1 ? "electricity-maps" : strstr(h->f[c->t], "MTU") ||
	    zany != -1 ? "entsoe-derived" : "generic");
	return 0;
}

static int
zone_match(const char *v, const char *zone)
{
	const char *bar = strrchr(v, '|');

	if (strcasecmp(v, zone) == 0)
		return 1;
	return bar != NULL && strcasecmp(bar + 1, zone) == 0;
}

static int
missing(const char *s)
{
	return *s == '\0' || strcasecmp(s, "n/e") == 0 ||
	    strcasecmp(s, "n/a") == 0 || strcasecmp(s, "na") == 0 ||
	    strcmp(s, "-") == 0 || strcasecmp(s, "null") == 0;
}

/* The value cell vv of a data line, x scale and checked for kind, into
 * *out: 0, or -1 with err. */
static int
row_value(char *vv, int kind, double scale, int line, double *out,
    struct wp_err *err)
{
	char *end;
	double v = strtod(vv, &end);

	if (end == vv || *trim(end) != '\0' || !isfinite(v))
		return err_set(err, WP_E_CONFIG, "line %d: value \"%s\" is not "
		    "a number", line, vv);
	v *= scale;
	if (kind == HOURLY_INTENSITY && (v < 0 || v > INTENSITY_MAX))
		return err_set(err, WP_E_CONFIG, "line %d: intensity %g "
		    "gCO2eq/kWh is %s", line, v, v < 0 ? "negative" :
		    "absurd (> 2000)");
	if (kind == HOURLY_CFE && (v < 0 || v > 1))
		return err_set(err, WP_E_CONFIG, "line %d: carbon-free share "
		    "%g %% is not 0..100", line, v * 100);
	if (kind == HOURLY_PRICE && fabs(v) > PRICE_MAX)
		return err_set(err, WP_E_CONFIG, "line %d: price %g per kWh is "
		    "absurd", line, v);
	*out = v;
	return 0;
}

/* Room for row n in *rows.  0, or -1 with err. */
static int
row_room(struct row **rows, size_t n, size_t *cap, struct wp_err *err)
{
	struct row *nr;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 1024;
	if ((nr = realloc(*rows, *cap * sizeof(**rows))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	*rows = nr;
	return 0;
}

/* Reads data rows into *rows; returns count or -1. */
static long
read_rows(const char *buf, size_t len, size_t pos, int kind,
    const char *zone, const struct cols *c, char delim, struct row **rows,
    size_t *zone_rows, struct wp_err *err)
{
	struct csv_line *l = malloc(sizeof(*l));
	struct ts_state st = { .tz = c->tz, .last = INT64_MIN };
	size_t n = 0, cap = 0;
	int line = 1, trunc, rc;

	if (l == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	*rows = NULL;
	*zone_rows = 0;
	while (next_line(buf, len, &pos, l->buf, sizeof(l->buf), &trunc)) {
		char *tv, *vv;
		double v = 0;

		line++;
		if (trunc) {
			err_set(err, WP_E_CONFIG, "line %d: longer than %d "
			    "bytes", line, MAX_LINE);
			goto fail;
		}
		if (trim(l->buf)[0] == '\0')
			continue;
		split(l, delim);
		if (c->t >= l->n || c->v >= l->n ||
		    (c->zone >= 0 && c->zone >= l->n)) {
			err_set(err, WP_E_CONFIG, "line %d: %d fields, too few",
			    line, l->n);
			goto fail;
		}
		if (zone != NULL && c->zone >= 0 &&
		    !zone_match(trim(l->f[c->zone]), zone))
			continue;
		(*zone_rows)++;
		tv = trim(l->f[c->t]);
		vv = trim(l->f[c->v]);
		if (missing(vv))
			continue;	/* a gap, never a zero */
		if (row_value(vv, kind, c->scale, line, &v, err) == -1 ||
		    row_room(rows, n, &cap, err) == -1)
			goto fail;
		if ((rc = parse_ts(tv, &st, &(*rows)[n].t)) != 0) {
			err_set(err, WP_E_CONFIG, "line %d: time \"%s\" %s",
			    line, tv, rc == -2 ? "does not exist in CET/CEST "
			    "(DST gap)" : rc == -3 ? "has no time zone (say Z, "
			    "an offset, or UTC in the header)" :
			    "is not a date and time");
			goto fail;
		}
		(*rows)[n].v = v;
		(*rows)[n].line = line;
		n++;
	}
	free(l);
	return (long)n;
fail:
	free(l);
	free(*rows);
	*rows = NULL;
	return -1;
}

/* Sorts, drops identical duplicates, refuses conflicting ones, averages
 * rows into hours. */
static int
to_hours(struct row *r, size_t n, struct hourly_series *out,
    struct wp_err *err)
{
	size_t i, k = 0, cnt = 0;
	double sum = 0;

	qsort(r, n, sizeof(*r), row_cmp);
	out->p = calloc(n ? n : 1, sizeof(*out->p));
	if (out->p == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	for (i = 0; i < n; i++) {
		wp_time h = r[i].t - (r[i].t % HOUR + HOUR) % HOUR;

		if (i > 0 && r[i].t == r[i - 1].t) {
			if (r[i].v != r[i - 1].v)
				return err_set(err, WP_E_CONFIG, "lines %d and "
				    "%d: the same time with different values "
				    "(%g, %g)", r[i - 1].line, r[i].line,
				    r[i - 1].v, r[i].v);
			out->duplicates++;
			continue;
		}
		if (i > 0 && (out->resolution == 0 ||
		    r[i].t - r[i - 1].t < out->resolution))
			out->resolution = r[i].t - r[i - 1].t;
		if (k > 0 && out->p[k - 1].t == h) {
			sum += r[i].v;
			cnt++;
			out->p[k - 1].v = sum / (double)cnt;
			continue;
		}
		out->p[k].t = h;
		out->p[k].v = r[i].v;
		sum = r[i].v;
		cnt = 1;
		k++;
	}
	out->n = k;
	if (out->resolution == 0)
		out->resolution = HOUR;
	return 0;
}

int
hourly_parse(const char *buf, size_t len, int kind, const char *zone,
    const char *basis, struct hourly_series *out, struct wp_err *err)
{
	struct csv_line *h;
	struct cols c;
	struct row *rows = NULL;
	size_t pos = 0, zone_rows = 0;
	long n;
	int trunc;
	char delim;

	memset(out, 0, sizeof(*out));
	h = malloc(sizeof(*h));
	if (h == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	do {
		if (!next_line(buf, len, &pos, h->buf, sizeof(h->buf), &trunc)) {
			free(h);
			return err_set(err, WP_E_CONFIG, "empty file");
		}
	} while (trim(h->buf)[0] == '\0');
	delim = pick_delim(h->buf);
	split(h, delim);
	if (find_cols(h, kind, basis, &c, out, err) == -1) {
		free(h);
		return -1;
	}
	n = read_rows(buf, len, pos, kind, zone, &c, delim, &rows,
	    &zone_rows, err);
	free(h);
	if (n < 0)
		return -1;
	if (zone_rows == 0) {
		free(rows);
		return err_set(err, WP_E_CONFIG, "no rows for zone %s",
		    zone ? zone : "?");
	}
	if (n == 0) {
		free(rows);
		return err_set(err, WP_E_CONFIG, "no values (all missing)");
	}
	if (to_hours(rows, (size_t)n, out, err) == -1) {
		free(rows);
		hourly_fini(out);
		return -1;
	}
	free(rows);
	return 0;
}

void
hourly_fini(struct hourly_series *s)
{
	if (s == NULL)
		return;
	free(s->p);
	s->p = NULL;
	s->n = 0;
}

double
hourly_at(const struct hourly_series *s, wp_time t)
{
	size_t lo = 0, hi;
	wp_time h = t - (t % HOUR + HOUR) % HOUR;

	if (s == NULL || s->n == 0)
		return NAN;
	hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->p[mid].t < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->p[lo].t == h ? s->p[lo].v : NAN;
}

/* ---- location-based ---- */

int
carbon_location(const struct hourly_series *series, double yearly,
    const double *kwh_h, size_t n, wp_time origin, struct carbon_loc *out,
    struct wp_err *err)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (yearly > INTENSITY_MAX)
		return err_set(err, WP_E_CONFIG, "yearly average %g gCO2eq/kWh "
		    "is absurd", yearly);
	for (i = 0; i < n; i++) {
		wp_time t = origin + (wp_time)i * HOUR;
		double f = hourly_at(series, t);

		if (!(kwh_h[i] > 0))
			continue;
		out->hours++;
		out->kwh += kwh_h[i];
		if (isnan(f)) {
			char ts[40];

			if (!(yearly > 0)) {
				time_t s = (time_t)(t / WP_SEC);
				struct tm tm;

				gmtime_r(&s, &tm);
				strftime(ts, sizeof(ts), "%Y-%m-%dT%H:00Z", &tm);
				return err_set(err, WP_E_CONFIG, "no grid "
				    "intensity for hour %s and no yearly "
				    "average configured", ts);
			}
			f = yearly;
			out->fallback_hours++;
			out->fallback_kwh += kwh_h[i];
		}
		out->g += kwh_h[i] * f;
	}
	out->g_per_kwh = out->kwh > 0 ? out->g / out->kwh : NAN;
	return 0;
}

/* ---- contractual instruments ---- */

struct icols {
	int	 id, type, market, vs, ve, mwh, factor, cancelled, site, hour, gas;
};

static void
find_icols(struct csv_line *h, struct icols *c)
{
	char nm[256];
	int i;

	memset(c, -1, sizeof(*c));
	for (i = 0; i < h->n; i++) {
		norm(h->f[i], nm, sizeof(nm));
		if (strcmp(nm, "id") == 0 || strstr(nm, "instrument id") ||
		    strstr(nm, "instrument_id") || strstr(nm, "certificate"))
			c->id = i;
		else if (strcmp(nm, "type") == 0 || strstr(nm, "instrument type"))
			c->type = i;
		else if (strcmp(nm, "market") == 0 || strcmp(nm, "zone") == 0 ||
		    strcmp(nm, "country") == 0 || strcmp(nm, "zone/market") == 0)
			c->market = i;
		else if (strstr(nm, "vintage") && (strstr(nm, "start") ||
		    strstr(nm, "from")))
			c->vs = i;
		else if (strstr(nm, "vintage") && (strstr(nm, "end") ||
		    strstr(nm, "to")))
			c->ve = i;
		else if (strstr(nm, "mwh"))
			c->mwh = i;
		else if (strstr(nm, "factor") || strstr(nm, "gco2"))
			c->factor = i;
		else if (strstr(nm, "cancel") || strstr(nm, "retired") ||
		    strstr(nm, "beneficiary"))
			c->cancelled = i;
		else if (strcmp(nm, "site") == 0)
			c->site = i;
		else if (strcmp(nm, "hour") == 0 || strstr(nm, "datetime"))
			c->hour = i;
		else if (strcmp(nm, "gas") == 0 || strcmp(nm, "basis") == 0)
			c->gas = i;
	}
}

static int
parse_day(const char *s, int end, wp_time *out)
{
	int y, mo, d, n = 0;
	struct ts_state st = { .tz = TZ_UTC, .last = INT64_MIN };

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3 && s[n] == '\0') {
		if (mo < 1 || mo > 12 || d < 1 || d > 31)
			return -1;
		*out = mk_utc(y, mo, d, 0, 0, 0) + (end ? 86400 * WP_SEC : 0);
		return 0;
	}
	return parse_ts(s, &st, out) == 0 ? 0 : -1;
}

static void
copy_field(char *dst, size_t cap, struct csv_line *l, int col)
{
	snprintf(dst, cap, "%s", col >= 0 && col < l->n ? trim(l->f[col]) : "");
}

static int
parse_instrument(struct csv_line *l, const struct icols *c, int line,
    struct carbon_instrument *in, struct wp_err *err)
{
	char tmp[64], *end;

	memset(in, 0, sizeof(*in));
	in->line = line;
	copy_field(in->id, sizeof(in->id), l, c->id);
	copy_field(in->type, sizeof(in->type), l, c->type);
	copy_field(in->market, sizeof(in->market), l, c->market);
	copy_field(in->cancelled_for, sizeof(in->cancelled_for), l,
	    c->cancelled);
	copy_field(in->site, sizeof(in->site), l, c->site);
	if (in->id[0] == '\0')
		return err_set(err, WP_E_CONFIG, "line %d: instrument without "
		    "an id", line);
	copy_field(tmp, sizeof(tmp), l, c->mwh);
	in->mwh = strtod(tmp, &end);
	if (end == tmp || *end != '\0')
		return err_set(err, WP_E_CONFIG, "line %d: MWh \"%s\" is not "
		    "a number", line, tmp);
	copy_field(tmp, sizeof(tmp), l, c->factor);
	in->factor = strtod(tmp, &end);
	if (end == tmp || *end != '\0')
		return err_set(err, WP_E_CONFIG, "line %d: emission factor "
		    "\"%s\" is not a number (0 must be written)", line, tmp);
	copy_field(tmp, sizeof(tmp), l, c->vs);
	if (parse_day(tmp, 0, &in->vintage_start) == -1)
		return err_set(err, WP_E_CONFIG, "line %d: vintage start "
		    "\"%s\" is not a date", line, tmp);
	copy_field(tmp, sizeof(tmp), l, c->ve);
	if (parse_day(tmp, 1, &in->vintage_end) == -1)
		return err_set(err, WP_E_CONFIG, "line %d: vintage end \"%s\" "
		    "is not a date", line, tmp);
	copy_field(tmp, sizeof(tmp), l, c->gas);
	if (tmp[0] == '\0')
		snprintf(in->gas, sizeof(in->gas), "%s", CARBON_GAS_CO2E);
	else if (carbon_gas(tmp) != NULL)
		snprintf(in->gas, sizeof(in->gas), "%s", carbon_gas(tmp));
	else
		return err_set(err, WP_E_CONFIG, "line %d: gas \"%s\" is not "
		    "CO2 or CO2e", line, tmp);
	if (c->hour >= 0) {
		struct ts_state st = { .tz = TZ_NONE, .last = INT64_MIN };

		copy_field(tmp, sizeof(tmp), l, c->hour);
		if (tmp[0] != '\0' && parse_ts(tmp, &st, &in->hour) != 0)
			return err_set(err, WP_E_CONFIG, "line %d: hour \"%s\" "
			    "is not a UTC date and time", line, tmp);
	}
	return 0;
}

int
carbon_parse_instruments(const char *buf, size_t len,
    struct carbon_instrument **out, size_t *n, struct wp_err *err)
{
	struct csv_line *l = malloc(sizeof(*l));
	struct icols c;
	size_t pos = 0, cap = 0;
	int line = 1, trunc;
	char delim;

	*out = NULL;
	*n = 0;
	if (l == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (!next_line(buf, len, &pos, l->buf, sizeof(l->buf), &trunc)) {
		free(l);
		return err_set(err, WP_E_CONFIG, "empty instruments file");
	}
	delim = pick_delim(l->buf);
	split(l, delim);
	find_icols(l, &c);
	if (c.id < 0 || c.market < 0 || c.vs < 0 || c.ve < 0 || c.mwh < 0 ||
	    c.factor < 0 || c.cancelled < 0) {
		free(l);
		return err_set(err, WP_E_CONFIG, "instruments header needs id, "
		    "market, vintage_start, vintage_end, mwh, factor and "
		    "cancelled_for columns");
	}
	while (next_line(buf, len, &pos, l->buf, sizeof(l->buf), &trunc)) {
		line++;
		if (trunc || trim(l->buf)[0] == '\0') {
			if (trunc)
				goto toolong;
			continue;
		}
		split(l, delim);
		if (*n == cap) {
			struct carbon_instrument *ni;

			cap = cap ? cap * 2 : 64;
			ni = realloc(*out, cap * sizeof(**out));
			if (ni == NULL) {
				err_set(err, WP_E_INTERNAL, "out of memory");
				goto fail;
			}
			*out = ni;
		}
		if (parse_instrument(l, &c, line, &(*out)[*n], err) == -1)
			goto fail;
		(*n)++;
	}
	free(l);
	return 0;
toolong:
	err_set(err, WP_E_CONFIG, "line %d: too long", line);
fail:
	free(l);
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

/* ---- market-based ---- */

static void
reject(struct market_result *r, const struct carbon_instrument *in,
    const char *why)
{
	if (r->rejected < MARKET_REJECTS) {
		snprintf(r->rejects[r->rejected].id,
		    sizeof(r->rejects[0].id), "%s", in->id);
		snprintf(r->rejects[r->rejected].why,
		    sizeof(r->rejects[0].why), "%s", why);
	}
	r->rejected++;
}

static int
seen_before(const struct carbon_instrument *in, size_t i, const bool *ok)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (ok[j] && strcmp(in[j].id, in[i].id) == 0 &&
		    in[j].hour == in[i].hour)
			return 1;
	return 0;
}

/* Why instrument i fails the Scope 2 quality criteria, or NULL. */
static const char *
quality(const struct carbon_instrument *in, size_t i, const bool *ok,
    const struct market_opts *o)
{
	const struct carbon_instrument *x = &in[i];

	if (!(x->mwh > 0) || !isfinite(x->mwh))
		return "volume not positive";
	if (!(x->factor >= 0) || x->factor > INTENSITY_MAX)
		return "emission factor negative or absurd";
	if (o->zone == NULL || strcasecmp(x->market, o->zone) != 0)
		return "other market than the site's";
	if (x->vintage_end <= o->period_start ||
	    x->vintage_start >= o->period_end)
		return "vintage outside the reporting period";
	if (x->hour != 0 && (x->hour < o->period_start ||
	    x->hour >= o->period_end))
		return "hourly record outside the reporting period";
	if (x->cancelled_for[0] == '\0')
		return "not cancelled";
	if (o->holder != NULL && strcasecmp(x->cancelled_for, o->holder) != 0)
		return "cancelled for someone else";
	if (x->site[0] != '\0' && o->site != NULL &&
	    strcasecmp(x->site, o->site) != 0)
		return "claimed by another site";
	if (seen_before(in, i, ok))
		return "counted twice (same id)";
	return NULL;
}

const char *
carbon_gas(const char *s)
{
	if (s == NULL)
		return NULL;
	if (strcasecmp(s, "co2") == 0)
		return CARBON_GAS_CO2;
	if (strcasecmp(s, "co2e") == 0 || strcasecmp(s, "co2eq") == 0)
		return CARBON_GAS_CO2E;
	return NULL;
}

static const char *
gas_or(const char *g, const char *dflt)
{
	return carbon_gas(g) != NULL ? carbon_gas(g) : dflt;
}

static int
remainder_factor(const struct market_opts *o, struct market_result *r,
    const char **gas, struct wp_err *err)
{
	if (isfinite(o->supplier_factor) && o->supplier_factor >= 0) {
		r->remainder_factor = o->supplier_factor;
		r->remainder_step = "supplier-specific";
		*gas = gas_or(o->supplier_gas, CARBON_GAS_CO2E);
		return 0;
	}
	if (isfinite(o->residual_factor) && o->residual_factor > 0) {
		r->remainder_factor = o->residual_factor;
		r->remainder_step = "residual-mix";
		*gas = gas_or(o->residual_gas, CARBON_GAS_CO2);
		return 0;
	}
	if (isfinite(o->residual_factor) && o->residual_factor == 0)
		r->residual_zero_ignored = true;
	if (isfinite(o->grid_average) && o->grid_average >= 0) {
		r->remainder_factor = o->grid_average;
		r->remainder_step = "grid-average";
		r->grid_average_used = true;
		r->residual_missing = o->residual_published &&
		    !isfinite(o->residual_factor);
		*gas = gas_or(o->grid_gas, CARBON_GAS_CO2E);
		return 0;
	}
	return err_set(err, WP_E_CONFIG, "market-based: no supplier factor, "
	    "residual mix or grid average for the uncovered %.3f kWh%s",
	    r->remainder_kwh, r->residual_zero_ignored ? " (a residual mix "
	    "of 0 means none published, not zero)" : "");
}

static void
hourly_match(const struct carbon_instrument *in, size_t n_in, const bool *ok,
    const double *kwh_h, size_t n, wp_time origin, struct market_result *r)
{
	double load = 0, matched = 0;
	size_t i, h;
	bool any = false;

	r->hourly_matching = NAN;
	for (h = 0; h < n; h++) {
		wp_time t = origin + (wp_time)h * HOUR;
		double clean = 0;
		bool rec = false;

		for (i = 0; i < n_in; i++)
			if (ok[i] && in[i].hour != 0 && in[i].hour >= t &&
			    in[i].hour < t + HOUR) {
				clean += in[i].mwh * 1000;
				rec = any = true;
			}
		if (!(kwh_h[h] > 0))
			continue;
		load += kwh_h[h];
		matched += clean < kwh_h[h] ? clean : kwh_h[h];
		if (!rec)
			r->hourly_gap_hours++;
	}
	if (any && load > 0)
		r->hourly_matching = matched / load;
	else
		r->hourly_gap_hours = 0;
}

/* 24/7 carbon-free energy: each hour's load matched by contracted clean
 * energy of that hour, the rest at the grid's carbon-free share. */
static void
cfe_score(const struct carbon_instrument *in, size_t n_in, const bool *ok,
    const double *kwh_h, size_t n, wp_time origin,
    const struct hourly_series *cfe, struct market_result *r)
{
	double load = 0, free_kwh = 0;
	size_t i, h;

	r->cfe_score = NAN;
	if (cfe == NULL || cfe->n == 0 || kwh_h == NULL)
		return;
	for (h = 0; h < n; h++) {
		wp_time t = origin + (wp_time)h * HOUR;
		double clean = 0, g = hourly_at(cfe, t), m;

		if (!(kwh_h[h] > 0))
			continue;
		for (i = 0; i < n_in; i++)
			if (ok[i] && in[i].hour != 0 && in[i].hour >= t &&
			    in[i].hour < t + HOUR)
				clean += in[i].mwh * 1000;
		m = clean < kwh_h[h] ? clean : kwh_h[h];
		if (isnan(g)) {
			g = 0;		/* no share known: none counted */
			r->cfe_gap_hours++;
		}
		load += kwh_h[h];
		free_kwh += m + g * (kwh_h[h] - m);
	}
	if (load > 0)
		r->cfe_score = free_kwh / load;
}

/* The kWh of the hour starting at t in kwh_h, or NAN outside. */
static double
hour_kwh(const double *kwh_h, size_t n, wp_time origin, wp_time t)
{
	wp_time i;

	if (kwh_h == NULL || t < origin)
		return NAN;
	i = (t - origin) / HOUR;
	return (size_t)i < n ? kwh_h[i] : NAN;
}

/* Instrument x's share of this window in kWh, before the ledger; -1 when
 * the period's consumption is unknown (neither stated nor computed), -2
 * for an hourly record of another hour. */
static double
window_share(const struct carbon_instrument *x, double consumption_kwh,
    const double *kwh_h, size_t n, wp_time origin,
    const struct market_opts *o, const char **source)
{
	wp_time ws = o->window_start, we = o->window_end, ps, pe;
	double v = x->mwh * 1000, h;

	if (x->hour != 0 && !(ws == 0 && we == 0) && (x->hour < ws ||
	    x->hour >= we))
		return -2;		/* another hour than the window's */
	if (x->hour != 0 && isfinite(h = hour_kwh(kwh_h, n, origin,
	    x->hour))) {
		*source = "computed";	/* the hour is inside the window */
		return v < h ? v : h;
	}
	if (o->period_kwh > 0) {
		*source = "stated";
		return v * consumption_kwh / o->period_kwh;
	}
	ps = x->hour != 0 ? x->hour : x->vintage_start > o->period_start ?
	    x->vintage_start : o->period_start;
	pe = x->hour != 0 ? x->hour + HOUR : x->vintage_end < o->period_end ?
	    x->vintage_end : o->period_end;
	if ((ws == 0 && we == 0) || (ws <= ps && we >= pe)) {
		*source = "computed";	/* the window holds the period */
		return v;
	}
	return -1;
}

/* The accepted instruments' claims on this window into claim[] (kWh),
 * rejecting those whose share cannot be known or that the ledger has
 * used up; capped together by the consumption. */
static void
claim_shares(const struct carbon_instrument *in, size_t n_in, bool *ok,
    double consumption_kwh, const double *kwh_h, size_t n, wp_time origin,
    const struct market_opts *o, struct market_result *r, double *claim)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n_in; i++) {
		double share, left;
		const char *src = NULL;

		claim[i] = 0;
		if (!ok[i])
			continue;
		share = window_share(&in[i], consumption_kwh, kwh_h, n, origin,
		    o, &src);
		left = in[i].mwh * 1000 - (in[i].claimed_kwh > 0 ?
		    in[i].claimed_kwh : 0);
		if (share == -2)
			;	/* another hour's record: not this window's */
		else if (share < 0) {
			reject(r, &in[i], "period consumption unknown (the "
			    "window is part of the vintage; state "
			    "period_consumption_mwh)");
			r->unprorated++;
		} else if (!(left > 1e-9)) {
			reject(r, &in[i], "fully claimed by finalised reports");
			r->exhausted++;
		} else {
			claim[i] = share < left ? share : left;
			r->claimable_kwh += left;
			sum += claim[i];
			if (r->period_source == NULL ||
			    strcmp(src, "stated") == 0)
				r->period_source = src;
			continue;
		}
		ok[i] = false;
		r->accepted--;
		r->instrument_kwh -= in[i].mwh * 1000;
	}
	if (sum > consumption_kwh && sum > 0)
		for (i = 0; i < n_in; i++)
			claim[i] *= consumption_kwh / sum;
}

/* The figure's basis from the covered part's and the remainder's. */
static void
market_gas(const struct carbon_instrument *in, size_t n_in,
    const double *claim, const char *rem_gas, struct market_result *r)
{
	const char *cov = NULL;
	bool mixed = false;
	size_t i;

	for (i = 0; i < n_in; i++) {
		const char *g = in[i].gas[0] ? in[i].gas : CARBON_GAS_CO2E;

		if (!(claim[i] > 0) || !(in[i].factor > 0))
			continue;	/* a zero factor is zero in any basis */
		if (cov != NULL && strcmp(cov, g) != 0)
			mixed = true;
		cov = g;
	}
	if (cov != NULL && rem_gas != NULL && strcmp(cov, rem_gas) != 0)
		mixed = true;
	r->gas_mixed = mixed;
	r->gas = mixed ? "mixed" : rem_gas != NULL ? rem_gas : cov != NULL ?
	    cov : CARBON_GAS_CO2E;
}

/* Runs the quality criteria over in[] into ok[]; the accepted volume. */
static void
accept_all(const struct carbon_instrument *in, size_t n_in, bool *ok,
    const struct market_opts *o, struct market_result *r)
{
	size_t i;

	for (i = 0; i < n_in; i++) {
		const char *why = quality(in, i, ok, o);

		if (why != NULL) {
			reject(r, &in[i], why);
			continue;
		}
		ok[i] = true;
		r->accepted++;
		r->instrument_kwh += in[i].mwh * 1000;
	}
}

int
carbon_market(const struct carbon_instrument *in, size_t n_in,
    double consumption_kwh, const double *kwh_h, size_t n, wp_time origin,
    const struct market_opts *o, struct market_result *r,
    struct wp_err *err)
{
	bool *ok = calloc(n_in ? n_in : 1, sizeof(bool));
	double *claim = calloc(n_in ? n_in : 1, sizeof(double));
	const char *rem_gas = NULL;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (ok == NULL || claim == NULL) {
		free(ok);
		free(claim);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	accept_all(in, n_in, ok, o, r);
	r->kwh = consumption_kwh;
	claim_shares(in, n_in, ok, consumption_kwh, kwh_h, n, origin, o, r,
	    claim);
	for (i = 0; i < n_in; i++) {
		r->covered_kwh += claim[i];
		r->g_covered += claim[i] * in[i].factor;
	}
	r->coverage = consumption_kwh > 0 ? r->covered_kwh / consumption_kwh :
	    0;
	r->remainder_kwh = consumption_kwh - r->covered_kwh;
	if (r->remainder_kwh < 1e-9 * (consumption_kwh > 1 ? consumption_kwh :
	    1))
		r->remainder_kwh = 0;
	r->remainder_step = "none";
	if (r->remainder_kwh > 0 && remainder_factor(o, r, &rem_gas,
	    err) == -1) {
		free(ok);
		free(claim);
		return -1;
	}
	r->g = r->g_covered + r->remainder_kwh * r->remainder_factor;
	market_gas(in, n_in, claim, rem_gas, r);
	if (o->claim_kwh != NULL)
		memcpy(o->claim_kwh, claim, n_in * sizeof(double));
	if (kwh_h != NULL)
		hourly_match(in, n_in, ok, kwh_h, n, origin, r);
	else
		r->hourly_matching = NAN;
	cfe_score(in, n_in, ok, kwh_h, n, origin, o->grid_cfe, r);
	free(ok);
	free(claim);
	return 0;
}

int
carbon_market_allocate(const struct market_result *site, const double *kwh,
    size_t n, struct market_share *out, struct wp_err *err)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(kwh[i]) || kwh[i] < 0)
			return err_set(err, WP_E_INTERNAL, "market allocation: "
			    "part %zu has %g kWh", i, kwh[i]);
		sum += kwh[i];
	}
	if (fabs(sum - site->kwh) > 1e-6 * (fabs(site->kwh) > 1 ?
	    fabs(site->kwh) : 1))
		return err_set(err, WP_E_INTERNAL, "market allocation: parts "
		    "add up to %.6f kWh, the site consumed %.6f kWh", sum,
		    site->kwh);
	for (i = 0; i < n; i++) {
		struct market_share *o = &out[i];

		memset(o, 0, sizeof(*o));
		o->kwh = kwh[i];
		o->share = sum > 0 ? kwh[i] / sum : 0;
		o->covered_kwh = site->covered_kwh * o->share;
		o->coverage = kwh[i] > 0 ? o->covered_kwh / kwh[i] : NAN;
		o->g_covered = site->g_covered * o->share;
		o->remainder_kwh = site->remainder_kwh * o->share;
		o->g = site->g * o->share;
	}
	return 0;
}

/* ---- published residual mixes ---- */

/* Whether list zone lz names zone (itself, or its country). */
static int
zone_or_country(const char *lz, const char *zone)
{
	size_t n = strcspn(zone, "-_");

	return strcasecmp(lz, zone) == 0 || (strlen(lz) == n &&
	    strncasecmp(lz, zone, n) == 0);
}

int
carbon_residual_published(const char *buf, size_t len, const char *zone,
    char *info, size_t ilen)
{
	struct csv_line *l = malloc(sizeof(*l));
	size_t pos = 0;
	long best = -1;
	int trunc, rc = -1;

	if (l == NULL || zone == NULL) {
		free(l);
		return -1;
	}
	while (next_line(buf, len, &pos, l->buf, sizeof(l->buf), &trunc)) {
		long year;

		if (trunc || l->buf[0] == '#' || trim(l->buf)[0] == '\0')
			continue;
		split(l, ',');
		if (l->n < 5 || !zone_or_country(trim(l->f[0]), zone))
			continue;
		year = strtol(trim(l->f[1]), NULL, 10);
		if (year <= best)
			continue;
		best = year;
		rc = strcasecmp(trim(l->f[2]), "yes") == 0;
		snprintf(info, ilen, "%s %ld", trim(l->f[4]), year);
	}
	free(l);
	return rc;
}

/* ---- cost ---- */

int
cost_compute(const struct hourly_series *prices, double flat,
    const double *kwh_h, size_t n, wp_time origin, struct cost_result *out,
    struct wp_err *err)
{
	bool have_flat = isfinite(flat) && flat >= 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->hourly = prices != NULL && prices->n > 0;
	if (!out->hourly && !have_flat)
		return err_set(err, WP_E_CONFIG, "no tariff: set a flat price "
		    "or a price CSV");
	for (i = 0; i < n; i++) {
		double p = out->hourly ? hourly_at(prices,
		    origin + (wp_time)i * HOUR) : flat;

		if (!(kwh_h[i] > 0))
			continue;
		if (isnan(p)) {
			if (!have_flat)
				return err_set(err, WP_E_CONFIG, "no price for "
				    "hour %zu of the window and no flat tariff "
				    "to fall back on", i);
			p = flat;
			out->fallback_hours++;
		}
		out->kwh += kwh_h[i];
		out->amount += kwh_h[i] * p;
	}
	return 0;
}
