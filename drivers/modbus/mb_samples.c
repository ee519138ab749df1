/* mb_samples.c - decoded registers to samples (see mb_samples.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../collector/lib/log.h"
#include "mb_samples.h"

static const char *const exc_names[] = { "", "illegal function",
	"illegal data address", "illegal data value", "device failure",
	"acknowledge", "device busy", "negative acknowledge",
	"memory parity error", "", "gateway path unavailable",
	"gateway target failed to respond" };

/* Finds v's registers in the plan; returns a pointer or NULL, *exc set. */
static const uint16_t *
locate(const struct rm_value *v, const struct rm_plan *p,
    const uint16_t *regs, const int *status, int *exc)
{
	size_t i, off = 0;

	for (i = 0; i < p->n; off += p->r[i].count, i++) {
		if (p->r[i].fc != v->fc || v->addr < p->r[i].addr ||
		    (unsigned)v->addr + v->nregs >
		    (unsigned)p->r[i].addr + p->r[i].count)
			continue;
		*exc = status[i];
		return status[i] != 0 ? NULL :
		    regs + off + (v->addr - p->r[i].addr);
	}
	*exc = -1;
	return NULL;
}

void
mb_value_path(const struct regmap *m, int i, char *buf, size_t len)
{
	const struct rm_value *v = &m->v[i];

	snprintf(buf, len, "%s fc%d:0x%04X %s %s", v->name, v->fc, v->addr,
	    regmap_type_name(v->type), regmap_order_name(v->order));
}

static int
labels(struct wp_sample *s, const struct mb_info *info)
{
	if (sample_add_label(s, "role", info->role) == -1 ||
	    sample_add_label(s, "meter", info->map) == -1)
		return -1;
	if (info->category[0] != '\0' &&
	    sample_add_label(s, "category", info->category) == -1)
		return -1;
	return 0;
}

static int
fill(struct wp_sample *s, const struct rm_value *v,
    const struct rm_reading *r, const struct mb_info *info)
{
	char series[WP_SERIES_MAX], unit[WP_UNIT_MAX];
	int b, q;

	q = v->quantity;
	b = q == WP_Q_OTHER ? WP_B_NONE : WP_B_FACILITY;
	if (v->role == RM_ROLE_ENERGY)
		snprintf(series, sizeof(series), "energy");
	else if (v->role == RM_ROLE_POWER)
		snprintf(series, sizeof(series), "power");
	else
		snprintf(series, sizeof(series), "v/%s", v->name);
	if (sample_init(s, series, b, q, v->kind) == -1)
		return -1;
	s->value = r->value * v->si;
	s->resolution = r->resolution * v->si;
	if (v->scale == 1.0) {
		s->raw_value = r->value;
		sample_set_unit(s, v->unit);
	} else {
		s->raw_value = r->raw;
		snprintf(unit, sizeof(unit), "%g%s", v->scale, v->unit);
		sample_set_unit(s, unit);
	}
	/* unsigned integer counters wrap at their width */
	if (v->kind == WP_COUNTER && (v->type == RM_U16 || v->type == RM_U32))
		s->wrap = ldexp(1.0, 16 * v->nregs) * fabs(v->scale) * v->si;
	return labels(s, info);
}

static int
one(const struct regmap *m, int i, const struct mb_info *info,
    const struct rm_plan *p, const uint16_t *regs, const int *status,
    struct wp_sample *s, struct wp_err *err)
{
	const struct rm_value *v = &m->v[i];
	struct rm_reading r;
	const uint16_t *at;
	int exc, rc;

	if ((at = locate(v, p, regs, status, &exc)) == NULL)
		return err_set(err, exc == 6 ? WP_E_TRANSIENT : WP_E_PROTOCOL,
		    "%s: exception %d (%s) reading fc%d:%u", v->name, exc,
		    exc > 0 && exc < 12 ? exc_names[exc] : "not read",
		    v->fc, v->addr);
	rc = regmap_decode(v, at, &r, err);
	if (rc == 1)
		return err_set(err, WP_E_PROTOCOL, "%s: device says not "
		    "available", v->name);
	if (rc == -1)
		return -1;
	if (fill(s, v, &r, info) == -1)
		return err_set(err, WP_E_INTERNAL, "%s: series or labels too "
		    "long", v->name);
	return 0;
}

int
mb_samples_build(const struct regmap *m, const struct mb_info *info,
    const struct rm_plan *p, const uint16_t *regs, const int *status,
    struct wp_sample *out, int *idx, struct wp_err *err)
{
	struct wp_err e;
	int n = 0;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (one(m, (int)i, info, p, regs, status, &out[n], &e) == -1) {
			if (m->v[i].role != RM_ROLE_NONE) {
				*err = e;
				err_prefix(err, "meter map %s", m->stem);
				return -1;
			}
			log_debug("meter map %s: skipped %s", m->stem, e.msg);
			continue;
		}
		idx[n++] = (int)i;
	}
	return n;
}
