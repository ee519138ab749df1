/* snmp_pdu driver: net-snmp async single-session API on the core loop. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "../../collector/lib/addr.h"
#include "../../collector/lib/datafile.h"
#include "../../collector/lib/diag.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/loop.h"
#include "../../collector/lib/secret.h"
#include "../../collector/lib/ycheck.h"
#include "../../collector/lib/ynode.h"
#include "pdu_decode.h"
#include "snmp_lib.h"
#include "snmp_pdu.h"

#define REDISCOVER_POLLS	360	/* walk the tables again (1 h at 10 s) */
#define WALK_MAX_VBS		20000	/* per column: not a rack PDU beyond */
#define BASES_MAX		(PDU_TABLES_MAX * 8)

enum sp_phase { PH_IDLE, PH_SYSINFO, PH_WALK, PH_GET };

/* Where a secret comes from (a file or an environment variable): no secret. */
struct secref {
	char		 file[PATH_MAX];
	char		 env[128];
};

struct sp_cfg {
	char		 host[256];
	int		 port;
	long		 version;	/* SNMP_VERSION_2c or SNMP_VERSION_3 */
	char		*community;	/* secret, loaded at the first poll */
	struct secref	 community_ref;
	struct secref	 auth_ref, priv_ref;
	bool		 loaded;	/* secrets loaded (load_secrets) */
	char		 user[64];
	char		 context[64];	/* SNMPv3 contextName, usually "" */
	const oid	*auth_proto;
	size_t		 auth_proto_len;
	char		*auth_pass;	/* secret */
	char		*priv_pass;	/* secret */
	int		 level;		/* SNMP_SEC_LEVEL_* */
	wp_time		 timeout;	/* per try */
	long		 retries;
	char		 profile[64];	/* name or "auto" */
	char		 maps_dir[PATH_MAX];
};

struct getent {
	size_t		 row;
	int		 col;
	struct pdu_vb	 vb;
	bool		 got;
};

struct sp {
	char		 name[128];
	struct sp_cfg	 cfg;
	struct loop	*loop;
	void		*sess;
	int		 fd;
	struct loop_timer *tmo;		/* net-snmp retransmissions */
	struct loop_timer *fin;		/* completion, outside net-snmp */
	struct pdu_profile *prof;
	struct pdu_rows	 rows;
	int		 total_tab;
	bool		 discovered;
	bool		 rediscover;
	unsigned	 polls;
	/* the operation in flight */
	int		 phase;
	int		 reqid;
	bool		 done;
	struct wp_poll	*poll;
	struct wp_probe_result *probe;
	struct pdu_oid	 bases[BASES_MAX];
	size_t		 nbases, wi, walked;
	struct pdu_oid	 cursor;
	struct pdu_rows	 walk;
	struct getent	*gets;
	size_t		 ngets, gi, chunk, sent;
	int		 status;
	bool		 wrong_digest;	/* a reply failed USM verification */
	struct wp_err	 err;
	char		 sysdescr[128];
	char		 descr_label[PDU_DESCR_LABEL_MAX + 1];	/* sanitized */
	struct pdu_oid	 sysoid;
	bool		 have_sysoid;
};

static void	 step(struct sp *sp);
static int	 fail(struct sp *sp, int class, const char *fmt,
		    const char *arg);
static int	 sess_cb(int op, netsnmp_session *ss, int reqid,
		    netsnmp_pdu *pdu, void *magic);

/* --- the module: net-snmp, once per process ---------------------------- */

/* Everything of net-snmp's runs on the loop thread. */
static int
sp_init(const struct wp_services *svc, struct wp_err *err)
{
	char dir[PATH_MAX];

	(void)err;
	/* net-snmp keeps a TLS certificate index there: our state dir */
	if (svc != NULL && svc->state_dir != NULL && snprintf(dir, sizeof(dir),
	    "%s/net-snmp", svc->state_dir) < (int)sizeof(dir))
		snmp_lib_setup(dir);
	else
		snmp_lib_setup(NULL);
	init_snmp("wattpath");
	return 0;
}

static void
sp_fini(void)
{
	snmp_shutdown("wattpath");
}

/* --- configuration ------------------------------------------------------ */

static int
auth_proto(const char *s, struct sp_cfg *c, struct wp_err *err)
{
	static const struct { const char *name; const oid *o; } t[] = {
		{ "SHA", usmHMACSHA1AuthProtocol },
		{ "SHA-224", usmHMAC128SHA224AuthProtocol },
		{ "SHA-256", usmHMAC192SHA256AuthProtocol },
		{ "SHA-384", usmHMAC256SHA384AuthProtocol },
		{ "SHA-512", usmHMAC384SHA512AuthProtocol },
		{ "MD5", usmHMACMD5AuthProtocol },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcasecmp(s, t[i].name) == 0) {
			c->auth_proto = t[i].o;
			c->auth_proto_len = USM_AUTH_PROTO_SHA_LEN;
			return 0;
		}
	return err_set(err, WP_E_CONFIG, "auth_protocol '%s': expected SHA, "
	    "SHA-224, SHA-256, SHA-384, SHA-512 or MD5", s);
}

static int
sec_level(const char *s, int *level, struct wp_err *err)
{
	if (s == NULL || strcmp(s, "authPriv") == 0)
		*level = SNMP_SEC_LEVEL_AUTHPRIV;
	else if (strcmp(s, "authNoPriv") == 0)
		*level = SNMP_SEC_LEVEL_AUTHNOPRIV;
	else if (strcmp(s, "noAuthNoPriv") == 0)
		*level = SNMP_SEC_LEVEL_NOAUTH;
	else
		return err_set(err, WP_E_CONFIG, "security_level '%s': "
		    "expected authPriv, authNoPriv or noAuthNoPriv", s);
	return 0;
}

/* Records where a secret lives; reads nothing (check-config runs this). */
static int
secref_set(struct secref *r, const char *file, const char *env,
    const char *what, struct wp_err *err)
{
	if (file == NULL && env == NULL)
		return err_set(err, WP_E_CONFIG, "%s: give a *_file or *_env "
		    "source", what);
	if ((file != NULL && strlen(file) >= sizeof(r->file)) ||
	    (env != NULL && strlen(env) >= sizeof(r->env)))
		return err_set(err, WP_E_CONFIG, "%s: file or variable name "
		    "too long", what);
	snprintf(r->file, sizeof(r->file), "%s", file ? file : "");
	snprintf(r->env, sizeof(r->env), "%s", env ? env : "");
	return 0;
}

