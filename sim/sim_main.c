/*
 * wattpath-sim - a simulated AI fleet that speaks the real protocols, and
 * the exact truth to test wattpath against.
 *
 *   wattpath-sim serve [fleet options] --port-base P --config-out FILE
 *   wattpath-sim truth [fleet options] --from T --to T [--json]
 *   wattpath-sim naive [fleet options] --from T --to T [--every 15]
 *   wattpath-sim history [fleet options] --days D --step S --data-dir DIR
 *
 * Fleet options (the same for every command, so truth matches serve):
 *   --nodes N --racks R --pdus P --meters M --seed S --profile NAME
 *   --shape NAME --kwh-step KWH --shared K --cap-sweep LO:HI:STEP
 *   --cap-dwell D --pod-move T
 * main() is the only place that exits.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../collector/lib/clock.h"
#include "sim_cmd.h"
#include "sim_conf.h"
#include "sim_srv.h"

static const struct option long_opts[] = {
	{ "nodes", required_argument, NULL, 'n' },
	{ "racks", required_argument, NULL, 'r' },
	{ "pdus", required_argument, NULL, 'p' },
	{ "meters", required_argument, NULL, 'm' },
	{ "seed", required_argument, NULL, 's' },
	{ "profile", required_argument, NULL, 'P' },
	{ "shape", required_argument, NULL, 'S' },
	{ "kwh-step", required_argument, NULL, 'k' },
	{ "shared", required_argument, NULL, 'K' },
	{ "port-base", required_argument, NULL, 'b' },
	{ "addr-base", required_argument, NULL, 'a' },
	{ "config-out", required_argument, NULL, 'c' },
	{ "start", required_argument, NULL, 't' },
	{ "interval", required_argument, NULL, 'i' },
	{ "listen-port", required_argument, NULL, 'l' },
	{ "from", required_argument, NULL, 'F' },
	{ "to", required_argument, NULL, 'T' },
	{ "json", no_argument, NULL, 'j' },
	{ "every", required_argument, NULL, 'e' },
	{ "days", required_argument, NULL, 'd' },
	{ "step", required_argument, NULL, 'x' },
	{ "data-dir", required_argument, NULL, 'D' },
	{ "no-snmp", no_argument, NULL, 'N' },
	{ "snmp-max-get", required_argument, NULL, 'G' },
	{ "pdu-profile", required_argument, NULL, 'R' },
	{ "meter-map", required_argument, NULL, 'M' },
	{ "maps-dir", required_argument, NULL, 'E' },
	{ "drift-bmc", required_argument, NULL, 'W' },
	{ "dead-outlet", required_argument, NULL, 'O' },
	{ "fault-at", required_argument, NULL, 'A' },
	{ "cap-sweep", required_argument, NULL, 'C' },
	{ "cap-dwell", required_argument, NULL, 'w' },
	{ "pod-move", required_argument, NULL, 'o' },
	{ "drift-gain", required_argument, NULL, 'g' },
	{ "drift-ramp", required_argument, NULL, 'q' },
	{ "dead-pdu", required_argument, NULL, 'u' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int
parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_time(const char *s, double *out)
{
	wp_time t;

	if (strcmp(s, "now") == 0) {
		*out = sim_now();
		return 0;
	}
	if (clock_parse_time(s, &t) == -1)
		return -1;
	*out = (double)t / WP_SEC;
	return 0;
}

static int
parse_addr(const char *s, uint32_t *out)
{
	unsigned a, b, c, d;
	char tail;

	if (sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4 ||
	    a != 127 || b > 250 || c != 0 || d != 0)
		return -1;
	*out = (a << 24) | (b << 16);
	return 0;
}

/* --cap-sweep LO:HI:STEP (W per GPU): LO, LO+STEP, .. HI. */
static int
parse_caps(const char *s, struct sim_opts *o)
{
	double lo, hi, st, l;
	char tail;
	int n = 0;

	if (sscanf(s, "%lf:%lf:%lf%c", &lo, &hi, &st, &tail) != 3 ||
	    !(lo >= 100) || !(hi <= SIM_GPU_MAX_W) || !(st > 0) || hi < lo)
		return -1;
	for (l = lo; l <= hi + 1e-9 && n < SIM_CAPS_MAX; l += st)
		o->caps[n++] = l;
	if (l <= hi + 1e-9 || n < 2)
		return -1;
	o->n_caps = n;
	return 0;
}

