/* modbus_meter.c - the modbus driver: config, polls on the worker pool,
 * samples, probe.  See modbus_meter.h. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/addr.h"
#include "../../collector/lib/datafile.h"
#include "../../collector/lib/diag.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/workers.h"
#include "../../collector/lib/ycheck.h"
#include "../../collector/lib/ynode.h"
#include "mb_link.h"
#include "mb_samples.h"
#include "modbus_meter.h"

#define DEFAULT_TIMEOUT	(1 * WP_SEC)

/*
 * What a meter shares with its in-flight jobs: the link, the map and the
 * plan.  Reference counted on the loop thread; the last of the meter and
 * its jobs to go frees it (a job may outlive its meter on the worker).
 */
struct mb_core {
	struct mb_link	*link;
	struct regmap	*map;
	struct rm_plan	 plan;
	int		 refs;
};

struct mb_meter {
	char		 name[128];
	char		 key[300];	/* worker key: gateway or line */
	struct mb_link_conf lc;
	struct mb_info	 info;		/* role, category, map stem */
	struct mb_core	*core;
	size_t		 nregs;		/* registers in the plan */
	struct workers	*workers;
	struct mb_job	*jobs;		/* submitted, not yet completed */
};

/*
 * One poll.  The worker thread touches core->link, core->plan, regs,
 * status, err, rc and abort; the loop thread everything else.
 */
struct mb_job {
	struct mb_job	*next;		/* in m->jobs */
	struct mb_meter	*m;		/* NULL once the meter is freed */
	struct wp_poll	*poll;		/* NULL once cancelled */
	struct mb_core	*core;		/* holds a reference */
	uint16_t	*regs;
	int		*status;
	wp_time		 deadline;
	atomic_bool	 abort;
	int		 rc;
	struct wp_err	 err;
};

/* ---- config ---------------------------------------------------------- */

static int
parse_parity(const char *s, char *out)
{
	if (s == NULL) {
		*out = 'N';
		return 0;
	}
	if (strlen(s) != 1 || strchr("NEOneo", s[0]) == NULL)
		return -1;
	*out = (char)(s[0] & ~0x20);
	return 0;
}

static int
conf_rtu(const struct ynode *rtu, struct mb_link_conf *lc,
    struct wp_err *err)
{
	static const char *const keys[] = { "device", "baud", "parity",
	    "data_bits", "stop_bits", NULL };
	const char *dev;
	long v;
	int r;

	if (rtu->type != YN_MAP)
		return err_set(err, WP_E_CONFIG, "line %d: modbus.rtu: a "
		    "mapping {device, baud, parity, data_bits, stop_bits}",
		    rtu->line);
	if (ynode_check_keys(rtu, keys, err) == -1)
		return -1;
	if ((dev = ynode_str(rtu, "device")) == NULL || *dev != '/' ||
	    strlen(dev) >= sizeof(lc->device))
		return err_set(err, WP_E_CONFIG, "line %d: modbus.rtu.device: "
		    "an absolute path such as /dev/ttyUSB0", rtu->line);
	lc->rtu = true;
	strcpy(lc->device, dev);
	lc->baud = 9600;
	if ((r = ynode_int(rtu, "baud", 300, 4000000, &v, err)) == -1)
		return -1;
	if (r == 0)
		lc->baud = (int)v;
	if (parse_parity(ynode_str(rtu, "parity"), &lc->parity) == -1)
		return err_set(err, WP_E_CONFIG, "line %d: modbus.rtu.parity: "
		    "N, E or O", rtu->line);
	lc->data_bits = 8;
	if ((r = ynode_int(rtu, "data_bits", 5, 8, &v, err)) == -1)
		return -1;
	if (r == 0)
		lc->data_bits = (int)v;
	lc->stop_bits = 1;	/* what meters ship with (8N1) */
	if ((r = ynode_int(rtu, "stop_bits", 1, 2, &v, err)) == -1)
		return -1;
	if (r == 0)
		lc->stop_bits = (int)v;
	return 0;
}

