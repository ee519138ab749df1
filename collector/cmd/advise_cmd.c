/*
 * advise_cmd.c - `wattpath advise`: the power-cap curve of a node class
 * and the GPU power limit that minimises facility J/token while meeting
 * the SLO (docs/advise.md).
 *
 *   wattpath advise -c FILE --class C --from T --to T [--slo SPEC]
 *       [--requests LOG] [--window D] [--format text|json] [--plot F.svg]
 *
 * Exits 0 with advice, 1 when it refuses (too few points, no point meets
 * the SLO, the journal unreadable), 2 on a usage error.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../conf/conf.h"
#include "../report/advise_load.h"
#include "../report/advise_svg.h"

struct opts {
	const char	*cmd, *cfg, *fmt, *plot;
	struct advise_query q;
	double		 target;	/* SLO attainment needed */
	bool		 slo_arg;
};

static int
usage(const char *cmd)
{
	cmd_usage(cmd, stderr, false);
	return 2;
}

/* --slo ttft_ms=N,tpot_ms=N,target=X (any of them).  0, or -1 said. */
static int
parse_slo(struct opts *o, const char *arg)
{
	char buf[256], *tok, *save = NULL, *eq, *end;
	double v;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((eq = strchr(tok, '=')) == NULL)
			goto bad;
		*eq++ = '\0';
		v = strtod(eq, &end);
		if (end == eq || *end != '\0' || !(v >= 0))
			goto bad;
		if (strcmp(tok, "ttft_ms") == 0)
			o->q.ttft_ms = v;
		else if (strcmp(tok, "tpot_ms") == 0)
			o->q.tpot_ms = v;
		else if (strcmp(tok, "target") == 0 && v > 0 && v <= 1)
			o->target = v;
		else
			goto bad;
	}
	o->slo_arg = true;
	return 0;
bad:
	fprintf(stderr, "wattpath %s: --slo: cannot parse '%s' (expected "
	    "ttft_ms=N,tpot_ms=N,target=SHARE, any of them)\n", o->cmd, arg);
	return -1;
}

static void
json_point(FILE *f, const struct advise_point *p)
{
	fprintf(f, "    {");
	cmd_json_num(f, "limit_w", p->limit_w, ", ");
	fprintf(f, "\"windows\": %zu, ", p->n);
	cmd_json_num(f, "seconds", p->secs, ", ");
	cmd_json_num(f, "tokens_output", p->tokens, ", ");
	cmd_json_num(f, "tokens_per_s", p->tps, ", ");
	cmd_json_num(f, "wall_j", p->wall_j, ", ");
	cmd_json_num(f, "facility_j", p->fac_j, ", ");
	cmd_json_num(f, "wall_j_per_token", p->wall_jpt, ", ");
	cmd_json_num(f, "facility_j_per_token", p->fac_jpt, ", ");
	cmd_json_num(f, "facility_j_per_token_se", p->fac_se, ", ");
	cmd_json_num(f, "slo_attainment", p->slo, ", ");
	fprintf(f, "\"meets_slo\": %s, \"used\": %s}", p->meets ? "true" :
	    "false", p->used ? "true" : "false");
}

