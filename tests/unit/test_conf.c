/*
 * Unit tests: collector/conf.c - YAML tree with line numbers, every error
 * kind at its exact line, durations, host:port, flow style, nodes_csv,
 * derived targets, data-file lookup, typed getters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../collector/conf/conf.h"
#include "../../collector/lib/datafile.h"
#include "../../collector/lib/diag.h"
#include "../../collector/lib/ynode.h"
#include "../../collector/registry.h"

struct fx {
	char	 dir[64];
	char	 path[128];
	struct conf_errs errs;
	struct wp_conf *c;
	bool	 drivers;	/* also let the drivers validate their blocks */
};

static int
setup(void **st)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/wp-test-conf.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/w.yaml", f->dir);
	*st = f;
	return 0;
}

static int
teardown(void **st)
{
	struct fx *f = *st;
	char cmd[128];

	conf_free(f->c);
	conf_errs_fini(&f->errs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Writes name (relative to the fixture dir) with text; mode 0600/0644. */
static void
put(struct fx *f, const char *name, const char *text, mode_t mode)
{
	char p[256];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f->dir, name);
	assert_non_null(fp = fopen(p, "w"));
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(p, mode), 0);
}

static int
mkdir_in(struct fx *f, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", f->dir, name);
	return mkdir(p, 0755);
}

static struct wp_conf *
load(struct fx *f, const char *yaml)
{
	put(f, "w.yaml", yaml, 0644);
	conf_free(f->c);
	conf_errs_fini(&f->errs);
	f->c = conf_load(f->path, f->drivers ? registry_find : NULL,
	    &f->errs);
	return f->c;
}

/* Is there an error "FILE:LINE: ...sub..." (file: f->path or other)? */
static bool
has(char **v, size_t n, const char *file, int line, const char *sub)
{
	char pre[300];
	size_t i;

	if (line > 0)
		snprintf(pre, sizeof(pre), "%s:%d: ", file, line);
	else
		snprintf(pre, sizeof(pre), "%s: ", file);
	for (i = 0; i < n; i++)
		if (strncmp(v[i], pre, strlen(pre)) == 0 &&
		    strstr(v[i] + strlen(pre), sub) != NULL)
			return true;
	return false;
}

static void
dump(const struct fx *f)
{
	size_t i;

	for (i = 0; i < f->errs.n; i++)
		fprintf(stderr, "  err: %s\n", f->errs.msg[i]);
	for (i = 0; i < f->errs.n_warn; i++)
		fprintf(stderr, "  warn: %s\n", f->errs.warn[i]);
}

#define ERR_AT(f, line, sub) do {					\
	if (!has((f)->errs.msg, (f)->errs.n, (f)->path, line, sub)) {	\
		dump(f);						\
		fail_msg("no error at line %d with '%s'", line, sub);	\
	}								\
} while (0)
#define WARN_AT(f, line, sub) do {					\
	if (!has((f)->errs.warn, (f)->errs.n_warn, (f)->path, line, sub)) { \
		dump(f);						\
		fail_msg("no warning at line %d with '%s'", line, sub);	\
	}								\
} while (0)
#define LOAD_OK(f, y) do {						\
	if (load(f, y) == NULL) {					\
		dump(f);						\
		fail_msg("config did not load");			\
	}								\
} while (0)

static void
test_defaults(void **st)
{
	struct fx *f = *st;

	LOAD_OK(f, "collector: {}\n");
	assert_int_equal(f->c->interval, 10 * WP_SEC);
	assert_int_equal(f->c->timeout, 8 * WP_SEC);
	assert_int_equal(f->c->backoff_max, 300 * WP_SEC);
	assert_string_equal(f->c->data_dir, "/var/lib/wattpath");
	assert_string_equal(f->c->listen, "127.0.0.1:9810");
	assert_string_equal(f->c->fsync, "poll");
	assert_null(f->c->rrdcached);
	assert_null(f->c->maps_dir);
	assert_int_equal(f->c->workers, 4);
	assert_int_equal(f->c->http_max_inflight, 256);
	assert_int_equal(f->c->journal_retention, 90 * 86400 * WP_SEC);
	assert_int_equal(f->c->rrd_write_delay, 300 * WP_SEC);
	assert_int_equal(f->c->poll_batch, 250 * WP_MS);
	assert_int_equal(f->c->n_targets, 0);
	assert_string_equal(f->c->path, f->path);
}

static void
test_empty_sections(void **st)
{
	struct fx *f = *st;

	LOAD_OK(f, "collector:\ncredentials:\nnodes: ~\npdus: null\n"
	    "meters:\nsite:\n");
	assert_int_equal(f->c->n_nodes, 0);
	assert_int_equal(f->c->interval, 10 * WP_SEC);
	f->drivers = true;	/* the url is the driver's */
	assert_null(load(f, "nodes:\n  - name: n\n    bmc:\n"
	    "  - name: m\n    bmc: {url: , auth: none}\n"));
	ERR_AT(f, 5, "node m: bmc: url has no value");
	assert_int_equal(f->errs.n, 1);
}

static void
test_collector_values(void **st)
{
	struct fx *f = *st;

	LOAD_OK(f, "collector:\n"
	    "  interval: 30\n"
	    "  timeout: 5s\n"
	    "  backoff_max: 10m\n"
	    "  data_dir: /srv/wp\n"
	    "  listen: \"[::1]:9000\"\n"
	    "  rrdcached: unix:/run/rrdcached.sock\n"
	    "  log_level: debug\n"
	    "  syslog: yes\n"
	    "  journal_retention: 30d\n"
	    "  rrd_write_delay: 0\n"
	    "  poll_batch: 0\n"
	    "  fsync: segment\n"
	    "  workers: 8\n"
	    "  http_max_inflight: 64\n");
	assert_int_equal(f->c->interval, 30 * WP_SEC);
	assert_int_equal(f->c->timeout, 5 * WP_SEC);
	assert_int_equal(f->c->backoff_max, 600 * WP_SEC);
	assert_string_equal(f->c->data_dir, "/srv/wp");
	assert_string_equal(f->c->listen, "[::1]:9000");
	assert_string_equal(f->c->rrdcached, "unix:/run/rrdcached.sock");
	assert_int_equal(f->c->log_level, 3);
	assert_true(f->c->log_syslog);
	assert_int_equal(f->c->journal_retention, 30 * 86400 * WP_SEC);
	assert_int_equal(f->c->ledger_slot, 3600 * WP_SEC);
	assert_true(f->c->ledger_retention == 3650LL * 86400 * WP_SEC);
	assert_int_equal(f->c->rrd_write_delay, 0);
	assert_int_equal(f->c->poll_batch, 0);
	assert_string_equal(f->c->fsync, "segment");
	assert_int_equal(f->c->workers, 8);
	assert_int_equal(f->c->http_max_inflight, 64);

	LOAD_OK(f, "collector: {poll_batch: 50ms}\n");
	assert_int_equal(f->c->poll_batch, 50 * WP_MS);
	LOAD_OK(f, "collector: {interval: 5m}\n");
	assert_int_equal(f->c->interval, 300 * WP_SEC);
	assert_int_equal(f->c->timeout, 240 * WP_SEC);
	LOAD_OK(f, "collector: {interval: 1h, rrdcached: \"127.0.0.1:42217\"}\n");
	assert_int_equal(f->c->interval, 3600 * WP_SEC);
	assert_int_equal(f->c->backoff_max, 3600 * WP_SEC);
}