/* The modbus: block into lc; problems to d (where: the meter). */
static void
conf_modbus(const struct wp_target_conf *tc, struct mb_link_conf *lc,
    struct diag *d)
{
	static const char *const keys[] = { "tcp", "rtu", "unit", "timeout",
	    NULL };
	const struct ynode *mb, *rtu, *tcp;
	struct wp_err err = { 0 };
	long unit;
	int r;

	if ((mb = ycheck_typed(d, tc->block, "modbus", YN_MAP, tc->where,
	    true)) == NULL)
		return;
	driver_check_keys(tc, mb, tc->where, keys, d);
	tcp = ycheck_typed(d, mb, "tcp", YN_SCALAR, tc->where, false);
	rtu = ynode_get(mb, "rtu");
	if (ynode_get(mb, "tcp") != NULL && rtu != NULL)
		diag_at(d, mb, false, "%s: modbus: give tcp or rtu, not both",
		    tc->where);
	else if (ynode_get(mb, "tcp") == NULL && rtu == NULL)
		diag_at(d, mb, false, "%s: modbus: needs tcp: host:port or "
		    "rtu: {device: ...}", tc->where);
	if (tcp != NULL && addr_parse_hostport(tcp->value, lc->host,
	    sizeof(lc->host), &lc->port) == -1)
		diag_at(d, tcp, false, "%s: modbus tcp '%s' is not host:port "
		    "(port 1..65535; IPv6 as [addr]:port)", tc->where,
		    tcp->value);
	if (rtu != NULL && conf_rtu(rtu, lc, &err) == -1)
		diag_err(d, rtu, tc->where, &err, false);
	if ((r = ynode_int(mb, "unit", 0, 255, &unit, &err)) == -1)
		diag_err(d, mb, tc->where, &err, false);
	else if (r == 1 || (lc->rtu && (unit < 1 || unit > 247)))
		diag_at(d, mb, false, "%s: modbus.unit: the unit id (1..247 "
		    "on RTU, 0..255 on TCP)", tc->where);
	else
		lc->unit = (int)unit;
	lc->timeout = DEFAULT_TIMEOUT;
	if ((r = ynode_duration(mb, "timeout", &lc->timeout, &err)) == -1)
		diag_err(d, mb, tc->where, &err, false);
	else if (tc->timeout > 0 && lc->timeout > tc->timeout / 2 &&
	    (r == 0 || (lc->timeout = tc->timeout / 2) <= 0))
		diag_at(d, mb, false, "%s: modbus.timeout %.3gs must be at "
		    "most half the poll timeout (%.3gs)", tc->where,
		    (double)lc->timeout / WP_SEC, (double)tc->timeout / WP_SEC);
}

/* The register map stem, found in the data-file search (datafile.h);
 * NULL with err. */
static struct regmap *
map_open(const char *maps_dir, const char *conf_dir, const char *stem,
    struct wp_err *err)
{
	char path[4096];

	if (datafile_find(maps_dir, conf_dir, "meter-maps", stem, ".yaml",
	    path, sizeof(path)) == -1) {
		err_set(err, WP_E_CONFIG, "unknown meter map '%s' (no "
		    "meter-maps/%s.yaml in %s)", stem, stem, DATAFILE_SEARCH);
		return NULL;
	}
	return regmap_load_file(path, stem, err);
}

/* The meter's register map (map: stem), or NULL (reported to d). */
static struct regmap *
load_map(const struct wp_target_conf *tc, struct diag *d)
{
	const char *stem;
	struct wp_err err = { 0 };
	struct regmap *map;

	if ((stem = ycheck_scalar(d, tc->block, "map", tc->where,
	    true)) == NULL)
		return NULL;
	if ((map = map_open(tc->maps_dir, tc->conf_dir, stem, &err)) == NULL)
		diag_err(d, ynode_get(tc->block, "map"), tc->where, &err,
		    false);
	return map;
}