static void
print_json(FILE *f, const struct opts *o, const struct advise_data *d,
    const struct advise_result *r)
{
	char a[40], b[40];
	size_t i;

	clock_iso8601(o->q.from, a, sizeof(a));
	clock_iso8601(o->q.to, b, sizeof(b));
	fprintf(f, "{\"class\": ");
	cmd_json_str(f, o->q.cls);
	fprintf(f, ", \"from\": \"%s\", \"to\": \"%s\", \"window_s\": %.0f, "
	    "\"guard_s\": %.0f,\n \"slo\": ", a, b, (double)d->window / WP_SEC,
	    (double)d->guard / WP_SEC);
	if (o->q.slo_set) {
		fprintf(f, "{");
		cmd_json_num(f, "ttft_ms", o->q.ttft_ms > 0 ? o->q.ttft_ms :
		    NAN, ", ");
		cmd_json_num(f, "tpot_ms", o->q.tpot_ms > 0 ? o->q.tpot_ms :
		    NAN, ", ");
		cmd_json_num(f, "target", o->target, "}");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n \"windows\": %zu, \"left_out\": {\"limit_changing\": "
	    "%zu, \"incomplete\": %zu, \"refused\": %zu},\n \"points\": [\n",
	    r->windows, r->unsteady, r->incomplete, d->failed);
	for (i = 0; i < r->n; i++) {
		json_point(f, &r->p[i]);
		fprintf(f, "%s\n", i + 1 < r->n ? "," : "");
	}
	fprintf(f, " ],\n \"advice\": ");
	if (r->ok) {
		fprintf(f, "{");
		cmd_json_num(f, "limit_w", r->limit_w, ", ");
		cmd_json_num(f, "facility_j_per_token", r->fac_jpt, ", ");
		cmd_json_num(f, "facility_j_per_token_se", r->fac_se, ", ");
		fprintf(f, "\"range_w\": [%.6g, %.6g], ", r->range_lo_w,
		    r->range_hi_w);
		cmd_json_num(f, "fit_limit_w", r->fit_w, ", ");
		cmd_json_num(f, "highest_limit_w", r->uncapped_w, ", ");
		cmd_json_num(f, "saving_vs_highest", r->saving, "}");
		fprintf(f, ",\n \"refused\": null}\n");
	} else {
		fprintf(f, "null,\n \"refused\": ");
		cmd_json_str(f, r->why);
		fprintf(f, "}\n");
	}
}

static void
print_text(FILE *f, const struct opts *o, const struct advise_data *d,
    const struct advise_result *r)
{
	char a[40], b[40];
	size_t i;

	clock_iso8601(o->q.from, a, sizeof(a));
	clock_iso8601(o->q.to, b, sizeof(b));
	fprintf(f, "power-cap curve of class %s, %s .. %s: %zu windows of "
	    "%.0f s (%zu with the limit changing, %zu incomplete, %zu "
	    "refused)\n", o->q.cls, a, b, r->windows,
	    (double)d->window / WP_SEC, r->unsteady, r->incomplete, d->failed);
	fprintf(f, "%9s %5s %12s %12s %12s %10s %9s  %s\n", "limit_W", "n",
	    "wall_J/tok", "fac_J/tok", "fac_SE", "tok/s", "SLO", "");
	for (i = 0; i < r->n; i++) {
		const struct advise_point *p = &r->p[i];

		fprintf(f, "%9.1f %5zu %12.6g %12.6g %12.3g %10.6g %9.4g  %s%s\n",
		    p->limit_w, p->n, p->wall_jpt, p->fac_jpt, p->fac_se,
		    p->tps, p->slo, p->used ? "" : "(too few windows) ",
		    p->meets ? "" : "misses the SLO");
	}
	if (r->ok)
		fprintf(f, "advice: %.0f W per GPU: %.6g J/token at the facility "
		    "(SE %.3g), %.3g %% below %.0f W; indistinguishable within "
		    "2 SE: %.0f .. %.0f W; parabola vertex %.0f W\n", r->limit_w,
		    r->fac_jpt, r->fac_se, 100 * r->saving, r->uncapped_w,
		    r->range_lo_w, r->range_hi_w, r->fit_w);
	else
		fprintf(f, "no advice: %s\n", r->why);
}

static int
plot(const struct opts *o, const struct advise_result *r)
{
	FILE *f;
	int rc;

	if ((f = fopen(o->plot, "w")) == NULL) {
		fprintf(stderr, "wattpath %s: %s: cannot write\n", o->cmd, o->plot);
		return -1;
	}
	rc = advise_svg_write(f, r, o->q.cls);
	if (fclose(f) != 0 || rc == -1) {
		fprintf(stderr, "wattpath %s: %s: write error\n", o->cmd, o->plot);
		return -1;
	}
	return 0;
}

