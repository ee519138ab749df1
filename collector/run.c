/*
 * run.c - the collector's main loop: one timer per target on the loop's
 * heap, at most one poll in flight per target, a deadline per poll,
 * backoff on failure, change-only logging, and ingest of every poll.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "../model/integrate.h"
#include "conf/conf.h"
#include "lib/http.h"
#include "drift_watch.h"
#include "ingest.h"
#include "lib/log.h"
#include "lib/loop.h"
#include "lib/shared.h"
#include "registry.h"
#include "lastset.h"
#include "run.h"
#include "sched.h"
#include "lib/workers.h"
#include "push_listen.h"

struct target {
	struct collector	*co;
	struct wp_conf		*conf;		/* the conf tc lives in (ref) */
	const struct wp_target_conf *tc;
	const char		*driver_name;
	const struct wp_driver	*drv;
	void			*state;
	char			*fingerprint;	/* config identity, for reload */
	struct loop_timer	*timer;
	struct rpoll		*inflight;
	wp_time			 due;
	int			 failures;
	bool			 up, ever_polled, polled_once;
	int			 last_class;
	char			 last_err[WP_ERR_MSG];
	int			 err_class;	/* last failure's, kept */
	wp_time			 err_real;	/* when, 0 never */
	wp_time			 last_poll_real, last_duration;
	unsigned long		 polls, nfail;
	struct lastset		 last;		/* compact: expanded for views */
	struct ingest_ctr	*last_ctr;	/* last.n entries, or NULL */
	/* pushed readings (lib/push.h) */
	struct wp_push_sink	 sink;
	bool			 push_target, push_up, pushed;
	unsigned long		 push_reports[WP_PUSH_N];
	unsigned long		 push_refused[WP_PUSH_N];
	char			 push_token[PUSH_TOKEN_LEN + 1];
	char			*post_url, *post_context;	/* or NULL */
};

/* A poll in flight: the driver's sink (p) and the core's timer. */
struct rpoll {
	struct wp_poll		 p;		/* first: p.owner is this */
	struct target		*t;
	struct loop_timer	*deadline_timer;
	bool			 in_start, finished;
};

struct conf_ref {
	struct wp_conf		*conf;
	int			 refs;
	struct conf_ref		*next;
};

struct collector {
	struct conf_ref		*confs;		/* newest first */
	struct wp_conf		*conf;		/* current */
	struct loop		*loop;
	struct http		*http;
	struct workers		*workers;
	struct wp_services	 svc;
	struct wp_shared	*shared;	/* what targets of a driver share */
	char			*state_dir;
	struct ingest		*ingest;
	struct drift_watch	*drift;		/* pairs of instruments */
	struct target		**t;
	size_t			 n;
	int			 sigfd;
	bool			 once;
	size_t			 once_left;
	struct loop_timer	*once_timer;
	struct loop_timer	*sync_timer;	/* journal group commit */
	bool			 sync_failing;	/* its last call failed (logged) */
	bool			 drivers_up;	/* registry_init done */
	struct push_listen	*pushl;		/* collector.push_listen, or NULL */
	char			*push_base;	/* https://host:port BMCs POST to */
	struct collector_reloads reloads;
};

#define LOGOUT_GRACE	(3 * WP_SEC)	/* for session DELETEs at exit */
#define PUSH_AHEAD_MAX	(60 * WP_SEC)	/* a pushed value's time past ours */

static void poll_begin(void *arg);
static void poll_finish(struct wp_poll *p);
static size_t push_report(void *owner, int result, struct wp_sample *v,
    size_t n);
static void push_stream(void *owner, bool up);

/* --- config references: a target keeps the conf it was built from --- */

static void
conf_ref(struct collector *co, const struct wp_conf *c, int delta)
{
	struct conf_ref **pp, *r;

	for (pp = &co->confs; (r = *pp) != NULL; pp = &r->next) {
		if (r->conf != c)
			continue;
		r->refs += delta;
		if (r->refs <= 0 && c != co->conf) {
			*pp = r->next;
			conf_free(r->conf);
			free(r);
		}
		return;
	}
}

