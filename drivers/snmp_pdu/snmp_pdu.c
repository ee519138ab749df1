/* snmp_pdu driver: net-snmp async single-session API on the core loop. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "../../collector/lib/diag.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/loop.h"
#include "pdu_decode.h"
#include "snmp_conf.h"
#include "snmp_detect.h"
#include "snmp_lib.h"
#include "snmp_pdu.h"

#define REDISCOVER_POLLS	360	/* walk the tables again (1 h at 10 s) */
#define REWALK_MIN_POLLS	10	/* vanished rows again: not sooner */
#define WALK_MAX_VBS		20000	/* per column: not a rack PDU beyond */
#define PROBE_CHUNK		16	/* varbinds per GETNEXT of a probe */

enum sp_phase { PH_IDLE, PH_SYSINFO, PH_DETECT, PH_WALK, PH_GET };

/* One value a poll GETs: (row, column) and what came back. */
struct getent {
	uint16_t	 row;
	uint8_t		 col;
	uint8_t		 got;		/* G_* */
	struct pdu_val	 v;
};

enum { G_NONE, G_OK, G_WRONG_OID, G_MISSING };

struct sp {
	char		*name;		/* target name (or the probe's URL) */
	struct sp_cfg	 cfg;
	struct loop	*loop;
	void		*sess;
	int		 fd;
	struct loop_timer *tmo;		/* net-snmp retransmissions */
	struct loop_timer *fin;		/* completion, outside net-snmp */
	struct pdu_profile *prof;	/* shared with the targets of the
					   same profile (pdu_profile_share) */
	bool		 prof_auto;	/* chosen by detection */
	struct wp_shared *shared;	/* svc->shared, or NULL */
	char		 reason_label[16];	/* "config", "sysObjectID", "probe" */
	char		*reason;	/* why, in words (probe JSON) */
	struct pdu_rows	 rows;
	bool		 discovered;
	bool		 rediscover;
	bool		 multi;		/* several units seen: prefixed series */
	bool		 gets_stale;	/* rows changed: rebuild the GET list */
	bool		 quick_walk;	/* the last walk was for a vanished row */
	unsigned	 polls;		/* since the last walk */
	/* the operation in flight */
	int		 phase;
	int		 reqid;
	bool		 done;
	struct wp_poll	*poll;
	struct wp_probe_result *probe;
	struct sp_detect *det;		/* profile: auto, until chosen */
	struct pdu_ref	*cols;		/* walked columns of prof */
	size_t		 ncols, wi, walked;
	int		 reps;		/* GETBULK max-repetitions */
	struct pdu_oid	 cursor;
	struct pdu_rows	 walk;
	struct getent	*gets;
	size_t		 ngets, gi, chunk, sent;
	/* the last "value(s) left out" logged: how many, the first's GET
	 * (logged again only when either changes, or the GETs are rebuilt) */
	int		 left_n;
	size_t		 left_first;
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
static void	 start_walk(struct sp *sp);

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

/* --- targets ------------------------------------------------------------- */

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
	snmp_cfg_fini(&sp->cfg);
	pdu_profile_free(sp->prof);
	sp_detect_free(sp->det);
	pdu_rows_fini(&sp->rows);
	pdu_rows_fini(&sp->walk);
	free(sp->cols);
	free(sp->gets);
	free(sp->reason);
	free(sp->name);
	free(sp);
}

static void fin_cb(void *arg);
static void tmo_cb(void *arg);

/* A new target state (caller frees with sp_free). */
static struct sp *
sp_new(struct loop *loop, const char *name, struct wp_err *err)
{
	struct sp *sp = calloc(1, sizeof(*sp));

	if (sp == NULL || (sp->name = strdup(name)) == NULL) {
		free(sp);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	sp->fd = -1;
	sp->cfg.unit = -1;
	sp->loop = loop;
	if (loop != NULL && ((sp->tmo = loop_timer_new(loop, tmo_cb, sp)) ==
	    NULL || (sp->fin = loop_timer_new(loop, fin_cb, sp)) == NULL)) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		sp_free(sp);
		return NULL;
	}
	return sp;
}

/* Reads tc's block into sp; every problem to d (validate and target_new
 * read it alike). */
