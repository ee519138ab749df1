/*
 * sim_http.c - Redfish BMCs over HTTPS, dcgm-exporter and vLLM /metrics
 * over HTTP, all on libmicrohttpd (epoll, thread pool).
 *
 * One listening socket per protocol serves every device: the device is
 * the connection's local address (getsockname), so 10,000 BMCs share one
 * port.  Linux delivers every 127/8 address to lo, but only a socket bound
 * to 0.0.0.0 receives them all; to keep that from leaking beyond loopback
 * the socket is bound to device "lo" (SO_BINDTODEVICE, unprivileged since
 * Linux 5.7) where allowed, and in any case the accept policy refuses any
 * peer outside 127/8 and the handler refuses any local address that is
 * not one of ours.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <openssl/rand.h>

#include "sim_srv.h"
#include "sim_tls.h"

#define BODY_MAX	4096
#define POOL_THREADS	4

struct sim_session {
	char		 token[33];
	int		 bmc;
	uint32_t	 id;
	double		 last;
	struct sim_session *next;
};

struct sim_http;

struct dctx {
	struct sim_http	*h;
	int		 k;		/* 0 redfish, 1 dcgm, 2 vllm */
};

struct sim_http {
	struct sim_srv	*s;
	struct sim_tls	 tls;
	gnutls_privkey_t key;		/* the leaf key, shared */
	gnutls_pcert_st	**cert;		/* per BMC, made on first use */
	pthread_mutex_t	 cert_lock;
	struct MHD_Daemon *d[3];
	struct dctx	 ctx[3];
};

struct req {
	char		 body[BODY_MAX];
	size_t		 len;
	int		 too_big;
};

/* ---- listening ---- */

static int
listen_any(int port, char *err, unsigned long errlen)
{
	struct sockaddr_in sa;
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Loopback only, where the kernel lets us; see the top comment. */
	(void)setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(fd, 4096) == -1) {
		snprintf(err, errlen, "port %d: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static enum MHD_Result
accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;

	(void)cls;
	if (len < sizeof(*sin) || addr->sa_family != AF_INET)
		return MHD_NO;
	return (ntohl(sin->sin_addr.s_addr) >> 24) == 127 ? MHD_YES : MHD_NO;
}

/* The device a socket's local address names, or -1. */
static int
fd_device(const struct sim_srv *s, int fd, int kind)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int idx;

	if (getsockname(fd, (struct sockaddr *)&sa, &len) == -1 ||
	    sa.sin_family != AF_INET)
		return -1;
	idx = sim_addr_index(s, kind, ntohl(sa.sin_addr.s_addr));
	return idx >= 0 && idx < s->f->o.nodes ? idx : -1;
}

/* The device this connection was made to, or -1. */
static int
conn_device(const struct sim_srv *s, struct MHD_Connection *c, int kind)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	return ci == NULL ? -1 : fd_device(s, ci->connect_fd, kind);
}

/* ---- TLS: one certificate per BMC, picked by the local address ---- */

/* BMC i's certificate, made on first use; NULL on failure. */
static gnutls_pcert_st *
bmc_cert(struct sim_http *h, int i)
{
	gnutls_pcert_st *pc;
	gnutls_datum_t d;
	unsigned char *der;
	int len;

	pthread_mutex_lock(&h->cert_lock);
	if ((pc = h->cert[i]) == NULL &&
	    (len = sim_tls_leaf_der(&h->tls, sim_addr(h->s, SK_BMC, i),
	    i + 2L, &der)) > 0) {
		d.data = der;
		d.size = (unsigned)len;
		if ((pc = calloc(1, sizeof(*pc))) != NULL &&
		    gnutls_pcert_import_x509_raw(pc, &d, GNUTLS_X509_FMT_DER,
		    0) != 0) {
			free(pc);
			pc = NULL;
		}
		free(der);
		h->cert[i] = pc;
	}
	pthread_mutex_unlock(&h->cert_lock);
	return pc;
}

/*
 * gnutls gives the certificate callback no user pointer; MHD sets the
 * session's pointer to the connection, whose socket context we set to the
 * server when the connection starts.
 */
static void
conn_started(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode code)
{
	(void)c;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		*socket_context = cls;
}

static struct sim_http *
session_owner(gnutls_session_t session)
{
	struct MHD_Connection *c = gnutls_session_get_ptr(session);
	const union MHD_ConnectionInfo *ci;

	if (c == NULL || (ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT)) == NULL)
		return NULL;
	return ci->socket_context;
}

static int
cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca_dn,
    int nreqs, const gnutls_pk_algorithm_t *algos, int nalgos,
    gnutls_pcert_st **pcert, unsigned int *npcert, gnutls_privkey_t *key)
{
	struct sim_http *h = session_owner(session);
	int fd, i;

	(void)req_ca_dn;
	(void)nreqs;
	(void)algos;
	(void)nalgos;
	fd = gnutls_transport_get_int(session);
	if (h == NULL || (i = fd_device(h->s, fd, SK_BMC)) < 0 ||
	    (*pcert = bmc_cert(h, i)) == NULL)
		return -1;	/* not ours: the handshake fails */
	*npcert = 1;
	*key = h->key;
	return 0;
}

