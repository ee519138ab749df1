/*
 * sim_conf.c - writes the wattpath.yaml that points at a running simulator.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_conf.h"
#include "../collector/lib/datafile.h"

/* Writes text to path with mode 0600 (secrets). */
static int
write_secret(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd == -1)
		return -1;
	(void)fchmod(fd, 0600);
	n = write(fd, text, strlen(text));
	if (close(fd) == -1 || n != (ssize_t)strlen(text))
		return -1;
	return 0;
}

static void
node_block(FILE *f, const struct sim_srv *s, const struct sim_conf_opts *o,
    int i)
{
	const struct sim_node *nd = &s->f->node[i];
	char name[32], bmc[32], host[32], pdu[32];

	sim_node_name(i, name, sizeof(name));
	sim_addr_str(sim_addr(s, SK_BMC, i), bmc, sizeof(bmc));
	sim_addr_str(sim_addr(s, SK_HOST, i), host, sizeof(host));
	fprintf(f, "  - name: %s\n    class: hgx-h100-8\n    rack: r%d\n",
	    name, nd->rack + 1);
	fprintf(f, "    # sim: profile %s, BMC reports %s\n",
	    sim_profile_name(nd->profile), sim_shape_name(nd->shape));
	fprintf(f, "    bmc: {url: \"https://%s:%d\", credentials: bmc, "
	    "auth: %s, ca_file: \"%s\"}\n", bmc, sim_port(s, SP_REDFISH),
	    i % 3 == 2 ? "basic" : "session", o->ca_path);
	if (o->with_pdus && nd->pdu_a >= 0) {
		sim_pdu_name(s->f, nd->pdu_a, pdu, sizeof(pdu));
		fprintf(f, "    outlets: [{pdu: %s, outlet: %d}", pdu,
		    nd->outlet);
		if (nd->pdu_b >= 0) {
			sim_pdu_name(s->f, nd->pdu_b, pdu, sizeof(pdu));
			fprintf(f, ", {pdu: %s, outlet: %d}", pdu, nd->outlet);
		}
		fprintf(f, "]\n");
	}
	/* the simulated exporter computes its values at each scrape: no
	 * collection interval of its own */
	fprintf(f, "    gpu: {dcgm_exporter: \"http://%s:%d/metrics\", "
	    "collect_interval: 0s}\n",
	    host, sim_port(s, SP_DCGM));
	if (!nd->shared) {
		fprintf(f, "    engines: [{url: \"http://%s:%d/metrics\", "
		    "kind: vllm}]\n", host, sim_port(s, SP_VLLM));
		return;
	}
	/* --shared: two models, GPU 7 idle */
	fprintf(f, "    engines:\n      - {url: \"http://%s:%d/metrics\", "
	    "kind: vllm, model: %s, gpus: [0, 1, 2, 3]}\n"
	    "      - {url: \"http://%s:%d/engine1/metrics\", kind: vllm, "
	    "model: %s, gpus: [4, 5, 6]}\n", host, sim_port(s, SP_VLLM),
	    SIM_MODEL_A, host, sim_port(s, SP_VLLM), SIM_MODEL_B);
}

/* maps_dir, always and absolute, so the config works from any directory:
 * the one given, else the source tree's etc/ this binary was built in,
 * else the installed share directory. */
static void
maps_dir_line(FILE *f, const char *given)
{
	char abs[PATH_MAX];

	if (given != NULL && realpath(given, abs) == NULL)
		snprintf(abs, sizeof(abs), "%s", given);	/* check-config
								   says */
	else if (given == NULL && datafile_source_etc(abs, sizeof(abs)) < 0)
		snprintf(abs, sizeof(abs), "%s", WP_PREFIX "/share/wattpath");
	fprintf(f, "  maps_dir: \"%s\"\n", abs);
}