/* Reads the meter's block into m (its core's map included); every
 * problem to d.  validate and target_new both read it so. */
static void
meter_conf(const struct wp_target_conf *tc, struct mb_meter *m,
    struct diag *d)
{
	static const char *const keys[] = { "modbus", "map",
	    "it_measured_at", NULL };
	static const char *const cats[] = { "ups_output", "pdu_output",
	    "it_input", NULL };
	const char *role = ynode_str(tc->block, "role"), *cat;
	struct wp_err err = { 0 };

	driver_check_keys(tc, tc->block, tc->where, keys, d);
	cat = ycheck_enum(d, tc->block, "it_measured_at", tc->where, cats,
	    "ups_output, pdu_output, it_input");
	if (cat != NULL && (role == NULL || strcmp(role, "it_total") != 0))
		diag_at(d, ynode_get(tc->block, "it_measured_at"), false,
		    "%s: it_measured_at applies to role it_total only",
		    tc->where);
	/* the role is the core's, checked there */
	snprintf(m->info.role, sizeof(m->info.role), "%s", role ? role :
	    "other");
	snprintf(m->info.category, sizeof(m->info.category), "%s",
	    cat != NULL ? cat : "");
	conf_modbus(tc, &m->lc, d);
	if ((m->core->map = load_map(tc, d)) == NULL)
		return;
	snprintf(m->info.map, sizeof(m->info.map), "%s", m->core->map->stem);
	if (regmap_plan(m->core->map, &m->core->plan, &err) == -1)
		diag_err(d, ynode_get(tc->block, "map"), tc->where, &err,
		    false);
}

/* ---- jobs ------------------------------------------------------------ */

static size_t
plan_regs(const struct rm_plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->r[i].count;
	return n;
}

static void
core_unref(struct mb_core *c)
{
	if (c == NULL || --c->refs > 0)
		return;
	mb_link_free(c->link);
	regmap_free(c->map);
	regmap_plan_fini(&c->plan);
	free(c);
}

static void
job_run(void *arg)
{
	struct mb_job *j = arg;

	j->rc = mb_link_read_plan(j->core->link, j->core->plan.r,
	    j->core->plan.n, j->regs, j->status, j->deadline, &j->abort,
	    &j->err);
	mb_link_end_poll(j->core->link);
}

static void
job_free(struct mb_job *j)
{
	core_unref(j->core);
	free(j->regs);
	free(j->status);
	free(j);
}

static void
unlink_job(struct mb_meter *m, struct mb_job *j)
{
	struct mb_job **pp;

	for (pp = &m->jobs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			return;
		}
}

static void
emit(struct mb_job *j)
{
	const struct regmap *map = j->core->map;
	struct wp_sample *out;
	struct wp_err err;
	int *idx, n, i;

	out = calloc(map->n, sizeof(*out));
	idx = calloc(map->n, sizeof(*idx));
	if (out == NULL || idx == NULL) {
		err_set(&err, WP_E_INTERNAL, "out of memory");
		n = -1;
	} else
		n = mb_samples_build(map, &j->m->info, &j->core->plan,
		    j->regs, j->status, out, idx, &err);
	if (n == -1)
		poll_done(j->poll, -1, &err);
	else {
		for (i = 0; i < n; i++)
			poll_add(j->poll, &out[i]);
		poll_done(j->poll, 0, NULL);
	}
	free(out);
	free(idx);
}

/* On the loop thread: the job ran (or the pool is going away). */
static void
job_done(void *arg)
{
	struct mb_job *j = arg;

	if (j->m != NULL)
		unlink_job(j->m, j);
	if (j->poll != NULL && j->m != NULL) {
		if (j->rc == -1)
			poll_done(j->poll, -1, &j->err);
		else
			emit(j);
	}
	job_free(j);
}

/* ---- driver callbacks ------------------------------------------------ */

static void mb_target_free(void *state);