static void
sp_conf(struct sp *sp, const struct wp_target_conf *tc, struct diag *d)
{
	snmp_cfg_read(&sp->cfg, tc, &sp->prof, d);
	if (sp->prof != NULL)
		snprintf(sp->reason_label, sizeof(sp->reason_label), "config");
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
	if (diag_take_err(&d, err) == -1) {
		sp_free(sp);
		goto bad;
	}
	sp->shared = svc ? svc->shared : NULL;
	sp->prof = pdu_profile_share(sp->shared, sp->prof);
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
vb_value(const netsnmp_variable_list *v, struct pdu_vb *o)
{
	size_t i, n;

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

/* A net-snmp varbind to ours; an OID longer than ours keeps n 0. */
static void
vb_conv(const netsnmp_variable_list *v, struct pdu_vb *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	if (v->name_length <= PDU_OID_MAX) {
		for (i = 0; i < v->name_length; i++)
			o->oid.v[i] = (uint32_t)v->name[i];
		o->oid.n = v->name_length;
	}
	vb_value(v, o);
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
	pdu->max_repetitions = sp->reps;
	to_oid(&sp->cursor, o, &n);
	snmp_add_null_var(pdu, o, n);
	send_pdu(sp, pdu);
}

/* The next GETNEXT of the detection's probe (sp->chunk varbinds). */
static void
send_probe(struct sp *sp)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETNEXT);
	const struct pdu_oid *po;
	oid o[PDU_OID_MAX];
	size_t n;

	sp->sent = 0;
	while (sp->sent < sp->chunk && (po = sp_detect_asked(sp->det,
	    sp->gi + sp->sent)) != NULL) {
		to_oid(po, o, &n);
		snmp_add_null_var(pdu, o, n);
		sp->sent++;
	}
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

/* Whether a poll GETs column c of row r. */
static bool
wanted(const struct sp *sp, const struct pdu_row *row, int c)
{
	const struct pdu_table *t = &sp->prof->tab[row->table];

	if (!t->col[c].present)
		return false;
	if (sp->poll != NULL && !pdu_row_reported(sp->prof, &sp->rows, row))
		return false;
	if (c == PDU_COL_RESET)
		return PDU_HAS(row, PDU_COL_ENERGY);
	return c >= PDU_COL_READ_FIRST && c <= PDU_COL_READ_LAST &&
	    PDU_HAS(row, c);
}

/* The GET list, in (row, column) order. */
static int
build_gets(struct sp *sp)
{
	size_t r, k = 0;
	int c;

	free(sp->gets);
	sp->gets = NULL;
	sp->ngets = 0;
	for (r = 0; r < sp->rows.n; r++)
		for (c = PDU_COL_READ_FIRST; c < PDU_NCOL; c++)
			k += wanted(sp, &sp->rows.v[r], c);
	if (sp->rows.n > UINT16_MAX)
		return fail(sp, WP_E_PROTOCOL, "%s", "too many table rows");
	if ((sp->gets = calloc(k + 1, sizeof(*sp->gets))) == NULL)
		return fail(sp, WP_E_INTERNAL, "%s", "out of memory");
	for (r = 0, k = 0; r < sp->rows.n; r++)
		for (c = PDU_COL_READ_FIRST; c < PDU_NCOL; c++)
			if (wanted(sp, &sp->rows.v[r], c)) {
				sp->gets[k].row = (uint16_t)r;
				sp->gets[k++].col = (uint8_t)c;
			}
	sp->ngets = k;
	sp->left_n = 0;		/* new GETs: say it again */
	sp->gi = 0;
	sp->chunk = (size_t)sp->prof->max_get;
	sp->gets_stale = false;
	return 0;
}

/* The profile detection picked (or failed to): walk it, or probe. */
static void
detect_next(struct sp *sp)
{
	struct pdu_profile *p;
	int rc;

	pdu_profile_free(sp->prof);
	sp->prof = NULL;
	rc = sp_detect_next(sp->det, &p, &sp->err);
	if (rc < 0) {
		finish(sp, -1);
		return;
	}
	if (rc == 0) {		/* probe the candidates' tables */
		sp->phase = PH_DETECT;
		sp->gi = 0;
		sp->chunk = PROBE_CHUNK;
		send_probe(sp);
		return;
	}
	sp->prof = p;
	sp->prof_auto = true;
	start_walk(sp);
}

static void
start_detect(struct sp *sp)
{
	sp->det = sp_detect_new(sp->cfg.maps_dir, sp->cfg.conf_dir,sp->have_sysoid ?
	    &sp->sysoid : NULL, &sp->err);
	if (sp->det == NULL) {
		finish(sp, -1);
		return;
	}
	detect_next(sp);
}

static void
start_walk(struct sp *sp)
{
	pdu_rows_fini(&sp->walk);
	free(sp->cols);
	sp->ncols = 0;
	if ((sp->cols = calloc(PDU_TABLES_MAX * PDU_NCOL * 6,
	    sizeof(*sp->cols))) == NULL) {
		fail(sp, WP_E_INTERNAL, "%s", "out of memory");
		return;
	}
	sp->ncols = pdu_walk_cols(sp->prof, sp->cols, PDU_TABLES_MAX *
	    PDU_NCOL * 6);
	sp->wi = 0;
	sp->walked = 0;
	sp->reps = sp->prof->max_repetitions;
	pdu_ref_oid(sp->prof, sp->cols[0], &sp->cursor);
	sp->phase = PH_WALK;
	send_walk(sp);
}

/* The words and the label of why the profile is the one. */
static void
set_reason(struct sp *sp, const char *label, const char *why)
{
	free(sp->reason);
	sp->reason = strdup(why);
	snprintf(sp->reason_label, sizeof(sp->reason_label), "%s", label);
}

/* Rows found: keep them (a detection's choice is now final). */
static void
adopt_rows(struct sp *sp, const struct pdu_finish *fo)
{
	size_t old = sp->rows.n;
	bool had = sp->discovered;

	pdu_rows_fini(&sp->rows);
	sp->rows = sp->walk;
	memset(&sp->walk, 0, sizeof(sp->walk));
	sp->multi = sp->rows.multi;
	sp->discovered = true;
	sp->quick_walk = sp->rediscover;
	sp->rediscover = false;
	sp->polls = 0;
	if (had && old != sp->rows.n)
		log_warnx("snmp_pdu %s: table changed size: %zu -> %zu rows",
		    sp->name, old, sp->rows.n);
	if (fo->warn[0] != '\0')
		log_warnx("snmp_pdu %s: %zu reading(s) left out: %s", sp->name,
		    fo->dropped, fo->warn);
	sp->prof = pdu_profile_share(sp->shared, sp->prof);
	if (sp->det != NULL) {
		set_reason(sp, sp_detect_label(sp->det),
		    sp_detect_reason(sp->det, sp->prof->name));
		log_info("snmp_pdu %s: profile auto: %s (%s)", sp->name,
		    sp->prof->name, sp->reason);
		sp_detect_free(sp->det);
		sp->det = NULL;
	}
	free(sp->cols);
	sp->cols = NULL;
	sp->ncols = 0;
}

static void
end_walk(struct sp *sp)
{
	struct pdu_finish fo = { .only_unit = sp->cfg.unit,
	    .multi = sp->multi };

	pdu_rows_finish(sp->prof, &sp->walk, &fo);
	if (sp->walk.n == 0 && sp->det != NULL) {	/* try the next one */
		sp_detect_empty(sp->det, sp->prof->name);
		detect_next(sp);
		return;
	}
	if (sp->walk.n == 0) {
		pdu_rows_fini(&sp->walk);
		sp->discovered = false;
		if (sp->prof_auto) {	/* detect again at the next poll */
			pdu_profile_free(sp->prof);
			sp->prof = NULL;
		}
		fail(sp, WP_E_PROTOCOL, "no metered outlet, inlet, phase or "
		    "circuit rows (profile %s): nothing to read", sp->prof ?
		    sp->prof->name : "auto");
		return;
	}
	adopt_rows(sp, &fo);
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
		if ((sp->gets == NULL || sp->gets_stale) && build_gets(sp) < 0)
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
	sp->have_sysoid = false;
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
	if (!sp->have_sysoid)
		sp->sysoid.n = 0;
	if (sp->prof == NULL) {
		start_detect(sp);
		return;
	}
	sp->have_sysoid = true;		/* asked once per operation */
	start_walk(sp);
}

/* A column walk ends: the next column, or the end of the walk. */
static void
next_col(struct sp *sp)
{
	if (++sp->wi == sp->ncols) {
		end_walk(sp);
		return;
	}
	pdu_ref_oid(sp->prof, sp->cols[sp->wi], &sp->cursor);
	sp->walked = 0;
	send_walk(sp);
}

/* A column's walk cut short by what the agent answered (named). */
static void
cut_col(struct sp *sp, const struct pdu_vb *vb, const char *why)
{
	char a[200], b[200];

	pdu_oid_format(&vb->oid, a, sizeof(a));
	pdu_oid_format(&sp->cursor, b, sizeof(b));
	log_warnx("snmp_pdu %s: the agent answered %s after %s: %s; that "
	    "column's walk stops there (rows so far kept)", sp->name, a, b,
	    why);
}

static void
on_walk(struct sp *sp, netsnmp_pdu *pdu)
{
	struct pdu_oid base;
	netsnmp_variable_list *v;
	struct pdu_vb vb;

	pdu_ref_oid(sp->prof, sp->cols[sp->wi], &base);
	if (pdu->variables == NULL) {
		next_col(sp);
		return;
	}
	for (v = pdu->variables; v != NULL; v = v->next_variable) {
		vb_conv(v, &vb);
		if (vb.type == PDU_V_ENDOFMIB || vb.type ==
		    PDU_V_NOSUCHOBJECT || vb.type == PDU_V_NOSUCHINSTANCE ||
		    vb.oid.n <= base.n || !pdu_oid_has_prefix(&vb.oid, &base)) {
			next_col(sp);
			return;
		}
		if (pdu_oid_cmp(&vb.oid, &sp->cursor) <= 0) {
			cut_col(sp, &vb, "not greater (a GETNEXT loop)");
			next_col(sp);
			return;
		}
		sp->cursor = vb.oid;
		if (++sp->walked > WALK_MAX_VBS) {
			cut_col(sp, &vb, "more than 20000 rows in one column");
			next_col(sp);
			return;
		}
		if (pdu_rows_add(sp->prof, &sp->walk, &vb, &sp->err) < 0) {
			finish(sp, -1);
			return;
		}
	}
	send_walk(sp);
}

static void
on_probe(struct sp *sp, netsnmp_pdu *pdu)
{
	netsnmp_variable_list *v;
	struct pdu_vb vb;
	size_t i = sp->gi;

	for (v = pdu->variables; v != NULL && i < sp->gi + sp->sent;
	    v = v->next_variable, i++) {
		vb_conv(v, &vb);
		sp_detect_answer(sp->det, i, &vb);
	}
	sp->gi += sp->sent;
	if (sp_detect_asked(sp->det, sp->gi) != NULL) {
		send_probe(sp);
		return;
	}
	sp_detect_scored(sp->det);
	detect_next(sp);
}

static void emit(struct sp *sp);

/* Keeps a GET's values; checks each answers the OID asked. */
static void
on_get(struct sp *sp, netsnmp_pdu *pdu)
{
	netsnmp_variable_list *v;
	struct pdu_oid want;
	struct pdu_vb vb;
	size_t i = sp->gi, end = sp->gi + sp->sent;

	for (v = pdu->variables; v != NULL && i < end; v = v->next_variable,
	    i++) {
		struct getent *g = &sp->gets[i];

		vb_conv(v, &vb);
		pdu_get_oid(sp->prof, &sp->rows.v[g->row], g->col, &want);
		if (pdu_oid_cmp(&vb.oid, &want) != 0) {
			g->got = G_WRONG_OID;
			continue;
		}
		pdu_val_from_vb(&vb, sp->prof->tab[sp->rows.v[g->row].table].
		    col[g->col].string, &g->v);
		g->got = G_OK;
	}
	for (; i < end; i++)
		sp->gets[i].got = G_MISSING;
	sp->gi = end;
	if (sp->gi < sp->ngets) {
		send_get(sp);
		return;
	}
	emit(sp);
}

/* An error answer: tooBig shrinks the request, the rest fail. */
static bool
too_big(struct sp *sp, netsnmp_pdu *pdu)
{
	if (pdu->errstat != SNMP_ERR_TOOBIG)
		return false;
	if ((sp->phase == PH_GET || sp->phase == PH_DETECT) && sp->chunk > 1) {
		sp->chunk /= 2;
		if (sp->phase == PH_GET)
			send_get(sp);
		else
			send_probe(sp);
		return true;
	}
	if (sp->phase == PH_WALK && sp->reps > 1) {
		sp->reps /= 2;
		send_walk(sp);
		return true;
	}
	return false;
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
	if (op == NETSNMP_CALLBACK_OP_TIMED_OUT && sp->wrong_digest)
		return fail(sp, WP_E_AUTH, "SNMPv3 authentication failed with "
		    "%s: its replies do not verify with our key (wrong auth "
		    "password or auth_protocol)", what), 1;
	if (op == NETSNMP_CALLBACK_OP_TIMED_OUT)
		return fail(sp, WP_E_TRANSIENT, "no answer from %s (timeout; "
		    "agent down, or wrong community/user)", what), 1;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL) {
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
		    " (op %d)", op);
		return fail(sp, op == NETSNMP_CALLBACK_OP_SEC_ERROR ?
		    WP_E_AUTH : WP_E_TRANSIENT, "SNMP exchange with %s "
		    "failed", what), 1;
	}
	if (pdu->command == SNMP_MSG_REPORT)
		return fail(sp, WP_E_AUTH, "agent refused the request: %s",
		    snmp_api_errstring(snmpv3_get_report_type(pdu))), 1;
	if (too_big(sp, pdu))
		return 1;
	if (pdu->errstat != SNMP_ERR_NOERROR)
		return fail(sp, WP_E_PROTOCOL, "agent error: %s",
		    snmp_errstring((int)pdu->errstat)), 1;
	if (sp->phase == PH_SYSINFO)
		on_sysinfo(sp, pdu);
	else if (sp->phase == PH_DETECT)
		on_probe(sp, pdu);
	else if (sp->phase == PH_WALK)
		on_walk(sp, pdu);
	else
		on_get(sp, pdu);
	return 1;
}