static void
body(FILE *f, const struct sim_srv *s, const struct sim_conf_opts *o,
    const char *dir)
{
	const struct sim_fleet *fl = s->f;
	char a[32], name[32];
	int i;

	fprintf(f, "# Written by wattpath-sim: a simulated fleet (seed %llu).\n"
	    "collector:\n  interval: %s\n", (unsigned long long)fl->o.seed,
	    o->interval);
	if (o->data_dir != NULL)
		fprintf(f, "  data_dir: \"%s\"\n", o->data_dir);
	else
		fprintf(f, "  data_dir: \"%s/data\"\n", dir);
	fprintf(f, "  listen: 127.0.0.1:%d\n  log_level: info\n",
	    o->listen_port);
	if (o->fsync != NULL)
		fprintf(f, "  fsync: %s\n", o->fsync);
	if (o->retention != NULL)
		fprintf(f, "  journal_retention: %s\n", o->retention);
	maps_dir_line(f, o->maps_dir);
	fprintf(f, "credentials:\n  - {name: bmc, username: %s, "
	    "password_file: \"%s/secrets/bmc\"}\n", s->user, dir);
	if (o->with_pdus)
		fprintf(f, "  - {name: pdu-community, community_file: "
		    "\"%s/secrets/community\"}\n", dir);
	fprintf(f, "nodes:\n");
	for (i = 0; i < fl->o.nodes; i++)
		node_block(f, s, o, i);
	if (o->with_pdus && fl->o.pdus > 0) {
		fprintf(f, "pdus:\n");
		for (i = 0; i < fl->o.pdus; i++) {
			sim_pdu_name(fl, i, name, sizeof(name));
			sim_addr_str(sim_addr(s, SK_PDU, i), a, sizeof(a));
			fprintf(f, "  - {name: %s, address: \"%s:%d\", "
			    "profile: %s, snmp: {version: 2c, credentials: "
			    "pdu-community}}\n", name, a, sim_port(s, SP_SNMP),
			    o->pdu_profile);
		}
	}
	if (fl->o.meters > 0)
		fprintf(f, "meters:\n");
	for (i = 0; i < fl->o.meters; i++) {
		sim_meter_name(i, name, sizeof(name));
		sim_addr_str(sim_addr(s, SK_METER, i), a, sizeof(a));
		/* the IT meter reads the UPS output (sim_model.c fac_hour) */
		fprintf(f, "  - {name: %s, role: %s, modbus: {tcp: \"%s:%d\", "
		    "unit: 1}, map: %s%s}\n", name,
		    sim_meter_role(i), a, sim_port(s, SP_MODBUS), o->meter_map,
		    strcmp(sim_meter_role(i), "it_total") == 0 ?
		    ", it_measured_at: ups_output" : "");
	}
	fprintf(f, "site: {name: sim-1, zone: FR}\n");
}

int
sim_conf_write(const struct sim_srv *s, const struct sim_conf_opts *o,
    char *err, size_t errlen)
{
	char dir[4096], tmp[4200], *copy;
	FILE *f;
	int rc;

	if ((copy = strdup(o->path)) == NULL)
		return snprintf(err, errlen, "out of memory"), -1;
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	free(copy);
	snprintf(tmp, sizeof(tmp), "%s/secrets", dir);
	if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
		return snprintf(err, errlen, "%s: %s", tmp, strerror(errno)),
		    -1;
	snprintf(tmp, sizeof(tmp), "%s/secrets/bmc", dir);
	if (write_secret(tmp, s->pass) == -1)
		return snprintf(err, errlen, "cannot write %s", tmp), -1;
	snprintf(tmp, sizeof(tmp), "%s/secrets/community", dir);
	if (o->with_pdus && write_secret(tmp, s->community) == -1)
		return snprintf(err, errlen, "cannot write %s", tmp), -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->path);
	if ((f = fopen(tmp, "w")) == NULL)
		return snprintf(err, errlen, "%s: %s", tmp, strerror(errno)),
		    -1;
	body(f, s, o, dir);
	rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0 || rc == -1 || rename(tmp, o->path) == -1)
		return snprintf(err, errlen, "cannot write %s", o->path), -1;
	return 0;
}
