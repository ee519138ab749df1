/*
 * push_listen.c - the HTTPS listener devices POST reports to
 * (push_listen.h).
 */
#include <sys/types.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "lib/listen.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/loop.h"
#include "lib/secret.h"
#include "push_listen.h"

#define CONNS_MAX	64u
#define CONNS_PER_IP	8u
#define IDLE_S		10u

struct push_listen {
	struct loop	*loop;
	struct MHD_Daemon *d;
	struct loop_timer *timer;
	int		 epfd;
	char		*cert, *key;	/* PEM; key a secret */
	push_route_cb	 route;
	void		*arg;
	unsigned long	 refused[WP_PUSH_N];
};

/* One POST being received. */
struct upload {
	char		*buf;		/* grown to at most PUSH_BODY_MAX + 1 */
	size_t		 len, cap;
	bool		 over;
};

static void
pump(struct push_listen *pl)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_run(pl->d) != MHD_YES)
		log_warnx("push listener: MHD_run failed");
	if (MHD_get_timeout(pl->d, &ms) == MHD_YES)
		loop_timer_arm(pl->timer, clock_mono() + (wp_time)ms * WP_MS);
	else
		loop_timer_disarm(pl->timer);
}

static void
on_epoll(int fd, int events, void *arg)
{
	(void)fd;
	(void)events;
	pump(arg);
}

static void
on_timer(void *arg)
{
	pump(arg);
}

static enum MHD_Result
answer(struct MHD_Connection *c, unsigned status)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(0, (void *)"",
	    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* The sender's numeric address (an IPv4-mapped one as IPv4). */
static void
peer_of(struct MHD_Connection *c, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;
	const void *a = NULL;
	int af = AF_INET;

	buf[0] = '\0';
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || (sa = ci->client_addr) == NULL)
		return;
	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 =
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6))
			a = &a6->s6_addr[12];
		else {
			a = a6;
			af = AF_INET6;
		}
	}
	if (a == NULL || inet_ntop(af, a, buf, (socklen_t)len) == NULL)
		buf[0] = '\0';
}

/* Takes a piece of the body (the buffer grown as it comes, up to the
 * cap); past the cap it sets over.  0, or -1 out of memory. */
static int
take(struct upload *u, const char *p, size_t n)
{
	size_t cap;
	char *b;

	if (u->over || n > PUSH_BODY_MAX - u->len) {
		u->over = true;
		return 0;
	}
	if (u->len + n + 1 > u->cap) {
		cap = u->cap ? u->cap : 4096;
		while (cap < u->len + n + 1)
			cap *= 2;
		if (cap > PUSH_BODY_MAX + 1)
			cap = PUSH_BODY_MAX + 1;
		if ((b = realloc(u->buf, cap)) == NULL)
			return -1;
		u->buf = b;
		u->cap = cap;
	}
	memcpy(u->buf + u->len, p, n);
	u->len += n;
	return 0;
}

/* Whether the request says, before its body, that the body is over the
 * cap. */
static bool
declared_over(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_LENGTH);

	return v != NULL && strtoull(v, NULL, 10) > PUSH_BODY_MAX;
}

/* The whole POST is in: routed by its token, or refused. */
static enum MHD_Result
deliver(struct push_listen *pl, struct MHD_Connection *c, const char *url,
    struct upload *u)
{
	const char *tok = url + strlen(PUSH_LISTEN_PATH);
	char peer[INET6_ADDRSTRLEN];

	peer_of(c, peer, sizeof(peer));
	if (u->buf != NULL)
		u->buf[u->over ? 0 : u->len] = '\0';
	if (pl->route(pl->arg, tok, peer, u->buf != NULL && !u->over ? u->buf :
	    "", u->over ? 0 : u->len, u->over) < 0) {
		pl->refused[WP_PUSH_UNKNOWN_SENDER]++;
		log_debug("push listener: POST from %s to no target's URL",
		    peer);
		return answer(c, MHD_HTTP_NOT_FOUND);
	}
	return answer(c, u->over ? MHD_HTTP_CONTENT_TOO_LARGE :
	    MHD_HTTP_NO_CONTENT);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct push_listen *pl = cls;
	struct upload *u = *con_cls;