/* Loads one secret; a new string (caller frees with secret_free) or NULL. */
static char *
secref_load(const struct secref *r, const char *what, size_t minlen,
    struct wp_err *err)
{
	struct wp_err e;
	char msg[WP_ERR_MSG], *s;

	err_clear(&e);
	s = secret_load(r->file[0] ? r->file : NULL, r->env[0] ? r->env :
	    NULL, &e);
	if (s == NULL) {
		snprintf(msg, sizeof(msg), "%s", e.msg[0] ? e.msg : "missing");
		err_set(err, WP_E_CONFIG, "%s: %s", what, msg);
		return NULL;
	}
	if (strlen(s) < minlen) {
		secret_free(s);
		err_set(err, WP_E_CONFIG, "%s is shorter than %zu characters",
		    what, minlen);
		return NULL;
	}
	return s;
}

/* Reads the secrets the session needs; at the first poll, never offline. */
static int
load_secrets(struct sp_cfg *c, struct wp_err *err)
{
	if (c->loaded)
		return 0;
	if (c->version == SNMP_VERSION_2c) {
		if ((c->community = secref_load(&c->community_ref,
		    "SNMP v2c community", 1, err)) == NULL)
			return -1;
	} else if (c->level != SNMP_SEC_LEVEL_NOAUTH) {
		if ((c->auth_pass = secref_load(&c->auth_ref,
		    "SNMPv3 auth password", 8, err)) == NULL)
			return -1;
		if (c->level == SNMP_SEC_LEVEL_AUTHPRIV &&
		    (c->priv_pass = secref_load(&c->priv_ref,
		    "SNMPv3 priv password", 8, err)) == NULL) {
			secret_free(c->auth_pass);
			c->auth_pass = NULL;
			return -1;
		}
	}
	c->loaded = true;
	return 0;
}

/* Reads v3 settings from getter g (config block or probe options). */
typedef const char *(*opt_fn)(const void *src, const char *key);

static int
load_v3(struct sp_cfg *c, opt_fn g, const void *src, const char *level,
    struct wp_err *err)
{
	const char *user = g(src, "username"), *ap = g(src, "auth_protocol");
	const char *pp = g(src, "priv_protocol"), *ctx = g(src, "context");

	if (sec_level(level, &c->level, err) < 0)
		return -1;
	if (user == NULL || strlen(user) >= sizeof(c->user))
		return err_set(err, WP_E_CONFIG, "SNMPv3 needs a username");
	snprintf(c->user, sizeof(c->user), "%s", user);
	if (ctx != NULL && strlen(ctx) >= sizeof(c->context))
		return err_set(err, WP_E_CONFIG, "SNMPv3 context too long");
	snprintf(c->context, sizeof(c->context), "%s", ctx ? ctx : "");
	if (c->level == SNMP_SEC_LEVEL_NOAUTH)
		return 0;
	if (auth_proto(ap ? ap : "SHA-256", c, err) < 0 ||
	    secref_set(&c->auth_ref, g(src, "auth_password_file"),
	    g(src, "auth_password_env"), "SNMPv3 auth password", err) < 0)
		return -1;
	if (c->level == SNMP_SEC_LEVEL_AUTHNOPRIV)
		return 0;
	if (pp != NULL && strcasecmp(pp, "AES") != 0 &&
	    strcasecmp(pp, "AES-128") != 0)
		return err_set(err, WP_E_CONFIG, "priv_protocol '%s': only AES "
		    "(AES-128) is supported", pp);
	return secref_set(&c->priv_ref, g(src, "priv_password_file"),
	    g(src, "priv_password_env"), "SNMPv3 authPriv priv password", err);
}

struct cred_src {
	const struct wp_cred	*cr;
	const struct ynode	*snmp;
};

static const char *
cred_opt(const void *src, const char *key)
{
	const struct cred_src *cs = src;

	if (strcmp(key, "username") == 0)
		return cs->cr->username;
	if (strcmp(key, "context") == 0)
		return cs->snmp ? ynode_str(cs->snmp, "context") : NULL;
	return ynode_str(cs->cr->block, key);
}

/* The credentials (in snmp: or the PDU's block) into c: a v2c community
 * or an SNMPv3 user; where the secrets live, none read. */
static void
cred_conf(const struct wp_target_conf *tc, const struct ynode *snmp,
    struct sp_cfg *c, struct diag *d)
{
	const struct ynode *n = NULL;
	const char *level = NULL;
	const struct wp_cred *cr;
	struct wp_err err = { 0 };
	int rc;

	if (snmp != NULL) {
		n = ycheck_typed(d, snmp, "credentials", YN_SCALAR, tc->where,
		    false);
		level = ycheck_scalar(d, snmp, "security_level", tc->where,
		    false);
	}
	if (n == NULL)
		n = ycheck_typed(d, tc->block, "credentials", YN_SCALAR,
		    tc->where, false);
	if (n == NULL) {
		if (ynode_get(tc->block, "credentials") == NULL &&
		    (snmp == NULL || ynode_get(snmp, "credentials") == NULL))
			diag_at(d, snmp ? snmp : tc->block, false, "%s: snmp: "
			    "needs credentials (a community or an SNMPv3 user)",
			    tc->where);
		return;
	}
	if ((cr = driver_cred(tc, n->value)) == NULL) {
		diag_at(d, n, false, "%s: unknown credential '%s'", tc->where,
		    n->value);
		return;
	}
	if (c->version == SNMP_VERSION_3) {
		struct cred_src cs = { cr, snmp };

		rc = load_v3(c, cred_opt, &cs, level, &err);
	} else if ((rc = secref_set(&c->community_ref, ynode_str(cr->block,
	    "community_file"), ynode_str(cr->block, "community_env"),
	    "SNMP v2c community", &err)) < 0)
		err_prefix(&err, "credentials '%s'", n->value);
	if (rc < 0)
		diag_err(d, n, tc->where, &err, false);
}

