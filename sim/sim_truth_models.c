/*
 * sim_truth_models.c - the per-model truth of `wattpath-sim truth` with
 * --shared: exact energies split by the report's proportional rule
 * (docs/report.md, "Per model"): each GPU's exact energy to the model it
 * serves (sim_gpu_model), the wall and outlet overheads over the node's
 * GPU energy in proportion to GPU energy, the idle GPU's to unallocated;
 * tokens as the engines count them (SIM_SHARE_A on a shared node).
 */
#include <json-c/json.h>

#include "sim_cmd.h"
#include "sim_srv.h"

enum { M_A, M_B, M_UN, M_N };

struct mtruth {
	double	 gpu, wall, outlet, out_tok;
};

static void
node_split(const struct sim_fleet *f, int i, double a, double b,
    struct mtruth *m)
{
	const struct sim_node *nd = &f->node[i];
	double share = 0, g[M_N] = { 0 }, outlet;
	struct sim_cum c;
	int k, p;

	sim_node_energy(nd, a, b, &c);
	for (p = 0; p < f->o.pdus; p++)
		share += sim_outlet_share(nd, p);
	outlet = c.wall * share;
	for (k = 0; k < SIM_GPUS; k++) {
		int x = sim_gpu_model(nd, k);

		g[x < 0 ? M_UN : x] += c.gpu[k];
	}
	for (k = 0; k < M_N; k++) {
		m[k].gpu += g[k];
		m[k].wall += g[k] + (c.wall - c.gpu_total) * g[k] / c.gpu_total;
		if (share > 0)
			m[k].outlet += g[k] + (outlet - c.gpu_total) * g[k] /
			    c.gpu_total;
	}
	m[M_A].out_tok += nd->shared ? SIM_SHARE_A * c.out_tok : c.out_tok;
	m[M_B].out_tok += nd->shared ? (1 - SIM_SHARE_A) * c.out_tok : 0;
}

json_object *
sim_truth_models(const struct sim_fleet *f, double a, double b)
{
	static const char *const name[M_N] = { SIM_MODEL_A, SIM_MODEL_B,
	    "unallocated" };
	struct mtruth m[M_N] = { { 0 } };
	json_object *arr = json_object_new_array(), *x;
	int i, k;

	for (i = 0; i < f->o.nodes; i++)
		node_split(f, i, a, b, m);
	for (k = 0; k < M_N; k++) {
		x = json_object_new_object();
		json_object_object_add(x, "name", json_object_new_string(
		    name[k]));
		json_object_object_add(x, "gpu_j", json_object_new_double(
		    m[k].gpu));
		json_object_object_add(x, "wall_j", json_object_new_double(
		    m[k].wall));
		json_object_object_add(x, "outlet_j", f->o.pdus > 0 ?
		    json_object_new_double(m[k].outlet) : NULL);
		json_object_object_add(x, "tokens_output",
		    json_object_new_double(m[k].out_tok));
		json_object_array_add(arr, x);
	}
	return arr;
}