	(void)version;
	if (strcmp(method, "POST") != 0) {
		pl->refused[WP_PUSH_MALFORMED]++;
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED);
	}
	if (strncmp(url, PUSH_LISTEN_PATH, strlen(PUSH_LISTEN_PATH)) != 0) {
		pl->refused[WP_PUSH_UNKNOWN_SENDER]++;
		return answer(c, MHD_HTTP_NOT_FOUND);
	}
	if (u == NULL) {		/* the headers: the body follows */
		if ((u = calloc(1, sizeof(*u))) == NULL)
			return MHD_NO;
		*con_cls = u;
		if (!declared_over(c))
			return MHD_YES;
		u->over = true;		/* refused before its body is read */
		return deliver(pl, c, url, u);
	}
	if (*upload_size > 0) {
		if (take(u, upload, *upload_size) == -1)
			return MHD_NO;
		*upload_size = 0;
		if (!u->over)
			return MHD_YES;
		/* over the cap with no length said: counted, then closed */
		(void)deliver(pl, c, url, u);
		return MHD_NO;
	}
	return deliver(pl, c, url, u);
}

static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct upload *u = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (u != NULL) {
		free(u->buf);
		free(u);
		*con_cls = NULL;
	}
}

static int
start(struct push_listen *pl, const char *listen, struct wp_err *err)
{
	struct sockaddr_storage ss = { 0 };
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_TLS;
	const union MHD_DaemonInfo *di;

	if (listen_resolve("push_listen", listen, &ss, err) == -1)
		return -1;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		return err_set(err, WP_E_CONFIG, "collector: push_listen needs "
		    "TLS and libmicrohttpd has none");
	pl->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, pl,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_LIMIT, CONNS_MAX,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, CONNS_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, IDLE_S,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, pl,
	    MHD_OPTION_EXTERNAL_LOGGER, listen_mhd_log, "push listener",
	    MHD_OPTION_HTTPS_MEM_CERT, pl->cert,
	    MHD_OPTION_HTTPS_MEM_KEY, pl->key, MHD_OPTION_END);
	if (pl->d == NULL)
		return err_set(err, WP_E_CONFIG, "collector: cannot listen on "
		    "push_listen %s: %s", listen, errno ? strerror(errno) :
		    "libmicrohttpd refused");
	if ((di = MHD_get_daemon_info(pl->d, MHD_DAEMON_INFO_EPOLL_FD)) == NULL)
		return err_set(err, WP_E_INTERNAL, "push listener: no epoll fd");
	if (loop_add_fd(pl->loop, di->epoll_fd, LOOP_READ, on_epoll, pl) == -1)
		return err_set(err, WP_E_INTERNAL, "push listener: "
		    "loop_add_fd");
	pl->epfd = di->epoll_fd;
	pump(pl);
	return 0;
}

struct push_listen *
push_listen_new(struct loop *l, const char *listen, const char *cert,
    const char *key, push_route_cb route, void *arg, struct wp_err *err)
{
	struct push_listen *pl;

	if ((pl = calloc(1, sizeof(*pl))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	pl->loop = l;
	pl->epfd = -1;
	pl->route = route;
	pl->arg = arg;
	if ((pl->timer = loop_timer_new(l, on_timer, pl)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	if ((pl->cert = listen_read_cert(cert)) == NULL) {
		err_set(err, WP_E_CONFIG, "collector: push TLS certificate %s: "
		    "cannot read (or empty, or over 1 MiB)", cert);
		goto fail;
	}
	if ((pl->key = secret_load(key, NULL, err)) == NULL) {
		err_prefix(err, "collector: push TLS key");
		goto fail;
	}
	if (start(pl, listen, err) == -1)
		goto fail;
	log_info("push listener on https://%s", listen);
	return pl;
fail:
	push_listen_free(pl);
	return NULL;
}

void
push_listen_free(struct push_listen *pl)
{
	if (pl == NULL)
		return;
	if (pl->epfd != -1)
		loop_del_fd(pl->loop, pl->epfd);
	if (pl->d != NULL)
		MHD_stop_daemon(pl->d);
	loop_timer_free(pl->timer);
	free(pl->cert);
	secret_free(pl->key);
	free(pl);
}

const unsigned long *
push_listen_refused(const struct push_listen *pl)
{
	return pl->refused;
}

int
push_token_new(char *tok, struct wp_err *err)
{
	unsigned char r[PUSH_TOKEN_LEN / 2];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return err_set(err, WP_E_INTERNAL, "getrandom: %s",
		    strerror(errno));
	for (i = 0; i < sizeof(r); i++)
		snprintf(tok + 2 * i, 3, "%02x", r[i]);
	explicit_bzero(r, sizeof(r));
	return 0;
}

bool
push_token_eq(const char *a, const char *b)
{
	unsigned char d = 0;
	size_t i;

	if (strnlen(a, PUSH_TOKEN_LEN + 1) != PUSH_TOKEN_LEN ||
	    strnlen(b, PUSH_TOKEN_LEN + 1) != PUSH_TOKEN_LEN)
		return false;
	for (i = 0; i < PUSH_TOKEN_LEN; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}