/* The snmp: block (version, timing) and the credentials into c. */
static void
snmp_conf(const struct wp_target_conf *tc, struct sp_cfg *c,
    struct diag *d)
{
	static const char *const keys[] = { "version", "credentials",
		"timeout", "retries", "security_level", "context", NULL };
	static const char *const versions[] = { "2c", "3", NULL };
	const struct ynode *snmp;
	const char *v = NULL;
	wp_time t = 0;

	c->version = SNMP_VERSION_2c;
	c->retries = 1;
	c->timeout = tc->timeout > 0 ? tc->timeout / 3 : 2 * WP_SEC;
	if (c->timeout > 3 * WP_SEC)
		c->timeout = 3 * WP_SEC;
	snmp = ycheck_typed(d, tc->block, "snmp", YN_MAP, tc->where, false);
	if (snmp != NULL) {
		driver_check_keys(tc, snmp, tc->where, keys, d);
		ycheck_long(d, snmp, "retries", tc->where, 0, 5, &c->retries);
		if (ycheck_duration(d, snmp, "timeout", tc->where, 100 * WP_MS,
		    60 * WP_SEC, "100ms..60s", &t) == 0)
			c->timeout = t;
		v = ycheck_enum(d, snmp, "version", tc->where, versions,
		    "2c, 3");
	}
	if (v != NULL && strcmp(v, "3") == 0)
		c->version = SNMP_VERSION_3;
	cred_conf(tc, snmp, c, d);
}

static void
sp_free(struct sp *sp)
{
	if (sp == NULL)
		return;
	sp->phase = PH_IDLE;
	sp->reqid = 0;
	if (sp->sess != NULL) {
		if (sp->fd >= 0)
			loop_del_fd(sp->loop, sp->fd);
		snmp_sess_close(sp->sess);
	}
	loop_timer_free(sp->tmo);
	loop_timer_free(sp->fin);
	secret_free(sp->cfg.community);
	secret_free(sp->cfg.auth_pass);
	secret_free(sp->cfg.priv_pass);
	pdu_profile_free(sp->prof);
	pdu_rows_fini(&sp->rows);
	pdu_rows_fini(&sp->walk);
	free(sp->gets);
	free(sp);
}

/* profile: a name found in maps_dir, ./etc or the share directory, or
 * "auto" (chosen at the first poll); loaded now when named. */
static void
profile_conf(struct sp *sp, const struct wp_target_conf *tc,
    struct diag *d)
{
	const struct ynode *n;
	struct wp_err err = { 0 };
	char path[PATH_MAX];

	n = ycheck_typed(d, tc->block, "profile", YN_SCALAR, tc->where, false);
	snprintf(sp->cfg.profile, sizeof(sp->cfg.profile), "%s",
	    n ? n->value : "auto");
	if (n == NULL || strcmp(n->value, "auto") == 0)
		return;
	if (datafile_find(tc->maps_dir, "pdu-profiles", n->value, ".yaml",
	    path, sizeof(path)) < 0) {
		diag_at(d, n, false, "%s: unknown PDU profile '%s' (no "
		    "pdu-profiles/%s.yaml in maps_dir, ./etc or %s/share/"
		    "wattpath)", tc->where, n->value, n->value, WP_PREFIX);
		return;
	}
	if ((sp->prof = pdu_profile_load(path, &err)) == NULL)
		diag_err(d, n, tc->where, &err, false);
}

/* address: HOST[:PORT] (161 by default). */
static void
addr_conf(struct sp *sp, const struct wp_target_conf *tc, struct diag *d)
{
	const struct ynode *n;

	if ((n = ycheck_typed(d, tc->block, "address", YN_SCALAR, tc->where,
	    true)) == NULL)
		return;
	if (addr_parse_hostport(n->value, sp->cfg.host, sizeof(sp->cfg.host),
	    &sp->cfg.port) == 0)
		return;
	if (strchr(n->value, ':') == NULL && strlen(n->value) <
	    sizeof(sp->cfg.host) - 5) {
		char hp[sizeof(sp->cfg.host)];

		snprintf(hp, sizeof(hp), "%s:161", n->value);
		if (addr_parse_hostport(hp, sp->cfg.host, sizeof(sp->cfg.host),
		    &sp->cfg.port) == 0)
			return;
	}
	diag_at(d, n, false, "%s: address '%s' is not host:port (port "
	    "1..65535; IPv6 as [addr]:port)", tc->where, n->value);
}

/* Reads tc's block into sp; every problem to d (validate and target_new
 * read it alike). */
static void
sp_conf(struct sp *sp, const struct wp_target_conf *tc, struct diag *d)
{
	static const char *const keys[] = { "profile", "snmp", "credentials",
		"rack", "description", "labels", NULL };

	driver_check_keys(tc, tc->block, tc->where, keys, d);
	addr_conf(sp, tc, d);
	profile_conf(sp, tc, d);
	if (tc->maps_dir != NULL)
		snprintf(sp->cfg.maps_dir, sizeof(sp->cfg.maps_dir), "%s",
		    tc->maps_dir);
	snmp_conf(tc, &sp->cfg, d);
}

static void fin_cb(void *arg);
static void tmo_cb(void *arg);

static struct sp *
sp_new(struct loop *loop, const char *name, struct wp_err *err)
{
	struct sp *sp = calloc(1, sizeof(*sp));

	if (sp == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	sp->fd = -1;
	sp->total_tab = -1;
	sp->loop = loop;
	if (loop != NULL && ((sp->tmo = loop_timer_new(loop, tmo_cb, sp)) ==
	    NULL || (sp->fin = loop_timer_new(loop, fin_cb, sp)) == NULL)) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		sp_free(sp);
		return NULL;
	}
	return sp;
}

static int
validate(const struct wp_target_conf *tc, struct diag *d)
{
	size_t n0 = d->n_err;
	struct wp_err err = { 0 };
	struct sp *sp;

	if ((sp = sp_new(NULL, tc->name, &err)) == NULL) {
		diag_err(d, tc->block, tc->where, &err, false);
		return 1;
	}
	sp_conf(sp, tc, d);
	sp_free(sp);
	return (int)(d->n_err - n0);
}

