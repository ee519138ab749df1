/* report_inputs.c - the site's intensity, instrument and price files (see
 * report_inputs.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/claims.h"
#include "../lib/datafile.h"
#include "../conf/conf.h"
#include "report_inputs.h"

#define FILE_MAX	(64u << 20)	/* a CSV's size cap */

char *
report_file_read(const char *path, size_t max, size_t *len,
    struct wp_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0, got;

	if (f == NULL) {
		err_set(err, WP_E_CONFIG, "%s: %s", path, strerror(errno));
		return NULL;
	}
	errno = 0;
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				err_set(err, WP_E_CONFIG, "%s: larger than %zu "
				    "bytes", path, max);
				goto fail;
			}
			cap = cap ? cap * 2 : 65536;
			if ((nb = realloc(buf, cap + 1)) == NULL) {
				err_set(err, WP_E_INTERNAL, "out of memory");
				goto fail;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		err_set(err, WP_E_CONFIG, "%s: %s", path,
		    strerror(errno != 0 ? errno : EIO));
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

/* A path from the config, relative to the config file's directory. */
static void
conf_path(const struct wp_conf *c, const char *p, char *out, size_t len)
{
	const char *slash = strrchr(c->path, '/');

	if (p[0] == '/' || slash == NULL)
		snprintf(out, len, "%s", p);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - c->path), c->path,
		    p);
}

/* An hourly CSV (intensity or prices) into s; the failure into why. */
static void
load_hourly(const struct wp_conf *c, const char *file, int kind,
    const char *zone, const char *basis, struct hourly_series *s, char *why,
    size_t wlen)
{
	char path[PATH_MAX];
	struct wp_err e = { 0 };
	size_t len;
	char *buf;

	conf_path(c, file, path, sizeof(path));
	if ((buf = report_file_read(path, FILE_MAX, &len, &e)) == NULL) {
		snprintf(why, wlen, "%s", e.msg);
		return;
	}
	if (hourly_parse(buf, len, kind, zone, basis, s, &e) == -1)
		snprintf(why, wlen, "%s: %s", path, e.msg);
	free(buf);
}

/* The contractual instruments of site.market: the config's entries, then
 * the CSV's; the failure into d. */
static void
load_instruments(const struct wp_conf *c, const char *file,
    struct report_site_data *d)
{
	const struct report_market *m = &c->site.market;
	struct carbon_instrument *csv = NULL;
	char path[PATH_MAX];
	struct wp_err e = { 0 };
	size_t len = 0, n = 0;
	char *buf = NULL;

	if (file != NULL) {
		conf_path(c, file, path, sizeof(path));
		if ((buf = report_file_read(path, FILE_MAX, &len, &e)) == NULL ||
		    carbon_parse_instruments(buf, len, &csv, &n, &e) == -1)
			snprintf(d->inst_err, sizeof(d->inst_err), "%s", e.msg);
		free(buf);
	}
	d->inst = calloc(m->n_instruments + n + 1, sizeof(*d->inst));
	if (d->inst == NULL) {
		snprintf(d->inst_err, sizeof(d->inst_err), "out of memory");
		free(csv);
		return;
	}
	if (m->n_instruments > 0)
		memcpy(d->inst, m->instruments, m->n_instruments *
		    sizeof(*d->inst));
	if (n > 0)
		memcpy(d->inst + m->n_instruments, csv, n * sizeof(*d->inst));
	d->n_inst = m->n_instruments + n;
	free(csv);
}

/* Whether the site's zone has a published residual mix: the list
 * residual-mix/published.csv found as the PDU profiles are. */
static void
load_published(const struct wp_conf *c, struct report_site_data *d)
{
	char path[PATH_MAX];
	struct wp_err e = { 0 };
	size_t len;
	char *buf;

	d->residual_published = -1;
	if (datafile_find(c->maps_dir, c->conf_dir, "residual-mix",
	    "published", ".csv", path, sizeof(path)) == -1 ||
	    (buf = report_file_read(path, FILE_MAX, &len, &e)) == NULL)
		return;
	d->residual_published = carbon_residual_published(buf, len,
	    c->site.zone, d->residual_info, sizeof(d->residual_info));
	free(buf);
}

void
report_site_data_load(const struct wp_conf *c, struct report_site_data *d)
{
	const struct report_site *s = &c->site;

	/* carbon needs a zone and grid or market data */
	if (s->zone == NULL || (!s->grid.set && !s->market.set))
		return;
	if (s->grid.intensity_csv != NULL)
		load_hourly(c, s->grid.intensity_csv, HOURLY_INTENSITY, s->zone,
		    s->grid.basis, &d->grid, d->grid_err, sizeof(d->grid_err));
	if (s->market.instruments_csv != NULL || s->market.n_instruments > 0)
		load_instruments(c, s->market.instruments_csv, d);
	load_published(c, d);
	if (s->grid.cfe_csv != NULL)
		load_hourly(c, s->grid.cfe_csv, HOURLY_CFE, s->zone, NULL,
		    &d->cfe, d->cfe_err, sizeof(d->cfe_err));
	if (s->tariff.price_csv != NULL)
		load_hourly(c, s->tariff.price_csv, HOURLY_PRICE, NULL, NULL,
		    &d->prices, d->price_err, sizeof(d->price_err));
}

void
report_site_data_fini(struct report_site_data *d)
{
	if (d == NULL)
		return;
	hourly_fini(&d->grid);
	hourly_fini(&d->cfe);
	hourly_fini(&d->prices);
	free(d->inst);
	d->inst = NULL;
	d->n_inst = 0;
}
