#include <math.h>

#include "counter.h"

void
counter_init(struct wp_counter *c, bool hold_dips)
{
	*c = (struct wp_counter){ .hold_dips = hold_dips, .hold_max = 6,
	    .dip_fraction = 0.5 };
}

static void
accept(struct wp_counter *c, const struct counter_in *in, double delta,
    struct counter_out *out)
{
	c->cum += delta;
	c->last = in->value;
	c->last_t = in->t;
	c->held = 0;
	if (in->reset_time != 0)
		c->reset_time = in->reset_time;
	out->delta = delta;
	out->cum = c->cum;
}

/* Whether delta over the time since the last reading (at least
 * in->min_dt) implies more than in->max_rate (unknown time or no limit:
 * plausible).  One resolution step is the counter's quantum, not a rate:
 * a coarse counter's single step inside a short interval is plausible
 * whatever it implies; so is an interval's energy read just after a
 * reading that came late. */
static bool
implausible(const struct wp_counter *c, const struct counter_in *in,
    double delta)
{
	wp_time span = in->t - c->last_t;
	double dt = (double)(span > 0 && span < in->min_dt ? in->min_dt :
	    span) / (double)WP_SEC;

	return in->max_rate > 0 && dt > 0 &&
	    (delta - in->resolution) / dt > in->max_rate;
}

/* A step that is no energy: the counter goes on from the new value. */
static void
rebase(struct wp_counter *c, const struct counter_in *in,
    struct counter_out *out)
{
	c->implausible++;
	out->flags |= CTR_IMPLAUSIBLE | CTR_DISCONT;
	accept(c, in, 0, out);
}

static void
reset(struct wp_counter *c, const struct counter_in *in,
    struct counter_out *out)
{
	c->resets++;
	out->flags |= CTR_RESET;
	if (implausible(c, in, in->value))
		rebase(c, in, out);	/* no energy since a restart so large */
	else
		accept(c, in, in->value, out);
}

static bool
is_dip(const struct wp_counter *c, const struct counter_in *in)
{
	return c->hold_dips && in->value < c->last * (1.0 - c->dip_fraction);
}

void
counter_update(struct wp_counter *c, const struct counter_in *in,
    struct counter_out *out)
{
	bool said_reset;

	*out = (struct counter_out){ 0, c->cum, 0 };
	if (!c->valid) {
		c->valid = true;
		out->flags = CTR_DISCONT;
		accept(c, in, 0, out);
		return;
	}
	said_reset = in->device_reset || (in->reset_time != 0 &&
	    c->reset_time != 0 && in->reset_time != c->reset_time);
	if (said_reset) {
		reset(c, in, out);
		return;
	}
	if (in->value >= c->last) {
		if (implausible(c, in, in->value - c->last)) {
			rebase(c, in, out);
			return;
		}
		if (c->held)
			out->flags |= CTR_RESUMED;
		accept(c, in, in->value - c->last, out);
		return;
	}
	if (c->last - in->value <= fmax(in->resolution, 1e-9 * c->last)) {
		c->last_t = in->t;	/* jitter: keep the higher value */
		return;
	}
	if (c->last - in->value <= BACKSTEP_MAX * c->last) {
		out->flags |= CTR_BACKSTEP;	/* keep the higher value */
		return;
	}
	if (in->wrap > 0 && c->last - in->value > in->wrap / 2) {
		out->flags |= CTR_WRAPPED;
		accept(c, in, in->value + in->wrap - c->last, out);
		return;
	}
	if (is_dip(c, in) && c->held < c->hold_max) {
		c->held++;
		out->flags |= CTR_HELD;
		return;
	}
	reset(c, in, out);
}
