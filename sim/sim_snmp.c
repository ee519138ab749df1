/*
 * sim_snmp.c - the rack PDUs as SNMP v2c agents (net-snmp agent library).
 *
 * One agent in its own thread listens on every PDU's address
 * (udp:127.(B+2).x.y:port_base+4); the PDU a request is for is the
 * request's local (destination) address.  Each PDU answers like a Raritan
 * PX3 (PDU2-MIB, sysObjectID 1.3.6.1.4.1.13742.6): outlet and inlet
 * sensor values (Unsigned32) indexed pduId.outletId.sensorType, with
 * activePower (5) in W and activeEnergy (8) in Wh, decimal digits in the
 * configuration tables.  Values come from the model at request time.
 *
 * Only the net-snmp agent core is initialised (no MIB modules, no config
 * files, no persistent state); access is one VACM rule, "rocommunity
 * <community> 127.0.0.0/8", so a request with another community is
 * dropped, as a real agent does.
 * net-snmp is not thread-safe; every net-snmp call happens in the thread.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "../drivers/snmp_pdu/snmp_lib.h"
#include "sim_snmp.h"

#define APP		"wattpath-sim"
#define OID_MAX		20
#define MIN_OUTLETS	24

struct ent {
	oid		 name[OID_MAX];
	size_t		 len;
	u_char		 type;
	unsigned long	 num;
	char		 str[96];
	oid		 oidv[OID_MAX];
	size_t		 oidlen;
};

struct sim_snmp {
	struct sim_srv	*s;
	pthread_t	 th;
	atomic_int	 stop;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 state;		/* 0 starting, 1 up, -1 failed */
	char		 err[256];
	struct ent	*ents;		/* snapshot, thread only */
	size_t		 cap;
	size_t		 n;		/* objects in the snapshot */
	int		 snap_pdu;	/* the request it was built for */
	long		 snap_reqid;
	const void	*snap_asp;
};

static const oid sys_oid[] = { 1, 3, 6, 1, 2, 1, 1 };
static const oid rar_oid[] = { 1, 3, 6, 1, 4, 1, 13742, 6 };
static const int sensor_types[] = { 1, 4, 5, 6, 7, 8, 23 };
static const unsigned sensor_digits[] = { 3, 0, 0, 0, 2, 0, 1 };

/* Every PDU has the same number of objects: see n_objects(). */
static struct ent *
add(struct ent *e, size_t *n, const oid *pre, size_t plen, const int *tail,
    size_t tlen, u_char type)
{
	struct ent *x;
	size_t i;

	if (plen + tlen > OID_MAX)
		return NULL;
	x = &e[(*n)++];
	memset(x, 0, sizeof(*x));
	memcpy(x->name, pre, plen * sizeof(oid));
	for (i = 0; i < tlen; i++)
		x->name[plen + i] = (oid)tail[i];
	x->len = plen + tlen;
	x->type = type;
	return x;
}

static void
add_num(struct ent *e, size_t *n, const oid *pre, size_t plen,
    const int *tail, size_t tlen, u_char type, unsigned long v)
{
	struct ent *x = add(e, n, pre, plen, tail, tlen, type);

	if (x != NULL)
		x->num = v;
}

static void
add_str(struct ent *e, size_t *n, const oid *pre, size_t plen,
    const int *tail, size_t tlen, const char *v)
{
	struct ent *x = add(e, n, pre, plen, tail, tlen, ASN_OCTET_STR);

	if (x != NULL)
		snprintf(x->str, sizeof(x->str), "%s", v);
}

/* Sensor values (scaled to their digits) for power p (W), energy (J). */
static void
sensors(unsigned long *v, double p, double energy_j)
{
	double pf = p > 1 ? 0.99 : 1.0, volts = 230.0;

	v[0] = (unsigned long)llround(p / volts / pf * 1000);	/* mA */
	v[1] = 230;
	v[2] = (unsigned long)llround(p);
	v[3] = (unsigned long)llround(p / pf);
	v[4] = (unsigned long)llround(pf * 100);
	v[5] = (unsigned long)fmod(floor(energy_j / 3600.0), 4294967296.0);
	v[6] = 500;	/* 50.0 Hz */
}

static void
sys_group(struct sim_snmp *p, int pdu, struct ent *e, size_t *n, double t)
{
	const oid *ro = rar_oid;
	struct ent *x;
	char name[32];
	int tail[2];

	sim_pdu_name(p->s->f, pdu, name, sizeof(name));
	tail[1] = 0;
	tail[0] = 1;
	add_str(e, n, sys_oid, 7, tail, 2, "Raritan PDU, MD:PX3-5190R HW:0x10 "
	    "FW:4.2.0.5-50274 (simulated by wattpath-sim)");
	tail[0] = 2;
	if ((x = add(e, n, sys_oid, 7, tail, 2, ASN_OBJECT_ID)) != NULL) {
		memcpy(x->oidv, ro, sizeof(rar_oid));
		x->oidlen = sizeof(rar_oid) / sizeof(oid);
	}
	tail[0] = 3;
	add_num(e, n, sys_oid, 7, tail, 2, ASN_TIMETICKS,
	    (unsigned long)((t - p->s->start + 86400.0) * 100));
	tail[0] = 5;
	add_str(e, n, sys_oid, 7, tail, 2, name);
}