/* Frees every old conf no target refers to any more. */
static void
conf_sweep(struct collector *co)
{
	struct conf_ref **pp = &co->confs, *r;

	while ((r = *pp) != NULL) {
		if (r->refs <= 0 && r->conf != co->conf) {
			*pp = r->next;
			conf_free(r->conf);
			free(r);
		} else
			pp = &r->next;
	}
}

static int
conf_adopt(struct collector *co, struct wp_conf *c)
{
	struct conf_ref *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -1;
	r->conf = c;
	r->next = co->confs;
	co->confs = r;
	co->conf = c;
	return 0;
}

/* --- targets --- */

static void
describe(const struct target *t, char *buf, size_t len)
{
	if (t->drv->describe != NULL && t->state != NULL)
		t->drv->describe(t->state, buf, len);
	else
		snprintf(buf, len, "%s %s", t->driver_name, t->tc->name);
}

static void
fingerprint_node(const struct ynode *n, FILE *f)
{
	for (; n != NULL; n = n->next) {
		fprintf(f, "%d|%s|%s{", n->type, n->key ? n->key : "",
		    n->value ? n->value : "");
		fingerprint_node(n->child, f);
		fputs("}", f);
	}
}

/* Identity of a target's config: its block, credentials and timing. */
static char *
fingerprint(const struct wp_conf *c, const struct wp_target_conf *tc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	size_t i;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fprintf(f, "%s|%lld|%lld|", tc->kind, (long long)tc->interval,
	    (long long)tc->timeout);
	if (tc->block != NULL)
		fingerprint_node(tc->block->child, f);
	for (i = 0; i < c->n_creds; i++)
		fingerprint_node(c->creds[i].block, f);
	fclose(f);
	return buf;
}

static void
target_free(struct target *t)
{
	if (t == NULL)
		return;
	if (t->inflight != NULL) {
		if (t->drv->poll_cancel)
			t->drv->poll_cancel(t->state, &t->inflight->p);
		loop_timer_free(t->inflight->deadline_timer);
		poll_fini(&t->inflight->p);
		free(t->inflight);
	}
	if (t->drv->target_free)
		t->drv->target_free(t->state);
	explicit_bzero(t->push_token, sizeof(t->push_token));
	if (t->post_url != NULL)
		explicit_bzero(t->post_url, strlen(t->post_url));
	free(t->post_url);
	free(t->post_context);
	loop_timer_free(t->timer);
	conf_ref(t->co, t->conf, -1);
	free(t->fingerprint);
	lastset_fini(&t->last);
	free(t->last_ctr);
	free(t);
}

/* The target's push URL (a new secret token) and Context, for POST
 * delivery to the listener at base. */