/* --- samples -------------------------------------------------------------- */

/* The entry of (row, col) in the GET list, or NULL: sp->gets is in (row,
 * col) order (build_gets), so a binary search, not a scan per value. */
static const struct getent *
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
	return &sp->gets[lo];
}

static int
deliver(struct sp *sp, const struct pdu_row *row, int col,
    struct wp_sample *s)
{
	struct pdu_oid o;
	char path[64];

	if (sp->probe == NULL) {
		if (pdu_identity_labels(s, sp->prof, sp->reason_label,
		    sp->descr_label) < 0)
			log_debug("snmp_pdu %s: %s: no room for the identity "
			    "labels", sp->name, s->series);
		return poll_add(sp->poll, s);
	}
	pdu_row_path(sp->prof, row, path, sizeof(path));
	if (probe_result_add(sp->probe, s, path,
	    pdu_row_reported(sp->prof, &sp->rows, row)) < 0)
		return -1;
	if (pdu_get_oid(sp->prof, row, col, &o) == 0)
		pdu_oid_format(&o, sp->probe->src[sp->probe->n - 1].source,
		    sizeof(sp->probe->src[0].source));
	return 0;
}

/* What a poll's values came to: samples, errors, the first error and its
 * GET. */
struct tally {
	int		 n, nerr;
	size_t		 first_get;
	struct wp_err	 first;
};