static int
opt_fleet(struct sim_args *a, int c, const char *v)
{
	long n;

	switch (c) {
	case 'n':
		return parse_long(v, 1, 60000, &n) ? -1 : (a->fo.nodes = n, 0);
	case 'r':
		return parse_long(v, 1, 60000, &n) ? -1 : (a->fo.racks = n, 0);
	case 'p':
		return parse_long(v, 0, 120000, &n) ? -1 : (a->fo.pdus = n, 0);
	case 'm':
		return parse_long(v, 0, SIM_MAX_METERS, &n) ? -1 :
		    (a->fo.meters = n, 0);
	case 's':
		return parse_long(v, 0, LONG_MAX, &n) ? -1 :
		    (a->fo.seed = (uint64_t)n, 0);
	case 'P':
		return (a->fo.profile = sim_profile_parse(v)) < 0 ? -1 : 0;
	case 'S':
		return (a->fo.shape = sim_shape_parse(v)) < 0 ? -1 : 0;
	case 'K':
		return parse_long(v, 0, 60000, &n) ? -1 : (a->fo.shared = n, 0);
	case 'k':
		a->kwh_step = strtod(v, NULL);
		return a->kwh_step > 0 && a->kwh_step <= 10 ? 0 : -1;
	case 'W':
		return parse_long(v, 0, 59999, &n) ? -1 :
		    (a->drift_bmc = (int)n, 0);
	case 'O':
		return parse_long(v, 0, 59999, &n) ? -1 :
		    (a->dead_outlet = (int)n, 0);
	case 'A':
		return parse_time(v, &a->fault_at);
	case 'C':
		return parse_caps(v, &a->fo);
	case 'o':
		return parse_time(v, &a->fo.pod_move);
	case 'w': {
		wp_time d;

		if (clock_parse_duration(v, &d) == -1 || d < WP_SEC ||
		    d > 86400 * WP_SEC)
			return -1;
		a->fo.cap_dwell = (double)d / WP_SEC;
		return 0;
	}
	case 'g':
		a->drift_gain = strtod(v, NULL);
		return a->drift_gain > -1 && a->drift_gain <= 10 ? 0 : -1;
	case 'q':
		a->drift_ramp = strtod(v, NULL);
		return a->drift_ramp >= 0 && a->drift_ramp <= 1e7 ? 0 : -1;
	case 'u':
		return parse_long(v, 0, 59999, &n) ? -1 :
		    (a->dead_pdu = (int)n, 0);
	}
	return 1;
}

static int
opt_other(struct sim_args *a, int c, const char *v)
{
	long n;

	switch (c) {
	case 'b':
		return parse_long(v, 1, 65530, &n) ? -1 : (a->port_base = n, 0);
	case 'a':
		return parse_addr(v, &a->addr_base);
	case 'c':
		a->config_out = v;
		return 0;
	case 't':
		return parse_time(v, &a->start);
	case 'i':
		a->interval = v;
		return 0;
	case 'l':
		return parse_long(v, 1, 65535, &n) ? -1 :
		    (a->listen_port = n, 0);
	case 'F':
		return parse_time(v, &a->from);
	case 'T':
		return parse_time(v, &a->to);
	case 'j':
		a->json = 1;
		return 0;
	case 'e': {	/* a duration; a bare number is seconds */
		wp_time d;

		if (clock_parse_duration(v, &d) == -1 || d <= 0 ||
		    d >= 86400 * WP_SEC)
			return -1;
		a->every = (double)d / WP_SEC;
		return 0;
	}
	case 'd':
		a->days = strtod(v, NULL);
		return a->days > 0 && a->days <= 400 ? 0 : -1;
	case 'x': {
		wp_time d;

		if (clock_parse_duration(v, &d) == -1 || d < WP_SEC)
			return -1;
		a->step = (double)d / WP_SEC;
		return 0;
	}
	case 'D':
		a->data_dir = v;
		return 0;
	case 'N':
		a->no_snmp = 1;
		return 0;
	case 'G':
		return parse_long(v, 1, 1000, &n) ? -1 :
		    (a->snmp_max_get = (int)n, 0);
	case 'R':
		a->pdu_profile = v;
		return 0;
	case 'M':
		a->meter_map = v;
		return 0;
	case 'E':
		a->maps_dir = v;
		return 0;
	}
	return -1;
}