/* A meter with its core, nothing read yet; NULL out of memory. */
static struct mb_meter *
meter_alloc(const struct wp_target_conf *tc)
{
	struct mb_meter *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	snprintf(m->name, sizeof(m->name), "%s", tc->name);
	if ((m->core = calloc(1, sizeof(*m->core))) == NULL) {
		free(m);
		return NULL;
	}
	m->core->refs = 1;
	return m;
}

static int
mb_validate(const struct wp_target_conf *tc, struct diag *d)
{
	size_t n0 = d->n_err;
	struct mb_meter *m;

	if ((m = meter_alloc(tc)) == NULL) {
		diag_at(d, tc->block, false, "%s: out of memory", tc->where);
		return 1;
	}
	meter_conf(tc, m, d);
	mb_target_free(m);
	return (int)(d->n_err - n0);
}

static int
mb_target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	struct diag d = { .main_file = "" };
	struct mb_meter *m;

	*state = NULL;
	if ((m = meter_alloc(tc)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	m->workers = svc != NULL ? svc->workers : NULL;
	meter_conf(tc, m, &d);
	if (diag_take_err(&d, err) == -1 ||
	    (m->core->link = mb_link_new(&m->lc, err)) == NULL) {
		mb_target_free(m);
		return -1;
	}
	m->nregs = plan_regs(&m->core->plan);
	mb_link_key(&m->lc, m->key, sizeof(m->key));
	*state = m;
	return 0;
}

static int
mb_poll_start(void *state, struct wp_poll *poll)
{
	struct mb_meter *m = state;
	struct mb_job *j;
	struct wp_err err;

	if (m->workers == NULL) {
		err_set(&err, WP_E_INTERNAL, "no worker pool");
		poll_done(poll, -1, &err);
		return 0;
	}
	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (j->regs = calloc(m->nregs + 1, sizeof(*j->regs))) == NULL ||
	    (j->status = calloc(m->core->plan.n + 1, sizeof(*j->status))) ==
	    NULL) {
		if (j != NULL)
			free(j->regs);
		free(j);
		err_set(&err, WP_E_INTERNAL, "out of memory");
		poll_done(poll, -1, &err);
		return 0;
	}
	j->m = m;
	j->poll = poll;
	j->core = m->core;
	j->deadline = poll_deadline_mono(poll);
	atomic_init(&j->abort, false);
	if (workers_submit(m->workers, m->key, job_run, job_done, j,
	    &err) == -1) {
		free(j->regs);
		free(j->status);
		free(j);
		poll_done(poll, -1, &err);
		return 0;
	}
	m->core->refs++;
	j->next = m->jobs;
	m->jobs = j;
	return 0;
}

static void
mb_poll_cancel(void *state, struct wp_poll *poll)
{
	struct mb_meter *m = state;
	struct mb_job *j;

	if (m == NULL)
		return;
	/* the job stays queued or running; its completion is discarded, and
	 * the next poll's job queues behind it on the same key */
	for (j = m->jobs; j != NULL; j = j->next)
		if (j->poll == poll) {
			j->poll = NULL;
			atomic_store(&j->abort, true);
		}
}

static void
mb_target_free(void *state)
{
	struct mb_meter *m = state;
	struct mb_job *j;

	if (m == NULL)
		return;
	for (j = m->jobs; j != NULL; j = j->next) {
		j->poll = NULL;
		j->m = NULL;
		atomic_store(&j->abort, true);
	}
	core_unref(m->core);
	free(m);
}

static void
mb_describe(void *state, char *buf, size_t len)
{
	struct mb_meter *m = state;

	if (m->lc.rtu)
		snprintf(buf, len, "modbus-rtu %s %d%c%d unit %d map %s",
		    m->lc.device, m->lc.baud, m->lc.parity, m->lc.stop_bits,
		    m->lc.unit, m->info.map);
	else
		snprintf(buf, len, "modbus-tcp %s:%d unit %d map %s",
		    m->lc.host, m->lc.port, m->lc.unit, m->info.map);
}

