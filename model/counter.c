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

static void
reset(struct wp_counter *c, const struct counter_in *in,
    struct counter_out *out)
{
	c->resets++;
	out->flags |= CTR_RESET;
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
		if (c->held)
			out->flags |= CTR_RESUMED;
		accept(c, in, in->value - c->last, out);
		return;
	}
	if (c->last - in->value <= fmax(in->resolution, 1e-9 * c->last)) {
		c->last_t = in->t;	/* jitter: keep the higher value */
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
