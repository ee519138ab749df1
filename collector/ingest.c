#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../model/counter.h"
#include "conf/conf.h"
#include "ingest.h"
#include "store/journal.h"
#include "lib/log.h"
#include "state.h"
#include "store/rrdq.h"
#include "store/store.h"

#define CHECKPOINT_EVERY	(60 * WP_SEC)
#define RRD_GRACE		(5 * WP_SEC)	/* for the RRD writer at exit */

struct ingest {
	char		*data_dir;
	struct journal	*journal;
	struct rrdq	*rrd;		/* the store, on its writer thread */
	struct state	*state;
	wp_time		 last_checkpoint;
	bool		 closing;	/* ingest_free: flush everything */
	wp_time		 max_poll;	/* longest a poll can live */
	struct journal_value *buf;	/* scratch, grows */
	struct wp_counter **ctr;	/* buf's counters (cap entries) */
	size_t		 cap;
	struct ingest_part jh;		/* the journal's health */
	wp_time		 jlast_still;	/* "still failing" logged */
};

static int
mkdir_p(const char *path, struct wp_err *err)
{
	char tmp[4096], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return err_set(err, WP_E_CONFIG, "path too long: %s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0750) == -1 && errno != EEXIST)
			return err_set(err, WP_E_CONFIG, "mkdir %s: %s", tmp,
			    strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0750) == -1 && errno != EEXIST)
		return err_set(err, WP_E_CONFIG, "mkdir %s: %s", tmp,
		    strerror(errno));
	return 0;
}