static void
test_collector_errors(void **st)
{
	struct fx *f = *st;

	assert_null(load(f, "# comment\n"
	    "collector:\n"
	    "  interval: 500ms\n"		/* 3 */
	    "  timeout: soon\n"			/* 4 */
	    "  listen: 127.0.0.1\n"		/* 5 */
	    "  rrdcached: unix:relative\n"	/* 6 */
	    "  log_level: loud\n"		/* 7 */
	    "  syslog: maybe\n"			/* 8 */
	    "  fsync: always\n"			/* 9 */
	    "  workers: 0\n"			/* 10 */
	    "  colour: blue\n"			/* 11 */
	    "  data_dir: [a]\n"			/* 12 */
	    "  maps_dir: /nonexistent/maps\n"));	/* 13 */
	ERR_AT(f, 3, "interval 500ms is out of range (1s..1h)");
	ERR_AT(f, 4, "timeout");
	ERR_AT(f, 5, "listen '127.0.0.1' is not host:port");
	ERR_AT(f, 6, "absolute socket path");
	ERR_AT(f, 7, "log_level");
	ERR_AT(f, 8, "syslog must be true or false");
	ERR_AT(f, 9, "fsync must be one of poll, segment, none");
	ERR_AT(f, 10, "workers must be an integer in 1..256");
	ERR_AT(f, 11, "unknown key 'colour'");
	ERR_AT(f, 12, "data_dir must be a single value, not a list");
	ERR_AT(f, 13, "maps_dir /nonexistent/maps is not a directory");
	assert_int_equal(f->errs.n, 11);

	assert_null(load(f, "collector:\n  interval: 2h\n"));
	ERR_AT(f, 2, "out of range");
	assert_null(load(f, "collector:\n  interval: 10s\n  timeout: 20s\n"));
	ERR_AT(f, 3, "timeout must not be longer than the interval");
	assert_null(load(f, "collector: {interval: -5}\n"));
	ERR_AT(f, 1, "not a duration");
	assert_null(load(f, "collector: {poll_batch: 2m}\n"));
	ERR_AT(f, 1, "poll_batch 2m is out of range (0..1m)");
}

static const char *const full =
    "collector:\n"					/* 1 */
    "  interval: 10s\n"					/* 2 */
    "credentials:\n"					/* 3 */
    "  - name: bmc-default\n"				/* 4 */
    "    username: monitor\n"				/* 5 */
    "    password_env: WP_TEST_UNSET_PW\n"		/* 6 */
    "  - {name: pdu-community, community_env: WP_TEST_UNSET_C}\n" /* 7 */
    "nodes:\n"						/* 8 */
    "  - name: gpu-001\n"				/* 9 */
    "    class: hgx-h100-8\n"				/* 10 */
    "    rack: r1\n"					/* 11 */
    "    bmc:\n"					/* 12 */
    "      url: https://127.0.0.1:8443\n"		/* 13 */
    "      credentials: bmc-default\n"			/* 14 */
    "      interval: 30s\n"				/* 15 */
    "    outlets: [{pdu: pdu-r1-a, outlet: 7}, \"pdu-r1-b:7\"]\n" /* 16 */
    "    gpu: {dcgm_exporter: http://127.0.0.1:9400/metrics}\n" /* 17 */
    "    engines:\n"					/* 18 */
    "      - {url: http://127.0.0.1:8000/metrics, kind: vllm}\n" /* 19 */
    "      - {url: http://127.0.0.1:8001/metrics}\n"	/* 20 */
    "  - {name: gpu-002, gpu: {nvml: true}}\n"		/* 21 */
    "pdus:\n"						/* 22 */
    "  - {name: pdu-r1-a, address: 127.0.0.1:161, profile: auto,\n" /* 23 */
    "     snmp: {version: 2c, credentials: pdu-community}}\n" /* 24 */
    "  - {name: pdu-r1-b, url: https://127.0.0.1:8444, credentials: bmc-default}\n"
    "site: {name: par-1, zone: FR, grid: {yearly_average_g_per_kwh: 56}}\n"
    "report:\n"						/* 27 */
    "  slo: {ttft_ms: 500, tpot_ms: 50}\n";		/* 28 */

static void
test_ledger_keys(void **st)
{
	struct fx *f = *st;

	assert_null(load(f, "collector:\n"
	    "  ledger_slot: 45m\n"		/* 2 */
	    "  ledger_retention: 1h\n"));	/* 3 */
	ERR_AT(f, 2, "ledger_slot must divide an hour");
	ERR_AT(f, 3, "ledger_retention");
	assert_null(load(f, "collector: {ledger_slot: 15m}\n"));
	ERR_AT(f, 1, "multiple of the 10-minute summary slot");
	assert_null(load(f, "collector: {ledger_slot: 2h}\n"));
	ERR_AT(f, 1, "10m..1h");
	LOAD_OK(f, "collector: {ledger_slot: 30m, ledger_retention: 7300d}\n");
	assert_int_equal(f->c->ledger_slot, 1800 * WP_SEC);
}

static void
test_targets(void **st)
{
	struct fx *f = *st;
	const struct wp_target_conf *t;
	const struct wp_node *n;
	static const char *const names[] = { "gpu-001/bmc", "gpu-001/gpu",
	    "gpu-001/engine0", "gpu-001/engine1", "gpu-002/gpu", "pdu-r1-a",
	    "pdu-r1-b" };
	static const char *const drivers[] = { "redfish", "inband", "inband",
	    "inband", "inband", "snmp_pdu", "redfish" };
	static const char *const kinds[] = { "bmc", "gpu", "engine", "engine",
	    "gpu", "pdu", "pdu" };
	size_t i;

	LOAD_OK(f, full);
	assert_int_equal(f->c->n_targets, 7);
	for (i = 0; i < 7; i++) {
		t = &f->c->targets[i];
		assert_string_equal(t->name, names[i]);
		assert_string_equal(f->c->target_drivers[i], drivers[i]);
		assert_string_equal(t->kind, kinds[i]);
		assert_ptr_equal(t->creds, f->c->creds);
		assert_int_equal(t->n_creds, f->c->n_creds);
		assert_non_null(t->where);
		assert_non_null(t->block);
		assert_int_equal(t->block->type, YN_MAP);
	}
	/* blocks and their lines */
	t = &f->c->targets[0];
	assert_string_equal(t->node, "gpu-001");
	assert_int_equal(t->block->line, 12);
	assert_string_equal(ynode_str(t->block, "url"),
	    "https://127.0.0.1:8443");
	assert_int_equal(t->interval, 30 * WP_SEC);
	assert_int_equal(t->timeout, 24 * WP_SEC);
	assert_int_equal(f->c->targets[1].interval, 10 * WP_SEC);
	assert_int_equal(f->c->targets[1].timeout, 8 * WP_SEC);
	assert_string_equal(ynode_str(f->c->targets[2].block, "kind"),
	    "vllm");
	assert_int_equal(f->c->targets[3].block->line, 20);
	assert_null(f->c->targets[5].node);
	assert_string_equal(ynode_str(f->c->targets[5].block, "name"),
	    "pdu-r1-a");
	/* inventory */
	assert_int_equal(f->c->n_nodes, 2);
	assert_non_null(n = conf_node_by_name(f->c, "gpu-001"));
	assert_string_equal(n->class, "hgx-h100-8");
	assert_string_equal(n->rack, "r1");
	assert_int_equal(n->n_outlets, 2);
	assert_string_equal(n->outlets[0].pdu, "pdu-r1-a");
	assert_string_equal(n->outlets[0].outlet, "7");
	assert_string_equal(n->outlets[1].pdu, "pdu-r1-b");
	assert_string_equal(n->outlets[1].outlet, "7");
	assert_int_equal(n->outlets[1].line, 16);
	assert_null(conf_node_by_name(f->c, "gpu-003"));
	assert_non_null(conf_pdu(f->c, "pdu-r1-b"));
	assert_null(conf_meter(f->c, "pdu-r1-b"));
	/* credentials */
	assert_int_equal(f->c->n_creds, 2);
	assert_string_equal(conf_cred(f->c, "bmc-default")->username,
	    "monitor");
	assert_string_equal(conf_cred(f->c, "bmc-default")->password_env,
	    "WP_TEST_UNSET_PW");
	assert_string_equal(conf_cred(f->c, "pdu-community")->password_env,
	    "WP_TEST_UNSET_C");
	assert_null(conf_cred(f->c, "pdu-community")->username);
	assert_int_equal(conf_cred(f->c, "pdu-community")->line, 7);
	/* site, report, warnings for unset variables */
	assert_string_equal(f->c->site.zone, "FR");
	assert_true(f->c->site.grid.set);
	assert_true(f->c->site.grid.yearly_g_per_kwh == 56);
	assert_true(f->c->report.slo_set);
	assert_true(f->c->report.slo_ttft_ms == 500);
	assert_true(f->c->report.slo_tpot_ms == 50);
	WARN_AT(f, 6, "WP_TEST_UNSET_PW is not set");
	WARN_AT(f, 7, "WP_TEST_UNSET_C is not set");
	assert_int_equal(f->errs.n, 0);
}

