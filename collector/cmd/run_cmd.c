/*
 * run_cmd.c - `wattpath run`: load the config, build the collector, serve
 * the exposition on its loop unless --once, run until a signal stops it.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/conf.h"
#include "../expo/expo.h"
#include "../lib/log.h"
#include "../registry.h"
#include "../run.h"
#include "cmd.h"


static int
run_usage(void)
{
	cmd_usage("run", stderr, false);
	return 2;
}

struct tally {
	size_t	 up, polled;
};

static int
count_up(const struct target_view *v, void *arg)
{
	struct tally *t = arg;

	t->polled++;
	t->up += v->up;
	return 0;
}

/* --once: true (said) when no target of n gave a reading. */
static bool
once_failed(const struct collector *co, size_t n)
{
	struct tally t = { 0, 0 };

	collector_each_target(co, count_up, &t);
	if (t.up > 0 || n == 0)
		return false;
	log_error("--once: every target failed (%zu of %zu; %zu could not "
	    "be set up)", n, n, n - t.polled);
	return true;
}

/*
 * glibc raises its mmap threshold to the size of each mapped block freed
 * (up to 32 MiB) and its trim threshold to twice that.  In a daemon that
 * soon frees such blocks (a fleet's tables as they grow; librrd's 0.7 MB
 * image of a file it creates), every later block up to that size comes
 * from the heap, and what is freed there mostly stays (about 33 KiB of
 * free room a 48-outlet PDU).  Fixed at their defaults instead, blocks of
 * 128 KiB and more are mapped and unmapped on their own and the heap's
 * free top is given back (docs/benchmarks.md, "malloc's thresholds
 * fixed").  The cost: what is mapped afresh is faulted in afresh (each RRD
 * file's creation, each render of /metrics and the dashboard).  A
 * threshold the user set (GLIBC_TUNABLES or glibc's MALLOC_*_ variable)
 * is kept; setting the other still stops glibc raising either.
 */
#ifdef M_MMAP_THRESHOLD
static bool
user_set(const char *tunable, const char *var)
{
	const char *t = getenv("GLIBC_TUNABLES");

	return getenv(var) != NULL || (t != NULL && strstr(t, tunable));
}
#endif

static void
malloc_fixed_thresholds(void)
{
#ifdef M_MMAP_THRESHOLD
	if (!user_set("glibc.malloc.mmap_threshold=", "MALLOC_MMAP_THRESHOLD_"))
		(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (!user_set("glibc.malloc.trim_threshold=", "MALLOC_TRIM_THRESHOLD_"))
		(void)mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, '1' },
		{ "syslog", no_argument, NULL, 's' },
		{ "log-level", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct collector_opts o = { 0 };
	struct conf_errs errs = { 0 };
	const char *path = NULL, *level = NULL;
	struct collector *co;
	struct expo *x = NULL;
	struct wp_conf *conf;
	struct wp_err err;
	int ch, syslog_on = 0, rc;
	size_t i, conf_targets;

	malloc_fixed_thresholds();
	while ((ch = getopt_long(argc, argv, "c:", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': path = optarg; break;
		case '1': o.once = true; break;
		case 's': syslog_on = 1; break;
		case 'l': level = optarg; break;
		default: return run_usage();
		}
	}
	if (path == NULL || optind != argc)
		return run_usage();
	if ((conf = conf_load(path, registry_find, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		return 1;
	}
	for (i = 0; i < errs.n_warn; i++)
		fprintf(stderr, "%s\n", errs.warn[i]);
	conf_errs_fini(&errs);
	if (level != NULL && log_level_parse(level) == -1) {
		fprintf(stderr, "wattpath run: --log-level: '%s' is not error, "
		    "warn, info or debug\n", level);
		conf_free(conf);
		return 2;
	}
	conf_targets = conf->n_targets;
	log_init(level ? log_level_parse(level) : conf->log_level,
	    syslog_on || conf->log_syslog, "wattpath");
	if ((co = collector_new(conf, &o, &err)) == NULL) {
		log_error("%s", err.msg);
		return 1;
	}
	if (!o.once && collector_conf(co)->listen != NULL &&
	    (x = expo_new(collector_loop(co), co, &err)) == NULL) {
		log_error("%s", err.msg);
		collector_free(co);
		return 1;
	}
	rc = collector_run(co, &err);
	if (rc == -1)
		log_error("%s", err.msg);
	else if (o.once && once_failed(co, conf_targets))
		rc = -1;
	expo_free(x);
	collector_free(co);
	return rc == 0 ? 0 : 1;
}
