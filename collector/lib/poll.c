#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "poll.h"

#define POLL_SAMPLES_MAX	1000000

void
poll_init(struct wp_poll *p, const struct wp_poll_ops *ops, void *owner,
    const char *name, wp_time timeout)
{
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->owner = owner;
	p->name = name;
	p->t_real = clock_real();
	p->t_mono = clock_mono();
	p->deadline = p->t_mono + timeout;
}

void
poll_fini(struct wp_poll *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

static void
end(struct wp_poll *p)
{
	p->done = true;
	p->ops->finish(p);
}

void
poll_done(struct wp_poll *p, int status, const struct wp_err *err)
{
	if (p->done)
		return;		/* a driver bug; ignore the second call */
	p->status = status == 0 ? 0 : -1;
	if (status != 0) {
		if (err != NULL && err->class != WP_E_NONE)
			p->err = *err;
		else
			err_set(&p->err, WP_E_INTERNAL, "poll failed");
	}
	end(p);
}

void
poll_expire(struct wp_poll *p, wp_time timeout)
{
	if (p->done)
		return;
	p->status = -1;
	err_set(&p->err, WP_E_TRANSIENT, "no answer within %.1f s",
	    (double)timeout / WP_SEC);
	end(p);
}

int
poll_add(struct wp_poll *p, const struct wp_sample *s)
{
	struct wp_sample *v;
	struct wp_err err;
	size_t cap;

	if (p->done)
		return -1;
	if (sample_validate(s, &err) == -1) {
		log_debug("%s: dropped sample: %s", p->name, err.msg);
		return -1;
	}
	if (p->n == p->cap) {
		cap = p->cap ? p->cap * 2 : 16;
		if (cap > POLL_SAMPLES_MAX ||
		    (v = realloc(p->v, cap * sizeof(*v))) == NULL)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	v = &p->v[p->n++];
	*v = *s;
	if (v->t_real == 0)
		v->t_real = clock_real();
	if (v->t_mono == 0)
		v->t_mono = clock_mono();
	return 0;
}

wp_time
poll_started_real(const struct wp_poll *p)
{
	return p->t_real;
}

wp_time
poll_deadline_mono(const struct wp_poll *p)
{
	return p->deadline;
}