/* A value that did not come back as asked: the error, and the reading is
 * left out until the next table walk. */
static void
bad_value(struct sp *sp, const struct getent *g, const struct wp_err *e,
    struct tally *ty)
{
	struct pdu_row *row = &sp->rows.v[g->row];

	if (g->got == G_OK && g->v.type != PDU_V_NOSUCHINSTANCE &&
	    g->v.type != PDU_V_NOSUCHOBJECT)
		goto count;
	row->has &= (uint16_t)~(1u << g->col);
	sp->gets_stale = true;
	/* at once, but not again and again for an agent that keeps
	 * answering noSuch* for a row its walk shows */
	if (!sp->quick_walk || sp->polls >= REWALK_MIN_POLLS)
		sp->rediscover = true;
count:
	if (ty->nerr++ == 0) {
		ty->first = *e;
		ty->first_get = (size_t)(g - sp->gets);
	}
}

/* Logs the values a poll left out when they are not the last poll's (an
 * absurd reading stays absurd poll after poll: one line, not one a poll),
 * and when every value is read again. */
static void
log_left_out(struct sp *sp, const struct tally *ty)
{
	if (ty->nerr == 0) {
		if (sp->left_n > 0)
			log_info("snmp_pdu %s: every value read again",
			    sp->name);
		sp->left_n = 0;
		return;
	}
	if (ty->nerr != sp->left_n || ty->first_get != sp->left_first)
		log_warnx("snmp_pdu %s: %d value(s) left out; first: %s%s",
		    sp->name, ty->nerr, ty->first.msg, sp->rediscover ?
		    " (walking the tables again next poll)" : sp->gets_stale ?
		    " (not asked again until the next table walk)" :
		    " (not logged again while the same)");
	sp->left_n = ty->nerr;
	sp->left_first = ty->first_get;
}