static int
target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	struct diag d = { .main_file = "" };
	struct sp *sp;

	*state = NULL;
	err_clear(err);
	if ((sp = sp_new(svc ? svc->loop : NULL, tc->name, err)) == NULL)
		goto bad;
	sp_conf(sp, tc, &d);
	if (diag_to_err(&d, err) == -1) {
		diag_fini(&d);
		sp_free(sp);
		goto bad;
	}
	diag_fini(&d);
	*state = sp;
	return 0;
bad:
	err_prefix(err, "snmp_pdu %s", tc->name);
	return -1;
}

/* --- session and I/O ------------------------------------------------------ */

static void
rearm(struct sp *sp)
{
	netsnmp_large_fd_set fds;
	struct timeval tv = { 0, 0 };
	int numfds = 0, block = 1;

	if (sp->sess == NULL)
		return;
	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	snmp_sess_select_info2(sp->sess, &numfds, &fds, &tv, &block);
	netsnmp_large_fd_set_cleanup(&fds);
	if (block && sp->phase != PH_IDLE && sp->reqid != 0) {
		/* net-snmp dropped our request without a callback (v3
		 * report it handled itself, e.g. unsupported level) */
		loop_timer_disarm(sp->tmo);
		fail(sp, WP_E_AUTH, "%s", "the agent refused the request "
		    "(SNMPv3 user, security level or keys)");
	} else if (block)
		loop_timer_disarm(sp->tmo);
	else
		loop_timer_arm(sp->tmo, clock_mono() + tv.tv_sec * WP_SEC +
		    tv.tv_usec * WP_US);
}

static void
read_cb(int fd, int events, void *arg)
{
	struct sp *sp = arg;
	netsnmp_large_fd_set fds;
	u_int wrong;

	(void)events;
	netsnmp_large_fd_set_init(&fds, fd + 1);
	NETSNMP_LARGE_FD_SET(fd, &fds);
	/*
	 * A reply that fails USM digest verification is dropped inside
	 * net-snmp (the request then times out); its wrong-digest counter
	 * tells.  Every session runs on this thread, so a change across
	 * this read is ours.
	 */
	wrong = snmp_get_statistic(STAT_USMSTATSWRONGDIGESTS);
	snmp_sess_read2(sp->sess, &fds);
	netsnmp_large_fd_set_cleanup(&fds);
	if (snmp_get_statistic(STAT_USMSTATSWRONGDIGESTS) != wrong)
		sp->wrong_digest = true;
	rearm(sp);
}

static void
tmo_cb(void *arg)
{
	struct sp *sp = arg;

	snmp_sess_timeout(sp->sess);
	rearm(sp);
}

static int
set_keys(netsnmp_session *s, const struct sp_cfg *c, struct wp_err *err)
{
	s->securityName = (char *)c->user;
	s->securityNameLen = strlen(c->user);
	s->securityLevel = c->level;
	s->contextName = (char *)c->context;
	s->contextNameLen = strlen(c->context);
	if (c->level == SNMP_SEC_LEVEL_NOAUTH)
		return 0;
	s->securityAuthProto = (oid *)c->auth_proto;
	s->securityAuthProtoLen = c->auth_proto_len;
	s->securityAuthKeyLen = USM_AUTH_KU_LEN;
	if (generate_Ku(s->securityAuthProto, s->securityAuthProtoLen,
	    (const u_char *)c->auth_pass, strlen(c->auth_pass),
	    s->securityAuthKey, &s->securityAuthKeyLen) != SNMPERR_SUCCESS)
		return err_set(err, WP_E_AUTH, "cannot derive the SNMPv3 "
		    "auth key");
	if (c->level != SNMP_SEC_LEVEL_AUTHPRIV)
		return 0;
	s->securityPrivProto = usmAESPrivProtocol;
	s->securityPrivProtoLen = USM_PRIV_PROTO_AES_LEN;
	s->securityPrivKeyLen = USM_PRIV_KU_LEN;
	if (generate_Ku(s->securityAuthProto, s->securityAuthProtoLen,
	    (const u_char *)c->priv_pass, strlen(c->priv_pass),
	    s->securityPrivKey, &s->securityPrivKeyLen) != SNMPERR_SUCCESS)
		return err_set(err, WP_E_AUTH, "cannot derive the SNMPv3 "
		    "priv key");
	return 0;
}

static int
sess_open(struct sp *sp, struct wp_err *err)
{
	netsnmp_session s;
	netsnmp_transport *t;
	char peer[300], *msg = NULL;
	int liberr = 0, syserr = 0;

	snmp_sess_init(&s);
	snprintf(peer, sizeof(peer), strchr(sp->cfg.host, ':') ?
	    "udp6:[%s]:%d" : "udp:%s:%d", sp->cfg.host, sp->cfg.port);
	s.peername = peer;
	s.version = sp->cfg.version;
	s.timeout = (long)(sp->cfg.timeout / WP_US);
	s.retries = (int)sp->cfg.retries;
	if (sp->cfg.version == SNMP_VERSION_2c) {
		s.community = (u_char *)sp->cfg.community;
		s.community_len = strlen(sp->cfg.community);
	} else if (set_keys(&s, &sp->cfg, err) < 0)
		return -1;
	s.callback = sess_cb;
	s.callback_magic = sp;
	/* SNMPv3: engineID discovery happens here, bounded by timeout. */
	if ((sp->sess = snmp_sess_open(&s)) == NULL) {
		snmp_error(&s, &liberr, &syserr, &msg);
		err_set(err, sp->cfg.version == SNMP_VERSION_3 ?
		    WP_E_TRANSIENT : WP_E_CONFIG, "cannot open an SNMP "
		    "session to %s: %s", peer, msg ? msg : "?");
		free(msg);
		return -1;
	}
	t = snmp_sess_transport(sp->sess);
	if (t == NULL || t->sock < 0 || loop_add_fd(sp->loop, t->sock,
	    LOOP_READ, read_cb, sp) < 0) {
		snmp_sess_close(sp->sess);
		sp->sess = NULL;
		return err_set(err, WP_E_INTERNAL, "cannot watch the SNMP "
		    "socket");
	}
	sp->fd = t->sock;
	return 0;
}

/* --- operation ------------------------------------------------------------ */