static int
post_dest(struct target *t, const char *base, struct wp_err *err)
{
	if (push_token_new(t->push_token, err) < 0)
		return -1;
	if (asprintf(&t->post_url, "%s" PUSH_LISTEN_PATH "%s", base,
	    t->push_token) < 0) {
		t->post_url = NULL;
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	if (asprintf(&t->post_context, "wattpath:%s:%s", base + 8,
	    t->tc->name) < 0) {
		t->post_context = NULL;
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	return 0;
}

static struct target *
target_new(struct collector *co, size_t i, struct wp_err *err)
{
	struct wp_conf *c = co->conf;
	struct target *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		goto nomem;
	t->co = co;
	t->conf = c;
	conf_ref(co, c, +1);
	t->tc = &c->targets[i];
	t->driver_name = c->target_drivers[i];
	t->up = true;
	if ((t->drv = registry_find(t->driver_name)) == NULL) {
		err_set(err, WP_E_CONFIG, "%s: no driver %s", t->tc->name,
		    t->driver_name);
		goto fail;
	}
	if ((t->fingerprint = fingerprint(c, t->tc)) == NULL ||
	    (t->timer = loop_timer_new(co->loop, poll_begin, t)) == NULL)
		goto nomem;
	if (t->drv->target_new(t->tc, &co->svc, &t->state, err) == -1) {
		err_prefix(err, "%s", t->tc->name);
		goto fail;
	}
	if (t->drv->push_attach != NULL) {
		t->sink = (struct wp_push_sink){ push_report, push_stream, t,
		    NULL, NULL };
		if (co->pushl != NULL && post_dest(t, co->push_base, err) < 0)
			goto fail;
		t->sink.post_url = t->post_url;
		t->sink.post_context = t->post_context;
		t->drv->push_attach(t->state, &t->sink);
	}
	return t;
nomem:
	err_set(err, WP_E_INTERNAL, "out of memory");
fail:
	if (t != NULL) {
		t->drv = t->drv ? t->drv : &(const struct wp_driver){ 0 };
		target_free(t);
	}
	return NULL;
}

/* --- polls --- */

static void
log_health(struct target *t, int ok, const struct wp_err *err)
{
	char who[256];

	if (ok) {
		if (!t->up) {
			describe(t, who, sizeof(who));
			log_info("%s: recovered after %d failed polls", who,
			    t->failures);
		}
		t->up = true;
		t->last_class = WP_E_NONE;
		t->last_err[0] = '\0';
		return;
	}
	if (t->up || t->last_class != err->class ||
	    strcmp(t->last_err, err->msg) != 0) {
		describe(t, who, sizeof(who));
		log_warnx("%s: %s", who, err->msg);
	}
	t->up = false;
	t->last_class = t->err_class = err->class;
	t->err_real = clock_real();
	snprintf(t->last_err, sizeof(t->last_err), "%s", err->msg);
}

/*
 * The gauge-estimated energy of each power gauge of the poll: the previous
 * good poll's integral (t->last, t->last_ctr) carried on by the trapezoid
 * to this reading (integ_run_add, the report's gauge rule; a gap of more
 * than 3 intervals adds nothing).  Since the collector started; lost on a
 * restart or a reload that rebuilds the target.
 */
static void
integrate_gauges(const struct target *t, const struct wp_sample *v, size_t n,
    struct ingest_ctr *ctr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct wp_sample *s = &v[i];
		struct integ_run r = { 0 };
		long j;
		int kind;

		if (s->kind != WP_GAUGE || s->quantity != WP_Q_POWER)
			continue;
		if ((j = lastset_find(&t->last, s->series, i)) >= 0 &&
		    t->last_ctr != NULL && t->last_ctr[j].integrated) {
			lastset_reading(&t->last, (size_t)j, &r.t, &r.v, &kind);
			r.valid = kind == WP_GAUGE;
			r.energy = t->last_ctr[j].cum;
		}
		ctr[i].span = r.valid && s->t_real > r.t ? s->t_real - r.t : 0;
		ctr[i].delta = integ_run_add(&r, s->t_real, s->value,
		    t->tc->interval);
		ctr[i].cum = r.energy;
		ctr[i].integrated = r.valid;
	}
}

/*
 * Keeps v's samples and their counter states (ctr taken over) as the
 * target's last readings (text: v's strings, or NULL): in place of the
 * last set, or (a target that received pushed readings, whose reports
 * carry some series only) merged into it, series by series.
 */
static void
keep_last(struct target *t, const struct wp_sample *v, size_t n,
    struct ingest_ctr *ctr, struct sertext *text)
{
	struct wp_sample *m = NULL;
	struct ingest_ctr *mc = NULL;
	size_t i, mn;
	long j;

	if (ctr != NULL)
		integrate_gauges(t, v, n, ctr);
	if (n == 0)
		goto drop;
	if (!t->pushed || t->last.n == 0) {
		if (lastset_set(&t->last, v, n, text) < 0)
			goto drop;
		free(t->last_ctr);
		t->last_ctr = ctr;
		return;
	}
	if ((m = calloc(t->last.n + n, sizeof(*m))) == NULL ||
	    (mc = calloc(t->last.n + n, sizeof(*mc))) == NULL)
		goto drop;
	mn = lastset_expand(&t->last, m);
	if (t->last_ctr != NULL)
		memcpy(mc, t->last_ctr, mn * sizeof(*mc));
	for (i = 0; i < n; i++) {
		j = lastset_find(&t->last, v[i].series, i);
		m[j >= 0 ? (size_t)j : mn] = v[i];
		mc[j >= 0 ? (size_t)j : mn] = ctr != NULL ? ctr[i] :
		    (struct ingest_ctr){ 0 };
		mn += j < 0;
	}
	if (lastset_set(&t->last, m, mn, NULL) < 0)
		goto drop;
	free(t->last_ctr);
	t->last_ctr = mc;
	free(m);
	free(ctr);
	return;
drop:
	free(m);
	free(mc);
	free(ctr);
}

/*
 * A target that received pushed readings: leaves out of v (in place) each
 * sample not newer than the last one ingested of its series (counted as
 * replayed or out of order).  Returns the number kept.
 */
static size_t
drop_seen(struct target *t, struct wp_sample *v, size_t n)
{
	size_t i, k = 0;
	wp_time lt;
	double lv;
	long j;
	int kind;

	for (i = 0; i < n; i++) {
		if ((j = lastset_find(&t->last, v[i].series, i)) >= 0) {
			lastset_reading(&t->last, (size_t)j, &lt, &lv, &kind);
			if (v[i].t_real <= lt) {
				t->push_refused[v[i].t_real == lt ?
				    WP_PUSH_REPLAYED : WP_PUSH_OUT_OF_ORDER]++;
				continue;
			}
		}
		if (k != i)
			v[k] = v[i];
		k++;
	}
	return k;
}

static void
ingest(struct target *t, struct wp_poll *p)
{
	struct ingest_poll ip = { .target = t->tc->name,
	    .hold_dips = strcmp(t->tc->kind, "meter") == 0,
	    .t_real = p->t_real, .t_mono = p->t_mono,
	    .interval = t->tc->interval,
	    .duration = clock_mono() - p->t_mono,
	    .status = p->status == 0 ? 0 : p->err.class,
	    .error = p->status == 0 ? "" : p->err.msg,
	    .v = p->v, .n = p->status == 0 ? p->n : 0 };
	struct wp_err err;

	if (t->pushed && ip.n > 0)
		ip.n = p->n = drop_seen(t, p->v, p->n);
	t->last_duration = ip.duration;
	t->last_poll_real = p->t_real;
	if (ip.n > 0) {
		ip.ctr = calloc(ip.n, sizeof(*ip.ctr));
		/* the poll's strings, kept once for the target: its last
		 * samples' when the same (NULL out of memory: the journal
		 * and the last samples then pool their own) */
		ip.text = sertext_for(t->last.text, p->v, ip.n,
		    sizeof(*p->v));
	}
	(void)ingest_poll(t->co->ingest, &ip, &err);	/* its health says */
	if (p->status == 0)
		drift_watch_poll(t->co->drift, t->tc->name, p->t_real, p->v,
		    ip.ctr, ip.n);
	if (p->status == 0)
		keep_last(t, p->v, ip.n, ip.ctr, ip.text);
	else
		free(ip.ctr);
	sertext_drop(ip.text);
}

/* --- pushed readings (lib/push.h) --- */

static int
by_time(const void *a, const void *b)
{
	const struct wp_sample *x = a, *y = b;

	return x->t_real < y->t_real ? -1 : x->t_real > y->t_real;
}

/* One batch of pushed samples (distinct series, none seen): journal,
 * store, drift watch and the last readings, as a poll's. */
static void
push_ingest(struct target *t, struct wp_sample *v, size_t n)
{
	struct ingest_poll ip = { .target = t->tc->name,
	    .hold_dips = strcmp(t->tc->kind, "meter") == 0,
	    .t_mono = clock_mono(), .interval = t->tc->interval,
	    .error = "", .v = v, .n = n };
	struct wp_err err;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].t_real > ip.t_real)
			ip.t_real = v[i].t_real;
	ip.ctr = calloc(n, sizeof(*ip.ctr));
	(void)ingest_poll(t->co->ingest, &ip, &err);	/* its health says */
	drift_watch_poll(t->co->drift, t->tc->name, ip.t_real, v, ip.ctr, n);
	t->pushed = true;
	keep_last(t, v, n, ip.ctr, NULL);
}