/* Outlet o's power and energy counter on pdu (0 if unused). */
static void
outlet_vals(struct sim_snmp *p, int pdu, int o, double t, double *pw,
    double *ej)
{
	const struct sim_fleet *f = p->s->f;
	int i;

	*pw = *ej = 0;
	for (i = 0; i < f->o.nodes; i++) {
		const struct sim_node *nd = &f->node[i];
		struct sim_cum c;

		if (nd->outlet != o || (nd->pdu_a != pdu && nd->pdu_b != pdu))
			continue;
		sim_node_power(nd, t, 1.0, &c);
		*pw = sim_srv_outlet_dead(p->s, i, pdu, t) ? 0 :
		    c.wall * sim_outlet_share(nd, pdu);
		*ej = sim_srv_outlet_counter(p->s, i, pdu, t);
		return;
	}
}

static int
n_outlets(const struct sim_fleet *f)
{
	int per_rack = (f->o.nodes + f->o.racks - 1) / f->o.racks;

	return per_rack > MIN_OUTLETS ? per_rack : MIN_OUTLETS;
}

/* System group 4, inlet 1 + 7 + 7, each outlet 1 + 7 + 7. */
static size_t
n_objects(const struct sim_fleet *f)
{
	return 4 + 15 + 15 * (size_t)n_outlets(f);
}

/* Configuration tables: names and decimal digits. */
static void
config_tables(struct sim_snmp *p, struct ent *e, size_t *n)
{
	static const oid oname[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 3, 5, 3, 1,
	    3 };
	static const oid odig[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 3, 5, 4, 1,
	    7 };
	static const oid iname[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 3, 3, 3, 1,
	    3 };
	static const oid idig[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 3, 3, 4, 1,
	    7 };
	int o, k, tail[3] = { 1, 1, 0 };
	char name[32];

	add_str(e, n, iname, 13, tail, 2, "I1");
	for (k = 0; k < 7; k++) {
		tail[2] = sensor_types[k];
		add_num(e, n, idig, 13, tail, 3, ASN_UNSIGNED,
		    sensor_digits[k]);
	}
	for (o = 1; o <= n_outlets(p->s->f); o++) {
		tail[1] = o;
		snprintf(name, sizeof(name), "Outlet %d", o);
		add_str(e, n, oname, 13, tail, 2, name);
		for (k = 0; k < 7; k++) {
			tail[2] = sensor_types[k];
			add_num(e, n, odig, 13, tail, 3, ASN_UNSIGNED,
			    sensor_digits[k]);
		}
	}
}

static void
measurements(struct sim_snmp *p, int pdu, struct ent *e, size_t *n,
    double t)
{
	static const oid inl[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 5, 2, 3, 1, 4 };
	static const oid outl[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 5, 4, 3, 1,
	    4 };
	int o, k, tail[3] = { 1, 1, 0 };
	unsigned long v[7];
	double pw, ej;

	pw = sim_pdu_energy(p->s->f, pdu, t - 1.0, t);
	sensors(v, pw, sim_srv_pdu_counter(p->s, pdu, t));
	for (k = 0; k < 7; k++) {
		tail[2] = sensor_types[k];
		add_num(e, n, inl, 13, tail, 3, ASN_UNSIGNED, v[k]);
	}
	for (o = 1; o <= n_outlets(p->s->f); o++) {
		outlet_vals(p, pdu, o, t, &pw, &ej);
		sensors(v, pw, ej);
		tail[1] = o;
		for (k = 0; k < 7; k++) {
			tail[2] = sensor_types[k];
			add_num(e, n, outl, 13, tail, 3, ASN_UNSIGNED, v[k]);
		}
	}
}

static int
ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return snmp_oid_compare(x->name, x->len, y->name, y->len);
}

/* Every object of one PDU at t, sorted by OID. */
static size_t
build(struct sim_snmp *p, int pdu, double t)
{
	size_t n = 0;

	sys_group(p, pdu, p->ents, &n, t);
	config_tables(p, p->ents, &n);
	measurements(p, pdu, p->ents, &n, t);
	qsort(p->ents, n, sizeof(*p->ents), ent_cmp);
	return n;
}