static void
finish(struct sp *sp, int status)
{
	sp->phase = PH_IDLE;
	sp->reqid = 0;
	sp->status = status;
	sp->done = true;
	if (sp->poll != NULL)
		loop_timer_arm(sp->fin, clock_mono());
}

static int
fail(struct sp *sp, int class, const char *fmt, const char *arg)
{
	err_set(&sp->err, class, fmt, arg);
	finish(sp, -1);
	return -1;
}

static void
fin_cb(void *arg)
{
	struct sp *sp = arg;
	struct wp_poll *poll = sp->poll;

	sp->poll = NULL;
	if (poll != NULL)
		poll_done(poll, sp->status, sp->status < 0 ? &sp->err : NULL);
}

static void
to_oid(const struct pdu_oid *o, oid *out, size_t *n)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		out[i] = o->v[i];
	*n = o->n;
}

static void
vb_conv(const netsnmp_variable_list *v, struct pdu_vb *o)
{
	size_t i, n;

	memset(o, 0, sizeof(*o));
	if (v->name_length <= PDU_OID_MAX) {
		for (i = 0; i < v->name_length; i++)
			o->oid.v[i] = (uint32_t)v->name[i];
		o->oid.n = v->name_length;
	}
	switch (v->type) {
	case ASN_INTEGER:
		o->type = PDU_V_INT;
		o->i = *v->val.integer;
		break;
	case ASN_GAUGE:
	case ASN_COUNTER:
	case ASN_TIMETICKS:
		o->type = v->type == ASN_GAUGE ? PDU_V_UINT : v->type ==
		    ASN_COUNTER ? PDU_V_COUNTER32 : PDU_V_TIMETICKS;
		o->u = (uint64_t)(*v->val.integer & 0xffffffffUL);
		break;
	case ASN_COUNTER64:
		o->type = PDU_V_COUNTER64;
		o->u = ((uint64_t)v->val.counter64->high << 32) |
		    (v->val.counter64->low & 0xffffffffUL);
		break;
	case ASN_OCTET_STR:
		o->type = PDU_V_STRING;
		n = v->val_len < sizeof(o->s) - 1 ? v->val_len :
		    sizeof(o->s) - 1;
		memcpy(o->s, v->val.string, n);
		o->s[n] = '\0';
		break;
	case ASN_OBJECT_ID:
		o->type = PDU_V_OID;
		for (i = 0, n = 0; i < v->val_len / sizeof(oid) &&
		    n + 12 < sizeof(o->s); i++)
			n += (size_t)snprintf(o->s + n, sizeof(o->s) - n,
			    "%s%lu", i ? "." : "", (unsigned long)v->val.objid[i]);
		break;
	case SNMP_NOSUCHOBJECT:
		o->type = PDU_V_NOSUCHOBJECT;
		break;
	case SNMP_NOSUCHINSTANCE:
		o->type = PDU_V_NOSUCHINSTANCE;
		break;
	case SNMP_ENDOFMIBVIEW:
		o->type = PDU_V_ENDOFMIB;
		break;
	default:
		o->type = PDU_V_OTHER;
	}
}

static int
send_pdu(struct sp *sp, netsnmp_pdu *pdu)
{
	char *msg = NULL;
	int liberr = 0, syserr = 0;

	sp->reqid = snmp_sess_async_send(sp->sess, pdu, sess_cb, sp);
	if (sp->reqid == 0) {
		snmp_sess_error(sp->sess, &liberr, &syserr, &msg);
		snmp_free_pdu(pdu);
		fail(sp, WP_E_TRANSIENT, "SNMP send failed: %s",
		    msg ? msg : "?");
		free(msg);
		return -1;
	}
	rearm(sp);
	return 0;
}

static void
send_sysinfo(struct sp *sp)
{
	static const oid descr[] = { 1, 3, 6, 1, 2, 1, 1, 1, 0 };
	static const oid objid[] = { 1, 3, 6, 1, 2, 1, 1, 2, 0 };
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);

	snmp_add_null_var(pdu, descr, OID_LENGTH(descr));
	snmp_add_null_var(pdu, objid, OID_LENGTH(objid));
	send_pdu(sp, pdu);
}

static void
send_walk(struct sp *sp)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK);
	oid o[PDU_OID_MAX];
	size_t n;

	pdu->non_repeaters = 0;
	pdu->max_repetitions = sp->prof->max_repetitions;
	to_oid(&sp->cursor, o, &n);
	snmp_add_null_var(pdu, o, n);
	send_pdu(sp, pdu);
}

static void
send_get(struct sp *sp)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	struct pdu_oid po;
	oid o[PDU_OID_MAX];
	size_t i, n;

	sp->sent = 0;
	for (i = sp->gi; i < sp->ngets && sp->sent < sp->chunk; i++) {
		pdu_get_oid(sp->prof, &sp->rows.v[sp->gets[i].row],
		    sp->gets[i].col, &po);
		to_oid(&po, o, &n);
		snmp_add_null_var(pdu, o, n);
		sp->sent++;
	}
	send_pdu(sp, pdu);
}

static int
build_gets(struct sp *sp)
{
	size_t r, k = 0;
	int c;

	free(sp->gets);
	sp->gets = calloc(sp->rows.n * 3 + 1, sizeof(*sp->gets));
	if (sp->gets == NULL)
		return fail(sp, WP_E_INTERNAL, "%s", "out of memory");
	for (r = 0; r < sp->rows.n; r++) {
		const struct pdu_table *t = &sp->prof->tab[sp->rows.v[r].table];

		for (c = PDU_COL_POWER; c <= PDU_COL_RESET; c++) {
			if (!t->col[c].present || (c != PDU_COL_RESET &&
			    !sp->rows.v[r].has[c]) || (c == PDU_COL_RESET &&
			    !sp->rows.v[r].has[PDU_COL_ENERGY]))
				continue;
			if (sp->poll != NULL && t->role != PDU_ROLE_OUTLET &&
			    (int)sp->rows.v[r].table != sp->total_tab)
				continue;
			sp->gets[k].row = r;
			sp->gets[k++].col = c;
		}
	}
	sp->ngets = k;
	sp->gi = 0;
	sp->chunk = (size_t)sp->prof->max_get;
	return 0;
}