/*
 * A pushed report: its values in time order, each refused when not newer
 * than the last of its series ingested, the rest ingested in batches of
 * distinct series (a report may hold a series at several times).
 */
static size_t
push_report(void *owner, int result, struct wp_sample *v, size_t n)
{
	struct target *t = owner;
	wp_time now = clock_real(), mono = clock_mono();
	unsigned long o0 = t->push_refused[WP_PUSH_OUT_OF_ORDER];
	size_t i, b = 0, kept = 0;

	if (result != WP_PUSH_OK || n == 0) {
		t->push_reports[result == WP_PUSH_OK ? WP_PUSH_IGNORED :
		    result >= 0 && result < WP_PUSH_N ? result :
		    WP_PUSH_MALFORMED]++;
		return 0;
	}
	for (i = b = 0; i < n; i++) {
		if (v[i].t_real == 0)
			v[i].t_real = now;
		if (v[i].t_real > now + PUSH_AHEAD_MAX) {
			t->push_refused[WP_PUSH_OUT_OF_ORDER]++;
			continue;	/* would shadow every later value */
		}
		v[b] = v[i];
		v[b++].t_mono = mono - (now - v[i].t_real);
	}
	n = b;
	b = 0;
	qsort(v, n, sizeof(*v), by_time);
	t->pushed = true;
	for (i = 0; i <= n; i++) {
		bool cut = i == n;
		size_t k, m;

		for (k = b; !cut && k < i; k++)
			cut = strcmp(v[k].series, v[i].series) == 0;
		if (!cut)
			continue;
		if ((m = drop_seen(t, v + b, i - b)) > 0)
			push_ingest(t, v + b, m);
		kept += m;
		b = i;
	}
	t->push_reports[kept > 0 ? WP_PUSH_OK :
	    t->push_refused[WP_PUSH_OUT_OF_ORDER] > o0 ? WP_PUSH_OUT_OF_ORDER :
	    WP_PUSH_REPLAYED]++;
	return kept;
}

