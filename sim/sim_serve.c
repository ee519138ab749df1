/*
 * sim_serve.c - `wattpath-sim serve`: run every front end until a signal.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <openssl/rand.h>

#include "sim_cmd.h"
#include "sim_conf.h"
#include "sim_snmp.h"
#include "sim_srv.h"

static void
random_hex(char *buf, size_t bytes)
{
	unsigned char r[64];
	size_t i;

	if (bytes > sizeof(r))
		bytes = sizeof(r);
	if (RAND_bytes(r, (int)bytes) != 1)
		memset(r, 0x5a, bytes);
	for (i = 0; i < bytes; i++)
		sprintf(buf + 2 * i, "%02x", r[i]);
}

static void
more_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Absolute paths for the config and the CA next to it. */
static int
paths(const char *config, char *cfg, char *ca, size_t len)
{
	char *d = strdup(config), *b = strdup(config), dir[PATH_MAX];
	int rc = -1;

	if (d != NULL && b != NULL && realpath(dirname(d), dir) != NULL) {
		snprintf(cfg, len, "%s/%s", dir, basename(b));
		snprintf(ca, len, "%s/sim-ca.pem", dir);
		rc = 0;
	}
	free(d);
	free(b);
	return rc;
}

static void
ready(const struct sim_srv *s, const char *cfg, int snmp)
{
	char a[32], b[32];

	sim_addr_str(sim_addr(s, SK_BMC, 0), a, sizeof(a));
	sim_addr_str(sim_addr(s, SK_BMC, s->f->o.nodes - 1), b, sizeof(b));
	printf("wattpath-sim: ready: %d nodes, %d racks, %d PDUs%s, %d meters; "
	    "seed %llu; start %.3f\n", s->f->o.nodes, s->f->o.racks,
	    s->f->o.pdus, snmp ? "" : " (not served)", s->f->o.meters,
	    (unsigned long long)s->f->o.seed, s->start);
	printf("wattpath-sim: redfish https://%s..%s:%d, dcgm :%d, vllm :%d, "
	    "modbus :%d, snmp udp :%d\n", a, b, sim_port(s, SP_REDFISH),
	    sim_port(s, SP_DCGM), sim_port(s, SP_VLLM), sim_port(s, SP_MODBUS),
	    sim_port(s, SP_SNMP));
	printf("wattpath-sim: config %s\n", cfg);
	fflush(stdout);
}

struct running {
	struct sim_http	*http;
	struct sim_modbus *mb;
	struct sim_snmp	*snmp;
};

static int
start_all(struct sim_srv *s, const struct sim_args *a, const char *ca,
    struct running *r)
{
	char err[512];

	if ((r->http = sim_http_start(s, ca, err, sizeof(err))) == NULL ||
	    (r->mb = sim_modbus_start(s, err, sizeof(err))) == NULL ||
	    (!a->no_snmp && s->f->o.pdus > 0 &&
	    (r->snmp = sim_snmp_start(s, err, sizeof(err))) == NULL)) {
		fprintf(stderr, "wattpath-sim: %s\n", err);
		return -1;
	}
	return 0;
}

static void
stop_all(struct running *r)
{
	sim_snmp_stop(r->snmp);
	sim_modbus_stop(r->mb);
	sim_http_stop(r->http);
}

static int
serve(const struct sim_args *a, struct sim_srv *s, sigset_t *set)
{
	char cfg[PATH_MAX + 64], ca[PATH_MAX + 64], err[512];
	struct running r = { 0 };
	struct sim_conf_opts co;
	int sig, rc = 1;

	if (paths(a->config_out, cfg, ca, sizeof(cfg)) == -1) {
		fprintf(stderr, "wattpath-sim: %s: %s\n", a->config_out,
		    strerror(errno));
		return 1;
	}
	if (start_all(s, a, ca, &r) == -1)
		goto out;
	memset(&co, 0, sizeof(co));
	co.path = cfg;
	co.ca_path = ca;
	co.interval = a->interval;
	co.listen_port = a->listen_port ? a->listen_port :
	    sim_port(s, SP_SNMP) + 1;
	co.with_pdus = r.snmp != NULL;
	co.pdu_profile = a->pdu_profile;
	co.meter_map = a->meter_map;
	co.maps_dir = a->maps_dir;
	if (sim_conf_write(s, &co, err, sizeof(err)) == -1) {
		fprintf(stderr, "wattpath-sim: %s\n", err);
		goto out;
	}
	ready(s, cfg, r.snmp != NULL);
	if (sigwait(set, &sig) == 0)
		fprintf(stderr, "wattpath-sim: signal %d, stopping\n", sig);
	rc = 0;
out:
	stop_all(&r);
	return rc;
}

int
sim_cmd_serve(const struct sim_args *a)
{
	struct sim_fleet *f;
	struct sim_srv s;
	sigset_t set;
	char err[256];
	int rc;

	if (a->port_base == 0 || a->config_out == NULL) {
		fprintf(stderr, "wattpath-sim: serve needs --port-base and "
		    "--config-out\n");
		return 2;
	}
	if ((f = sim_fleet_new(&a->fo, err, sizeof(err))) == NULL) {
		fprintf(stderr, "wattpath-sim: %s\n", err);
		return 2;
	}
	memset(&s, 0, sizeof(s));
	if (sim_srv_init(&s, f, isnan(a->start) ? sim_now() : a->start)) {
		fprintf(stderr, "wattpath-sim: out of memory\n");
		sim_fleet_free(f);
		return 1;
	}
	s.addr_base = a->addr_base;
	s.port_base = a->port_base;
	s.kwh_step = a->kwh_step;
	s.snmp_max_get = a->snmp_max_get;
	if (sim_srv_faults(&s, a) == -1) {
		fprintf(stderr, "wattpath-sim: fault on a node out of range\n");
		sim_srv_fini(&s);
		sim_fleet_free(f);
		return 2;
	}
	snprintf(s.user, sizeof(s.user), "monitor");
	random_hex(s.pass, 12);
	random_hex(s.community, 8);
	more_files();
	sim_snmp_preinit();
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = serve(a, &s, &set);
	sim_srv_fini(&s);
	sim_fleet_free(f);
	return rc;
}
