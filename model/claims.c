/* claims.c - the instrument ledger's claims (see claims.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"

#define LINE_MAX_LEN	512

/* Splits line (modified) on commas into f[0..nf); the count. */
static int
fields(char *line, char **f, int nf)
{
	int n = 0;

	f[n++] = line;
	for (; *line != '\0'; line++)
		if (*line == ',') {
			*line = '\0';
			if (n == nf)
				return nf + 1;
			f[n++] = line + 1;
		}
	return n;
}

static int
num_time(const char *s, wp_time *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (end == s || *end != '\0' || v < 0)
		return -1;
	*out = (wp_time)v * WP_SEC;
	return 0;
}

/* One data line into c; 0, or -1 with err. */
static int
parse_line(char *l, int line, struct claim *c, struct wp_err *err)
{
	char *f[7], *end;

	memset(c, 0, sizeof(*c));
	if (fields(l, f, 7) != 7)
		return err_set(err, WP_E_CONFIG, "line %d: not 7 fields", line);
	if (f[0][0] == '\0' || strlen(f[0]) >= sizeof(c->id))
		return err_set(err, WP_E_CONFIG, "line %d: bad id", line);
	snprintf(c->id, sizeof(c->id), "%s", f[0]);
	snprintf(c->site, sizeof(c->site), "%s", f[3]);
	c->kwh = strtod(f[2], &end);
	if (end == f[2] || *end != '\0' || !isfinite(c->kwh) || c->kwh < 0)
		return err_set(err, WP_E_CONFIG, "line %d: kWh '%s' is not a "
		    "number >= 0", line, f[2]);
	if (num_time(f[1], &c->hour) == -1 || num_time(f[4], &c->from) == -1 ||
	    num_time(f[5], &c->to) == -1 || num_time(f[6], &c->at) == -1)
		return err_set(err, WP_E_CONFIG, "line %d: a time is not epoch "
		    "seconds", line);
	return 0;
}

int
claims_parse(const char *buf, size_t len, struct claim **out, size_t *n,
    struct wp_err *err)
{
	size_t pos = 0, cap = 0;
	int line = 0;

	*out = NULL;
	*n = 0;
	while (pos < len) {
		char l[LINE_MAX_LEN];
		size_t k = 0;

		line++;
		while (pos < len && buf[pos] != '\n') {
			if (k + 1 >= sizeof(l))
				goto bad;
			l[k++] = buf[pos++];
		}
		pos++;
		if (k > 0 && l[k - 1] == '\r')
			k--;
		l[k] = '\0';
		if (k == 0 || (line == 1 && strncmp(l, "id,", 3) == 0))
			continue;
		if (*n == cap) {
			struct claim *nc;

			cap = cap ? cap * 2 : 64;
			if ((nc = realloc(*out, cap * sizeof(**out))) == NULL) {
				err_set(err, WP_E_INTERNAL, "out of memory");
				goto fail;
			}
			*out = nc;
		}
		if (parse_line(l, line, &(*out)[*n], err) == -1)
			goto fail;
		(*n)++;
	}
	return 0;
bad:
	err_set(err, WP_E_CONFIG, "line %d: too long", line);
fail:
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

bool
claims_same_report(const struct claim *c, const char *site, wp_time from,
    wp_time to)
{
	return c->from == from && c->to == to &&
	    strcmp(c->site, site != NULL ? site : "") == 0;
}

void
claims_apply(struct carbon_instrument *in, size_t n_in,
    const struct claim *c, size_t n_c, const char *site, wp_time from,
    wp_time to)
{
	size_t i, j;

	for (i = 0; i < n_in; i++) {
		in[i].claimed_kwh = 0;
		for (j = 0; j < n_c; j++)
			if (strcmp(c[j].id, in[i].id) == 0 &&
			    c[j].hour == in[i].hour &&
			    !claims_same_report(&c[j], site, from, to))
				in[i].claimed_kwh += c[j].kwh;
	}
}

int
claims_format(const struct claim *c, char *out, size_t len)
{
	int n;

	if (strpbrk(c->id, ",\"\r\n") != NULL ||
	    strpbrk(c->site, ",\"\r\n") != NULL)
		return -1;
	n = snprintf(out, len, "%s,%" PRId64 ",%.9g,%s,%" PRId64 ",%" PRId64
	    ",%" PRId64 "\n", c->id, (int64_t)(c->hour / WP_SEC), c->kwh,
	    c->site, (int64_t)(c->from / WP_SEC), (int64_t)(c->to / WP_SEC),
	    (int64_t)(c->at / WP_SEC));
	return n < 0 || (size_t)n >= len ? -1 : n;
}