/* The PDU a request was sent to, from its destination address, or -1. */
static int
request_pdu(struct sim_snmp *p, netsnmp_agent_request_info *ri)
{
	netsnmp_pdu *pdu = ri->asp != NULL ? ri->asp->pdu : NULL;
	const netsnmp_indexed_addr_pair *ap;
	int idx;

	if (pdu == NULL || pdu->transport_data == NULL ||
	    pdu->transport_data_length < (int)sizeof(*ap))
		return -1;
	ap = pdu->transport_data;
	if (ap->local_addr.sa.sa_family != AF_INET)
		return -1;
	idx = sim_addr_index(p->s, SK_PDU,
	    ntohl(ap->local_addr.sin.sin_addr.s_addr));
	return idx >= 0 && idx < p->s->f->o.pdus ? idx : -1;
}

static void
answer(netsnmp_request_info *r, const struct ent *x)
{
	netsnmp_variable_list *vb = r->requestvb;

	if (x->type == ASN_OCTET_STR)
		snmp_set_var_typed_value(vb, x->type, x->str, strlen(x->str));
	else if (x->type == ASN_OBJECT_ID)
		snmp_set_var_typed_value(vb, x->type, x->oidv,
		    x->oidlen * sizeof(oid));
	else
		snmp_set_var_typed_value(vb, x->type, &x->num,
		    sizeof(x->num));
}

/* A GET of more varbinds than --snmp-max-get, as a small agent's
 * message size would refuse it. */
static bool
too_big(const struct sim_snmp *p, const netsnmp_agent_request_info *ri)
{
	const netsnmp_variable_list *v;
	int n = 0;

	if (p->s->snmp_max_get <= 0 || ri->asp == NULL || ri->asp->pdu == NULL)
		return false;
	for (v = ri->asp->pdu->variables; v != NULL; v = v->next_variable)
		n++;
	return n > p->s->snmp_max_get;
}

/*
 * The objects of the PDU a request is for, built once per request: a
 * GETBULK calls the handler once per repetition, and a real agent answers
 * one request from one reading.
 */
static size_t
snapshot(struct sim_snmp *p, int pdu, const netsnmp_agent_request_info *ri)
{
	long reqid = ri->asp->pdu->reqid;

	if (p->n == 0 || p->snap_pdu != pdu || p->snap_asp != ri->asp ||
	    p->snap_reqid != reqid) {
		p->n = build(p, pdu, sim_now());
		p->snap_pdu = pdu;
		p->snap_asp = ri->asp;
		p->snap_reqid = reqid;
	}
	return p->n;
}