static int
open_parts(struct ingest *in, const struct wp_conf *c, struct wp_err *err)
{
	struct journal_opts jo = { .retention = c->journal_retention,
	    .sync_interval = INGEST_SYNC_EVERY };
	/* librrd: hold each file's values for rrd_write_delay and write
	 * them with one open; rrdcached batches on its own. */
	struct store_opts so = { .data_dir = c->data_dir,
	    .rrdcached = c->rrdcached, .step = c->interval,
	    .write_delay = c->rrd_write_delay };
	struct store *st;
	char dir[4096];

	if (c->fsync == NULL || strcmp(c->fsync, "poll") == 0)
		jo.fsync = JOURNAL_FSYNC_POLL;
	else if (strcmp(c->fsync, "segment") == 0)
		jo.fsync = JOURNAL_FSYNC_SEGMENT;
	else
		jo.fsync = JOURNAL_FSYNC_NONE;
	char ldir[4096];

	snprintf(ldir, sizeof(ldir), "%s/ledger", c->data_dir);
	jo.ledger_dir = ldir;
	jo.ledger_slot = c->ledger_slot;
	jo.ledger_retention = c->ledger_retention;
	snprintf(dir, sizeof(dir), "%s/journal", c->data_dir);
	if (mkdir_p(dir, err) == -1)
		return -1;
	if ((in->journal = journal_open(dir, &jo, err)) == NULL)
		return -1;
	if ((st = store_new(&so, err)) == NULL ||
	    (in->rrd = rrdq_new(st, 0, err)) == NULL)
		return -1;
	if ((in->state = state_new()) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (state_load(in->state, c->data_dir, err) == -1)
		return -1;
	return 0;
}

struct ingest *
ingest_new(const struct wp_conf *c, struct wp_err *err)
{
	struct ingest *in;

	if ((in = calloc(1, sizeof(*in))) == NULL ||
	    (in->data_dir = strdup(c->data_dir)) == NULL) {
		free(in);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if (mkdir_p(c->data_dir, err) == -1 || open_parts(in, c, err) == -1) {
		err_prefix(err, "data_dir %s", c->data_dir);
		ingest_free(in);
		return NULL;
	}
	in->last_checkpoint = clock_mono();
	in->max_poll = c->interval > c->timeout ? c->interval : c->timeout;
	in->jh.ok = true;
	in->jh.since = clock_real();
	return in;
}

void
ingest_health(struct ingest *in, struct ingest_health *h)
{
	struct rrdq_health rh;

	h->journal = in->jh;
	rrdq_health(in->rrd, &rh);
	h->rrd = (struct ingest_part){ .ok = rh.ok, .since = rh.since,
	    .last_ok = rh.last_ok, .written = rh.written,
	    .failed = rh.failed, .dropped = rh.dropped, .queued = rh.queued };
	snprintf(h->rrd.error, sizeof(h->rrd.error), "%s", rh.error);
}

void
ingest_set_batch(struct ingest *in)
{
	rrdq_set_blocking(in->rrd, true);
}

void
ingest_free(struct ingest *in)
{
	struct wp_err err;

	if (in == NULL)
		return;
	in->closing = true;
	if (in->state != NULL && in->journal != NULL &&
	    ingest_checkpoint(in, &err) == -1)
		log_warnx("checkpoint at exit: %s", err.msg);
	journal_close(in->journal);
	rrdq_free(in->rrd, RRD_GRACE);
	state_free(in->state);
	free(in->buf);
	free(in->ctr);
	free(in->data_dir);
	free(in);
}

/*
 * The most a counter may rise per second, in its SI unit: energy at more
 * than any device of its boundary draws (a GPU 10 kW, a node 500 kW, a PDU
 * outlet 100 kW, a PDU 5 MW, a site 2 GW), or far above the poll's own
 * power reading of the same instance ("<x>/power" beside "<x>/energy")
 * when it reads more than nothing: ten times it plus 1 kW, which no burst
 * between two readings reaches.  Tokens: a billion a second.
 */
static double
max_rate(const struct ingest_poll *p, const struct wp_sample *s)
{
	static const double cap[WP_B_COMPONENT + 1] = { [WP_B_GPU] = 1e4,
	    [WP_B_MODULE] = 1e4, [WP_B_WALL] = 5e5, [WP_B_OUTLET] = 1e5,
	    [WP_B_PDU] = 5e6, [WP_B_FACILITY] = 2e9 };
	const char *slash = strrchr(s->series, '/');
	size_t i, plen;
	double lim;

	if (s->quantity == WP_Q_TOKENS)
		return 1e9;
	if (s->quantity != WP_Q_ENERGY || (unsigned)s->boundary >
	    WP_B_COMPONENT || !(cap[s->boundary] > 0))
		return 0;
	lim = cap[s->boundary];
	plen = slash != NULL ? (size_t)(slash - s->series) + 1 : 0;
	for (i = 0; i < p->n; i++) {
		const struct wp_sample *g = &p->v[i];

		if (g->kind == WP_GAUGE && g->quantity == WP_Q_POWER &&
		    g->value > 0 && strncmp(g->series, s->series, plen) == 0 &&
		    strcmp(g->series + plen, "power") == 0)
			return fmin(lim, 10 * g->value + 1e3);
	}
	return lim;
}

static void
count(struct ingest *in, const struct ingest_poll *p, struct wp_sample *s,
    struct journal_value *jv, struct ingest_ctr *out,
    struct wp_counter **slot)
{
	struct counter_in ci = { .value = s->value, .wrap = s->wrap,
	    .resolution = s->resolution, .t = s->t_real,
	    .reset_time = s->reset_time,
	    .device_reset = (s->flags & WP_F_RESET) != 0,
	    .max_rate = max_rate(p, s), .min_dt = p->interval };
	double last;
	struct counter_out co;
	struct wp_counter *c;
	wp_time prev_t;

	*slot = NULL;
	c = state_counter(in->state, p->target, s->series, p->hold_dips);
	if (c == NULL) {
		jv->ctr_flags = CTR_DISCONT;
		return;
	}
	prev_t = c->valid ? c->last_t : 0;
	last = c->last;
	if (!c->logged_set) {
		c->logged_cum = c->cum;
		c->logged_set = true;
	}
	counter_update(c, &ci, &co);
	*slot = c;
	if (out != NULL)
		*out = (struct ingest_ctr){ .valid = true, .cum = co.cum,
		    .delta = co.delta, .span = prev_t ? s->t_real - prev_t :
		    0, .resets = c->resets, .flags = co.flags };
	/* since the last value the journal holds: a record that could not
	 * be written is in the next one's delta */
	jv->delta = co.cum - c->logged_cum;
	jv->cum = co.cum;
	jv->ctr_flags = co.flags;
	if (co.flags & CTR_IMPLAUSIBLE)
		log_warnx("%s: %s counter step %g -> %g %s in %.1f s is more "
		    "than %g per second: not counted, the counter goes on from "
		    "there", p->target, s->series, last, s->value,
		    quantity_unit(s->quantity), (double)(s->t_real - prev_t) /
		    WP_SEC, ci.max_rate);
	else if (co.flags & CTR_RESET) {
		s->flags |= WP_F_RESET;
		log_info("%s: %s counter reset (%g -> %g %s)", p->target,
		    s->series, last, s->value, quantity_unit(s->quantity));
	}
	if (co.flags & CTR_WRAPPED)
		s->flags |= WP_F_WRAPPED;
	if (co.flags & CTR_HELD)
		s->flags |= WP_F_HELD;
	if (co.flags & CTR_DISCONT)
		s->flags |= WP_F_DISCONT;
}

static int
grow(struct ingest *in, size_t n)
{
	struct journal_value *p;
	struct wp_counter **c;

	if (n <= in->cap)
		return 0;
	if ((p = realloc(in->buf, n * sizeof(*p))) == NULL)
		return -1;
	in->buf = p;
	if ((c = realloc(in->ctr, n * sizeof(*c))) == NULL)
		return -1;
	in->ctr = c;
	in->cap = n;
	return 0;
}

/* The journal's health after an append (rc 0 or -1 with err): one line
 * when it starts failing, one every 10 minutes while it goes on, one when
 * it works again. */
static void
journal_health(struct ingest *in, int rc, const struct wp_err *err)
{
	struct ingest_part *h = &in->jh;
	wp_time now = clock_real();

	if (rc == 0) {
		h->written++;
		h->last_ok = now;
		if (!h->ok) {
			log_info("journal: writes work again (%lu records "
			    "failed or not synced so far; the deltas of "
			    "those not written are in the next records)",
			    h->failed);
			h->ok = true;
			h->since = now;
		}
		return;
	}
	h->failed++;
	snprintf(h->error, sizeof(h->error), "%s", err->msg);
	if (h->ok) {
		log_warnx("journal: writes fail: %s", err->msg);
		h->ok = false;
		h->since = in->jlast_still = now;
	} else if (now - in->jlast_still >= 600 * WP_SEC) {
		log_warnx("journal: writes still fail: %s (%lu records)",
		    err->msg, h->failed);
		in->jlast_still = now;
	}
}

/* True if the poll also has an energy counter for s's GPU ("gpu/3/"). */
static bool
gpu_has_counter(const struct ingest_poll *p, const struct wp_sample *s)
{
	size_t i, plen;
	const char *slash;

	if (s->boundary != WP_B_GPU && s->boundary != WP_B_MODULE)
		return false;
	if ((slash = strrchr(s->series, '/')) == NULL)
		return false;
	plen = (size_t)(slash - s->series) + 1;
	for (i = 0; i < p->n; i++)
		if (p->v[i].kind == WP_COUNTER &&
		    p->v[i].quantity == WP_Q_ENERGY &&
		    strncmp(p->v[i].series, s->series, plen) == 0 &&
		    strcmp(p->v[i].series + plen, "energy") == 0)
			return true;
	return false;
}

/*
 * What the RRD keeps (docs/store.md): energy and token counters and power
 * gauges, but not context values (limits, utilisation, voltages) nor a
 * GPU's power gauge when its energy counter gives the mean power exactly;
 * the journal keeps everything.  This holds a node near 2 MB of RRD.
 */
static bool
rrd_wants(const struct ingest_poll *p, const struct wp_sample *s)
{
	if (s->quantity == WP_Q_OTHER)
		return false;
	if (s->quantity == WP_Q_POWER && gpu_has_counter(p, s))
		return false;
	return true;
}

/* Hands the poll's values to the RRD writer (rrdq.h: never blocks; its
 * failures and drops are its health, logged there once per change). */
static void
store_values(struct ingest *in, const struct ingest_poll *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct journal_value *jv = &in->buf[i];

		if (jv->ctr_flags & CTR_HELD)
			continue;	/* unknown until the counter is back */
		if (rrd_wants(p, &jv->s))
			rrdq_put(in->rrd, p->target, &jv->s, jv->cum,
			    jv->s.t_real);
	}
	rrdq_commit(in->rrd);
}

int
ingest_poll(struct ingest *in, const struct ingest_poll *p,
    struct wp_err *err)
{
	struct journal_record r = { .t_real = p->t_real, .t_mono = p->t_mono,
	    .duration = p->duration, .target = p->target,
	    .status = p->status, .error = p->error ? p->error : "",
	    .text = p->text };
	size_t i;
	int rc;

	if (grow(in, p->n) == -1)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	for (i = 0; i < p->n; i++) {
		struct journal_value *jv = &in->buf[i];

		memset(jv, 0, sizeof(*jv));
		in->ctr[i] = NULL;
		if (p->v[i].kind == WP_COUNTER)
			count(in, p, &p->v[i], jv, p->ctr ? &p->ctr[i] : NULL,
			    &in->ctr[i]);
		jv->s = p->v[i];
	}
	r.n = p->n;
	r.v = in->buf;
	/* 1: written, its sync failed: the record's deltas are in the file,
	 * so the next record's start from it (or they would count twice) */
	rc = journal_append(in->journal, &r, err);
	journal_health(in, rc == 0 ? 0 : -1, err);
	for (i = 0; rc >= 0 && i < p->n; i++)
		if (in->ctr[i] != NULL)
			in->ctr[i]->logged_cum = in->buf[i].cum;
	store_values(in, p);	/* the dashboards, whatever the journal did */
	if (rc != 0)
		return -1;
	if (clock_mono() - in->last_checkpoint >= CHECKPOINT_EVERY &&
	    ingest_checkpoint(in, err) == -1)
		log_warnx("checkpoint: %s", err->msg);
	return 0;
}

int
ingest_sync(struct ingest *in, struct wp_err *err)
{
	return journal_sync(in->journal, err);
}

int
ingest_checkpoint(struct ingest *in, struct wp_err *err)
{
	in->last_checkpoint = clock_mono();
	/*
	 * Every record appended after this snapshot started its poll less
	 * than a poll's longest life before now, so replaying from there on
	 * restart misses nothing; replay is idempotent, so overlap is harmless.
	 */
	state_set_stamp(in->state, clock_real() - 2 * in->max_poll);
	if (journal_flush(in->journal, err) == -1)
		return -1;
	if (state_save(in->state, in->data_dir, err) == -1)
		return -1;
	if (!in->closing)	/* at exit rrdq_free flushes everything */
		rrdq_due(in->rrd, clock_real());
	return 0;
}