static int
choose_profile(struct sp *sp)
{
	char s[256];

	if (sp->prof != NULL)
		return 0;
	if (!sp->have_sysoid)
		return fail(sp, WP_E_PROTOCOL, "%s", "profile auto: the agent "
		    "gives no sysObjectID");
	sp->prof = pdu_profile_auto(sp->cfg.maps_dir[0] ? sp->cfg.maps_dir :
	    NULL, &sp->sysoid, &sp->err);
	if (sp->prof == NULL) {
		finish(sp, -1);
		return -1;
	}
	pdu_oid_format(&sp->sysoid, s, sizeof(s));
	log_info("snmp_pdu %s: profile auto: %s (sysObjectID %s)", sp->name,
	    sp->prof->name, s);
	return 0;
}

static void
start_walk(struct sp *sp)
{
	pdu_rows_fini(&sp->walk);
	sp->nbases = pdu_walk_bases(sp->prof, sp->bases, BASES_MAX);
	sp->wi = 0;
	sp->walked = 0;
	sp->cursor = sp->bases[0];
	sp->phase = PH_WALK;
	send_walk(sp);
}

static void
end_walk(struct sp *sp)
{
	size_t old = sp->rows.n;
	bool had = sp->discovered;

	pdu_rows_finish(sp->prof, &sp->walk);
	pdu_rows_fini(&sp->rows);
	sp->rows = sp->walk;
	memset(&sp->walk, 0, sizeof(sp->walk));
	sp->total_tab = pdu_rows_total_table(sp->prof, &sp->rows);
	sp->discovered = true;
	sp->rediscover = false;
	sp->polls = 0;
	if (had && old != sp->rows.n)
		log_warnx("snmp_pdu %s: table changed size: %zu -> %zu rows",
		    sp->name, old, sp->rows.n);
	if (sp->rows.n == 0) {
		sp->discovered = false;
		fail(sp, WP_E_PROTOCOL, "no metered outlet or inlet rows "
		    "(profile %s): nothing to read", sp->prof->name);
		return;
	}
	if (build_gets(sp) < 0)
		return;
	sp->phase = PH_GET;
	send_get(sp);
}

static void
step(struct sp *sp)
{
	if (sp->prof == NULL || !sp->have_sysoid) {
		sp->phase = PH_SYSINFO;
		send_sysinfo(sp);
	} else if (!sp->discovered || sp->rediscover ||
	    sp->polls >= REDISCOVER_POLLS) {
		if (sp->discovered && sp->probe == NULL) {
			/* firmware may have changed: sysDescr again */
			sp->have_sysoid = false;
			sp->phase = PH_SYSINFO;
			send_sysinfo(sp);
		} else
			start_walk(sp);
	} else {
		if (sp->gets == NULL && build_gets(sp) < 0)
			return;
		sp->gi = 0;
		sp->phase = PH_GET;
		send_get(sp);
	}
}

static void
on_sysinfo(struct sp *sp, netsnmp_pdu *pdu)
{
	netsnmp_variable_list *v;
	struct pdu_vb vb;
	const char *s;
	int i = 0;

	sp->sysdescr[0] = sp->descr_label[0] = '\0';
	for (v = pdu->variables; v != NULL; v = v->next_variable, i++) {
		vb_conv(v, &vb);
		if (i == 0 && vb.type == PDU_V_STRING) {
			snprintf(sp->sysdescr, sizeof(sp->sysdescr), "%s",
			    vb.s);
			pdu_label_text(sp->descr_label,
			    sizeof(sp->descr_label), sp->sysdescr);
		}
		/* some agents serve sysObjectID as a string (HPE) */
		s = vb.type == PDU_V_OID || vb.type == PDU_V_STRING ? vb.s :
		    NULL;
		if (i == 1 && s != NULL && pdu_oid_parse(s, &sp->sysoid) == 0)
			sp->have_sysoid = true;
	}
	if (choose_profile(sp) < 0)
		return;
	sp->have_sysoid = true;		/* asked once per operation */
	start_walk(sp);
}

static void
on_walk(struct sp *sp, netsnmp_pdu *pdu)
{
	const struct pdu_oid *base = &sp->bases[sp->wi];
	netsnmp_variable_list *v;
	struct pdu_vb vb;
	bool more = pdu->variables != NULL;

	for (v = pdu->variables; v != NULL; v = v->next_variable) {
		vb_conv(v, &vb);
		if (vb.type == PDU_V_ENDOFMIB || vb.oid.n <= base->n ||
		    !pdu_oid_has_prefix(&vb.oid, base)) {
			more = false;
			break;
		}
		if (pdu_oid_cmp(&vb.oid, &sp->cursor) <= 0) {
			fail(sp, WP_E_PROTOCOL, "%s", "agent returned OIDs out "
			    "of order in a GETBULK walk");
			return;
		}
		sp->cursor = vb.oid;
		if (++sp->walked > WALK_MAX_VBS) {
			fail(sp, WP_E_PROTOCOL, "%s", "a walked column has more "
			    "than 20000 rows");
			return;
		}
		if (pdu_rows_add(sp->prof, &sp->walk, &vb, &sp->err) < 0) {
			finish(sp, -1);
			return;
		}
	}
	if (!more) {
		if (++sp->wi == sp->nbases) {
			end_walk(sp);
			return;
		}
		sp->cursor = sp->bases[sp->wi];
		sp->walked = 0;
	}
	send_walk(sp);
}

static void emit(struct sp *sp);

static void
on_get(struct sp *sp, netsnmp_pdu *pdu)
{
	netsnmp_variable_list *v;
	size_t i = sp->gi;

	for (v = pdu->variables; v != NULL && i < sp->ngets;
	    v = v->next_variable, i++) {
		vb_conv(v, &sp->gets[i].vb);
		sp->gets[i].got = true;
	}
	sp->gi += sp->sent;
	if (sp->gi < sp->ngets) {
		send_get(sp);
		return;
	}
	emit(sp);
}