static void
test_meters(void **st)
{
	struct fx *f = *st;
	char y[1024];

	assert_int_equal(mkdir_in(f, "meter-maps"), 0);
	put(f, "meter-maps/test-meter.yaml", "", 0644);
	snprintf(y, sizeof(y), "collector: {maps_dir: %s}\n"
	    "meters:\n"
	    "  - {name: incomer-1, role: facility_total, map: test-meter,\n"
	    "     modbus: {tcp: 127.0.0.1:502, unit: 1}}\n"
	    "  - name: ups-1\n"
	    "    role: other\n"
	    "    map: test-meter\n"
	    "    interval: 1m\n"
	    "    modbus: {rtu: {device: /dev/ttyUSB0, baud: 9600}, unit: 2}\n",
	    f->dir);
	LOAD_OK(f, y);
	assert_int_equal(f->c->n_meters, 2);
	assert_string_equal(f->c->meters[0].role, "facility_total");
	assert_string_equal(f->c->meters[1].map, "test-meter");
	assert_int_equal(f->c->n_targets, 2);
	assert_string_equal(f->c->targets[1].name, "ups-1");
	assert_string_equal(f->c->targets[1].kind, "meter");
	assert_string_equal(f->c->target_drivers[1], "modbus");
	assert_int_equal(f->c->targets[1].interval, 60 * WP_SEC);
	assert_int_equal(f->c->targets[1].block->line, 5);
	assert_string_equal(f->c->meters[1].role, "other");

	f->drivers = true;	/* maps and modbus: are the driver's */
	snprintf(y, sizeof(y), "collector: {maps_dir: %s}\n"
	    "meters:\n"
	    "  - {name: m1, map: no-such-map, modbus: {tcp: 127.0.0.1:502}}\n"
	    "  - {name: m2, map: test-meter, role: boss, modbus: {}}\n"
	    "  - {name: m3, map: test-meter, modbus: {tcp: 'a:b'}}\n"
	    "  - {name: m1, map: test-meter, modbus: {tcp: h:1}}\n"
	    "  - {name: m4, role: other, modbus: {tcp: h:1, rtu: {device: x}}}\n",
	    f->dir);
	assert_null(load(f, y));
	ERR_AT(f, 3, "unknown meter map 'no-such-map'");
	ERR_AT(f, 3, "missing required key 'role'");
	ERR_AT(f, 4, "role must be one of");
	ERR_AT(f, 4, "needs tcp: host:port or rtu");
	ERR_AT(f, 5, "modbus tcp 'a:b' is not host:port");
	ERR_AT(f, 6, "duplicate meter name 'm1'");
	ERR_AT(f, 7, "missing required key 'map'");
	ERR_AT(f, 7, "give tcp or rtu, not both");
}

static void
test_inventory_errors(void **st)
{
	struct fx *f = *st;

	f->drivers = true;	/* every block checked by its driver too */
	assert_null(load(f,
	    "credentials:\n"					/* 1 */
	    "  - {name: c1, username: u, password_env: X}\n"	/* 2 */
	    "  - {name: c1, username: v, password_env: Y}\n"	/* 3 */
	    "  - {name: c2, password_file: /nonexistent/pw}\n"	/* 4 */
	    "  - {name: c3}\n"					/* 5 */
	    "  - {name: c4, password_env: 1X, username: u}\n"	/* 6 */
	    "nodes:\n"						/* 7 */
	    "  - name: n1\n"					/* 8 */
	    "    bmc: {url: ftp://127.0.0.1, credentials: nope}\n" /* 9 */
	    "    outlets: [{pdu: p9, outlet: 1}, zz, \"p1:0\"]\n" /* 10 */
	    "    gpu: {dcgm_exporter: \"http://u:p@h/x\"}\n"	/* 11 */
	    "  - name: n1\n"					/* 12 */
	    "    colour: red\n"					/* 13 */
	    "  - name: \"bad/name\"\n"				/* 14 */
	    "  - name: n2\n"					/* 15 */
	    "    outlets: [\"p1:3\"]\n"				/* 16 */
	    "    engines: [{url: \"https://h:70000/\", kind: magic}]\n" /* 17 */
	    "    gpu: {}\n"					/* 18 */
	    "  - name: n3\n"					/* 19 */
	    "    outlets: [\"p1:3\"]\n"				/* 20 */
	    "    bmc: {url: https://127.0.0.1, auth: token}\n"	/* 21 */
	    "pdus:\n"						/* 22 */
	    "  - {name: p1, address: \"127.0.0.1:0\", profile: nosuch}\n" /* 23 */
	    "  - {name: p1, url: https://127.0.0.1}\n"		/* 24 */
	    "  - {name: p2}\n"					/* 25 */
	    "  - {name: p3, url: https://127.0.0.1, address: h}\n" /* 26 */
	    "site: {name: x, zone: [FR], other: 1}\n"		/* 27 */
	    "report: [1]\n"					/* 28 */
	    "extra: 1\n"));					/* 29 */
	ERR_AT(f, 3, "duplicate credential name 'c1'");
	ERR_AT(f, 4, "secrets file /nonexistent/pw");
	ERR_AT(f, 5, "credential c3: no username and no secret");
	ERR_AT(f, 6, "'1X' is not an environment variable name");
	ERR_AT(f, 9, "unknown credential 'nope'");
	ERR_AT(f, 9, "must start with https:// or http://");
	ERR_AT(f, 10, "outlet on unknown PDU 'p9'");
	ERR_AT(f, 10, "outlet 'zz' is not PDU:OUTLET");
	ERR_AT(f, 10, "outlet number '0' must be 1 or more");
	ERR_AT(f, 11, "must not contain a user or password");
	ERR_AT(f, 12, "duplicate node name 'n1'");
	ERR_AT(f, 13, "unknown key 'colour'");
	ERR_AT(f, 14, "node name 'bad/name'");
	ERR_AT(f, 17, "has a bad host or port");
	ERR_AT(f, 17, "kind must be one of vllm, sglang, tgi, llamacpp, auto");
	ERR_AT(f, 18, "needs dcgm_exporter: URL or nvml: true");
	ERR_AT(f, 20, "outlet p1:3 is already assigned to node n2");
	ERR_AT(f, 21, "auth must be one of session, basic, none");
	ERR_AT(f, 23, "address '127.0.0.1:0' is not host:port");
	ERR_AT(f, 23, "unknown PDU profile 'nosuch'");
	ERR_AT(f, 24, "duplicate pdu name 'p1'");
	ERR_AT(f, 25, "needs address (SNMP) or url (Redfish)");
	ERR_AT(f, 26, "not both");
	ERR_AT(f, 27, "zone must be a single value");
	ERR_AT(f, 27, "unknown key 'other'");
	ERR_AT(f, 28, "report must be a mapping");
	ERR_AT(f, 29, "unknown key 'extra'");
}

