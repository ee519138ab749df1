/*
 * report_cmd.c - `wattpath report` and `wattpath curve`: the command line
 * around the report library (collector/report/report_api.h): options,
 * the config, one call for the figures, and the document printed as JSON,
 * Markdown, CSV or SVG (schema: docs/report.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/report.h"
#include "../../model/report_check.h"
#include "../../model/report_sites.h"
#include "../conf/conf.h"
#include "../report/report_api.h"
#include "../report/report_claims.h"
#include "../report/report_csv.h"
#include "../report/report_json.h"
#include "../report/report_md.h"
#include "../report/report_models_out.h"
#include "../report/report_period.h"
#include "../report/report_sites_json.h"
#include "../report/report_svg.h"
#include "cmd.h"

#define REPORT_MAX_DATA_DIRS	64	/* --data-dir given at most */
#define REPORT_MAX_SITES	64	/* -c given at most (report: sites) */

struct opts {
	const char	*cmd;		/* "report" or "curve" */
	const char	*cfg, *format;
	const char	*from, *to;	/* as given: parsed after the options */
	const char	*carbon_csv;	/* --carbon-csv FILE ("-": stdout) */
	const char	*showback_csv;	/* --showback-csv FILE ("-": stdout) */
	bool		 finalise;	/* --finalise: record the claims */
	const char	*dirs[REPORT_MAX_DATA_DIRS];	/* --data-dir */
	size_t		 n_dirs;
	const char	*cfgs[REPORT_MAX_SITES];	/* -c: one per site */
	size_t		 n_cfgs;
	struct report_query q;
};

/* A time option into *t (lib/timearg.h); -1 (said) when it is not one. */
static int
opt_time(const char *cmd, const char *opt, const char *arg, bool to,
    wp_time *t, bool *have)
{
	if (cmd_time_opt(cmd, opt, arg, to, t) == 0)
		return *have = true, 0;
	return -1;
}

/* --period, --step, --runs; -1 (said) when bad. */
static int
opt_value(const char *cmd, int ch, const char *arg, struct report_request *r)
{
	char *end;

	switch (ch) {
	case 'P':
		for (r->period = PUE_HOUR; r->period <= PUE_YEAR &&
		    strcmp(pue_period_name(r->period), arg) != 0; r->period++)
			;
		if (r->period > PUE_YEAR) {
			fprintf(stderr, "wattpath %s: --period: '%s' is not "
			    "hour, day, month or year\n", cmd, arg);
			return -1;
		}
		return 0;
	case 'S':
		if (clock_parse_duration(arg, &r->step) == -1 || r->step <= 0) {
			fprintf(stderr, "wattpath %s: --step: cannot parse '%s' "
			    "(expected a duration above 0 such as 30s, 5m or "
			    "1m30s)\n", cmd, arg);
			return -1;
		}
		return 0;
	default:
		r->runs = (int)strtol(arg, &end, 10);
		if (end == arg || *end != '\0' || r->runs < 1 ||
		    r->runs > REPORT_MAX_RUNS) {
			fprintf(stderr, "wattpath %s: --runs: cannot parse '%s' "
			    "(expected a whole number 1..%d)\n", cmd, arg,
			    REPORT_MAX_RUNS);
			return -1;
		}
		return 0;
	}
}

/* One option; -1 when it ends the parse. */
static int
opt_one(int ch, struct opts *o, bool have[4])
{
	struct report_request *r = &o->q.req;

	switch (ch) {
	case 'c':
		if (o->n_cfgs == REPORT_MAX_SITES) {
			fprintf(stderr, "wattpath %s: -c: at most %d\n", o->cmd,
			    REPORT_MAX_SITES);
			return -1;
		}
		if (o->n_cfgs == 0)
			o->cfg = optarg;
		o->cfgs[o->n_cfgs++] = optarg;
		return 0;
	case 'r': o->q.requests = optarg; return 0;
	case 'F': o->format = optarg; return 0;
	case 'N': o->q.node = optarg; return 0;
	case 'C': o->q.cls = optarg; return 0;
	case 'K': o->carbon_csv = optarg; return 0;
	case 'B': o->showback_csv = optarg; return 0;
	case 'Z': o->finalise = true; return 0;
	case 'D':
		if (o->n_dirs == REPORT_MAX_DATA_DIRS) {
			fprintf(stderr, "wattpath %s: --data-dir: at most %d\n",
			    o->cmd, REPORT_MAX_DATA_DIRS);
			return -1;
		}
		o->dirs[o->n_dirs++] = optarg;
		return 0;
	case 'f': o->from = optarg;
		return opt_time(o->cmd, "--from", optarg, false, &r->from,
		    &have[0]);
	case 't': return opt_time(o->cmd, "--to", optarg, true, &r->to,
	    &have[1]);
	case 'I': return opt_time(o->cmd, "--idle-from", optarg, false,
	    &r->idle_from, &have[2]);
	case 'J': return opt_time(o->cmd, "--idle-to", optarg, true,
	    &r->idle_to, &have[3]);
	case 'P': case 'S': case 'n': return opt_value(o->cmd, ch, optarg, r);
	default: return -1;
	}
}