static int
sess_cb(int op, netsnmp_session *ss, int reqid, netsnmp_pdu *pdu,
    void *magic)
{
	struct sp *sp = magic;
	char what[64];

	(void)ss;
	if (sp->phase == PH_IDLE || reqid != sp->reqid ||
	    op == NETSNMP_CALLBACK_OP_RESEND)
		return 1;	/* a cancelled poll's request, or a retry */
	sp->reqid = 0;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL)
		snprintf(what, sizeof(what), "%s:%d", sp->cfg.host,
		    sp->cfg.port);	/* for the message, only on failure */
	if (op == NETSNMP_CALLBACK_OP_TIMED_OUT && sp->wrong_digest) {
		fail(sp, WP_E_AUTH, "SNMPv3 authentication failed with %s: "
		    "its replies do not verify with our key (wrong auth "
		    "password or auth_protocol)", what);
		return 1;
	}
	if (op == NETSNMP_CALLBACK_OP_TIMED_OUT) {
		fail(sp, WP_E_TRANSIENT, "no answer from %s (timeout; agent "
		    "down, or wrong community/user)", what);
		return 1;
	}
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL) {
		snprintf(what + strlen(what), sizeof(what) - strlen(what), " (op %d)", op);
		fail(sp, op == NETSNMP_CALLBACK_OP_SEC_ERROR ? WP_E_AUTH :
		    WP_E_TRANSIENT, "SNMP exchange with %s failed", what);
		return 1;
	}
	if (pdu->command == SNMP_MSG_REPORT) {
		fail(sp, WP_E_AUTH, "agent refused the request: %s",
		    snmp_api_errstring(snmpv3_get_report_type(pdu)));
		return 1;
	}
	if (pdu->errstat == SNMP_ERR_TOOBIG && sp->phase == PH_GET &&
	    sp->chunk > 1) {
		sp->chunk /= 2;
		send_get(sp);
		return 1;
	}
	if (pdu->errstat != SNMP_ERR_NOERROR) {
		fail(sp, WP_E_PROTOCOL, "agent error: %s",
		    snmp_errstring((int)pdu->errstat));
		return 1;
	}
	if (sp->phase == PH_SYSINFO)
		on_sysinfo(sp, pdu);
	else if (sp->phase == PH_WALK)
		on_walk(sp, pdu);
	else
		on_get(sp, pdu);
	return 1;
}

/* --- samples -------------------------------------------------------------- */

/* The value GET brought for (row, col), or NULL: sp->gets is in (row,
 * col) order (build_gets), so a binary search, not a scan per value. */
static const struct pdu_vb *
got(const struct sp *sp, size_t row, int col)
{
	size_t lo = 0, hi = sp->ngets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct getent *g = &sp->gets[mid];

		if (g->row < row || (g->row == row && g->col < col))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sp->ngets || sp->gets[lo].row != row ||
	    sp->gets[lo].col != col)
		return NULL;
	return sp->gets[lo].got ? &sp->gets[lo].vb : NULL;
}

static int
deliver(struct sp *sp, const struct pdu_row *row, struct wp_sample *s)
{
	char path[64];
	bool chosen;

	if (sp->probe == NULL) {
		if (pdu_identity_labels(s, sp->prof, sp->descr_label) < 0)
			log_debug("snmp_pdu %s: %s: no room for the identity "
			    "labels", sp->name, s->series);
		return poll_add(sp->poll, s);
	}
	pdu_row_path(sp->prof, row, path, sizeof(path));
	chosen = sp->prof->tab[row->table].role == PDU_ROLE_OUTLET ||
	    (int)row->table == sp->total_tab;
	return probe_result_add(sp->probe, s, path, chosen);
}

/* One value; counts it in *n or the first error in *e. */
static void
one(struct sp *sp, size_t r, int col, int *n, int *nerr, struct wp_err *e)
{
	const struct pdu_row *row = &sp->rows.v[r];
	const struct pdu_vb *vb = got(sp, r, col), *rt;
	struct wp_sample s;
	struct wp_err err;
	int rc;

	if (vb == NULL)
		return;
	rc = pdu_decode_value(sp->prof, row, col, vb, &s, &err);
	if (rc < 0) {
		if (vb->type == PDU_V_NOSUCHINSTANCE ||
		    vb->type == PDU_V_NOSUCHOBJECT)
			sp->rediscover = true;
		if ((*nerr)++ == 0)
			*e = err;
		return;
	}
	if (rc == 0)
		return;
	if (col == PDU_COL_ENERGY) {
		if (!sp->prof->tab[row->table].col[col].cumulative)
			return;
		if ((rt = got(sp, r, PDU_COL_RESET)) != NULL)
			s.reset_time = pdu_decode_reset_time(rt);
	}
	if (deliver(sp, row, &s) == 0)
		(*n)++;
}

static void
emit(struct sp *sp)
{
	struct wp_err e;
	size_t r;
	int n = 0, nerr = 0;

	for (r = 0; r < sp->rows.n; r++) {
		one(sp, r, PDU_COL_POWER, &n, &nerr, &e);
		one(sp, r, PDU_COL_ENERGY, &n, &nerr, &e);
	}
	sp->polls++;
	if (nerr > 0 && n == 0) {
		sp->err = e;
		err_prefix(&sp->err, "%d bad value(s), first", nerr);
		finish(sp, -1);
		return;
	}
	if (nerr > 0)
		log_warnx("snmp_pdu %s: %d value(s) left out; first: %s%s",
		    sp->name, nerr, e.msg, sp->rediscover ?
		    " (walking the tables again next poll)" : "");
	finish(sp, 0);
}

/* --- driver entry points -------------------------------------------------- */

static int
begin(struct sp *sp)
{
	sp->done = false;
	sp->status = 0;
	sp->wrong_digest = false;
	err_clear(&sp->err);
	if (sp->sess == NULL && (load_secrets(&sp->cfg, &sp->err) < 0 ||
	    sess_open(sp, &sp->err) < 0)) {
		sp->done = true;
		return -1;
	}
	step(sp);
	return 0;
}

static int
poll_start(void *state, struct wp_poll *poll)
{
	struct sp *sp = state;

	if (sp->phase != PH_IDLE) {
		struct wp_err err;

		err_set(&err, WP_E_INTERNAL, "previous poll still running");
		poll_done(poll, -1, &err);
		return 0;
	}
	sp->poll = poll;
	if (begin(sp) < 0) {
		sp->poll = NULL;
		poll_done(poll, -1, &sp->err);
	}
	return 0;
}