/* One value, counted in ty. */
static void
one(struct sp *sp, const struct getent *g, struct tally *ty)
{
	const struct pdu_row *row = &sp->rows.v[g->row];
	const struct getent *rt;
	struct wp_sample s;
	struct wp_err err;
	char path[64];
	int rc;

	if (g->col == PDU_COL_RESET || g->got == G_NONE)
		return;
	if (g->got != G_OK) {
		pdu_row_path(sp->prof, row, path, sizeof(path));
		err_set(&err, WP_E_PROTOCOL, "%s %s: %s", path,
		    pdu_col_name(g->col), g->got == G_MISSING ? "missing from "
		    "the agent's answer" : "the agent answered another OID");
		bad_value(sp, g, &err, ty);
		return;
	}
	rc = pdu_decode_val(sp->prof, row, g->col, &g->v, &s, &err);
	if (rc < 0)
		bad_value(sp, g, &err, ty);
	if (rc <= 0)
		return;
	if (g->col == PDU_COL_ENERGY &&
	    (rt = got(sp, g->row, PDU_COL_RESET)) != NULL && rt->got == G_OK)
		s.reset_time = pdu_decode_reset_time(&rt->v);
	if (deliver(sp, row, g->col, &s) == 0)
		ty->n++;
}

static void
emit(struct sp *sp)
{
	struct tally ty = { 0 };
	size_t i;

	for (i = 0; i < sp->ngets; i++)
		one(sp, &sp->gets[i], &ty);
	for (i = 0; i < sp->ngets; i++)
		sp->gets[i].got = G_NONE;
	sp->polls++;
	if (ty.nerr > 0 && ty.n == 0) {
		sp->err = ty.first;
		err_prefix(&sp->err, "%d bad value(s), first", ty.nerr);
		sp->left_n = 0;		/* the poll's error says it */
		finish(sp, -1);
		return;
	}
	log_left_out(sp, &ty);
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
	if (sp->sess == NULL && (snmp_cfg_secrets(&sp->cfg, &sp->err) < 0 ||
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
	if (sp->det != NULL && sp->prof != NULL) {	/* detect again */
		pdu_profile_free(sp->prof);
		sp->prof = NULL;
	}
	sp_detect_free(sp->det);
	sp->det = NULL;
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
	    "mib=%s", sp->prof ? sp->prof->name : "?", oid[0] ? oid :
	    "none", sp->prof ? sp->prof->mib : "?");
	snprintf(out->profile, sizeof(out->profile), "%s", sp->prof ?
	    sp->prof->name : "");
	snprintf(out->profile_reason, sizeof(out->profile_reason), "%s",
	    sp->reason ? sp->reason : sp->err.msg);
}

/* probe --profile NAME (or auto): loaded now when named. */
static int
probe_profile(struct sp *sp, struct wp_err *err)
{
	if (strcmp(sp->cfg.profile, "auto") == 0)
		return 0;
	sp->prof = pdu_profile_find(sp->cfg.maps_dir, sp->cfg.conf_dir,
	    sp->cfg.profile, err);
	if (sp->prof == NULL)
		return -1;
	set_reason(sp, "config", "named on the command line (--profile)");
	return 0;
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
	if (snmp_cfg_probe(&sp->cfg, req, err) < 0 ||
	    snmp_cfg_secrets(&sp->cfg, err) < 0 || probe_profile(sp, err) < 0)
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