/* A body POSTed to the push listener: to the target its token names. */
static int
push_route(void *arg, const char *token, const char *peer, const char *body,
    size_t len, bool oversized)
{
	struct collector *co = arg;
	struct target *t = NULL;
	size_t i;

	for (i = 0; i < co->n; i++)	/* no early exit: constant time */
		if (co->t[i] != NULL && co->t[i]->post_url != NULL &&
		    push_token_eq(token, co->t[i]->push_token))
			t = co->t[i];
	if (t == NULL)
		return -1;
	if (oversized)
		t->push_reports[WP_PUSH_OVERSIZED]++;
	else if (t->drv->push_post != NULL)
		t->drv->push_post(t->state, body, len, peer);
	return 0;
}

/* collector.push_listen: the listener, and the URL BMCs POST to. */
static int
push_listen_start(struct collector *co, const struct wp_conf *c,
    struct wp_err *err)
{
	const char *cert = c->push_tls_cert_file ? c->push_tls_cert_file :
	    c->tls_cert_file, *key = c->push_tls_key_file ?
	    c->push_tls_key_file : c->tls_key_file;

	if (c->push_listen == NULL)
		return 0;
	if (c->push_url != NULL)
		co->push_base = strdup(c->push_url);
	else if (asprintf(&co->push_base, "https://%s", c->push_listen) < 0)
		co->push_base = NULL;
	if (co->push_base == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	co->push_base[strcspn(co->push_base + 8, "/") + 8] = '\0';
	co->pushl = push_listen_new(co->loop, c->push_listen, cert, key,
	    push_route, co, err);
	return co->pushl != NULL ? 0 : -1;
}

const unsigned long *
collector_push_listen_refused(const struct collector *co)
{
	return co->pushl != NULL ? push_listen_refused(co->pushl) : NULL;
}

static void
push_stream(void *owner, bool up)
{
	struct target *t = owner;

	t->push_target = true;
	t->push_up = up;
}

/* Sets the target's timer for its next poll, on the batching grid. */
static void
arm_poll(struct target *t)
{
	loop_timer_arm(t->timer, sched_wake(t->due, t->tc->interval,
	    t->conf->poll_batch));
}

static void
reschedule(struct target *t, int ok)
{
	wp_time now = clock_mono();

	if (ok) {
		t->failures = 0;
		t->due = sched_next_ok(t->due, now, t->tc->interval);
	} else {
		t->failures++;
		t->due = now + sched_backoff(t->failures, t->tc->interval,
		    t->conf->backoff_max);
	}
	if (!t->co->once)
		arm_poll(t);
}

static void
once_progress(struct collector *co)
{
	if (co->once && co->once_left > 0 && --co->once_left == 0)
		loop_stop(co->loop);
}

static void
rpoll_free(struct rpoll *rp)
{
	poll_fini(&rp->p);
	free(rp);
}

/* The poll ended (poll_done or the deadline): account, ingest, reschedule. */
static void
poll_finish(struct wp_poll *p)
{
	struct rpoll *rp = p->owner;
	struct target *t = rp->t;

	rp->finished = true;
	loop_timer_free(rp->deadline_timer);
	rp->deadline_timer = NULL;
	t->inflight = NULL;
	t->polls++;
	if (p->status != 0)
		t->nfail++;
	log_health(t, p->status == 0, &p->err);
	ingest(t, p);
	reschedule(t, p->status == 0);
	if (!t->polled_once) {
		t->polled_once = true;
		once_progress(t->co);
	}
	if (!rp->in_start)
		rpoll_free(rp);
}

static const struct wp_poll_ops rpoll_ops = { poll_finish };

static void
poll_expired(void *arg)
{
	struct rpoll *rp = arg;
	struct target *t = rp->t;

	if (t->drv->poll_cancel)
		t->drv->poll_cancel(t->state, &rp->p);
	poll_expire(&rp->p, t->tc->timeout);
}

static void
poll_begin(void *arg)
{
	struct target *t = arg;
	struct rpoll *rp;
	struct wp_err err;
	int rc;

	if (t->inflight != NULL)	/* still busy: skip this slot */
		return;
	if ((rp = calloc(1, sizeof(*rp))) == NULL ||
	    (rp->deadline_timer = loop_timer_new(t->co->loop, poll_expired,
	    rp)) == NULL) {
		free(rp);
		reschedule(t, 0);
		return;
	}
	rp->t = t;
	poll_init(&rp->p, &rpoll_ops, rp, t->tc->name, t->tc->timeout);
	loop_timer_arm(rp->deadline_timer, rp->p.deadline);
	t->inflight = rp;
	rp->in_start = true;
	err_clear(&err);
	rc = t->drv->poll_start(t->state, &rp->p);
	if (rc == -1 && !rp->p.done) {
		if (err.class == WP_E_NONE)
			err_set(&err, WP_E_INTERNAL, "poll could not start");
		poll_done(&rp->p, -1, &err);
	}
	rp->in_start = false;
	if (rp->finished)
		rpoll_free(rp);
}

/* --- building, reloading --- */

static struct target *
take_unchanged(struct target **old, size_t n_old,
    const struct wp_target_conf *tc, const char *fp)
{
	size_t i;
	struct target *t;

	for (i = 0; i < n_old; i++) {
		t = old[i];
		if (t == NULL || strcmp(t->tc->name, tc->name) != 0 ||
		    strcmp(t->fingerprint, fp) != 0)
			continue;
		old[i] = NULL;
		return t;
	}
	return NULL;
}

static int
build_targets(struct collector *co, struct target **old, size_t n_old,
    struct wp_err *err)
{
	struct wp_conf *c = co->conf;
	struct target **tv, *t;
	wp_time now = clock_mono();
	char *fp;
	size_t i;