static void
poll_cancel(void *state, struct wp_poll *poll)
{
	struct sp *sp = state;

	(void)poll;
	sp->phase = PH_IDLE;
	sp->reqid = 0;		/* its answer, if any, is ignored */
	sp->poll = NULL;
	loop_timer_disarm(sp->fin);
}

static void
target_free(void *state)
{
	sp_free(state);
}

static void
describe(void *state, char *buf, size_t len)
{
	struct sp *sp = state;

	snprintf(buf, len, "snmp_pdu %s udp:%s:%d v%s profile %s", sp->name,
	    sp->cfg.host, sp->cfg.port, sp->cfg.version == SNMP_VERSION_3 ?
	    "3" : "2c", sp->prof ? sp->prof->name : sp->cfg.profile);
}

/* --- probe ---------------------------------------------------------------- */

static const char *
extra_opt(const void *src, const char *key)
{
	const char *const *x = src;
	size_t kl = strlen(key);

	if (strcmp(key, "username") == 0)
		key = "user", kl = 4;
	for (; x != NULL && *x != NULL; x++)
		if (strncmp(*x, key, kl) == 0 && (*x)[kl] == '=')
			return *x + kl + 1;
	return NULL;
}

static int
probe_url(const char *url, struct sp_cfg *c, struct wp_err *err)
{
	const char *hp;
	char buf[300];

	if (strncasecmp(url, "snmp://", 7) != 0)
		return err_set(err, WP_E_CONFIG, "expected snmp://HOST[:PORT]");
	hp = url + 7;
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(hp, "/"), hp);
	c->port = 161;
	if ((strchr(buf, ':') != NULL && buf[0] != '[' &&
	    strchr(strchr(buf, ':') + 1, ':') == NULL) || buf[0] == '[') {
		if (addr_parse_hostport(buf, c->host, sizeof(c->host),
		    &c->port) < 0)
			return err_set(err, WP_E_CONFIG, "bad address in %s",
			    url);
	} else if (buf[0] != '\0' && strlen(buf) < sizeof(c->host))
		snprintf(c->host, sizeof(c->host), "%s", buf);
	else
		return err_set(err, WP_E_CONFIG, "bad address in %s", url);
	return 0;
}

static int
probe_cfg(const struct wp_probe_req *req, struct sp_cfg *c,
    struct wp_err *err)
{
	const char *v = extra_opt(req->extra, "version");

	if (probe_url(req->url, c, err) < 0)
		return -1;
	c->version = v != NULL && strcmp(v, "3") == 0 ? SNMP_VERSION_3 :
	    SNMP_VERSION_2c;
	if (v != NULL && strcmp(v, "3") != 0 && strcmp(v, "2c") != 0)
		return err_set(err, WP_E_CONFIG, "SNMP version '%s': 2c or 3",
		    v);
	c->timeout = req->timeout > 0 ? req->timeout / 2 : 2 * WP_SEC;
	if (c->timeout < 100 * WP_MS)
		c->timeout = 100 * WP_MS;
	c->retries = 1;
	snprintf(c->profile, sizeof(c->profile), "%s",
	    req->profile ? req->profile : "auto");
	if (req->maps_dir)
		snprintf(c->maps_dir, sizeof(c->maps_dir), "%s", req->maps_dir);
	if (c->version == SNMP_VERSION_3)
		return load_v3(c, extra_opt, req->extra,
		    extra_opt(req->extra, "security_level"), err);
	if (req->community_file == NULL)
		return err_set(err, WP_E_CONFIG, "SNMP v2c: give "
		    "--community-file (or v3 options)");
	return secref_set(&c->community_ref, req->community_file, NULL,
	    "SNMP v2c community", err);
}

static void
probe_device(struct sp *sp, struct wp_probe_result *out)
{
	char oid[200];

	snprintf(out->protocol, sizeof(out->protocol), "snmp");
	snprintf(out->vendor, sizeof(out->vendor), "%s", sp->prof ?
	    sp->prof->vendor : "");
	snprintf(out->model, sizeof(out->model), "%s", sp->sysdescr);
	pdu_oid_format(&sp->sysoid, oid, sizeof(oid));
	snprintf(out->extra, sizeof(out->extra), "profile=%s sysObjectID=%s "
	    "mib=%s", sp->prof ? sp->prof->name : "?", oid,
	    sp->prof ? sp->prof->mib : "?");
}

/* probe --profile NAME (or auto): loaded now when named. */
static int
probe_profile(struct sp *sp, struct wp_err *err)
{
	if (strcmp(sp->cfg.profile, "auto") == 0)
		return 0;
	sp->prof = pdu_profile_find(sp->cfg.maps_dir[0] ? sp->cfg.maps_dir :
	    NULL, sp->cfg.profile, err);
	return sp->prof == NULL ? -1 : 0;
}

static int
probe(const struct wp_probe_req *req, const struct wp_services *svc,
    struct wp_probe_result *out, struct wp_err *err)
{
	struct sp *sp;
	int rc = -1;

	if (svc == NULL || svc->loop == NULL)
		return err_set(err, WP_E_INTERNAL, "probe needs a loop");
	if ((sp = sp_new(svc->loop, req->url, err)) == NULL)
		return -1;
	if (probe_cfg(req, &sp->cfg, err) < 0 ||
	    load_secrets(&sp->cfg, err) < 0 || probe_profile(sp, err) < 0)
		goto out;
	sp->probe = out;
	if (begin(sp) == 0)
		while (!sp->done)
			loop_run_once(sp->loop, 1000);
	probe_device(sp, out);
	if (sp->status < 0 || sp->err.class != WP_E_NONE) {
		*err = sp->err;
		goto out;
	}
	rc = 0;
out:
	sp_free(sp);
	return rc;
}

const struct wp_driver snmp_pdu_driver = {
	.name = "snmp_pdu",
	.init = sp_init,
	.fini = sp_fini,
	.validate = validate,
	.target_new = target_new,
	.poll_start = poll_start,
	.poll_cancel = poll_cancel,
	.target_free = target_free,
	.describe = describe,
	.probe = probe,
};
