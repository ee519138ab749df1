/* rrdq.c - the RRD store on a writer thread; see rrdq.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/log.h"
#include "../lib/strcopy.h"
#include "rrdq.h"

#define BATCH		256			/* entries taken at once */
#define STILL_EVERY	(600 * WP_SEC)		/* "still failing" lines */
#define TARGET_MAX	128
/* The writer, woken by a value put on an empty queue, waits LINGER for
 * more before it takes them (or until HIGH are queued, or stop): one
 * wake-up of the thread for a batch of polls, not two context switches
 * per poll.  RRD files are written that much later (they hold values for
 * rrd_write_delay anyway); the journal is written on the loop. */
#define LINGER		WP_SEC
#define HIGH(q)		((q)->cap / 8)

enum { OP_PUT, OP_COMMIT, OP_DUE };

/* One queued operation: a value for store_update, or a commit or due. */
struct ent {
	uint8_t		 op, kind, quantity, boundary;
	char		 target[TARGET_MAX];
	char		 series[WP_SERIES_MAX];
	double		 value, cum;
	wp_time		 t;
};

struct rrdq {
	struct store	*st;		/* the writer's alone */
	pthread_t	 thr;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* work queued, or stop (monotonic) */
	pthread_cond_t	 idle;		/* the writer took everything */
	struct ent	*ring;
	size_t		 cap, head, n;	/* head: the oldest */
	bool		 stop, done, busy, block;
	struct rrdq_health h;
	wp_time		 last_still;	/* "still failing" logged */
};

static void *writer(void *arg);

/* A condition whose timed waits count on CLOCK_MONOTONIC, so a step of
 * the wall clock does not stretch the writer's linger. */
static void
cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