/* Whether the options ask for the period table (--period month|year). */
static bool
period_table(const struct opts *o)
{
	return o->q.req.period == PUE_MONTH || o->q.req.period == PUE_YEAR;
}

/* The period table with --from alone: the window is the span --from
 * names ("2026": the year, "2026-11": the month).  -1 (said) when bad. */
static int
period_window(struct opts *o, bool have[4])
{
	if (!period_table(o) || !have[0] || have[1])
		return 0;
	if (cmd_time_opt(o->cmd, "--to", o->from, true, &o->q.req.to) != 0)
		return -1;
	have[1] = true;
	return 0;
}

/* Several -c (one report over several sites): what does not go with
 * it, or NULL. */
static const char *
sites_why(const struct opts *o, bool curve)
{
	if (curve)
		return "one -c: a curve is one site's";
	if (o->n_dirs > 0)
		return "--data-dir goes with one -c (with several sites, each "
		    "site's config lists its collectors in report.data_dirs)";
	if (o->finalise || o->carbon_csv != NULL || o->showback_csv != NULL ||
	    period_table(o))
		return "--finalise, --carbon-csv, --showback-csv and --period "
		    "month|year are one site's (one -c)";
	if (strcmp(o->format, "json") != 0)
		return "a report over several sites (several -c) is JSON only";
	return NULL;
}

/* What the options together must hold; -1 (said) when they do not. */
static int
check_args(const struct opts *o, const bool have[4], bool curve,
    const char *extra)
{
	const struct report_request *r = &o->q.req;
	const char *why = NULL;

	if (extra != NULL)
		why = "an argument that is no option";
	else if (o->cfg == NULL)
		why = "-c FILE is needed";
	else if (have[0] != have[1])
		why = "--from and --to go together";
	else if (have[2] != have[3])
		why = "--idle-from and --idle-to go together";
	else if (!r->have_window && (curve || o->q.requests == NULL))
		why = curve ? "--from and --to are needed" : "--from and --to, "
		    "or --requests, are needed";
	else if (curve && (o->q.node == NULL) == (o->q.cls == NULL))
		why = "one of --node and --class is needed";
	else if (curve && o->carbon_csv != NULL)
		why = "--carbon-csv is an option of report";
	else if (curve && o->showback_csv != NULL)
		why = "--showback-csv is an option of report";
	else if (o->carbon_csv != NULL && o->showback_csv != NULL &&
	    strcmp(o->carbon_csv, "-") == 0 && strcmp(o->showback_csv,
	    "-") == 0)
		why = "only one of --carbon-csv and --showback-csv can be -";
	else if (curve && o->finalise)
		why = "--finalise is an option of report";
	else if (o->n_cfgs > 1 && (why = sites_why(o, curve)) != NULL)
		;
	else if (o->finalise && period_table(o))
		why = "--finalise records one report's claims, not a --period "
		    "table's";
	if (why == NULL && strcmp(o->format, curve ? "svg" : "md") != 0 &&
	    strcmp(o->format, "json") != 0 && strcmp(o->format, "csv") != 0) {
		fprintf(stderr, "wattpath %s: --format: '%s' is not json, csv "
		    "or %s\n", o->cmd, o->format, curve ? "svg" : "md");
		return -1;
	}
	if (why != NULL)
		fprintf(stderr, "wattpath %s: %s%s%s\n", o->cmd, why,
		    extra ? ": " : "", extra ? extra : "");
	return why == NULL ? 0 : -1;
}