static void
defaults(struct sim_args *a)
{
	memset(a, 0, sizeof(*a));
	a->fo.nodes = 16;
	a->fo.racks = 2;
	a->fo.pdus = 4;
	a->fo.meters = 3;
	a->fo.seed = 1;
	a->fo.profile = SP_MIX;
	a->fo.shape = SS_MIX;
	a->kwh_step = 0.01;
	a->addr_base = 127u << 24 | 1u << 16;
	a->interval = "10s";
	a->every = 15;
	a->step = 10;
	a->days = 1;
	a->pdu_profile = "raritan-pdu2";
	a->meter_map = "eastron-sdm630";
	a->from = a->to = NAN;
	a->start = NAN;
	a->drift_bmc = a->dead_outlet = a->dead_pdu = -1;
	a->drift_gain = SIM_DRIFT;
	a->drift_ramp = SIM_DRIFT_RAMP;
	a->fault_at = NAN;
	a->fo.cap_dwell = 600;
	a->fo.pod_move = NAN;
}

static int
usage(FILE *f)
{
	fprintf(f,
	    "usage: wattpath-sim serve --port-base P --config-out FILE "
	    "[fleet options] [--start T] [--interval 10s] [--listen-port N] "
	    "[--addr-base 127.1.0.0] [--no-snmp] [--snmp-max-get N] "
	    "[--maps-dir DIR]\n"
	    "       wattpath-sim truth --from T --to T [fleet options] [--json]\n"
	    "       wattpath-sim naive --from T --to T [--every 15] "
	    "[fleet options]\n"
	    "       wattpath-sim history --days D --step 10s --data-dir DIR "
	    "[fleet options]\n"
	    "fleet options: --nodes 16 --racks 2 --pdus 4 --meters 3 --seed 1 "
	    "--profile mix|seed|bursty|steady|idle "
	    "--shape mix|joules|kwh|watts|legacy --kwh-step 0.01 --shared 0\n"
	    "faults (serve, history): --drift-bmc N [--drift-gain 0.05] "
	    "[--drift-ramp 3600] --dead-outlet N --fault-at T; "
	    "(serve) --dead-pdu N\n"
	    "power-limit sweep (fleet option): --cap-sweep LO:HI:STEP "
	    "[--cap-dwell 10m]\n"
	    "a pod that moves (fleet option, with --shared): --pod-move T\n");
	return f == stdout ? 0 : 2;
}

int
main(int argc, char **argv)
{
	struct sim_args a;
	const char *cmd;
	int c, rc;

	if (argc < 2)
		return usage(stderr);
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0)
		return usage(stdout);
	defaults(&a);
	optind = 2;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (c == 'h')
			return usage(stdout);
		if (c == '?')
			return usage(stderr);
		rc = opt_fleet(&a, c, optarg);
		if (rc == 1)
			rc = opt_other(&a, c, optarg);
		if (rc != 0) {
			fprintf(stderr, "wattpath-sim: bad option value "
			    "'%s'\n", optarg != NULL ? optarg : "");
			return 2;
		}
	}
	if (optind != argc)
		return usage(stderr);
	if (strcmp(cmd, "serve") == 0)
		return sim_cmd_serve(&a);
	if (strcmp(cmd, "truth") == 0)
		return sim_cmd_truth(&a);
	if (strcmp(cmd, "naive") == 0)
		return sim_cmd_naive(&a);
	if (strcmp(cmd, "history") == 0)
		return sim_cmd_history(&a);
	fprintf(stderr, "wattpath-sim: unknown command '%s'\n", cmd);
	return usage(stderr);
}