/* engines[].model and gpus, report.attribution (issue 22): read into
 * the node, their errors at their lines. */
static void
test_engine_attribution(void **st)
{
	struct fx *f = *st;
	const struct wp_node *n;

	f->drivers = true;
	LOAD_OK(f, "nodes:\n"
	    "  - name: n1\n"
	    "    engines:\n"
	    "      - {url: \"http://127.0.0.1:1/m\", model: llama, gpus: [0, 1]}\n"
	    "      - {url: \"http://127.0.0.1:2/m\", gpus: [3]}\n"
	    "report: {attribution: per_gpu}\n");
	assert_non_null(n = conf_node_by_name(f->c, "n1"));
	assert_int_equal(n->n_engines, 2);
	assert_string_equal(n->engines[0].model, "llama");
	assert_int_equal(n->engines[0].n_gpus, 2);
	assert_int_equal(n->engines[0].gpus[1], 1);
	assert_null(n->engines[1].model);
	assert_int_equal(n->engines[1].gpus[0], 3);
	assert_int_equal(f->c->report.attribution, 1);
	assert_null(load(f, "nodes:\n"				/* 1 */
	    "  - name: n1\n"					/* 2 */
	    "    engines:\n"					/* 3 */
	    "      - {url: \"http://127.0.0.1:1/m\", gpus: [0, x, 64]}\n" /* 4 */
	    "      - {url: \"http://127.0.0.1:2/m\", gpus: [0],\n" /* 5 */
	    "         model: \"a,b\"}\n"				/* 6 */
	    "report: {attribution: fair}\n"));			/* 7 */
	ERR_AT(f, 4, "gpus: each entry must be a GPU index 0..63");
	ERR_AT(f, 5, "gpus: GPU 0 is already held by engines[0]");
	ERR_AT(f, 6, "model: a name without ';' or ','");
	ERR_AT(f, 7, "attribution must be one of proportional, per_gpu");
	LOAD_OK(f, "nodes: [{name: n1}, {name: n2}]\n"
	    "tenants:\n"
	    "  - {name: a, models: [llama], namespaces: [ns-a], nodes: [n1]}\n"
	    "  - {name: b, nodes: [n2]}\n");
	assert_int_equal(f->c->report.n_tenants, 2);
	assert_string_equal(f->c->report.tenants[0].models[0], "llama");
	assert_string_equal(f->c->report.tenants[0].namespaces[0], "ns-a");
	assert_string_equal(f->c->report.tenants[1].nodes[0], "n2");
	assert_null(load(f, "nodes: [{name: n1}]\n"		/* 1 */
	    "tenants:\n"					/* 2 */
	    "  - {name: a, models: [llama], nodes: [n9]}\n"	/* 3 */
	    "  - {name: a}\n"					/* 4 */
	    "  - {name: b, models: [llama], colour: red}\n"	/* 5 */
	    "  - {name: unallocated}\n"			/* 6 */
	    "  - {models: [x]}\n"));				/* 7 */
	ERR_AT(f, 3, "tenant a: nodes: unknown node 'n9'");
	ERR_AT(f, 4, "duplicate tenant name 'a'");
	ERR_AT(f, 5, "tenant b: models: 'llama' is already tenant a's");
	ERR_AT(f, 5, "unknown key 'colour'");
	ERR_AT(f, 6, "must not be 'unallocated'");
	ERR_AT(f, 7, "name");
}

static void
test_http_warning(void **st)
{
	struct fx *f = *st;

	f->drivers = true;	/* the warning is the Redfish driver's */
	LOAD_OK(f, "credentials: [{name: c, username: u, password_env: P}]\n"
	    "nodes:\n"
	    "  - name: n\n"
	    "    bmc: {url: \"http://127.0.0.1:8080\", credentials: c}\n"
	    "    gpu: {dcgm_exporter: \"http://127.0.0.1:9400/metrics\"}\n");
	WARN_AT(f, 4, "credentials travel in clear text");
	/* no credentials, no warning */
	assert_false(has(f->errs.warn, f->errs.n_warn, f->path, 5, "clear"));
}

static void
test_secret_file_checks(void **st)
{
	struct fx *f = *st;
	char y[512];

	put(f, "pw-ok", "secret\n", 0600);
	put(f, "pw-open", "secret\n", 0644);
	snprintf(y, sizeof(y), "credentials:\n"
	    "  - {name: a, username: u, password_file: %s/pw-ok}\n"
	    "  - {name: b, username: u, password_file: %s/pw-open}\n"
	    "  - {name: c, username: u, password_file: %s/pw-missing}\n",
	    f->dir, f->dir, f->dir);
	assert_null(load(f, y));
	assert_int_equal(f->errs.n, 2);
	ERR_AT(f, 3, "pw-open is open to group or others (mode 0644)");
	ERR_AT(f, 4, "pw-missing: No such file or directory");
	assert_null(strstr(f->errs.msg[0], "secret\n"));
}

static void
test_yaml_errors(void **st)
{
	struct fx *f = *st;

	assert_null(load(f, "collector:\n  interval: 10s\n  interval: 20s\n"));
	ERR_AT(f, 3, "duplicate key 'interval'");
	assert_null(load(f, "collector:\n  interval: [10s\n  listen: x\n"));
	assert_int_equal(f->errs.n, 1);
	assert_non_null(strstr(f->errs.msg[0], "YAML syntax error"));
	assert_null(load(f, "a: &x {b: 1}\nc: *x\n"));
	ERR_AT(f, 2, "aliases (*x) are not supported");
	assert_null(load(f, "- 1\n- 2\n"));
	ERR_AT(f, 1, "must be a mapping");
	assert_null(load(f, "# nothing\n"));
	assert_true(has(f->errs.msg, f->errs.n, f->path, 0, "empty"));
	assert_null(load(f, "collector: {}\n---\nnodes: []\n"));
	ERR_AT(f, 2, "more than one YAML document");
	assert_null(load(f, "? [a, b]\n: 1\n"));
	ERR_AT(f, 1, "mapping keys must be plain words");
	conf_errs_fini(&f->errs);
	assert_null(conf_load("/nonexistent/w.yaml", registry_find, &f->errs));
	assert_int_equal(f->errs.n, 1);
	assert_string_equal(f->errs.msg[0],
	    "/nonexistent/w.yaml: cannot open: No such file or directory");
}

