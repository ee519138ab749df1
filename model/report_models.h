/*
 * report_models.h - the report per model (pure): each node's figures
 * split over the models its engines served (attr.h, one rule per boundary)
 * and summed over the fleet, with tokens, J/token and tokens/J at every
 * boundary, and carbon and cost where the report has them (the site's
 * figure at that boundary x the model's share of the boundary's energy).
 *
 * An engine's model is the `model` label of its token series (vLLM
 * model_name, SGLang/TGI/llama.cpp equivalents: drivers/inband/engines.c),
 * else engines[].model of the config, else "unknown".  Its GPUs are
 * engines[].gpus; a node whose engines give none has all its GPUs held by
 * its one model when it serves one, else unallocated (warned).  The
 * energy of GPUs no engine holds goes to the entry "unallocated" (last,
 * always present when there are nodes).  Tokens of a replica's later
 * nodes are not counted again (report.replicas); J/token is, as the
 * fleet's, all the entry's energy over the tokens counted (an engine
 * without a token figure adds energy, no tokens: engines_no_tokens).
 * Each entry also per node class (cls).  The same split per tenant
 * (report.tenants: a GPU's namespace label, else its engine's model, else
 * its node names the tenant) fills r->tenants.  Meaning: docs/report.md.
 */
#ifndef WP_REPORT_MODELS_H
#define WP_REPORT_MODELS_H

#include <stdbool.h>
#include <stddef.h>

#include "boundary.h"
#include "report_carbon.h"

#define REPORT_MODEL_NAME	128
#define REPORT_UNALLOCATED	"unallocated"
#define REPORT_UNKNOWN_MODEL	"unknown"

struct report;
struct report_input;
struct report_sel;
struct report_settings;

/* The lists of a tenant entry (tenants:) a name is looked up in. */
enum { RT_BY_MODEL, RT_BY_NAMESPACE, RT_BY_NODE };

/* The tenant (index in s->tenants) whose list what names name, or -1
 * (name NULL or empty: -1). */
int	 report_tenant_by(const struct report_settings *s, const char *name,
	    int what);

/* An entry's figures within one node class. */
struct report_model_cls {
	size_t	 nodes;
	double	 out;			/* output tokens counted */
	double	 energy_j[BND_N];	/* of the nodes with a figure */
};

struct report_model {
	char	 name[REPORT_MODEL_NAME];
	bool	 unallocated;		/* the "unallocated" entry */
	size_t	 nodes, engines, gpus;	/* where it ran, GPUs it held */
	double	 out, in;		/* tokens of the engines that count
					   them; -1 none (unallocated) */
	size_t	 engines_no_tokens;	/* engines without a token figure */
	bool	 ok[BND_N];		/* every node of it has a figure */
	double	 energy_j[BND_N];
	int	 rule[BND_N];		/* enum attr_rule; -1 mixed */
	double	 j_per_token[BND_N];	/* per output token, NAN unknown */
	double	 tokens_per_j[BND_N];	/* output tokens per J, NAN unknown */
	bool	 loc_ok[REPORT_C_N], mk_ok[REPORT_C_N];
	double	 loc_kg[REPORT_C_N], mk_kg[REPORT_C_N];
	bool	 cost_ok;
	double	 cost;
	struct report_model_cls *cls;	/* per class slot (n_cls), owned */
};

struct report_models {
	int	 rule;			/* report.attribution */
	struct report_model *v;		/* models, then unallocated */
	size_t	 n, cap;
	size_t	 n_cls;			/* class slots: r->cls.ncls + 1 */
	int	 cost_boundary;		/* REPORT_C_*, with cost */
	const char *currency;
};

/* r->models from in and the boundary selections (after the fleet's
 * figures, carbon and cost); warnings to r.  0, or -1 out of memory. */
int	 report_models_build(const struct report_input *in,
	    const struct report_sel *sel, struct report *r);
void	 report_models_free(struct report_models *m);	/* NULL-safe */
/* The rule as the report discloses it (static text). */
const char *report_models_rule_text(int rule);

#endif