/* ---- probe ----------------------------------------------------------- */

/* Value of "key=" in the query string q ("a=1&b=2"), copied into buf. */
static const char *
query_get(const char *q, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key), n;
	const char *p = q, *end;

	while (p != NULL && *p != '\0') {
		end = strchr(p, '&');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			if (n - kl - 1 >= len)
				return NULL;
			memcpy(buf, p + kl + 1, n - kl - 1);
			buf[n - kl - 1] = '\0';
			return buf;
		}
		p = end != NULL ? end + 1 : NULL;
	}
	return NULL;
}

static int
query_int(const char *q, const char *key, long lo, long hi, long *out,
    struct wp_err *err)
{
	char buf[32], *end;
	long v;

	if (query_get(q, key, buf, sizeof(buf)) == NULL)
		return 1;
	v = strtol(buf, &end, 10);
	if (*end != '\0' || end == buf || v < lo || v > hi)
		return err_set(err, WP_E_CONFIG, "%s=%s: expected %ld..%ld",
		    key, buf, lo, hi);
	*out = v;
	return 0;
}

static int
probe_rtu_opts(const char *q, struct mb_link_conf *lc, struct wp_err *err)
{
	char buf[8];
	long v;
	int r;

	lc->baud = 9600;
	lc->parity = 'N';
	lc->data_bits = 8;
	lc->stop_bits = 1;
	if ((r = query_int(q, "baud", 300, 4000000, &v, err)) == -1)
		return -1;
	if (r == 0)
		lc->baud = (int)v;
	if (query_get(q, "parity", buf, sizeof(buf)) != NULL &&
	    parse_parity(buf, &lc->parity) == -1)
		return err_set(err, WP_E_CONFIG, "parity: N, E or O");
	if ((r = query_int(q, "data_bits", 5, 8, &v, err)) == -1)
		return -1;
	if (r == 0)
		lc->data_bits = (int)v;
	if ((r = query_int(q, "stop_bits", 1, 2, &v, err)) == -1)
		return -1;
	if (r == 0)
		lc->stop_bits = (int)v;
	return 0;
}

/* Parses a probe URL into lc and the map stem. */
static int
probe_parse(const struct wp_probe_req *req, struct mb_link_conf *lc,
    char *stem, size_t stemlen, struct wp_err *err)
{
	char where[512];
	const char *u = req->url, *q;
	size_t n;
	long unit = 1;

	memset(lc, 0, sizeof(*lc));
	if (strncasecmp(u, "modbus-tcp://", 13) == 0)
		u += 13;
	else if (strncasecmp(u, "modbus-rtu://", 13) == 0) {
		u += 13;
		lc->rtu = true;
	} else
		return err_set(err, WP_E_CONFIG, "not a modbus-tcp:// or "
		    "modbus-rtu:// URL");
	q = strchr(u, '?');
	n = q != NULL ? (size_t)(q - u) : strlen(u);
	q = q != NULL ? q + 1 : "";
	if (n == 0 || n >= sizeof(where))
		return err_set(err, WP_E_CONFIG, "missing host or device");
	memcpy(where, u, n);
	where[n] = '\0';
	if (lc->rtu) {
		if (where[0] != '/' || n >= sizeof(lc->device))
			return err_set(err, WP_E_CONFIG, "modbus-rtu:///dev/"
			    "ttyX: the device is an absolute path");
		strcpy(lc->device, where);
		if (probe_rtu_opts(q, lc, err) == -1)
			return -1;
	} else if (strchr(where, ':') == NULL || (where[0] == '[' &&
	    strstr(where, "]:") == NULL)) {
		if (snprintf(lc->host, sizeof(lc->host), "%s", where) >=
		    (int)sizeof(lc->host))
			return err_set(err, WP_E_CONFIG, "host too long");
		lc->port = 502;
	} else if (addr_parse_hostport(where, lc->host, sizeof(lc->host),
	    &lc->port) == -1)
		return err_set(err, WP_E_CONFIG, "bad host:port \"%s\"",
		    where);
	if (query_int(q, "unit", 0, 255, &unit, err) == -1)
		return -1;
	lc->unit = (int)unit;
	lc->timeout = req->timeout > 0 && req->timeout < 2 * WP_SEC ?
	    req->timeout : 2 * WP_SEC;
	if (query_get(q, "map", stem, stemlen) == NULL) {
		if (req->profile == NULL || strlen(req->profile) >= stemlen)
			return err_set(err, WP_E_CONFIG, "which register map? "
			    "add ?map=NAME (etc/meter-maps/NAME.yaml) or "
			    "--profile NAME");
		strcpy(stem, req->profile);
	}
	return 0;
}