/* The first object at or (strictly) after name, by binary search. */
static size_t
lower_bound(const struct ent *e, size_t n, const oid *name, size_t len,
    bool strict)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = snmp_oid_compare(e[mid].name, e[mid].len, name, len);

		if (c < 0 || (strict && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The object a GET (exact) or GETNEXT (next in this tree) answers. */
static const struct ent *
find(const struct sim_snmp *p, size_t n, const netsnmp_handler_registration
    *reg, const netsnmp_variable_list *vb, bool next)
{
	size_t i = lower_bound(p->ents, n, vb->name, vb->name_length, next);
	size_t root = lower_bound(p->ents, n, reg->rootoid, reg->rootoid_len,
	    false);

	if (next && i < root)
		i = root;
	if (i == n || snmp_oid_compare(p->ents[i].name, reg->rootoid_len,
	    reg->rootoid, reg->rootoid_len) != 0)
		return NULL;
	if (!next && snmp_oid_compare(p->ents[i].name, p->ents[i].len,
	    vb->name, vb->name_length) != 0)
		return NULL;
	return &p->ents[i];
}

static int
handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *ri, netsnmp_request_info *req)
{
	struct sim_snmp *p = h->myvoid;
	size_t n;
	int pdu;

	if ((pdu = request_pdu(p, ri)) < 0)
		return SNMP_ERR_GENERR;
	if (ri->mode == MODE_GET && too_big(p, ri)) {
		netsnmp_set_request_error(ri, req, SNMP_ERR_TOOBIG);
		return SNMP_ERR_NOERROR;
	}
	n = snapshot(p, pdu, ri);
	for (; req != NULL; req = req->next) {
		netsnmp_variable_list *vb = req->requestvb;
		const struct ent *hit = find(p, n, reg, vb,
		    ri->mode == MODE_GETNEXT);

		if (ri->mode == MODE_GET && hit == NULL)
			netsnmp_set_request_error(ri, req, SNMP_NOSUCHINSTANCE);
		else if (ri->mode == MODE_GETNEXT && hit != NULL) {
			snmp_set_var_objid(vb, hit->name, hit->len);
			answer(req, hit);
		} else if (hit != NULL)
			answer(req, hit);
		else if (ri->mode != MODE_GETNEXT)
			netsnmp_set_request_error(ri, req, SNMP_ERR_NOTWRITABLE);
	}
	return SNMP_ERR_NOERROR;
}

static int
register_tree(struct sim_snmp *p, const char *name, const oid *root,
    size_t len)
{
	netsnmp_handler_registration *reg;

	reg = netsnmp_create_handler_registration(name, handler, root, len,
	    HANDLER_CAN_RONLY);
	if (reg == NULL)
		return -1;
	reg->handler->myvoid = p;
	return netsnmp_register_handler(reg) == MIB_REGISTERED_OK ? 0 : -1;
}

/* "udp:A:P,udp:B:P,..." for every PDU but the dead one; caller frees. */
static char *
ports_spec(const struct sim_srv *s)
{
	size_t cap = (size_t)s->f->o.pdus * 32 + 1, off = 0;
	char *spec = malloc(cap), a[32];
	int i;

	if (spec == NULL)
		return NULL;
	spec[0] = '\0';
	for (i = 0; i < s->f->o.pdus; i++) {
		if (i == s->dead_pdu)
			continue;
		sim_addr_str(sim_addr(s, SK_PDU, i), a, sizeof(a));
		off += snprintf(spec + off, cap - off, "%sudp:%s:%d",
		    off ? "," : "", a, sim_port(s, SP_SNMP));
	}
	return spec;
}

static void
set_state(struct sim_snmp *p, int st, const char *msg)
{
	pthread_mutex_lock(&p->mu);
	p->state = st;
	if (msg != NULL)
		snprintf(p->err, sizeof(p->err), "%s", msg);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static int
agent_init(struct sim_snmp *p)
{
	char *spec = ports_spec(p->s), line[200];

	if (spec == NULL)
		return -1;
	snmp_disable_log();
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE,
	    0);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_DONT_LOG_TCPWRAPPERS_CONNECTS, 1);
	snmp_lib_setup(NULL);
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
	    spec);
	free(spec);
	{
		char skip[] = "-smux";	/* no SMUX listener on port 199 */

		add_to_init_list(skip);
	}
	init_agent(APP);
	/* VACM: read-only for our community from loopback, nothing else. */
	snprintf(line, sizeof(line), "rocommunity %s 127.0.0.0/8",
	    p->s->community);
	netsnmp_config_remember(line);
	init_snmp(APP);
	snmp_disable_log();
	if (register_tree(p, "sim-system", sys_oid, 7) == -1 ||
	    register_tree(p, "sim-raritan", rar_oid, 8) == -1)
		return -1;
	return init_master_agent() == 0 ? 0 : -1;
}

static void *
agent_main(void *arg)
{
	struct sim_snmp *p = arg;

	if (agent_init(p) == -1) {
		set_state(p, -1, "SNMP agent: cannot listen on the PDU "
		    "addresses");
		snmp_shutdown(APP);
		return NULL;
	}
	set_state(p, 1, NULL);
	while (!atomic_load(&p->stop)) {
		fd_set fds;
		struct timeval tv = { 0, 200000 };
		int nfds = 0, block = 0;

		FD_ZERO(&fds);
		snmp_select_info(&nfds, &fds, &tv, &block);
		if (tv.tv_sec > 0 || tv.tv_usec > 200000) {
			tv.tv_sec = 0;
			tv.tv_usec = 200000;
		}
		if (select(nfds, &fds, NULL, NULL, &tv) > 0)
			snmp_read(&fds);
		else
			snmp_timeout();
		run_alarms();
		netsnmp_check_outstanding_agent_requests();
	}
	shutdown_master_agent();
	snmp_shutdown(APP);
	return NULL;
}

void
sim_snmp_preinit(void)
{
	/* No MIB files: the agent needs none, and parsing them is noisy. */
	setenv("MIBS", "", 1);
	setenv("MIBDIRS", "", 1);
}

struct sim_snmp *
sim_snmp_start(struct sim_srv *s, char *err, unsigned long errlen)
{
	struct sim_snmp *p = calloc(1, sizeof(*p));

	if (p == NULL || (p->ents = calloc(n_objects(s->f),
	    sizeof(*p->ents))) == NULL) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->s = s;
	p->cap = n_objects(s->f);
	atomic_init(&p->stop, 0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->th, NULL, agent_main, p) != 0) {
		free(p->ents);
		free(p);
		snprintf(err, errlen, "SNMP: cannot start thread");
		return NULL;
	}
	pthread_mutex_lock(&p->mu);
	while (p->state == 0)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	if (p->state == -1) {
		snprintf(err, errlen, "%s", p->err);
		pthread_join(p->th, NULL);
		free(p->ents);
		free(p);
		return NULL;
	}
	return p;
}

void
sim_snmp_stop(struct sim_snmp *p)
{
	if (p == NULL)
		return;
	atomic_store(&p->stop, 1);
	pthread_join(p->th, NULL);
	free(p->ents);
	free(p);
}