static void
test_deep_nesting(void **st)
{
	struct fx *f = *st;
	char y[2048];
	size_t i;

	for (i = 0; i < 500; i++)
		y[i] = '[';
	y[i] = '\0';
	assert_null(load(f, y));
	assert_true(f->errs.n >= 1);
}

static void
test_flow_and_block_same(void **st)
{
	struct fx *f = *st;

	LOAD_OK(f, "{collector: {interval: 20s}, pdus: [{name: p, address: "
	    "\"127.0.0.1:1161\"}], nodes: [{name: n, outlets: [{pdu: p, "
	    "outlet: 3}], bmc: {url: \"https://127.0.0.1\", auth: none}}]}\n");
	assert_int_equal(f->c->interval, 20 * WP_SEC);
	assert_int_equal(f->c->n_targets, 2);
	assert_string_equal(f->c->targets[0].name, "n/bmc");
	assert_string_equal(f->c->targets[1].name, "p");
	assert_int_equal(f->c->targets[1].block->line, 1);
}

static void
test_nodes_csv(void **st)
{
	struct fx *f = *st;
	const struct wp_node *n;
	const struct ynode *e;
	char csv[300];

	put(f, "inv.csv",
	    "# inventory\n"
	    "name,class,rack,bmc_url,bmc_credentials,bmc_auth,outlets,"
	    "dcgm_exporter,engine_url,engine_kind\n"
	    "gpu-010,hgx,r2,https://127.0.0.1:8443,c,basic,\"pa:1 pa:2\","
	    "http://127.0.0.1:9400/metrics,http://127.0.0.1:8000/metrics,sglang\n"
	    "\n"
	    "gpu-011, hgx ,r2,,,,pa:3,,,\n", 0644);
	LOAD_OK(f, "credentials: [{name: c, username: u, password_env: P}]\n"
	    "pdus: [{name: pa, address: \"127.0.0.1:161\"}]\n"
	    "nodes: [{name: gpu-001, gpu: {nvml: true}}]\n"
	    "nodes_csv: inv.csv\n");
	assert_int_equal(f->c->n_nodes, 3);
	assert_non_null(n = conf_node_by_name(f->c, "gpu-010"));
	assert_string_equal(n->class, "hgx");
	assert_int_equal(n->line, 3);
	assert_int_equal(n->n_outlets, 2);
	assert_string_equal(n->outlets[1].outlet, "2");
	assert_non_null(n = conf_node_by_name(f->c, "gpu-011"));
	assert_string_equal(n->class, "hgx");
	assert_int_equal(n->line, 5);
	assert_string_equal(n->outlets[0].outlet, "3");
	/* targets: yaml node first, then csv rows, each as in YAML */
	assert_int_equal(f->c->n_targets, 5);
	assert_string_equal(f->c->targets[1].name, "gpu-010/bmc");
	assert_string_equal(ynode_str(f->c->targets[1].block, "auth"),
	    "basic");
	assert_string_equal(ynode_str(f->c->targets[1].block,
	    "credentials"), "c");
	assert_string_equal(f->c->targets[2].name, "gpu-010/gpu");
	assert_string_equal(f->c->targets[3].name, "gpu-010/engine0");
	e = f->c->targets[3].block;
	assert_string_equal(ynode_str(e, "kind"), "sglang");
	snprintf(csv, sizeof(csv), "%s/inv.csv", f->dir);
	assert_string_equal(e->file, csv);
	assert_int_equal(e->line, 3);
	assert_string_equal(f->c->targets[4].name, "pa");

	f->drivers = true;	/* the bmc_url is the driver's */
	/* errors point into the CSV file */
	put(f, "inv.csv",
	    "name,rack,bmc_url,outlets\n"
	    "gpu-020,r1,ftp://x,\n"
	    "gpu-020,r1,,\n"
	    "gpu-021,r1,,zz:1\n"
	    "gpu-022,r1\n"
	    "\"gpu-023,r1,,\n", 0644);
	assert_null(load(f, "pdus: [{name: pa, address: \"127.0.0.1:161\"}]\n"
	    "nodes: [{name: gpu-021}]\n"
	    "nodes_csv: inv.csv\n"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 2, "must start with"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 3,
	    "duplicate node name 'gpu-020'"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 4,
	    "duplicate node name 'gpu-021'"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 4,
	    "outlet on unknown PDU 'zz'"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 5, "2 columns, the "
	    "header has 4"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 6, "malformed CSV"));
	put(f, "inv.csv", "name,colour\n", 0644);
	assert_null(load(f, "nodes_csv: inv.csv\n"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 1,
	    "unknown column 'colour'"));
	assert_null(load(f, "nodes_csv: missing.csv\n"));
	ERR_AT(f, 1, "cannot open");
}

static void
test_hostport(void **st)
{
	char h[64];
	int port;

	(void)st;
	assert_int_equal(addr_parse_hostport("127.0.0.1:9810", h, sizeof(h),
	    &port), 0);
	assert_string_equal(h, "127.0.0.1");
	assert_int_equal(port, 9810);
	assert_int_equal(addr_parse_hostport("[::1]:161", h, sizeof(h), &port),
	    0);
	assert_string_equal(h, "::1");
	assert_int_equal(port, 161);
	assert_int_equal(addr_parse_hostport("pdu-1.example:65535", h,
	    sizeof(h), &port), 0);
	assert_int_equal(port, 65535);
	assert_int_equal(addr_parse_hostport("h:0", h, sizeof(h), &port), -1);
	assert_int_equal(addr_parse_hostport("h:65536", h, sizeof(h), &port),
	    -1);
	assert_int_equal(addr_parse_hostport("h:", h, sizeof(h), &port), -1);
	assert_int_equal(addr_parse_hostport(":80", h, sizeof(h), &port), -1);
	assert_int_equal(addr_parse_hostport("h", h, sizeof(h), &port), -1);
	assert_int_equal(addr_parse_hostport("::1:80", h, sizeof(h), &port),
	    -1);
	assert_int_equal(addr_parse_hostport("h:+80", h, sizeof(h), &port),
	    -1);
	assert_int_equal(addr_parse_hostport("h:80x", h, sizeof(h), &port),
	    -1);
	assert_int_equal(addr_parse_hostport("a b:80", h, sizeof(h), &port),
	    -1);
	assert_int_equal(addr_parse_hostport("[x]:80", h, sizeof(h), &port),
	    -1);
	assert_int_equal(addr_parse_hostport("averyveryverylonghostname:1", h,
	    8, &port), -1);
	assert_int_equal(addr_parse_hostport(NULL, h, sizeof(h), &port), -1);
}