static int
probe_add(const struct regmap *map, const struct rm_plan *plan,
    const uint16_t *regs, const int *status, struct wp_probe_result *out,
    struct wp_err *err)
{
	struct mb_info info = { .role = "probe" };
	struct wp_sample *s;
	char path[256];
	int *idx, n, i, rc = 0;

	snprintf(info.map, sizeof(info.map), "%s", map->stem);
	s = calloc(map->n, sizeof(*s));
	idx = calloc(map->n, sizeof(*idx));
	if (s == NULL || idx == NULL)
		n = err_set(err, WP_E_INTERNAL, "out of memory");
	else
		n = mb_samples_build(map, &info, plan, regs, status, s, idx,
		    err);
	for (i = 0; i < n && rc == 0; i++) {
		mb_value_path(map, idx[i], path, sizeof(path));
		rc = probe_result_add(out, &s[i], path,
		    map->v[idx[i]].role != RM_ROLE_NONE);
	}
	free(s);
	free(idx);
	if (rc == -1)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	return n == -1 ? -1 : 0;
}

static int
mb_probe(const struct wp_probe_req *req, const struct wp_services *svc,
    struct wp_probe_result *out, struct wp_err *err)
{
	struct mb_link_conf lc;
	struct regmap *map = NULL;
	struct rm_plan plan = { 0 };
	struct mb_link *link = NULL;
	uint16_t *regs = NULL;
	int *status = NULL, rc = -1;
	char stem[64];

	(void)svc;
	if (probe_parse(req, &lc, stem, sizeof(stem), err) == -1 ||
	    (map = map_open(req->maps_dir, NULL, stem, err)) == NULL ||
	    regmap_plan(map, &plan, err) == -1 ||
	    (link = mb_link_new(&lc, err)) == NULL)
		goto out;
	regs = calloc(plan_regs(&plan) + 1, sizeof(*regs));
	status = calloc(plan.n + 1, sizeof(*status));
	if (regs == NULL || status == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto out;
	}
	if (mb_link_read_plan(link, plan.r, plan.n, regs, status,
	    clock_mono() + (req->timeout > 0 ? req->timeout : 10 * WP_SEC), NULL,
	    err) == -1)
		goto out;
	snprintf(out->protocol, sizeof(out->protocol), "modbus");
	snprintf(out->vendor, sizeof(out->vendor), "%s", map->vendor);
	snprintf(out->model, sizeof(out->model), "%s", map->model);
	snprintf(out->extra, sizeof(out->extra), "map=%s unit=%d requests=%zu",
	    stem, lc.unit, plan.n);
	rc = probe_add(map, &plan, regs, status, out, err);
out:
	free(regs);
	free(status);
	mb_link_free(link);
	regmap_plan_fini(&plan);
	regmap_free(map);
	return rc;
}

const struct wp_driver modbus_driver = {
	.name = "modbus",
	.validate = mb_validate,
	.target_new = mb_target_new,
	.poll_start = mb_poll_start,
	.poll_cancel = mb_poll_cancel,
	.target_free = mb_target_free,
	.describe = mb_describe,
	.probe = mb_probe,
};