static int
tls_keys(struct sim_http *h, char *err, unsigned long errlen)
{
	gnutls_datum_t d = { (unsigned char *)h->tls.key_pem,
	    (unsigned)strlen(h->tls.key_pem) };

	h->cert = calloc(h->s->f->o.nodes, sizeof(*h->cert));
	pthread_mutex_init(&h->cert_lock, NULL);
	if (h->cert == NULL || gnutls_privkey_init(&h->key) != 0 ||
	    gnutls_privkey_import_x509_raw(h->key, &d, GNUTLS_X509_FMT_PEM,
	    NULL, 0) != 0) {
		snprintf(err, errlen, "TLS key set-up failed");
		return -1;
	}
	return 0;
}

/* ---- responses ---- */

static enum MHD_Result
send_text(struct MHD_Connection *c, unsigned code, const char *ctype,
    char *text)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(strlen(text), text,
	    MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", ctype);
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

static struct MHD_Response *
json_response(json_object *o)
{
	const char *txt = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	char *copy = strdup(txt);
	struct MHD_Response *r;

	json_object_put(o);
	if (copy == NULL)
		return NULL;
	r = MHD_create_response_from_buffer(strlen(copy), copy,
	    MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(copy);
		return NULL;
	}
	MHD_add_response_header(r, "Content-Type",
	    "application/json; charset=utf-8");
	MHD_add_response_header(r, "OData-Version", "4.0");
	return r;
}

static enum MHD_Result
send_json(struct MHD_Connection *c, unsigned code, json_object *o)
{
	struct MHD_Response *r = json_response(o);
	enum MHD_Result rc;

	if (r == NULL)
		return MHD_NO;
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

static void
jadd(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *
jstr(const char *s)
{
	return json_object_new_string(s);
}

/* A number printed with a fixed number of decimals, as BMCs print them. */
static json_object *
jfix(double v, int decimals)
{
	char buf[64];

	if (decimals == 0)
		return json_object_new_int64((int64_t)v);
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

static json_object *
jref(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* {"@odata.id": uri} */
static json_object *
jref(const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jadd(o, "@odata.id", jstr(buf));
	return o;
}

static json_object *
resource(const char *type, const char *id, const char *name,
    const char *uri)
{
	json_object *o = json_object_new_object();

	jadd(o, "@odata.type", jstr(type));
	jadd(o, "@odata.id", jstr(uri));
	jadd(o, "Id", jstr(id));
	jadd(o, "Name", jstr(name));
	return o;
}

static json_object *
collection(const char *type, const char *name, const char *uri,
    const char *const *members, int n)
{
	json_object *o = json_object_new_object(), *m;
	int i;

	jadd(o, "@odata.type", jstr(type));
	jadd(o, "@odata.id", jstr(uri));
	jadd(o, "Name", jstr(name));
	m = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(m, jref("%s", members[i]));
	jadd(o, "Members", m);
	jadd(o, "Members@odata.count", json_object_new_int(n));
	return o;
}

static enum MHD_Result
redfish_error(struct MHD_Connection *c, unsigned code, const char *msgid,
    const char *msg)
{
	json_object *o = json_object_new_object(), *e, *ext, *m;

	e = json_object_new_object();
	jadd(e, "code", jstr(msgid));
	jadd(e, "message", jstr(msg));
	ext = json_object_new_array();
	m = json_object_new_object();
	jadd(m, "MessageId", jstr(msgid));
	jadd(m, "Message", jstr(msg));
	json_object_array_add(ext, m);
	jadd(e, "@Message.ExtendedInfo", ext);
	jadd(o, "error", e);
	if (code == MHD_HTTP_UNAUTHORIZED) {
		struct MHD_Response *r = json_response(o);
		enum MHD_Result rc;

		if (r == NULL)
			return MHD_NO;
		MHD_add_response_header(r, "WWW-Authenticate",
		    "Basic realm=\"wattpath-sim BMC\"");
		rc = MHD_queue_response(c, code, r);
		MHD_destroy_response(r);
		return rc;
	}
	return send_json(c, code, o);
}

/* ---- sessions ---- */

static struct sim_session *
sess_find(struct sim_srv *s, const char *token, int bmc, double now)
{
	struct sim_session *x, **pp = &s->sess;

	while ((x = *pp) != NULL) {
		if (now - x->last > SIM_SESS_TIMEOUT) {	/* expire */
			*pp = x->next;
			s->ns[x->bmc].sessions--;
			free(x);
			continue;
		}
		if (x->bmc == bmc && token != NULL &&
		    strcmp(x->token, token) == 0)
			return x;
		pp = &x->next;
	}
	return NULL;
}

/* Checks X-Auth-Token or Basic; 1 ok, 0 refused. */
static int
authorised(struct sim_srv *s, struct MHD_Connection *c, int bmc)
{
	const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "X-Auth-Token");
	char *user, *pass = NULL;
	int ok = 0;

	if (tok != NULL) {
		struct sim_session *x;

		pthread_mutex_lock(&s->lock);
		if ((x = sess_find(s, tok, bmc, sim_now())) != NULL) {
			x->last = sim_now();
			ok = 1;
		}
		pthread_mutex_unlock(&s->lock);
		return ok;
	}
	user = MHD_basic_auth_get_username_password(c, &pass);
	if (user != NULL && pass != NULL && strcmp(user, s->user) == 0 &&
	    strcmp(pass, s->pass) == 0)
		ok = 1;
	MHD_free(user);
	MHD_free(pass);
	return ok;
}

static enum MHD_Result
session_create(struct sim_srv *s, struct MHD_Connection *c, int bmc,
    const struct req *rq)
{
	json_object *in = NULL, *u, *p, *o;
	struct sim_session *x;
	char tok[33];
	struct MHD_Response *r;
	unsigned char rnd[16];
	char uri[96], id[16];
	enum MHD_Result rc;
	int ok, i;

	if (rq->too_big || (in = json_tokener_parse(rq->body)) == NULL ||
	    !json_object_is_type(in, json_type_object)) {
		if (!rq->too_big)
			json_object_put(in);
		return redfish_error(c, 400, "Base.1.15.0.MalformedJSON",
		    "The request body is not valid JSON.");
	}
	ok = json_object_object_get_ex(in, "UserName", &u) &&
	    json_object_object_get_ex(in, "Password", &p) &&
	    json_object_is_type(u, json_type_string) &&
	    json_object_is_type(p, json_type_string) &&
	    strcmp(json_object_get_string(u), s->user) == 0 &&
	    strcmp(json_object_get_string(p), s->pass) == 0;
	json_object_put(in);
	if (!ok)
		return redfish_error(c, 401, "Base.1.15.0.NoValidSession",
		    "Invalid username or password.");
	if ((x = calloc(1, sizeof(*x))) == NULL ||
	    RAND_bytes(rnd, sizeof(rnd)) != 1) {
		free(x);
		return redfish_error(c, 500, "Base.1.15.0.InternalError",
		    "Out of resources.");
	}
	for (i = 0; i < 16; i++)
		sprintf(x->token + 2 * i, "%02x", rnd[i]);
	x->bmc = bmc;
	x->last = sim_now();
	pthread_mutex_lock(&s->lock);
	(void)sess_find(s, NULL, bmc, x->last);	/* expire old ones */
	if (s->ns[bmc].sessions >= SIM_SESS_PER_BMC) {
		pthread_mutex_unlock(&s->lock);
		free(x);
		return redfish_error(c, 503,
		    "Base.1.15.0.SessionLimitExceeded",
		    "The session establishment failed due to the number of "
		    "simultaneous sessions exceeding the limit.");
	}
	x->id = ++s->next_sess;
	x->next = s->sess;
	s->sess = x;
	s->ns[bmc].sessions++;
	memcpy(tok, x->token, sizeof(tok));
	snprintf(id, sizeof(id), "%u", x->id);
	pthread_mutex_unlock(&s->lock);
	snprintf(uri, sizeof(uri), "/redfish/v1/SessionService/Sessions/%s",
	    id);
	o = resource("#Session.v1_7_0.Session", id, "User Session", uri);
	jadd(o, "UserName", jstr(s->user));
	jadd(o, "Password", NULL);
	if ((r = json_response(o)) == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "X-Auth-Token", tok);
	MHD_add_response_header(r, "Location", uri);
	rc = MHD_queue_response(c, MHD_HTTP_CREATED, r);
	MHD_destroy_response(r);
	return rc;
}

/* GET or DELETE /redfish/v1/SessionService/Sessions/<id> */
static enum MHD_Result
session_item(struct sim_srv *s, struct MHD_Connection *c, int bmc,
    const char *method, const char *id)
{
	struct sim_session *x, **pp;
	char *end;
	unsigned long n = strtoul(id, &end, 10);
	json_object *o;
	char uri[96];

	pthread_mutex_lock(&s->lock);
	for (pp = &s->sess; (x = *pp) != NULL; pp = &x->next)
		if (x->bmc == bmc && x->id == n && *end == '\0')
			break;
	if (x != NULL && strcmp(method, "DELETE") == 0) {
		*pp = x->next;
		s->ns[bmc].sessions--;
		free(x);
		pthread_mutex_unlock(&s->lock);
		return send_json(c, 200, json_object_new_object());
	}
	pthread_mutex_unlock(&s->lock);
	if (x == NULL)
		return redfish_error(c, 404, "Base.1.15.0.ResourceNotFound",
		    "No such session.");
	snprintf(uri, sizeof(uri), "/redfish/v1/SessionService/Sessions/%lu",
	    n);
	o = resource("#Session.v1_7_0.Session", id, "User Session", uri);
	jadd(o, "UserName", jstr(s->user));
	jadd(o, "Password", NULL);
	return send_json(c, 200, o);
}

static json_object *
sessions_list(struct sim_srv *s, int bmc)
{
	char uris[SIM_SESS_PER_BMC][64];
	const char *m[SIM_SESS_PER_BMC];
	struct sim_session *x;
	int n = 0;

	pthread_mutex_lock(&s->lock);
	for (x = s->sess; x != NULL && n < SIM_SESS_PER_BMC; x = x->next)
		if (x->bmc == bmc) {
			snprintf(uris[n], sizeof(uris[n]),
			    "/redfish/v1/SessionService/Sessions/%u", x->id);
			m[n] = uris[n];
			n++;
		}
	pthread_mutex_unlock(&s->lock);
	return collection("#SessionCollection.SessionCollection",
	    "Session Collection", "/redfish/v1/SessionService/Sessions", m, n);
}

/* ---- Redfish documents ---- */

#define CH	"/redfish/v1/Chassis/Node0"

static void
iso_time(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
}

static json_object *
service_root(void)
{
	json_object *o = resource("#ServiceRoot.v1_15_0.ServiceRoot",
	    "RootService", "Root Service", "/redfish/v1/"), *l;

	jadd(o, "RedfishVersion", jstr("1.15.0"));
	l = json_object_new_object();
	jadd(l, "SelectQuery", json_object_new_boolean(1));
	jadd(l, "FilterQuery", json_object_new_boolean(0));
	jadd(l, "ExcerptQuery", json_object_new_boolean(0));
	jadd(l, "OnlyMemberQuery", json_object_new_boolean(0));
	jadd(o, "ProtocolFeaturesSupported", l);
	jadd(o, "UUID", jstr("8c0e5b1e-5f1a-4b7e-9d1a-000000000001"));
	jadd(o, "Chassis", jref("/redfish/v1/Chassis"));
	jadd(o, "Systems", jref("/redfish/v1/Systems"));
	jadd(o, "Managers", jref("/redfish/v1/Managers"));
	jadd(o, "SessionService", jref("/redfish/v1/SessionService"));
	l = json_object_new_object();
	jadd(l, "Sessions", jref("/redfish/v1/SessionService/Sessions"));
	jadd(o, "Links", l);
	return o;
}

static json_object *
chassis_node(const struct sim_node *nd)
{
	json_object *o = resource("#Chassis.v1_23_0.Chassis", "Node0",
	    "GPU Node Chassis", CH), *l, *a, *st;

	jadd(o, "ChassisType", jstr("RackMount"));
	jadd(o, "Manufacturer", jstr("Simulated"));
	jadd(o, "Model", jstr("HGX H100 8-GPU"));
	jadd(o, "PowerState", jstr("On"));
	st = json_object_new_object();
	jadd(st, "State", jstr("Enabled"));
	jadd(st, "Health", jstr("OK"));
	jadd(o, "Status", st);
	if (nd->shape != SS_LEGACY) {
		jadd(o, "EnvironmentMetrics", jref(CH "/EnvironmentMetrics"));
		jadd(o, "Sensors", jref(CH "/Sensors"));
	} else {
		jadd(o, "Power@Redfish.Deprecated",
		    jstr("Please migrate to use PowerSubsystem"));
		jadd(o, "Power", jref(CH "/Power"));
	}
	l = json_object_new_object();
	a = json_object_new_array();
	json_object_array_add(a, jref("/redfish/v1/Systems/Node0"));
	jadd(l, "ComputerSystems", a);
	a = json_object_new_array();
	json_object_array_add(a, jref("/redfish/v1/Chassis/HGX_Baseboard_0"));
	jadd(l, "Contains", a);
	a = json_object_new_array();
	json_object_array_add(a, jref("/redfish/v1/Managers/BMC"));
	jadd(l, "ManagedBy", a);
	jadd(o, "Links", l);
	return o;
}

static json_object *
chassis_baseboard(void)
{
	json_object *o = resource("#Chassis.v1_23_0.Chassis",
	    "HGX_Baseboard_0", "HGX GPU Baseboard",
	    "/redfish/v1/Chassis/HGX_Baseboard_0"), *l;

	jadd(o, "ChassisType", jstr("Module"));
	jadd(o, "PoweredByParent", json_object_new_boolean(1));
	l = json_object_new_object();
	jadd(l, "ContainedBy", jref(CH));
	jadd(o, "Links", l);
	return o;
}

static int
kwh_dec(const struct sim_srv *s)
{
	int d = 0;

	while (d < 6 && s->kwh_step * pow(10, d) < 0.999)
		d++;
	return d;
}

static json_object *
excerpt(double reading, int dec, const char *src, const char *reset)
{
	json_object *o = json_object_new_object();

	jadd(o, "Reading", jfix(reading, dec));
	jadd(o, "DataSourceUri", jstr(src));
	if (reset != NULL)
		jadd(o, "SensorResetTime", jstr(reset));
	return o;
}

static json_object *
env_metrics(const struct sim_srv *s, int i)
{
	const struct sim_node *nd = &s->f->node[i];
	json_object *o = resource("#EnvironmentMetrics.v1_3_0."
	    "EnvironmentMetrics", "EnvironmentMetrics",
	    "Chassis Environment Metrics", CH "/EnvironmentMetrics");
	struct sim_bmc_vals v;
	char reset[40];

	sim_srv_bmc_vals(s, i, sim_now(), &v);
	iso_time(s->ns[i].t_bmc, reset, sizeof(reset));
	jadd(o, "PowerWatts", excerpt(v.watts, 1, CH "/Sensors/TotalPower",
	    NULL));
	if (nd->shape == SS_JOULES)
		jadd(o, "EnergyJoules", excerpt(v.joules, 0,
		    CH "/Sensors/TotalEnergy", NULL));
	if (nd->shape == SS_KWH)
		jadd(o, "EnergykWh", excerpt(v.kwh, kwh_dec(s),
		    CH "/Sensors/TotalEnergykWh", reset));
	return o;
}

static json_object *
sensor(const struct sim_srv *s, int i, const char *id)
{
	const struct sim_node *nd = &s->f->node[i];
	char uri[128], reset[40];
	struct sim_bmc_vals v;
	json_object *o;
	const char *type, *units;
	double val;
	int dec;

	sim_srv_bmc_vals(s, i, sim_now(), &v);
	if (strcmp(id, "TotalPower") == 0) {
		type = "Power", units = "W", val = v.watts, dec = 1;
	} else if (strcmp(id, "TotalEnergy") == 0 && nd->shape == SS_JOULES) {
		type = "EnergyJoules", units = "J", val = v.joules, dec = 0;
	} else if (strcmp(id, "TotalEnergykWh") == 0 && nd->shape == SS_KWH) {
		type = "EnergykWh", units = "kW.h", val = v.kwh;
		dec = kwh_dec(s);
	} else
		return NULL;
	snprintf(uri, sizeof(uri), CH "/Sensors/%s", id);
	o = resource("#Sensor.v1_7_0.Sensor", id, id, uri);
	jadd(o, "ReadingType", jstr(type));
	jadd(o, "ReadingUnits", jstr(units));
	jadd(o, "Reading", jfix(val, dec));
	jadd(o, "PhysicalContext", jstr("Chassis"));
	jadd(o, "ElectricalContext", jstr("Total"));
	if (strcmp(type, "Power") != 0) {
		iso_time(s->ns[i].t_bmc, reset, sizeof(reset));
		jadd(o, "SensorResetTime", jstr(reset));
	}
	return o;
}

static json_object *
sensors_list(const struct sim_node *nd)
{
	const char *m[2] = { CH "/Sensors/TotalPower", NULL };
	int n = 1;

	if (nd->shape == SS_JOULES)
		m[n++] = CH "/Sensors/TotalEnergy";
	if (nd->shape == SS_KWH)
		m[n++] = CH "/Sensors/TotalEnergykWh";
	return collection("#SensorCollection.SensorCollection",
	    "Sensors", CH "/Sensors", m, n);
}

static json_object *
legacy_power(const struct sim_srv *s, int i)
{
	json_object *o = resource("#Power.v1_7_1.Power", "Power", "Power",
	    CH "/Power"), *a, *pc, *pm;
	struct sim_bmc_vals v;

	sim_srv_bmc_vals(s, i, sim_now(), &v);
	pc = json_object_new_object();
	jadd(pc, "@odata.id", jstr(CH "/Power#/PowerControl/0"));
	jadd(pc, "MemberId", jstr("0"));
	jadd(pc, "Name", jstr("System Power Control"));
	jadd(pc, "PowerConsumedWatts", jfix(v.watts, 1));
	jadd(pc, "PowerCapacityWatts", json_object_new_int(13200));
	pm = json_object_new_object();
	jadd(pm, "IntervalInMin", json_object_new_int(1));
	jadd(pm, "AverageConsumedWatts", jfix(v.avg60, 1));
	jadd(pc, "PowerMetrics", pm);
	a = json_object_new_array();
	json_object_array_add(a, pc);
	jadd(o, "PowerControl", a);
	return o;
}

static json_object *
simple_doc(const char *path)
{
	static const char *const chassis[] = { CH,
	    "/redfish/v1/Chassis/HGX_Baseboard_0" };
	static const char *const sys[] = { "/redfish/v1/Systems/Node0" };
	static const char *const mgr[] = { "/redfish/v1/Managers/BMC" };
	json_object *o;

	if (strcmp(path, "/Chassis") == 0)
		return collection("#ChassisCollection.ChassisCollection",
		    "Chassis Collection", "/redfish/v1/Chassis", chassis, 2);
	if (strcmp(path, "/Systems") == 0)
		return collection("#ComputerSystemCollection."
		    "ComputerSystemCollection", "Systems",
		    "/redfish/v1/Systems", sys, 1);
	if (strcmp(path, "/Managers") == 0)
		return collection("#ManagerCollection.ManagerCollection",
		    "Managers", "/redfish/v1/Managers", mgr, 1);
	if (strcmp(path, "/Systems/Node0") == 0) {
		o = resource("#ComputerSystem.v1_20_0.ComputerSystem",
		    "Node0", "GPU Node", sys[0]);
		jadd(o, "PowerState", jstr("On"));
		return o;
	}
	if (strcmp(path, "/Managers/BMC") == 0) {
		o = resource("#Manager.v1_17_0.Manager", "BMC", "BMC", mgr[0]);
		jadd(o, "ManagerType", jstr("BMC"));
		jadd(o, "FirmwareVersion", jstr("sim-" WP_VERSION));
		return o;
	}
	if (strcmp(path, "/Chassis/HGX_Baseboard_0") == 0)
		return chassis_baseboard();
	if (strcmp(path, "/SessionService") == 0) {
		o = resource("#SessionService.v1_1_8.SessionService",
		    "SessionService", "Session Service",
		    "/redfish/v1/SessionService");
		jadd(o, "ServiceEnabled", json_object_new_boolean(1));
		jadd(o, "SessionTimeout", json_object_new_int(
		    SIM_SESS_TIMEOUT));
		jadd(o, "Sessions", jref("/redfish/v1/SessionService/Sessions"));
		return o;
	}
	return NULL;
}

static json_object *
node_doc(struct sim_srv *s, int i, const char *path)
{
	const struct sim_node *nd = &s->f->node[i];
	const char *p;

	if (strcmp(path, "/Chassis/Node0") == 0)
		return chassis_node(nd);
	if (strcmp(path, "/Chassis/Node0/Power") == 0)
		return nd->shape == SS_LEGACY ? legacy_power(s, i) : NULL;
	if (nd->shape == SS_LEGACY)
		return NULL;
	if (strcmp(path, "/Chassis/Node0/EnvironmentMetrics") == 0)
		return env_metrics(s, i);
	if (strcmp(path, "/Chassis/Node0/Sensors") == 0)
		return sensors_list(nd);
	p = "/Chassis/Node0/Sensors/";
	if (strncmp(path, p, strlen(p)) == 0)
		return sensor(s, i, path + strlen(p));
	return NULL;
}

/* Applies $select=A,B (top-level properties; @odata.* always stay). */
static void
apply_select(json_object *o, const char *sel)
{
	char keep[512], *save = NULL, *tok;
	const char *names[32];
	int n = 0, i, found;

	snprintf(keep, sizeof(keep), "%s", sel);
	for (tok = strtok_r(keep, ",", &save); tok != NULL && n < 32;
	    tok = strtok_r(NULL, ",", &save))
		names[n++] = tok;
	for (;;) {
		const char *drop = NULL;

		json_object_object_foreach(o, k, v) {
			(void)v;
			found = strncmp(k, "@odata.", 7) == 0;
			for (i = 0; i < n && !found; i++)
				found = strcmp(k, names[i]) == 0;
			if (!found) {
				drop = k;
				break;
			}
		}
		if (drop == NULL)
			return;
		json_object_object_del(o, drop);
	}
}

/* Query parameters: $select is supported, other $-parameters are not. */
static enum MHD_Result
unsupported_query(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	int *bad = cls;

	(void)kind;
	(void)value;
	if (key[0] == '$' && strcmp(key, "$select") != 0) {
		*bad = 1;
		return MHD_NO;
	}
	return MHD_YES;
}

static enum MHD_Result
redfish(struct sim_srv *s, struct MHD_Connection *c, int bmc,
    const char *method, const char *url, const struct req *rq)
{
	const char *sess = "/SessionService/Sessions";
	char path[256];
	const char *sel;
	size_t n;
	json_object *o;
	int bad = 0;

	if (strncmp(url, "/redfish/v1", 11) != 0 || strlen(url) >= sizeof(path))
		return redfish_error(c, 404, "Base.1.15.0.ResourceNotFound",
		    "Not a Redfish URI.");
	snprintf(path, sizeof(path), "%s", url + 11);
	n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		path[--n] = '\0';
	if (n == 0 && strcmp(method, "GET") == 0)
		return send_json(c, 200, service_root());
	if (strcmp(path, sess) == 0 && strcmp(method, "POST") == 0)
		return session_create(s, c, bmc, rq);
	if (!authorised(s, c, bmc)) {
		fprintf(stderr, "wattpath-sim: BMC %d: 401 for %s %s\n", bmc + 1,
		    method, url);
		return redfish_error(c, 401, "Base.1.15.0.NoValidSession",
		    "There is no valid session established with the "
		    "implementation.");
	}
	if (strncmp(path, sess, strlen(sess)) == 0 &&
	    path[strlen(sess)] == '/')
		return session_item(s, c, bmc, method,
		    path + strlen(sess) + 1);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, unsupported_query,
	    &bad);
	if (bad)
		return redfish_error(c, 501, "Base.1.15.0.QueryNotSupported",
		    "Querying is not supported by the implementation.");
	if (strcmp(method, "GET") != 0)
		return redfish_error(c, 405, "Base.1.15.0.OperationNotAllowed",
		    "The HTTP method is not allowed for this resource.");
	if (strcmp(path, sess) == 0)
		o = sessions_list(s, bmc);
	else if ((o = simple_doc(path)) == NULL)
		o = node_doc(s, bmc, path);
	if (o == NULL)
		return redfish_error(c, 404, "Base.1.15.0.ResourceNotFound",
		    "The requested resource was not found.");
	sel = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "$select");
	if (sel != NULL)
		apply_select(o, sel);
	return send_json(c, 200, o);
}

/* ---- /metrics ---- */

struct buf {
	char	*p;
	size_t	 len, cap;
};

static void
bprintf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->p == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + n >= b->cap) {
		char *q = realloc(b->p, b->cap * 2 + n);

		if (q == NULL) {
			free(b->p);
			b->p = NULL;
			return;
		}
		b->p = q;
		b->cap = b->cap * 2 + n;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
}

static void
dcgm_labels(struct buf *b, const struct sim_srv *s, int i, int g, double t)
{
	char host[32], uuid[64];

	sim_node_name(i, host, sizeof(host));
	sim_gpu_uuid(s, i, g, uuid, sizeof(uuid));
	bprintf(b, "{gpu=\"%d\",UUID=\"%s\",pci_bus_id=\"00000000:%02X:00.0\","
	    "device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\","
	    "Hostname=\"%s\",DCGM_FI_DRIVER_VERSION=\"550.90.07\","
	    "DCGM_FI_NVML_VERSION=\"12.550.90.07\","
	    "DCGM_FI_CUDA_DRIVER_VERSION=\"12040\"", g, uuid,
	    0x18 + 0x10 * g, g, host);
	/* --shared: Kubernetes pod mapping on the shared nodes' busy GPUs */
	if (s->f->node[i].shared && sim_gpu_model_at(&s->f->node[i], g, t) >= 0)
		bprintf(b, ",pod=\"%s-%d\",namespace=\"%s\",container=\"vllm\"",
		    sim_gpu_model_at(&s->f->node[i], g, t) ? "mistral" : "llama",
		    i, sim_gpu_model_at(&s->f->node[i], g, t) ? SIM_NS_B :
		    SIM_NS_A);
	bprintf(b, "}");
}

/* dcgm-exporter's text for node i at t; caller frees. */
static char *
dcgm_text(const struct sim_srv *s, int i, double t)
{
	const struct sim_node *nd = &s->f->node[i];
	struct buf b = { malloc(8192), 0, 8192 };
	struct sim_cum p;
	int g;

	sim_node_power(nd, t, 1.0, &p);
	bprintf(&b, "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
	    "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (g = 0; g < SIM_GPUS; g++) {
		bprintf(&b, "DCGM_FI_DEV_POWER_USAGE");
		dcgm_labels(&b, s, i, g, t);
		bprintf(&b, " %.6f\n", p.gpu[g]);
	}
	bprintf(&b, "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy "
	    "consumption since boot (in mJ).\n"
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n");
	for (g = 0; g < SIM_GPUS; g++) {
		bprintf(&b, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
		dcgm_labels(&b, s, i, g, t);
		bprintf(&b, " %.0f\n", sim_srv_gpu_mj(s, i, g, t));
	}
	bprintf(&b, "# HELP DCGM_FI_DEV_ENFORCED_POWER_LIMIT Current power "
	    "limit for the device (in W).\n"
	    "# TYPE DCGM_FI_DEV_ENFORCED_POWER_LIMIT gauge\n");
	for (g = 0; g < SIM_GPUS; g++) {
		bprintf(&b, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT");
		dcgm_labels(&b, s, i, g, t);
		bprintf(&b, " %.6f\n", sim_cap_at(&s->f->o, t));
	}
	bprintf(&b, "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %%).\n"
	    "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n");
	sim_node_inst(nd, t, &p);
	for (g = 0; g < SIM_GPUS; g++) {
		bprintf(&b, "DCGM_FI_DEV_GPU_UTIL");
		dcgm_labels(&b, s, i, g, t);
		bprintf(&b, " %.0f\n", round((p.gpu[g] / nd->gpu_k[g] -
		    SIM_GPU_IDLE_W) / (SIM_GPU_MAX_W - SIM_GPU_IDLE_W) * 100));
	}
	return b.p;
}

/* vLLM's /metrics text for engine e of node i at t (--shared: the
 * models' names of sim_model.h); caller frees. */
static char *
vllm_text(const struct sim_srv *s, int i, int e, double t)
{
	const char *model = s->f->o.shared == 0 ?
	    "model_name=\"meta-llama/Llama-3.1-70B-Instruct\"" : e == 0 ?
	    "model_name=\"" SIM_MODEL_A "\"" : "model_name=\"" SIM_MODEL_B "\"";
	struct buf b = { malloc(4096), 0, 4096 };
	double out, in;

	sim_srv_engine_tokens(s, i, e, t, &out, &in);
	bprintf(&b, "# HELP vllm:prompt_tokens_total Number of prefill tokens "
	    "processed.\n# TYPE vllm:prompt_tokens_total counter\n"
	    "vllm:prompt_tokens_total{%s} %.1f\n", model, in);
	bprintf(&b, "# HELP vllm:generation_tokens_total Number of generation "
	    "tokens processed.\n# TYPE vllm:generation_tokens_total counter\n"
	    "vllm:generation_tokens_total{%s} %.1f\n", model, out);
	bprintf(&b, "# HELP vllm:request_success_total Count of successfully "
	    "processed requests.\n# TYPE vllm:request_success_total counter\n"
	    "vllm:request_success_total{finished_reason=\"stop\",%s} %.1f\n"
	    "vllm:request_success_total{finished_reason=\"length\",%s} %.1f\n",
	    model, floor(out / 310.0), model, floor(out / 2900.0));
	return b.p;
}

/* ---- dispatch ---- */

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	const struct dctx *x = cls;
	struct sim_http *h = x->h;
	struct req *rq = *con_cls;
	char *text;
	bool eng1;
	int dev;

	(void)version;
	if (rq == NULL) {
		if ((rq = calloc(1, sizeof(*rq))) == NULL)
			return MHD_NO;
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (rq->len + *upload_size >= BODY_MAX)
			rq->too_big = 1;
		else {
			memcpy(rq->body + rq->len, upload, *upload_size);
			rq->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	dev = conn_device(h->s, c, x->k == 0 ? SK_BMC : SK_HOST);
	if (dev < 0)
		return MHD_NO;	/* not one of our addresses: drop */
	if (x->k == 0)
		return redfish(h->s, c, dev, method, url, rq);
	eng1 = x->k == 2 && h->s->f->node[dev].shared &&
	    strcmp(url, "/engine1/metrics") == 0;
	if ((strcmp(url, "/metrics") != 0 && !eng1) ||
	    strcmp(method, "GET") != 0)
		return send_text(c, 404, "text/plain", strdup("404 page not "
		    "found\n"));
	text = x->k == 1 ? dcgm_text(h->s, dev, sim_now()) :
	    vllm_text(h->s, dev, eng1 ? 1 : 0, sim_now());
	if (text == NULL)
		return MHD_NO;
	return send_text(c, 200, "text/plain; version=0.0.4; charset=utf-8",
	    text);
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

static struct MHD_Daemon *
daemon_start(struct sim_http *h, int k, int port, char *err,
    unsigned long errlen)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
	    MHD_USE_ERROR_LOG;
	struct MHD_Daemon *d;
	int fd;

	if ((fd = listen_any(port, err, errlen)) == -1)
		return NULL;
	h->ctx[k].h = h;
	h->ctx[k].k = k;
	if (k == 0)
		flags |= MHD_USE_TLS;
	d = MHD_start_daemon(flags, 0, accept_policy, NULL, handler,
	    &h->ctx[k],
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)POOL_THREADS,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)60000,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, conn_started, h,
	    k == 0 ? MHD_OPTION_HTTPS_CERT_CALLBACK : MHD_OPTION_END,
	    cert_callback,
	    MHD_OPTION_END);
	if (d == NULL) {
		snprintf(err, errlen, "cannot start HTTP%s server on port %d",
		    k == 0 ? "S" : "", port);
		close(fd);
	}
	return d;
}

struct sim_http *
sim_http_start(struct sim_srv *s, const char *ca_path, char *err,
    unsigned long errlen)
{
	struct sim_http *h;
	int i;

	if ((h = calloc(1, sizeof(*h))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->s = s;
	if (sim_tls_init(&h->tls, ca_path, err, errlen) == -1) {
		free(h);
		return NULL;
	}
	if (tls_keys(h, err, errlen) == -1) {
		sim_http_stop(h);
		return NULL;
	}
	for (i = 0; i < 3; i++)
		if ((h->d[i] = daemon_start(h, i, sim_port(s, i), err,
		    errlen)) == NULL) {
			sim_http_stop(h);
			return NULL;
		}
	return h;
}

void
sim_http_stop(struct sim_http *h)
{
	int i;

	if (h == NULL)
		return;
	for (i = 0; i < 3; i++)
		if (h->d[i] != NULL)
			MHD_stop_daemon(h->d[i]);
	while (h->s->sess != NULL) {	/* the servers are gone: no lock */
		struct sim_session *x = h->s->sess;

		h->s->sess = x->next;
		h->s->ns[x->bmc].sessions--;
		free(x);
	}
	for (i = 0; h->cert != NULL && i < h->s->f->o.nodes; i++)
		if (h->cert[i] != NULL) {
			gnutls_pcert_deinit(h->cert[i]);
			free(h->cert[i]);
		}
	free(h->cert);
	if (h->key != NULL)
		gnutls_privkey_deinit(h->key);
	sim_tls_fini(&h->tls);
	free(h);
}
