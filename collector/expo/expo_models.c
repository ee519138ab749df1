/* expo_models.c - /metrics per model and per tenant (see expo_models.h). */
#include <stdbool.h>
#include <stdio.h>

#include "../../model/attr.h"
#include "../conf/conf.h"
#include "expo_attr.h"
#include "expo_metrics.h"
#include "expo_models.h"

/* name{site="..",k="v"[,k2="v2"]} value */
static void
line(FILE *f, const struct fleet *fl, const char *name, const char *k,
    const char *v, const char *k2, const char *v2, double x)
{
	char buf[64];

	fprintf(f, "%s{", name);
	if (fl->site != NULL && *fl->site) {
		fputs("site=\"", f);
		expo_label_escape(f, fl->site);
		fputs("\",", f);
	}
	fprintf(f, "%s=\"", k);
	expo_label_escape(f, v);
	fputc('"', f);
	if (k2 != NULL) {
		fprintf(f, ",%s=\"", k2);
		expo_label_escape(f, v2);
		fputc('"', f);
	}
	expo_fmt_value(buf, sizeof(buf), x);
	fprintf(f, "} %s\n", buf);
}

static void
tab_families(FILE *f, const struct fleet *fl, const struct attr_tab *t,
    const char *what, const char *label)
{
	size_t i;
	int b;

	fprintf(f, "# HELP wattpath_%s_energy_joules_total Energy attributed "
	    "to each %s by boundary, interval by interval (docs/exposition.md, "
	    "\"Per model\"); unallocated: what none held.\n# TYPE "
	    "wattpath_%s_energy_joules_total counter\n", what, label, what);
	for (i = 0; i < t->n; i++)
		for (b = 0; b < BND_N; b++)
			if (t->v[i].ok[b])
				line(f, fl, what[0] == 'm' ?
				    "wattpath_model_energy_joules_total" :
				    "wattpath_tenant_energy_joules_total",
				    label, t->v[i].name, "boundary",
				    bnd_name(b), t->v[i].j[b]);
	fprintf(f, "# HELP wattpath_%s_tokens_total Output tokens of each "
	    "%s's engines.\n# TYPE wattpath_%s_tokens_total counter\n", what,
	    label, what);
	for (i = 0; i < t->n; i++)
		if (t->v[i].has_out)
			line(f, fl, what[0] == 'm' ?
			    "wattpath_model_tokens_total" :
			    "wattpath_tenant_tokens_total", label,
			    t->v[i].name, "direction", "output", t->v[i].out);
}

static void
write_view(FILE *f, const struct fleet *fl, const struct attr_view *v)
{
	char buf[64];

	tab_families(f, fl, &v->models, "model", "model");
	if (fl->conf != NULL && fl->conf->report.n_tenants > 0)
		tab_families(f, fl, &v->tenants, "tenant", "tenant");
	fputs("# HELP wattpath_attribution_facility_unpriced_joules_total "
	    "Wall energy whose facility share was attributed to no model, "
	    "for want of a PUE at the time.\n# TYPE "
	    "wattpath_attribution_facility_unpriced_joules_total counter\n"
	    "wattpath_attribution_facility_unpriced_joules_total", f);
	if (fl->site != NULL && *fl->site) {
		fputs("{site=\"", f);
		expo_label_escape(f, fl->site);
		fputs("\"}", f);
	}
	expo_fmt_value(buf, sizeof(buf), v->facility_unpriced_j);
	fprintf(f, " %s\n", buf);
	fputs("# HELP wattpath_attribution_rule_info How the outer "
	    "boundaries' overhead over the GPUs is split (report.attribution)"
	    "; always 1.\n# TYPE wattpath_attribution_rule_info gauge\n", f);
	line(f, fl, "wattpath_attribution_rule_info", "rule",
	    v->rule == ATTR_PER_GPU ? "per_gpu" : "proportional", NULL, NULL,
	    1);
}

int
expo_models_write(FILE *f, const struct fleet *fl, double pue)
{
	struct attr_view v;

	if (expo_attr_view(fl->attr, fl, pue, &v) == -1)
		return -1;
	write_view(f, fl, &v);
	expo_attr_view_fini(&v);
	return 0;
}