	if ((tv = calloc(c->n_targets + 1, sizeof(*tv))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	for (i = 0; i < c->n_targets; i++) {
		fp = fingerprint(c, &c->targets[i]);
		t = fp ? take_unchanged(old, n_old, &c->targets[i], fp) : NULL;
		free(fp);
		if (t != NULL) {
			tv[i] = t;	/* keeps its driver state and its conf */
			continue;
		}
		if ((tv[i] = target_new(co, i, err)) == NULL) {
			log_warnx("%s (target left out)", err->msg);
			continue;
		}
		if (co->once) {
			tv[i]->due = now;
			loop_timer_arm(tv[i]->timer, now);
		} else {
			tv[i]->due = sched_first_due(now, tv[i]->tc->interval,
			    i, c->n_targets, (uint64_t)getpid());
			arm_poll(tv[i]);
		}
	}
	co->t = tv;
	co->n = c->n_targets;
	return 0;
}

static int
reload_try(struct collector *co)
{
	struct conf_errs errs = { 0 };
	struct wp_conf *nc;
	struct target **old = co->t;
	size_t n_old = co->n, i;
	struct wp_err err;

	log_info("SIGHUP: reloading %s", co->conf->path);
	if ((nc = conf_load(co->conf->path, registry_find, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			log_warnx("%s", errs.msg[i]);
		log_warnx("reload failed: keeping the running configuration");
		conf_errs_fini(&errs);
		return -1;
	}
	for (i = 0; i < errs.n_warn; i++)
		log_warnx("%s", errs.warn[i]);
	conf_errs_fini(&errs);
	if (conf_adopt(co, nc) == -1) {
		conf_free(nc);
		return -1;
	}
	if (build_targets(co, old, n_old, &err) == -1) {
		log_warnx("reload: %s", err.msg);
		co->t = old;
		co->n = n_old;
		return -1;
	}
	for (i = 0; i < n_old; i++)
		target_free(old[i]);
	free(old);
	drift_watch_free(co->drift);	/* its pairs are the old conf's */
	co->drift = drift_watch_new(co->conf);
	conf_sweep(co);
	log_info("reloaded: %zu targets", co->n);
	return 0;
}

/* A reload, counted (collector_reloads). */
static void
reload(struct collector *co)
{
	struct collector_reloads *r = &co->reloads;

	r->tried++;
	r->ok = reload_try(co) == 0;
	if (r->ok)
		r->last_ok_real = clock_real();
	else
		r->failed++;
}

static void
on_signal(int fd, int events, void *arg)
{
	struct collector *co = arg;
	struct signalfd_siginfo si;

	(void)events;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(co);
		else {
			log_info("signal %u: stopping", si.ssi_signo);
			loop_stop(co->loop);
		}
	}
}

static int
setup_signals(struct collector *co, struct wp_err *err)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (co->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1 ||
	    loop_add_fd(co->loop, co->sigfd, LOOP_READ, on_signal, co) == -1)
		return err_set(err, WP_E_INTERNAL, "signals: %s",
		    strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void
on_sync(void *arg)
{
	struct collector *co = arg;
	struct wp_err err;

	/* fails only where no sync thread could start and the loop's own
	 * sync failed: logged when that starts and ends, not every second */
	if (ingest_sync(co->ingest, &err) == -1) {
		if (!co->sync_failing)
			log_warnx("%s", err.msg);
		co->sync_failing = true;
	} else if (co->sync_failing) {
		log_info("journal: syncs work again");
		co->sync_failing = false;
	}
	loop_timer_arm(co->sync_timer, clock_mono() + INGEST_SYNC_EVERY);
}

static void
once_expired(void *arg)
{
	struct collector *co = arg;

	log_warnx("--once: gave up waiting for %zu targets", co->once_left);
	loop_stop(co->loop);
}

struct collector *
collector_new(struct wp_conf *conf, const struct collector_opts *o,
    struct wp_err *err)
{
	struct collector *co;
	char dir[4096];

	if ((co = calloc(1, sizeof(*co))) == NULL) {
		conf_free(conf);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	co->sigfd = -1;
	co->once = o != NULL && o->once;
	co->reloads = (struct collector_reloads){ true, clock_real(), 0, 0 };
	if (conf_adopt(co, conf) == -1) {
		conf_free(conf);
		free(co);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s/state", conf->data_dir);
	/* Signals first: threads started later inherit the blocked mask. */
	if ((co->loop = loop_new(err)) == NULL ||
	    setup_signals(co, err) == -1 ||
	    (co->ingest = ingest_new(conf, err)) == NULL ||
	    (co->state_dir = strdup(dir)) == NULL ||
	    (co->http = http_new(co->loop, conf->http_max_inflight, err)) == NULL ||
	    (co->workers = workers_new(co->loop, conf->workers, err)) == NULL)
		goto fail;
	if ((co->shared = shared_new()) == NULL ||
	    (co->drift = drift_watch_new(conf)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	co->svc = (struct wp_services){ co->loop, co->http, co->workers,
	    co->state_dir, co->shared };
	if (registry_init(&co->svc, err) == -1)
		goto fail;
	co->drivers_up = true;
	if (push_listen_start(co, conf, err) == -1 ||
	    build_targets(co, NULL, 0, err) == -1)
		goto fail;
	if ((co->sync_timer = loop_timer_new(co->loop, on_sync, co)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	loop_timer_arm(co->sync_timer, clock_mono() + INGEST_SYNC_EVERY);
	if (co->once) {
		co->once_left = 0;
		for (size_t i = 0; i < co->n; i++)
			co->once_left += co->t[i] != NULL;
		if ((co->once_timer = loop_timer_new(co->loop, once_expired,
		    co)) == NULL)
			goto fail;
		loop_timer_arm(co->once_timer, clock_mono() +
		    2 * conf->timeout + WP_SEC);
	}
	return co;
fail:
	collector_free(co);
	return NULL;
}

void
collector_free(struct collector *co)
{
	struct conf_ref *r, *next;
	size_t i;

	if (co == NULL)
		return;
	push_listen_free(co->pushl);	/* nothing more comes in */
	co->pushl = NULL;
	for (i = 0; i < co->n; i++)
		target_free(co->t[i]);
	free(co->t);
	/* Session logouts started by target_free get a moment to finish. */
	if (co->loop != NULL && co->http != NULL) {
		wp_time until = clock_mono() + LOGOUT_GRACE;

		while (http_pending(co->http) > 0 && clock_mono() < until)
			if (loop_run_once(co->loop, 100) == -1)
				break;
	}
	if (co->drivers_up)
		registry_fini();
	if (shared_count(co->shared) > 0)
		log_warnx("%d shared driver objects left at exit",
		    shared_count(co->shared));
	shared_free(co->shared);
	workers_free(co->workers);
	http_free(co->http);
	ingest_free(co->ingest);
	drift_watch_free(co->drift);
	loop_timer_free(co->once_timer);
	loop_timer_free(co->sync_timer);
	if (co->sigfd != -1) {
		loop_del_fd(co->loop, co->sigfd);
		close(co->sigfd);
	}
	loop_free(co->loop);
	for (r = co->confs; r != NULL; r = next) {
		next = r->next;
		conf_free(r->conf);
		free(r);
	}
	free(co->state_dir);
	free(co->push_base);
	free(co);
}

int
collector_run(struct collector *co, struct wp_err *err)
{
	log_info("collecting from %zu targets every %.0f s", co->n,
	    (double)co->conf->interval / WP_SEC);
	if (co->once && co->once_left == 0)
		return 0;
	if (loop_run(co->loop) == -1)
		return err_set(err, WP_E_INTERNAL, "event loop: %s",
		    strerror(errno));
	return 0;
}

int
collector_each_target(const struct collector *co,
    int (*fn)(const struct target_view *, void *), void *arg)
{
	struct target_view v;
	const struct target *t;
	struct wp_sample *buf = NULL, *nb;
	size_t i, cap = 0;
	int rc = 0;

	for (i = 0; i < co->n && rc == 0; i++) {
		if ((t = co->t[i]) == NULL)
			continue;
		if (t->last.n > cap) {	/* one buffer, as large as needed */
			if ((nb = realloc(buf, t->last.n * sizeof(*nb))) ==
			    NULL)
				continue;	/* no memory: this one skipped */
			buf = nb;
			cap = t->last.n;
		}
		v = (struct target_view){ t->tc->name, t->driver_name,
		    t->tc->node, t->up && t->polls > 0,
		    t->up ? "" : err_class_name(t->last_class), t->last_err,
		    t->last_poll_real, t->last_duration, t->polls, t->nfail,
		    buf, lastset_expand(&t->last, buf), t->last_ctr,
		    t->push_target ? t->push_up : -1,
		    t->push_target ? t->push_reports : NULL,
		    t->push_target ? t->push_refused : NULL,
		    t->err_real ? err_class_name(t->err_class) : "",
		    t->err_real };
		rc = fn(&v, arg) != 0;
	}
	free(buf);
	return rc;
}

const struct wp_conf *
collector_conf_hold(struct collector *co)
{
	conf_ref(co, co->conf, +1);
	return co->conf;
}

void
collector_conf_release(struct collector *co, const struct wp_conf *c)
{
	if (c != NULL)
		conf_ref(co, c, -1);
}

const struct drift_watch *
collector_drift(const struct collector *co)
{
	return co->drift;
}

const struct wp_conf *
collector_conf(const struct collector *co)
{
	return co->conf;
}

void
collector_health(const struct collector *co, struct ingest_health *h)
{
	ingest_health(co->ingest, h);
}

void
collector_reloads(const struct collector *co, struct collector_reloads *r)
{
	*r = co->reloads;
}

struct loop *
collector_loop(const struct collector *co)
{
	return co->loop;
}
