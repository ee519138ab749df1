/* boundary.c - one source per GPU, totals, coverage, facility methods. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boundary.h"

const char *
boundary_method_name(int method)
{
	static const char *const n[] = { "none", "counter", "gauge-estimated",
	    "modeled" };

	return method >= 0 && method <= BM_MODELED ? n[method] : "unknown";
}

const char *
boundary_mix_name(unsigned mix, char *buf, size_t len)
{
	size_t used = 0;
	int m;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (m = BM_COUNTER; m <= BM_MODELED; m++) {
		int w;

		if (!(mix & (1u << m)))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "",
		    boundary_method_name(m));
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';	/* whole names only */
			break;
		}
		used += (size_t)w;
	}
	if (used == 0)
		snprintf(buf, len, "none");
	return buf;
}

const char *
bnd_name(int b)
{
	static const char *const n[] = { "gpu", "wall", "outlet", "facility" };

	return b >= 0 && b < BND_N ? n[b] : "unknown";
}

static int
weaker(int a, int b)
{
	return a > b ? a : b;
}

/* The chosen source for GPU index g, or NULL. */
static const struct bnd_gpu_src *
pick(const struct bnd_gpu_src *src, size_t n, int g, bool *had_inband)
{
	const struct bnd_gpu_src *bmc = NULL, *ib = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (src[i].gpu != g)
			continue;
		if (src[i].inband) {
			*had_inband = true;
			if (src[i].valid && ib == NULL)
				ib = &src[i];
		} else if (src[i].valid && bmc == NULL)
			bmc = &src[i];
	}
	return ib != NULL ? ib : bmc;
}

size_t
boundary_gpu(const struct bnd_gpu_src *src, size_t n, struct bnd_value *out,
    double *cross_j)
{
	size_t i, j, count = 0;
	bool missing = false, any_cross = false;
	double cross = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		const struct bnd_gpu_src *c;
		bool had_ib = false, seen = false;

		for (j = 0; j < i; j++)
			if (src[j].gpu == src[i].gpu)
				seen = true;
		if (seen)
			continue;
		c = pick(src, n, src[i].gpu, &had_ib);
		if (c == NULL) {
			missing = true;
			continue;
		}
		out->energy_j += c->energy_j;
		out->bound_j += c->bound_j;
		out->method = weaker(out->method, c->method);
		count++;
		for (j = 0; j < n && c->inband; j++)
			if (src[j].gpu == c->gpu && !src[j].inband &&
			    src[j].valid) {
				cross += src[j].energy_j;
				any_cross = true;
				break;
			}
	}
	out->valid = count > 0 && !missing;
	if (cross_j != NULL)
		*cross_j = any_cross ? cross : NAN;
	return count;
}

void
boundary_total_init(struct bnd_total *t)
{
	memset(t, 0, sizeof(*t));
}

void
boundary_total_add(struct bnd_total *t, const struct bnd_value *v)
{
	t->nodes++;
	if (!v->valid)
		return;
	t->energy_j += v->energy_j;
	t->bound_j += v->bound_j;
	t->method = weaker(t->method, v->method);
	t->mix |= 1u << v->method;
	t->counted++;
	if (v->method != BM_MODELED)
		t->measured++;
}

double
boundary_coverage(const struct bnd_total *t)
{
	return t->nodes ? (double)t->measured / (double)t->nodes : 0;
}

void
boundary_facility_pue(const struct bnd_value *wall, double pue,
    struct bnd_value *out)
{
	memset(out, 0, sizeof(*out));
	if (!wall->valid || !isfinite(pue))
		return;
	out->valid = true;
	out->energy_j = wall->energy_j * pue;
	out->bound_j = wall->bound_j * pue;
	out->method = wall->method;
}

int
boundary_facility_share(double facility_j, double it_j,
    const struct bnd_value *node_it, struct bnd_value *out,
    struct wp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!node_it->valid)
		return err_set(err, WP_E_PROTOCOL, "node IT energy unknown");
	if (!(it_j > 0) || !(facility_j >= it_j))
		return err_set(err, WP_E_PROTOCOL, "facility allocation needs "
		    "facility >= IT energy > 0");
	out->valid = true;
	out->energy_j = facility_j * node_it->energy_j / it_j;
	out->bound_j = node_it->bound_j * facility_j / it_j;
	out->method = node_it->method;
	return 0;
}