static void
test_getters(void **st)
{
	struct fx *f = *st;
	static const char *const allowed[] = { "i", "b", "d", "t", "s", "m",
	    NULL };
	struct diag dg = { .main_file = f->path };
	struct ynode *root;
	const struct ynode *r;
	struct wp_err err;
	FILE *fp;
	wp_time t;
	double d;
	bool b;
	long i;

	/* the YAML walker alone: a config would refuse these keys */
	put(f, "w.yaml", "report:\n  i: 42\n  b: off\n  d: 2.5e3\n  t: 250ms\n"
	    "  s: text\n  m: {x: 1}\n", 0644);
	assert_non_null(fp = fopen(f->path, "r"));
	root = ynode_parse(fp, &dg);
	fclose(fp);
	assert_non_null(root);
	assert_int_equal(dg.n, 0);
	r = ynode_get(root, "report");
	assert_int_equal(ynode_int(r, "i", 0, 100, &i, &err), 0);
	assert_int_equal(i, 42);
	assert_int_equal(ynode_int(r, "i", 0, 10, &i, &err), -1);
	assert_string_equal(err.msg, "line 2: i: expected an integer in "
	    "0..10, got '42'");
	assert_int_equal(err.class, WP_E_CONFIG);
	assert_int_equal(ynode_int(r, "nope", 0, 10, &i, &err), 1);
	assert_int_equal(ynode_bool(r, "b", &b, &err), 0);
	assert_false(b);
	assert_int_equal(ynode_bool(r, "s", &b, &err), -1);
	assert_int_equal(ynode_double(r, "d", &d, &err), 0);
	assert_true(d == 2500.0);
	assert_int_equal(ynode_double(r, "s", &d, &err), -1);
	assert_int_equal(ynode_duration(r, "t", &t, &err), 0);
	assert_int_equal(t, 250 * WP_MS);
	assert_int_equal(ynode_duration(r, "s", &t, &err), -1);
	assert_int_equal(ynode_duration(r, "m", &t, &err), -1);
	assert_string_equal(err.msg, "line 7: m: expected a duration, not a "
	    "mapping");
	assert_string_equal(ynode_str(r, "s"), "text");
	assert_null(ynode_str(r, "m"));
	assert_null(ynode_str(NULL, "m"));
	assert_int_equal(ynode_get(r, "m")->line, 7);
	assert_int_equal(ynode_check_keys(r, allowed, &err), 0);
	assert_int_equal(ynode_check_keys(ynode_get(r, "m"), allowed, &err), -1);
	/* no "did you mean 'i'" for a one-letter key; a short block's keys */
	assert_string_equal(err.msg, "line 7: unknown key 'x' (known: i, b, "
	    "d, t, s, m)");
	assert_int_equal(ynode_check_keys(ynode_get(r, "s"), allowed, &err), -1);
	ynode_free(root);
	diag_fini(&dg);
}

/* Issue 19: one wording for every unknown key, with the known key it is
 * most likely a typo of. */
static void
test_key_suggest(void **st)
{
	static const char *const slo[] = { "ttft_ms", "tpot_ms", NULL };
	static const char *const coll[] = { "interval", "timeout",
	    "backoff_max", "data_dir", "maps_dir", "log_level", NULL };
	static const char *const core[] = { "name", "role", "zone", NULL };
	char buf[160];
	struct fx *f = *st;

	assert_string_equal(ynode_key_nearest("ttft", slo, NULL), "ttft_ms");
	assert_string_equal(ynode_key_nearest("tpot", slo, NULL), "tpot_ms");
	assert_string_equal(ynode_key_nearest("TTFT_MS", slo, NULL),
	    "ttft_ms");
	assert_string_equal(ynode_key_nearest("intervall", coll, NULL),
	    "interval");
	assert_string_equal(ynode_key_nearest("timout", coll, NULL),
	    "timeout");
	assert_string_equal(ynode_key_nearest("datadir", coll, NULL),
	    "data_dir");
	assert_string_equal(ynode_key_nearest("rol", coll, core), "role");
	assert_null(ynode_key_nearest("colour", coll, NULL));
	assert_null(ynode_key_nearest("x", slo, NULL));
	assert_null(ynode_key_nearest("p99", slo, NULL));
	ynode_key_hint(buf, sizeof(buf), "ttft", slo, NULL);
	assert_string_equal(buf, "unknown key 'ttft' (did you mean 'ttft_ms'?)");
	ynode_key_hint(buf, sizeof(buf), "colour", slo, NULL);
	assert_string_equal(buf, "unknown key 'colour' (known: ttft_ms, "
	    "tpot_ms)");
	ynode_key_hint(buf, sizeof(buf), "colour", coll, core);
	assert_string_equal(buf, "unknown key 'colour'");	/* 9 keys */
	ynode_key_hint(buf, 30, "colour", slo, NULL);		/* cut */
	assert_string_equal(buf, "unknown key 'colour' (known: ");
	/* in every block: the core's, report:, site:, a driver's */
	f->drivers = true;
	assert_null(load(f, "collector: {intervall: 10s}\n"		/* 1 */
	    "report: {slo: {ttft: 500}}\n"				/* 2 */
	    "site: {zone: FR, grid: {yearly_average_g_per_kwhh: 56},\n" /* 3 */
	    "  tarif: {price: 0.18}}\n"				/* 4 */
	    "nodes: [{name: n, bmc: {url: \"https://127.0.0.1:1\",\n" /* 5 */
	    "  auth: none, intreval: 5s}}]\n"			/* 6 */
	    "meters: [{name: m, rol: other, map: eastron-sdm630,\n"	/* 7 */
	    "  modbus: {tcp: \"127.0.0.1:502\", unti: 1}}]\n"));	/* 8 */
	ERR_AT(f, 1, "collector: unknown key 'intervall' (did you mean "
	    "'interval'?)");
	ERR_AT(f, 2, "report: slo: unknown key 'ttft' (did you mean "
	    "'ttft_ms'?)");
	ERR_AT(f, 3, "site: grid: unknown key 'yearly_average_g_per_kwhh' "
	    "(did you mean 'yearly_average_g_per_kwh'?)");
	ERR_AT(f, 4, "site: unknown key 'tarif' (did you mean 'tariff'?)");
	ERR_AT(f, 6, "node n: bmc: unknown key 'intreval' (did you mean "
	    "'interval'?)");
	ERR_AT(f, 7, "meter m: unknown key 'rol' (did you mean 'role'?)");
	ERR_AT(f, 8, "unknown key 'unti' (did you mean 'unit'?)");
}

