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
#include "../conf/conf.h"
#include "../report/report_api.h"
#include "../report/report_csv.h"
#include "../report/report_json.h"
#include "../report/report_md.h"
#include "../report/report_period.h"
#include "../report/report_svg.h"
#include "cmd.h"

struct opts {
	const char	*cfg, *format;
	const char	*from, *to;	/* as given: parsed after the options */
	const char	*carbon_csv;	/* --carbon-csv FILE ("-": stdout) */
	struct report_query q;
};

static const char report_usage[] = "usage: wattpath report -c CFG (--from T "
    "--to T | --requests LOG) [--runs N] [--idle-from T --idle-to T] "
    "[--period hour|day|month|year] [--format json|md|csv] "
    "[--carbon-csv FILE|-]\n       wattpath report -c CFG --period month|year "
    "--from T|2026|2026-01 [--to T|2026-12] [--format json|md|csv]\n";
static const char curve_usage[] = "usage: wattpath curve -c CFG (--node N | "
    "--class C) --from T --to T [--step D] [--format json|csv|svg]\n";

/* A time option into *t; -1 (said) when it is not one. */
static int
opt_time(const char *arg, wp_time *t, bool *have)
{
	if (clock_parse_time(arg, t) == 0)
		return *have = true, 0;
	fprintf(stderr, "not a time (ISO-8601 or epoch seconds): %s\n", arg);
	return -1;
}

/* --period, --step, --runs; -1 (said) when bad. */
static int
opt_value(int ch, const char *arg, struct report_request *r)
{
	switch (ch) {
	case 'P':
		for (r->period = PUE_HOUR; r->period <= PUE_YEAR &&
		    strcmp(pue_period_name(r->period), arg) != 0; r->period++)
			;
		if (r->period > PUE_YEAR) {
			fprintf(stderr, "--period must be hour, day, month or "
			    "year\n");
			return -1;
		}
		return 0;
	case 'S':
		if (clock_parse_duration(arg, &r->step) == -1 || r->step <= 0) {
			fprintf(stderr, "bad --step %s\n", arg);
			return -1;
		}
		return 0;
	default:
		r->runs = atoi(arg);
		if (r->runs < 1 || r->runs > REPORT_MAX_RUNS) {
			fprintf(stderr, "--runs must be 1..%d\n",
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
	case 'c': o->cfg = optarg; return 0;
	case 'r': o->q.requests = optarg; return 0;
	case 'F': o->format = optarg; return 0;
	case 'N': o->q.node = optarg; return 0;
	case 'C': o->q.cls = optarg; return 0;
	case 'K': o->carbon_csv = optarg; return 0;
	case 'f': o->from = optarg; have[0] = true; return 0;
	case 't': o->to = optarg; have[1] = true; return 0;
	case 'I': return opt_time(optarg, &r->idle_from, &have[2]);
	case 'J': return opt_time(optarg, &r->idle_to, &have[3]);
	case 'P': case 'S': case 'n': return opt_value(ch, optarg, r);
	default: return -1;
	}
}

/* Whether the options ask for the period table (--period month|year). */
static bool
period_table(const struct opts *o)
{
	return o->q.req.period == PUE_MONTH || o->q.req.period == PUE_YEAR;
}

/* --from and --to; with the period table also "2026" and "2026-11" (a
 * calendar year or month: --from takes its start, --to its end, and a
 * --from alone the period it names).  -1 (said) when bad. */
static int
window_times(struct opts *o, bool have[4])
{
	struct report_request *r = &o->q.req;
	wp_time end = 0, dummy;
	bool h;

	if (o->from != NULL) {
		if (period_table(o) && clock_parse_month(o->from, &r->from,
		    &end) == 0)
			;
		else if (opt_time(o->from, &r->from, &h) == -1)
			return -1;
	}
	if (o->to != NULL) {
		if (period_table(o) && clock_parse_month(o->to, &dummy,
		    &r->to) == 0)
			;
		else if (opt_time(o->to, &r->to, &h) == -1)
			return -1;
	} else if (end != 0) {
		r->to = end;
		have[1] = true;
	}
	return 0;
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
		{ NULL, 0, NULL, 0 }
	};
	struct report_request *r = &o->q.req;
	bool have[4] = { false, false, false, false };
	int ch;

	memset(o, 0, sizeof(*o));
	report_query_init(&o->q, 0, 0);
	r->have_window = false;
	o->format = "json";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:", lo, NULL)) != -1)
		if (opt_one(ch, o, have) == -1)
			return -1;
	if (window_times(o, have) == -1)
		return -1;
	r->have_window = have[0] && have[1];
	r->have_idle = have[2] && have[3];
	if (o->cfg == NULL || have[0] != have[1] || have[2] != have[3] ||
	    (!r->have_window && (curve || o->q.requests == NULL)) ||
	    (curve && (o->q.node == NULL) == (o->q.cls == NULL)) ||
	    (curve && o->carbon_csv != NULL))
		return -1;
	if (strcmp(o->format, curve ? "svg" : "md") != 0 &&
	    strcmp(o->format, "json") != 0 && strcmp(o->format, "csv") != 0)
		return -1;
	return 0;
}

/* Options and config.  0, or the exit status (said). */
static int
open_cmd(int argc, char **argv, bool curve, struct opts *o,
    struct wp_conf **c)
{
	struct conf_errs errs = { 0 };
	size_t i;

	if (parse_args(argc, argv, o, curve) == -1) {
		fputs(curve ? curve_usage : report_usage, stderr);
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

/* --carbon-csv: the sustainability CSV to path ("-": stdout).  0 or 1. */
static int
write_carbon_csv(const struct report *r, const char *path)
{
	FILE *f;

	if (path == NULL)
		return 0;
	if (strcmp(path, "-") == 0) {
		report_carbon_csv_write(stdout, r);
		return 0;
	}
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "wattpath report: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	report_carbon_csv_write(f, r);
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
	if (period_table(&o))
		return cmd_period(c, &o);
	if ((r = report_run(c, &o.q, &err)) == NULL) {
		fprintf(stderr, "wattpath report: %s\n", err.msg);
		conf_free(c);
		return 1;
	}
	rc = write_carbon_csv(r, o.carbon_csv);
	if (o.carbon_csv == NULL || strcmp(o.carbon_csv, "-") != 0)
		print_report(r, o.format);
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