static int
advise(struct opts *o, const struct wp_conf *c)
{
	struct advise_opts ao = { .slo_target = o->q.slo_set ? o->target :
	    NAN };
	struct advise_data d;
	struct advise_result r;
	struct wp_err err = { 0 };
	int rc;

	if (advise_load(c, &o->q, &d, &err) == -1) {
		fprintf(stderr, "wattpath %s: %s\n", o->cmd, err.msg);
		return 1;
	}
	if ((rc = advise_compute(d.w, d.n, &ao, &r)) == -1) {
		fprintf(stderr, "wattpath %s: out of memory\n", o->cmd);
		advise_data_fini(&d);
		return 1;
	}
	if (strcmp(o->fmt, "json") == 0)
		print_json(stdout, o, &d, &r);
	else
		print_text(stdout, o, &d, &r);
	if (rc == 1) {
		fprintf(stderr, "wattpath %s: no advice: %s\n", o->cmd, r.why);
		if (d.failed > 0)
			fprintf(stderr, "wattpath %s: %zu windows refused by the "
			    "report, the first: %s\n", o->cmd, d.failed,
			    d.first_error);
	}
	if (o->plot != NULL && plot(o, &r) == -1)
		rc = 1;
	advise_result_fini(&r);
	advise_data_fini(&d);
	return rc == 0 ? 0 : 1;
}

static int
run(struct opts *o)
{
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	size_t i;
	int rc;

	if ((c = conf_load(o->cfg, NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		fprintf(stderr, "wattpath %s: cannot load %s\n", o->cmd, o->cfg);
	}
	conf_errs_fini(&errs);
	if (c == NULL)
		return 1;
	if (!o->slo_arg && c->report.slo_set) {
		o->q.slo_set = true;
		o->q.ttft_ms = c->report.slo_ttft_ms;
		o->q.tpot_ms = c->report.slo_tpot_ms;
	}
	if (o->q.slo_set && o->q.requests == NULL) {
		fprintf(stderr, "wattpath %s: an SLO (--slo or report.slo) needs "
		    "--requests LOG: attainment is measured from the request "
		    "log\n", o->cmd);
		conf_free(c);
		return 2;
	}
	rc = advise(o, c);
	conf_free(c);
	return rc;
}

static int
opt(struct opts *o, int ch, const char *v)
{
	switch (ch) {
	case 'c': o->cfg = v; return 0;
	case 'C': o->q.cls = v; return 0;
	case 'F': o->fmt = v; return 0;
	case 'p': o->plot = v; return 0;
	case 'r': o->q.requests = v; return 0;
	case 's': return parse_slo(o, v);
	case 'f': return cmd_time_opt(o->cmd, "--from", v, false, &o->q.from);
	case 't': return cmd_time_opt(o->cmd, "--to", v, true, &o->q.to);
	case 'w':
		if (clock_parse_duration(v, &o->q.window) == -1 ||
		    o->q.window <= 0) {
			fprintf(stderr, "wattpath %s: --window: cannot parse "
			    "'%s' (a duration: 300s, 10m)\n", o->cmd, v);
			return -1;
		}
		return 0;
	}
	return -1;
}

int
cmd_advise(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "class", required_argument, NULL, 'C' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "slo", required_argument, NULL, 's' },
		{ "requests", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "format", required_argument, NULL, 'F' },
		{ "plot", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct opts o = { .cmd = argv[0], .fmt = "text",
	    .target = ADVISE_SLO_TARGET };
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:", lo, NULL)) != -1)
		if (ch == '?' || opt(&o, ch, optarg) == -1)
			return usage(o.cmd);
	if (o.slo_arg)
		o.q.slo_set = true;
	if (o.cfg == NULL || o.q.cls == NULL || o.q.from == 0 || o.q.to == 0 ||
	    optind != argc || (strcmp(o.fmt, "text") != 0 &&
	    strcmp(o.fmt, "json") != 0))
		return usage(o.cmd);
	if (o.q.from >= o.q.to) {
		fprintf(stderr, "wattpath %s: --from must be before --to\n",
		    o.cmd);
		return 2;
	}
	return run(&o);
}
