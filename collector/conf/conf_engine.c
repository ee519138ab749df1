/*
 * conf_engine.c - the attribution keys of nodes[].engines[i]: model (the
 * model name where the engine's series say none) and gpus (the GPU
 * indexes the engine holds, each held by one engine of the node).  The
 * inband driver reads the rest of the block.  Meaning: docs/config.md.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/ycheck.h"
#include "conf_ld.h"

/* gpus: [0, 1] into re; held[g] names the engine already holding g. */
static void
load_gpus(struct ld *l, const struct ynode *seq, struct report_engine *re,
    int *held, size_t k, const char *where)
{
	const struct ynode *n;
	long g;

	for (n = seq->child; n != NULL; n = n->next) {
		if (n->type != YN_SCALAR || ynode_parse_long(n->value, 0,
		    REPORT_ENGINE_GPUS - 1, &g) < 0) {
			conf_bad(l, n, "%s: gpus: each entry must be a GPU index "
			    "0..%d", where, REPORT_ENGINE_GPUS - 1);
			continue;
		}
		if (held[g] >= 0) {
			conf_bad(l, n, "%s: gpus: GPU %ld is already held by "
			    "engines[%d]", where, g, held[g]);
			continue;
		}
		held[g] = (int)k;
		if (re != NULL && re->n_gpus < REPORT_ENGINE_GPUS)
			re->gpus[re->n_gpus++] = (int)g;
	}
}

void
conf_engine_attr(struct ld *l, const struct ynode *e, struct report_engine *re,
    int *held, size_t k, const char *where)
{
	const struct ynode *seq;
	const char *m;

	m = ycheck_scalar(&l->d, e, "model", where, false);
	if (m != NULL && (strchr(m, ';') != NULL || strchr(m, ',') != NULL ||
	    strlen(m) >= 128)) {
		conf_bad(l, ynode_get(e, "model"), "%s: model: a name without "
		    "';' or ',' of under 128 bytes", where);
		m = NULL;
	}
	if (re != NULL)
		re->model = m;
	if ((seq = ycheck_typed(&l->d, e, "gpus", YN_SEQ, where, false)) != NULL)
		load_gpus(l, seq, re, held, k, where);
}
