/*
 * drift_cmd.c - `wattpath calibrate` (alias `drift`): the table of the
 * pairs of instruments that measure the same energy, their ratios and
 * spreads over a period of the journal, and which drifted (docs/drift.md).
 *
 *   wattpath calibrate -c FILE --from T --to T [--format text|json]
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "../conf/conf.h"
#include "../report/drift_load.h"

static int
usage(const char *cmd)
{
	cmd_usage(cmd, stderr, false);
	return 2;
}

static void
iso(wp_time t, char *buf, size_t len)
{
	time_t s = (time_t)(t / WP_SEC);
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *
status(const struct drift_pair *p)
{
	if (!p->t.learned)
		return "learning";
	if (p->t.active)
		return "DRIFT";
	return p->t.events > 0 ? "drifted" : "ok";
}

static void
json_pair(FILE *f, const struct drift_pair *p)
{
	const struct drift_track *t = &p->t;
	char at[32] = "";

	fprintf(f, "    {\"kind\": \"%s\", \"name\": ", drift_kind_name(p->kind));
	cmd_json_str(f, p->name);
	fprintf(f, ", \"a\": \"%s\", \"b\": \"%s\", \"window_s\": %lld, "
	    "\"windows\": %zu, \"invalid\": %zu, ",
	    drift_side_name(p->kind, 0), drift_side_name(p->kind, 1),
	    (long long)(p->window / WP_SEC), t->n, t->invalid);
	cmd_json_num(f, "usual", t->usual, ", ");
	cmd_json_num(f, "mean", drift_track_mean(t), ", ");
	cmd_json_num(f, "sd", drift_track_sd(t), ", ");
	cmd_json_num(f, "min", t->n ? t->min : NAN, ", ");
	cmd_json_num(f, "max", t->n ? t->max : NAN, ", ");
	cmd_json_num(f, "last", t->last, ", ");
	cmd_json_num(f, "last_dev", t->last_dev, ", ");
	cmd_json_num(f, "worst_dev", t->learned ? t->worst_dev : NAN, ", ");
	cmd_json_num(f, "tolerance", t->last_tol, ", ");
	fprintf(f, "\"beyond\": %zu, \"events\": %zu, \"drifting\": %s, "
	    "\"status\": \"%s\", \"event_at\": ", t->n_beyond, t->events,
	    t->active ? "true" : "false", status(p));
	if (p->event_to) {
		iso(p->event_to, at, sizeof(at));
		fprintf(f, "\"%s\"}", at);
	} else {
		fprintf(f, "null}");
	}
}

static void
print_json(FILE *f, const struct drift_table *t)
{
	char a[32], b[32];
	size_t i;

	iso(t->from, a, sizeof(a));
	iso(t->to, b, sizeof(b));
	fprintf(f, "{\"from\": \"%s\", \"to\": \"%s\", \"drifting\": %zu, "
	    "\"pairs\": [\n", a, b, t->drifting);
	for (i = 0; i < t->n; i++) {
		json_pair(f, &t->v[i]);
		fprintf(f, "%s\n", i + 1 < t->n ? "," : "");
	}
	fprintf(f, "]}\n");
}

static void
print_text(FILE *f, const struct drift_table *t)
{
	char a[32], b[32];
	size_t i;

	iso(t->from, a, sizeof(a));
	iso(t->to, b, sizeof(b));
	fprintf(f, "instrument pairs %s .. %s: ratio b/a per window; usual: "
	    "learned; dev, tol: %%\n", a, b);
	fprintf(f, "%-12s %-16s %-11s %-10s %6s %4s %8s %8s %8s %8s %8s %7s "
	    "%7s %5s  %s\n", "pair", "name", "a", "b", "window", "n", "usual",
	    "mean", "sd", "min", "max", "worst", "last", "tol", "status");
	for (i = 0; i < t->n; i++) {
		const struct drift_pair *p = &t->v[i];
		const struct drift_track *k = &p->t;
		char at[32] = "";

		if (p->event_to)
			iso(p->event_to, at, sizeof(at));
		fprintf(f, "%-12s %-16s %-11s %-10s %5llds %4zu %8.4f %8.4f "
		    "%8.4f %8.4f %8.4f %+7.2f %+7.2f %5.2f  %s%s%s\n",
		    drift_kind_name(p->kind), p->name,
		    drift_side_name(p->kind, 0), drift_side_name(p->kind, 1),
		    (long long)(p->window / WP_SEC), k->n, k->usual,
		    drift_track_mean(k), drift_track_sd(k), k->min, k->max,
		    100 * (k->learned ? k->worst_dev : NAN), 100 * k->last_dev,
		    100 * k->last_tol, status(p), at[0] ? " at " : "", at);
	}
	fprintf(f, "%zu pairs, %zu drifted\n", t->n, t->drifting);
}

static struct wp_conf *
load(const char *cmd, const char *cfg)
{
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	size_t i;

	if ((c = conf_load(cfg, NULL, &errs)) == NULL)
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
	conf_errs_fini(&errs);
	if (c == NULL)
		fprintf(stderr, "wattpath %s: cannot load %s\n", cmd, cfg);
	return c;
}

static int
run(const char *cmd, const char *cfg, wp_time from, wp_time to, bool json)
{
	struct drift_table t = { 0 };
	struct wp_conf *c = load(cmd, cfg);
	struct wp_err err = { 0 };
	int rc = 0;

	if (c == NULL)
		return 1;
	if (drift_table_load(c, from, to, &t, &err) == -1) {
		fprintf(stderr, "wattpath %s: %s\n", cmd, err.msg);
		rc = 1;
	} else if (json) {
		print_json(stdout, &t);
	} else {
		print_text(stdout, &t);
	}
	drift_table_fini(&t);
	conf_free(c);
	return rc;
}

int
cmd_calibrate(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = argv[0], *cfg = NULL, *fmt = "text";
	wp_time from = 0, to = 0;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:", lo, NULL)) != -1) {
		switch (ch) {
		case 'c': cfg = optarg; break;
		case 'F': fmt = optarg; break;
		case 'f': if (cmd_time_opt(cmd, "--from", optarg, false,
			    &from) == -1)
				return 2;
			break;
		case 't': if (cmd_time_opt(cmd, "--to", optarg, true,
			    &to) == -1)
				return 2;
			break;
		default: return usage(cmd);
		}
	}
	if (cfg == NULL || from == 0 || to == 0 || optind != argc ||
	    (strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0))
		return usage(cmd);
	if (from >= to) {
		fprintf(stderr, "wattpath %s: --from must be before --to\n", cmd);
		return 2;
	}
	return run(cmd, cfg, from, to, strcmp(fmt, "json") == 0);
}