static int
parse_args(int argc, char **argv, struct opts *o, bool curve)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "requests", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'n' },
		{ "idle-from", required_argument, NULL, 'I' },
		{ "idle-to", required_argument, NULL, 'J' },
		{ "format", required_argument, NULL, 'F' },
		{ "node", required_argument, NULL, 'N' },
		{ "class", required_argument, NULL, 'C' },
		{ "step", required_argument, NULL, 'S' },
		{ "period", required_argument, NULL, 'P' },
		{ "carbon-csv", required_argument, NULL, 'K' },
		{ "showback-csv", required_argument, NULL, 'B' },
		{ "finalise", no_argument, NULL, 'Z' },
		{ "data-dir", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_request *r = &o->q.req;
	bool have[4] = { false, false, false, false };
	int ch;

	memset(o, 0, sizeof(*o));
	o->cmd = curve ? "curve" : "report";
	report_query_init(&o->q, 0, 0);
	o->q.refuse_before_data = true;
	r->have_window = false;
	o->format = "json";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:", lo, NULL)) != -1)
		if (opt_one(ch, o, have) == -1)
			return -1;
	if (period_window(o, have) == -1)
		return -1;
	r->have_window = have[0] && have[1];
	r->have_idle = have[2] && have[3];
	o->q.data_dirs = o->dirs;
	o->q.n_data_dirs = o->n_dirs;
	o->q.config_dirs = true;
	return check_args(o, have, curve, optind != argc ? argv[optind] : NULL);
}

/* Options and config.  0, or the exit status (said). */
static int
open_cmd(int argc, char **argv, bool curve, struct opts *o,
    struct wp_conf **c)
{
	struct conf_errs errs = { 0 };
	size_t i;