struct rrdq *
rrdq_new(struct store *st, size_t cap, struct wp_err *err)
{
	struct rrdq *q;

	if ((q = calloc(1, sizeof(*q))) == NULL ||
	    (q->ring = calloc(cap ? cap : RRDQ_DEFAULT_CAP,
	    sizeof(*q->ring))) == NULL) {
		free(q);
		store_free(st);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	q->st = st;
	q->cap = cap ? cap : RRDQ_DEFAULT_CAP;
	q->h.ok = true;
	q->h.since = clock_real();
	pthread_mutex_init(&q->mu, NULL);
	cond_init_mono(&q->cv);
	pthread_cond_init(&q->idle, NULL);
	if ((errno = pthread_create(&q->thr, NULL, writer, q)) != 0) {
		err_set(err, WP_E_INTERNAL, "store writer: %s",
		    strerror(errno));
		pthread_cond_destroy(&q->cv);
		pthread_cond_destroy(&q->idle);
		pthread_mutex_destroy(&q->mu);
		free(q->ring);
		store_free(st);
		free(q);
		return NULL;
	}
	return q;
}

void
rrdq_set_blocking(struct rrdq *q, bool block)
{
	pthread_mutex_lock(&q->mu);
	q->block = block;
	pthread_mutex_unlock(&q->mu);
}

/* Appends e (locked); false when full. */
static bool
push(struct rrdq *q, const struct ent *e)
{
	while (q->n == q->cap && q->block && !q->done)
		pthread_cond_wait(&q->idle, &q->mu);
	if (q->n == q->cap)
		return false;
	q->ring[(q->head + q->n++) % q->cap] = *e;
	/* the writer waits for a first value, or lingers until HIGH */
	if (q->n == 1 || q->n >= HIGH(q))
		pthread_cond_signal(&q->cv);
	return true;
}

int
rrdq_put(struct rrdq *q, const char *target, const struct wp_sample *s,
    double cum, wp_time t)
{
	struct ent e = { .op = OP_PUT, .kind = s->kind,
	    .quantity = s->quantity, .boundary = s->boundary,
	    .value = s->value, .cum = cum, .t = t };
	bool ok;

	str_copy(e.target, sizeof(e.target), target);
	str_copy(e.series, sizeof(e.series), s->series);
	pthread_mutex_lock(&q->mu);
	if (!(ok = push(q, &e)))
		q->h.dropped++;
	pthread_mutex_unlock(&q->mu);
	return ok ? 0 : -1;
}

static void
put_op(struct rrdq *q, int op, wp_time t)
{
	struct ent e = { .op = (uint8_t)op, .t = t };

	pthread_mutex_lock(&q->mu);
	push(q, &e);		/* full: the next one does it */
	pthread_mutex_unlock(&q->mu);
}

void
rrdq_commit(struct rrdq *q)
{
	put_op(q, OP_COMMIT, 0);
}

void
rrdq_due(struct rrdq *q, wp_time now)
{
	put_op(q, OP_DUE, now);
}

void
rrdq_health(struct rrdq *q, struct rrdq_health *h)
{
	pthread_mutex_lock(&q->mu);
	*h = q->h;
	h->queued = q->n;
	pthread_mutex_unlock(&q->mu);
}

/* --- the writer --- */

/* Records one operation's outcome (locked): the change is logged once,
 * a failure that goes on again every STILL_EVERY. */
static void
note(struct rrdq *q, int rc, const struct wp_err *err, unsigned long vals)
{
	wp_time now = clock_real();

	if (rc == 0) {
		q->h.written += vals;
		q->h.last_ok = now;
		if (!q->h.ok)
			log_info("store: RRD writes work again (%lu failed, "
			    "%lu values dropped meanwhile)", q->h.failed,
			    q->h.dropped);
		if (!q->h.ok)
			q->h.since = now;
		q->h.ok = true;
		return;
	}
	q->h.failed++;
	snprintf(q->h.error, sizeof(q->h.error), "%s", err->msg);
	if (q->h.ok) {
		log_warnx("store: RRD writes fail: %s (the journal keeps "
		    "every reading)", err->msg);
		q->h.ok = false;
		q->h.since = q->last_still = now;
	} else if (now - q->last_still >= STILL_EVERY) {
		log_warnx("store: RRD writes still fail: %s (%lu failed, %lu "
		    "values dropped)", err->msg, q->h.failed, q->h.dropped);
		q->last_still = now;
	}
}

static void
run_one(struct rrdq *q, const struct ent *e, unsigned long *vals)
{
	struct wp_sample s;
	struct wp_err err = { 0 };
	int rc = 0;

	switch (e->op) {
	case OP_PUT:
		memset(&s, 0, sizeof(s));
		str_copy(s.series, sizeof(s.series), e->series);
		s.kind = e->kind;
		s.quantity = e->quantity;
		s.boundary = e->boundary;
		s.value = e->value;
		if ((rc = store_update(q->st, e->target, &s, e->cum, e->t,
		    &err)) == 0)
			(*vals)++;
		break;
	case OP_COMMIT:
		rc = store_commit(q->st, &err);
		break;
	case OP_DUE:
		rc = store_write_due(q->st, e->t, &err);
		break;
	}
	if (rc != 0 || e->op != OP_PUT) {
		pthread_mutex_lock(&q->mu);
		note(q, rc, &err, rc == 0 ? *vals : 0);
		pthread_mutex_unlock(&q->mu);
		*vals = 0;
	}
}

/* Woken by a first value (locked): waits LINGER for more, unless HIGH are
 * queued, the writer stops, or batch writers wait for room. */
static void
linger(struct rrdq *q)
{
	struct timespec ts;

	/* the system's clock, not clock_mono (which tests may mock) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += LINGER % WP_SEC;
	ts.tv_sec += (time_t)(LINGER / WP_SEC + ts.tv_nsec / WP_SEC);
	ts.tv_nsec %= WP_SEC;
	/* woken (0): look again; the time out, or any error: go */
	while (!q->stop && !q->block && q->n < HIGH(q) &&
	    pthread_cond_timedwait(&q->cv, &q->mu, &ts) == 0)
		;
}

static void *
writer(void *arg)
{
	struct rrdq *q = arg;
	struct ent *batch = malloc(BATCH * sizeof(*batch));
	unsigned long vals = 0;
	size_t n, i;
	bool woke;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		for (woke = false; q->n == 0 && !q->stop; woke = true)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->n == 0)
			break;			/* stopping, all written */
		if (woke)
			linger(q);
		for (n = 0; batch != NULL && n < BATCH && q->n > 0; n++) {
			batch[n] = q->ring[q->head];
			q->head = (q->head + 1) % q->cap;
			q->n--;
		}
		if (batch == NULL)		/* no memory: drop, count */
			q->h.dropped += q->n, q->n = 0, n = 0;
		if (q->n == 0)
			q->head = 0;	/* empty: start again at the front, so
					   only the deepest backlog's part of
					   the ring is ever touched (resident) */
		q->busy = true;
		pthread_mutex_unlock(&q->mu);
		for (i = 0; i < n; i++)
			run_one(q, &batch[i], &vals);
		pthread_mutex_lock(&q->mu);
		q->busy = false;
		pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->mu);
	free(batch);
	store_free(q->st);	/* flushes what it holds */
	pthread_mutex_lock(&q->mu);
	q->st = NULL;
	q->done = true;
	pthread_cond_broadcast(&q->idle);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

void
rrdq_free(struct rrdq *q, wp_time grace)
{
	struct timespec ts;
	wp_time until = clock_real() + grace;
	bool done;

	if (q == NULL)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_signal(&q->cv);
	ts.tv_sec = (time_t)(until / WP_SEC);
	ts.tv_nsec = (long)(until % WP_SEC);
	while (!q->done && pthread_cond_timedwait(&q->idle, &q->mu,
	    &ts) == 0)
		;
	done = q->done;
	if (!done)
		log_warnx("store: the RRD writer is stuck (%zu values not "
		    "written; rrdcached stalled?): leaving it", q->n);
	pthread_mutex_unlock(&q->mu);
	if (!done) {
		/* it holds the store and the queue: both go with the process */
		pthread_detach(q->thr);
		return;
	}
	pthread_join(q->thr, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_cond_destroy(&q->idle);
	pthread_mutex_destroy(&q->mu);
	free(q->ring);
	free(q);
}