static void
test_find_data_file(void **st)
{
	struct fx *f = *st;
	char out[512], want[256];

	assert_int_equal(mkdir_in(f, "pdu-profiles"), 0);
	put(f, "pdu-profiles/vendor-x.yaml", "", 0644);
	assert_int_equal(datafile_find(f->dir, NULL, "pdu-profiles",
	    "vendor-x", ".yaml", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/pdu-profiles/vendor-x.yaml", f->dir);
	assert_string_equal(out, want);
	assert_int_equal(datafile_find(f->dir, NULL, "pdu-profiles",
	    "absent", ".yaml", out, sizeof(out)), -1);
	assert_string_equal(out, "");
	assert_int_equal(datafile_find(f->dir, NULL, "pdu-profiles",
	    "../pdu-profiles/vendor-x", ".yaml", out, sizeof(out)), -1);
	assert_int_equal(datafile_find(NULL, NULL, "pdu-profiles",
	    "vendor-x", ".yaml", out, sizeof(out)), -1);
	/* the config's directory is the second step */
	assert_int_equal(datafile_find(NULL, f->dir, "pdu-profiles",
	    "vendor-x", ".yaml", out, sizeof(out)), 0);
	assert_string_equal(out, want);
	/* a profile in maps_dir satisfies the config check */
	snprintf(want, sizeof(want), "collector: {maps_dir: %s}\n"
	    "pdus: [{name: p, address: \"127.0.0.1:161\", profile: vendor-x}]\n",
	    f->dir);
	LOAD_OK(f, want);
}

/* Issue 19: data files never depend on the working directory: the
 * config's directory, a relative maps_dir taken from it, the source tree
 * found from the binary (this test binary is under build/). */
static void
test_data_file_not_cwd(void **st)
{
	struct fx *f = *st;
	char out[PATH_MAX], want[1024], cwd[512], etc[512];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(mkdir_in(f, "maps"), 0);
	assert_int_equal(mkdir_in(f, "maps/pdu-profiles"), 0);
	put(f, "maps/pdu-profiles/vendor-y.yaml", "", 0644);
	assert_int_equal(mkdir_in(f, "pdu-profiles"), 0);
	put(f, "pdu-profiles/vendor-z.yaml", "", 0644);
	snprintf(want, sizeof(want), "cp etc/pdu-profiles/raritan-pdu2.yaml "
	    "%s/maps/pdu-profiles/vendor-y.yaml && cp etc/pdu-profiles/"
	    "raritan-pdu2.yaml %s/pdu-profiles/vendor-z.yaml", f->dir, f->dir);
	assert_int_equal(system(want), 0);
	assert_int_equal(chdir("/"), 0);
	/* relative maps_dir: the config file's, not the cwd's */
	f->drivers = true;
	LOAD_OK(f, "collector: {maps_dir: maps}\n"
	    "credentials: [{name: c, community_env: WP_TEST_UNSET_C}]\n"
	    "pdus: [{name: p, address: \"127.0.0.1:161\", profile: vendor-y,\n"
	    "        snmp: {version: 2c, credentials: c}},\n"
	    "       {name: q, address: \"127.0.0.1:162\", profile: vendor-z,\n"
	    "        snmp: {version: 2c, credentials: c}}]\n");
	snprintf(want, sizeof(want), "%s/maps", f->dir);
	assert_string_equal(f->c->maps_dir, want);
	assert_string_equal(f->c->conf_dir, f->dir);
	/* the shipped profiles, from / : the source tree's etc/ */
	assert_int_equal(datafile_source_etc(etc, sizeof(etc)), 0);
	assert_int_equal(datafile_find(NULL, NULL, "pdu-profiles",
	    "raritan-pdu2", ".yaml", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/pdu-profiles/raritan-pdu2.yaml", etc);
	assert_string_equal(out, want);
	LOAD_OK(f, "credentials: [{name: c, community_env: WP_TEST_UNSET_C}]\n"
	    "pdus: [{name: p, address: \"127.0.0.1:161\", "
	    "profile: raritan-pdu2, snmp: {version: 2c, credentials: c}}]\n"
	    "meters: [{name: m, role: other, map: eastron-sdm630, "
	    "modbus: {tcp: \"127.0.0.1:502\", unit: 1}}]\n");
	assert_int_equal(chdir(cwd), 0);
	snprintf(want, sizeof(want), "%s/etc", cwd);
	assert_non_null(realpath(want, out));
	assert_string_equal(etc, out);
}

static void
test_many_errors_sorted(void **st)
{
	struct fx *f = *st;
	size_t i;

	assert_null(load(f, "a: 1\nb: 2\ncollector: {interval: 0s}\nc: 3\n"));
	assert_int_equal(f->errs.n, 4);
	for (i = 0; i < 4; i++) {
		char pre[200];

		snprintf(pre, sizeof(pre), "%s:%zu: ", f->path, i + 1);
		assert_memory_equal(f->errs.msg[i], pre, strlen(pre));
	}
}

/* Issue 26.12: what the campaign found check-config let through. */
static void
test_hostile_inputs(void **st)
{
	struct fx *f = *st;
	char y[1024], big[5001], csv[300];

	/* a 5,000-byte secrets file: refused now, not at the first poll */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(f, "pw", big, 0600);
	snprintf(y, sizeof(y), "credentials: [{name: c, username: u, "
	    "password_file: %s/pw}]\n", f->dir);
	assert_null(load(f, y));
	ERR_AT(f, 1, "is larger than 4096 bytes");
	/* the exposition's own password: checked as a credential's */
	LOAD_OK(f, "collector: {http_user: u, http_password_env: "
	    "WP_TEST_SURELY_UNSET}\n");
	WARN_AT(f, 1, "WP_TEST_SURELY_UNSET is not set");
	/* every address without Basic auth: a warning */
	LOAD_OK(f, "collector: {listen: \"0.0.0.0:9810\"}\n");
	WARN_AT(f, 1, "is not a loopback address and has no http_user");
	LOAD_OK(f, "collector: {listen: \"127.0.0.1:9810\"}\n");
	assert_int_equal(f->errs.n_warn, 0);
	/* control characters of a value never reach the message raw */
	assert_null(load(f, "collector: {log_level: \"a\\x1b[2Jb\"}\n"));
	ERR_AT(f, 1, "not 'a?[2Jb'");
	/* a binary file: the line of the bad byte, not only an offset */
	assert_null(load(f, "collector:\n  interval: 10s\n  data_dir: "
	    "/x\xff\xfe\n"));
	ERR_AT(f, 3, "not UTF-8 text?");
	/* a UTF-8 byte order mark before a CSV header: taken as the
	 * spreadsheet's, not as part of the first column's name */
	put(f, "bom.csv", "\xef\xbb\xbfname,class\ngpu-1,hgx\n", 0644);
	LOAD_OK(f, "nodes_csv: bom.csv\n");
	assert_int_equal(f->c->n_nodes, 1);
	/* a NUL byte: said so, at its line */
	snprintf(csv, sizeof(csv), "%s/nul.csv", f->dir);
	{
		static const char nul[] = "name,class\ngpu-1,h\0x\n";
		FILE *fp = fopen(csv, "w");

		assert_non_null(fp);
		assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, fp),
		    sizeof(nul) - 1);
		fclose(fp);
	}
	assert_null(load(f, "nodes_csv: nul.csv\n"));
	assert_true(has(f->errs.msg, f->errs.n, csv, 2, "a NUL byte"));
}

/* *_credential: NAME, a systemd credential in $CREDENTIALS_DIRECTORY,
 * for the core's password and the SNMP driver's v3 secrets; shards. */
static void
test_credentials_and_shard(void **st)
{
	static const char *const y =
	    "credentials:\n"
	    "  - {name: c, username: u, password_credential: pw}\n"
	    "  - {name: v3, username: u, auth_protocol: SHA-256,\n"
	    "     auth_password_credential: auth, priv_protocol: AES,\n"
	    "     priv_password_credential: priv}\n"
	    "pdus: [{name: p, address: \"127.0.0.1:161\", profile: raritan-pdu2,\n"
	    "        snmp: {version: 3, credentials: v3}}]\n"
	    "nodes: [{name: n, bmc: {url: \"https://127.0.0.1\", "
	    "credentials: c}}]\n";
	struct fx *f = *st;
	const struct wp_cred *cr;
	char cd[300], want[400];

	f->drivers = true;
	assert_int_equal(mkdir_in(f, "creds"), 0);
	put(f, "creds/pw", "password1\n", 0400);
	put(f, "creds/auth", "authpassphrase\n", 0440);
	put(f, "creds/priv", "privpassphrase\n", 0400);
	snprintf(cd, sizeof(cd), "%s/creds", f->dir);
	assert_int_equal(chmod(cd, 0500), 0);
	setenv("CREDENTIALS_DIRECTORY", cd, 1);
	LOAD_OK(f, y);
	assert_non_null(cr = conf_cred(f->c, "c"));
	snprintf(want, sizeof(want), "%s/pw", cd);
	assert_string_equal(cr->password_file, want);
	assert_null(cr->password_env);
	/* no directory: the credential's line and the v3 PDU's, errors */
	unsetenv("CREDENTIALS_DIRECTORY");
	assert_null(load(f, y));
	ERR_AT(f, 2, "password_credential pw: $CREDENTIALS_DIRECTORY is not "
	    "set");
	ERR_AT(f, 4, "auth_password_credential auth:");
	ERR_AT(f, 7, "$CREDENTIALS_DIRECTORY is not set");
	/* one source only; a bad name; a file others may read */
	setenv("CREDENTIALS_DIRECTORY", cd, 1);
	assert_null(load(f, "credentials: [{name: a, username: u, "
	    "password_env: X, password_credential: pw},\n"
	    "  {name: b, username: u, password_credential: \"x/y\"}]\n"));
	ERR_AT(f, 1, "give one of password_file, password_env, "
	    "password_credential");
	ERR_AT(f, 2, "'x/y' is not a credential name");
	assert_int_equal(chmod(cd, 0700), 0);
	put(f, "creds/pw", "password1\n", 0404);
	assert_null(load(f, y));
	ERR_AT(f, 2, "is open to others");
	unsetenv("CREDENTIALS_DIRECTORY");
	/* shards: a node's targets stay together; bad values are errors */
	LOAD_OK(f, "collector: {shard: {index: 1, count: 2}}\n"
	    "nodes: [{name: gpu-002, bmc: {url: \"https://127.0.0.1\", "
	    "auth: none}, gpu: {nvml: true}}, {name: gpu-001, gpu: "
	    "{nvml: true}}]\n");
	assert_int_equal(f->c->shard_count, 2);
	assert_int_equal(f->c->n_targets, 2);	/* gpu-002 is shard 1 of 2 */
	assert_string_equal(f->c->targets[0].name, "gpu-002/bmc");
	assert_string_equal(f->c->targets[1].name, "gpu-002/gpu");
	assert_null(load(f, "collector: {shard: {index: 2, count: 2}}\n"));
	ERR_AT(f, 1, "index 2 must be below count 2");
	assert_null(load(f, "collector:\n  shard: 3\n"));
	ERR_AT(f, 2, "shard must be a mapping");
	assert_null(load(f, "collector:\n  shard: {index: 0, count: 0}\n"));
	ERR_AT(f, 2, "count");
}

/* collector.remote_write: each key checked at its line; defaults; the
 * password as a credential's; names unique. */
static void
test_remote_write(void **st)
{
	struct fx *f = *st;
	const struct wp_remote_write *r;
	char y[512];

	LOAD_OK(f, "collector:\n  remote_write:\n"
	    "    - url: http://127.0.0.1:8428/api/v1/write\n"
	    "    - {name: prom-2, url: \"https://tsdb.example/api/v1/write\", "
	    "timeout: 30s, max_queue_bytes: 1048576, insecure: true, "
	    "headers: {X-Scope-OrgID: site-a}, labels: {instance: a1, dc: x}}\n");
	assert_int_equal(f->c->n_remote_write, 2);
	r = &f->c->remote_write[0];
	assert_string_equal(r->name, "127.0.0.1_8428_api_v1_write");
	assert_true(r->timeout == 10 * WP_SEC);
	assert_true(r->max_queue_bytes == 1LL << 30);
	assert_null(r->username);
	r = &f->c->remote_write[1];
	assert_string_equal(r->name, "prom-2");
	assert_true(r->timeout == 30 * WP_SEC);
	assert_true(r->max_queue_bytes == 1048576);
	assert_true(r->insecure);
	assert_non_null(r->headers);
	assert_non_null(r->labels);
	put(f, "pw", "secret\n", 0600);
	snprintf(y, sizeof(y), "collector:\n  remote_write:\n"
	    "    - url: https://tsdb.example/w\n      username: wp\n"
	    "      password_file: %s/pw\n", f->dir);
	LOAD_OK(f, y);
	assert_string_equal(f->c->remote_write[0].username, "wp");
	assert_non_null(f->c->remote_write[0].password_file);
	assert_null(load(f, "collector:\n  remote_write: {url: x}\n"));
	ERR_AT(f, 2, "remote_write must be a list");
	assert_null(load(f, "collector:\n  remote_write:\n    - {name: a}\n"));
	ERR_AT(f, 3, "remote_write[0]");
	assert_null(load(f, "collector:\n  remote_write:\n"
	    "    - url: ftp://x/\n      urll: 1\n"));
	ERR_AT(f, 3, "URL");
	ERR_AT(f, 4, "unknown key 'urll'");
	assert_null(load(f, "collector:\n  remote_write:\n"
	    "    - url: http://a/w\n      timeout: 0s\n"
	    "      max_queue_bytes: 10\n      insecure: true\n"
	    "      username: u\n      headers: {Content-Type: x, \"a b\": c}\n"));
	ERR_AT(f, 4, "timeout");
	ERR_AT(f, 5, "max_queue_bytes");
	ERR_AT(f, 6, "for an https:// url");
	ERR_AT(f, 7, "username needs one of");
	ERR_AT(f, 8, "set by the protocol");
	ERR_AT(f, 8, "not a header name");
	assert_null(load(f, "collector:\n  remote_write:\n"
	    "    - {name: a, url: http://a/w}\n"
	    "    - {name: a, url: http://b/w}\n    - {name: ../x, url: http://c/w}\n"));
	ERR_AT(f, 4, "name 'a' is taken");
	ERR_AT(f, 5, "name '../x' must be");
	assert_null(load(f, "collector:\n  remote_write:\n"
	    "    - url: http://a/w\n      labels:\n        __x: 1\n"
	    "        1a: b\n        ok: \"\"\n"));
	ERR_AT(f, 5, "'__x' is not a label name");
	ERR_AT(f, 6, "'1a' is not a label name");
	ERR_AT(f, 7, "ok needs a one-line value");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remote_write, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_empty_sections, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_collector_values, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_collector_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ledger_keys, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inventory_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_engine_attribution, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_http_warning, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_secret_file_checks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_yaml_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_deep_nesting, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flow_and_block_same, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_nodes_csv, setup, teardown),
		cmocka_unit_test(test_hostport),
		cmocka_unit_test_setup_teardown(test_getters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_suggest, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_data_file_not_cwd, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_find_data_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hostile_inputs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_many_errors_sorted, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_credentials_and_shard,
		    setup, teardown),
	};

	unsetenv("WP_TEST_UNSET_PW");
	unsetenv("WP_TEST_UNSET_C");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