	if (parse_args(argc, argv, o, curve) == -1) {
		cmd_usage(o->cmd, stderr, false);
		return 2;
	}
	if ((*c = conf_load(o->cfg, NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		return 1;
	}
	conf_errs_fini(&errs);
	return 0;
}

/* --carbon-csv, --showback-csv: the CSV fn writes to path ("-":
 * stdout).  0 or 1. */
static int
write_csv(const struct report *r, const char *path,
    int (*fn)(FILE *, const struct report *))
{
	FILE *f;

	if (path == NULL)
		return 0;
	if (strcmp(path, "-") == 0) {
		fn(stdout, r);
		return 0;
	}
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "wattpath report: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	fn(f, r);
	if (fclose(f) != 0) {
		fprintf(stderr, "wattpath report: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	return 0;
}

static void
print_report(const struct report *r, const char *format)
{
	json_object *doc;

	if (strcmp(format, "csv") == 0)
		report_csv_write(stdout, r);
	else if (strcmp(format, "md") == 0)
		report_md_write(stdout, r);
	else if ((doc = report_json_doc(r)) != NULL) {
		report_json_print(stdout, doc);
		json_object_put(doc);
	}
}

/* --period month|year: the annual table by month (docs/report.md). */
static int
cmd_period(struct wp_conf *c, const struct opts *o)
{
	struct wp_err err = { 0 };
	json_object *doc;

	if (o->carbon_csv != NULL) {
		fprintf(stderr, "wattpath report: --carbon-csv does not go with "
		    "--period month|year\n");
		conf_free(c);
		return 2;
	}
	if ((doc = report_period_doc(c, &o->q, pue_period_name(
	    o->q.req.period), &err)) == NULL) {
		fprintf(stderr, "wattpath report: %s\n", err.msg);
		conf_free(c);
		return 1;
	}
	if (strcmp(o->format, "csv") == 0)
		report_period_csv_write(stdout, doc);
	else if (strcmp(o->format, "md") == 0)
		report_period_md_write(stdout, doc);
	else
		report_json_print(stdout, doc);
	json_object_put(doc);
	conf_free(c);
	return 0;
}

/* The configs of the sites after the first (c[0], loaded).  0, or 1
 * (said). */
static int
load_sites(const struct opts *o, struct wp_conf **c)
{
	struct conf_errs errs = { 0 };
	size_t i, j;

	for (i = 1; i < o->n_cfgs; i++) {
		if ((c[i] = conf_load(o->cfgs[i], NULL, &errs)) == NULL) {
			for (j = 0; j < errs.n; j++)
				fprintf(stderr, "%s\n", errs.msg[j]);
			conf_errs_fini(&errs);
			return 1;
		}
		conf_errs_fini(&errs);
	}
	for (i = 0; i < o->n_cfgs; i++) {
		if (c[i]->site.name == NULL) {
			fprintf(stderr, "wattpath report: %s: site.name is needed "
			    "to report over several sites\n", o->cfgs[i]);
			return 1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(c[j]->site.name, c[i]->site.name) == 0) {
				fprintf(stderr, "wattpath report: %s and %s are "
				    "both site '%s': one -c per site (one site's "
				    "collectors go in its report.data_dirs)\n",
				    o->cfgs[j], o->cfgs[i], c[i]->site.name);
				return 1;
			}
	}
	return 0;
}

/* The reports of the sites and the fleet (model/report_sites.h). */
static int
sites_report(struct wp_conf **c, const struct opts *o)
{
	struct report_site_row rows[REPORT_MAX_SITES];
	struct report *reps[REPORT_MAX_SITES];
	const char *zones[REPORT_MAX_SITES];
	struct report_sites s = { 0 };
	struct wp_err err = { 0 };
	json_object *doc;
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < o->n_cfgs; i++, n++) {
		rows[i].name = c[i]->site.name;
		zones[i] = c[i]->site.zone;
		if ((rows[i].r = reps[i] = report_run(c[i], &o->q,
		    &err)) == NULL) {
			fprintf(stderr, "wattpath report: site %s (%s): %s\n",
			    c[i]->site.name, o->cfgs[i], err.msg);
			rc = 1;
			break;
		}
	}
	if (rc == 0 && (report_sites_sum(&s, rows, n) == -1 ||
	    (doc = report_sites_json_doc(&s, zones)) == NULL)) {
		fprintf(stderr, "wattpath report: out of memory\n");
		rc = 1;
	} else if (rc == 0) {
		report_json_print(stdout, doc);
		json_object_put(doc);
		for (i = 0; i < BND_N && !s.b[i].valid; i++)
			;
		if (i == BND_N) {
			fprintf(stderr, "wattpath report: no fleet energy figure "
			    "at any boundary (%zu warnings say why)\n", s.w.n);
			rc = 1;
		}
	}
	report_sites_fini(&s);
	for (i = 0; i < n; i++)
		report_free(reps[i]);
	return rc;
}

/* Several -c: one report over several sites.  c[0] is loaded. */
static int
cmd_sites(struct wp_conf *c0, const struct opts *o)
{
	struct wp_conf *c[REPORT_MAX_SITES] = { c0 };
	size_t i;
	int rc;

	if ((rc = load_sites(o, c)) == 0)
		rc = sites_report(c, o);
	for (i = 0; i < o->n_cfgs; i++)
		conf_free(c[i]);
	return rc;
}

int
cmd_report(int argc, char **argv)
{
	struct wp_err err = { 0 };
	struct wp_conf *c;
	struct report *r;
	struct opts o;
	int rc;

	if ((rc = open_cmd(argc, argv, false, &o, &c)) != 0)
		return rc;
	if (o.n_cfgs > 1)
		return cmd_sites(c, &o);
	if (period_table(&o))
		return cmd_period(c, &o);
	if ((r = report_run(c, &o.q, &err)) == NULL) {
		fprintf(stderr, "wattpath report: %s\n", err.msg);
		conf_free(c);
		return 1;
	}
	if (o.finalise && report_claims_finalise(c, r, &err) == -1) {
		fprintf(stderr, "wattpath report: --finalise: %s\n", err.msg);
		report_free(r);
		conf_free(c);
		return 1;
	}
	rc = write_csv(r, o.carbon_csv, report_carbon_csv_write);
	rc |= write_csv(r, o.showback_csv, report_models_csv_write);
	if ((o.carbon_csv == NULL || strcmp(o.carbon_csv, "-") != 0) &&
	    (o.showback_csv == NULL || strcmp(o.showback_csv, "-") != 0))
		print_report(r, o.format);
	if (!report_has_figure(r)) {
		fprintf(stderr, "wattpath report: no energy figure at any "
		    "boundary in the window (%zu warnings say why)\n",
		    r->warnings.n);
		rc = 1;
	}
	report_free(r);
	conf_free(c);
	return rc;
}

int
cmd_curve(int argc, char **argv)
{
	struct wp_err err = { 0 };
	struct report_curve_doc *d;
	struct wp_conf *c;
	json_object *doc;
	struct opts o;
	int rc;

	if ((rc = open_cmd(argc, argv, true, &o, &c)) != 0)
		return rc;
	if ((d = report_curve_run(c, &o.q, &err)) == NULL) {
		fprintf(stderr, "wattpath curve: %s\n", err.msg);
		conf_free(c);
		return 1;
	}
	if (strcmp(o.format, "svg") == 0)
		report_curve_svg_write(stdout, d);
	else if (strcmp(o.format, "csv") == 0)
		report_curve_csv_write(stdout, d);
	else if ((doc = report_curve_json_doc(d)) != NULL) {
		report_json_print(stdout, doc);
		json_object_put(doc);
	}
	report_curve_doc_free(d);
	conf_free(c);
	return 0;
}
