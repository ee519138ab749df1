/*
 * guard.c - accepting for libmicrohttpd, with limits and deadlines.
 *
 * The open connections are a list in the order they became idle (oldest
 * first), so the one that gives way is the first idle one of its scope;
 * a connection in a request is moved to the tail when the request ends.
 * The numbers are small (GUARD_MAX_CONNS), so scopes are scanned.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guard.h"
#include "../lib/clock.h"
#include "../lib/log.h"
#include "../lib/loop.h"

#define ACCEPT_BATCH	64		/* per wakeup, for fairness */
#define AUTH_SLOTS	64		/* client addresses remembered */
#define PAUSE_S		1		/* out of descriptors: wait */

struct hconn {
	struct MHD_Connection	*c;
	int			 fd;
	struct sockaddr_storage	 peer;
	wp_time			 deadline;	/* monotonic */
	bool			 in_request;
	bool			 doomed;	/* shut down, MHD to close */
	struct hconn		*prev, *next;
};

struct auth_slot {
	struct sockaddr_storage	 peer;
	unsigned		 fails;
	wp_time			 since;		/* window start, 0: free */
};

struct guard {
	struct loop		*loop;
	struct MHD_Daemon	*d;
	int			 fd;
	bool			 watching;
	guard_pump_fn		 pump;
	void			*pump_arg;
	struct loop_timer	*sweeper;	/* deadlines, every second */
	struct loop_timer	*resume;	/* after EMFILE */
	struct hconn		*head, *tail;
	unsigned		 live;		/* not doomed */
	struct http_stats	 st;
	struct auth_slot	 auth[AUTH_SLOTS];
};

/* --- addresses --- */

/* The address part of a peer (no port), for comparing clients. */
static bool
same_client(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&a6->sin6_addr, &b6->sin6_addr,
		    sizeof(a6->sin6_addr)) == 0;
	return true;			/* unix: one client */
}

static void
peer_of(struct MHD_Connection *c, struct sockaddr_storage *ss)
{
	const union MHD_ConnectionInfo *ci;
	socklen_t len;

	memset(ss, 0, sizeof(*ss));
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || ci->client_addr == NULL)
		return;
	len = ci->client_addr->sa_family == AF_INET6 ?
	    sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	memcpy(ss, ci->client_addr, len);
}

/* --- the list --- */

static void
unlink_conn(struct guard *g, struct hconn *h)
{
	if (h->prev != NULL)
		h->prev->next = h->next;
	else
		g->head = h->next;
	if (h->next != NULL)
		h->next->prev = h->prev;
	else
		g->tail = h->prev;
	h->prev = h->next = NULL;
}

static void
append_conn(struct guard *g, struct hconn *h)
{
	h->prev = g->tail;
	if (g->tail != NULL)
		g->tail->next = h;
	else
		g->head = h;
	g->tail = h;
}

static struct hconn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci != NULL ? ci->socket_context : NULL;
}

static void
doom(struct guard *g, struct hconn *h)
{
	h->doomed = true;
	g->live--;
	shutdown(h->fd, SHUT_RDWR);	/* MHD sees the end and closes it */
}

/* Counts the live connections of peer (all when peer is NULL) and returns
 * the oldest idle one among them, or NULL. */
static struct hconn *
scope(struct guard *g, const struct sockaddr_storage *peer, unsigned *n)
{
	struct hconn *h, *idle = NULL;

	*n = 0;
	for (h = g->head; h != NULL; h = h->next) {
		if (h->doomed || (peer != NULL && !same_client(&h->peer, peer)))
			continue;
		(*n)++;
		if (idle == NULL && !h->in_request)
			idle = h;
	}
	return idle;
}

/* Makes room for one more connection from peer: true if there is (an
 * idle one may have given way), false if the new one must go. */
static bool
make_room(struct guard *g, const struct sockaddr_storage *peer)
{
	struct hconn *idle;
	unsigned n;

	idle = scope(g, peer, &n);
	if (n >= GUARD_MAX_PER_CLIENT) {
		if (idle == NULL)
			return false;
		doom(g, idle);
		g->st.evicted++;
	}
	if (g->live >= GUARD_MAX_CONNS) {
		if ((idle = scope(g, NULL, &n)) == NULL)
			return false;
		doom(g, idle);
		g->st.evicted++;
	}
	return true;
}

/* --- accepting --- */

static void on_accept(int fd, int events, void *arg);

static void
pause_accepting(struct guard *g)
{
	if (!g->watching)
		return;
	loop_del_fd(g->loop, g->fd);
	g->watching = false;
	loop_timer_arm(g->resume, clock_mono() + PAUSE_S * WP_SEC);
}

static void
on_resume(void *arg)
{
	struct guard *g = arg;

	if (!g->watching && loop_add_fd(g->loop, g->fd, LOOP_READ, on_accept,
	    g) == 0)
		g->watching = true;
	else if (!g->watching)
		loop_timer_arm(g->resume, clock_mono() + PAUSE_S * WP_SEC);
}

/* One accepted socket to MHD, or closed: 1 handed over, 0 refused. */
static int
admit(struct guard *g, int cfd, const struct sockaddr_storage *peer,
    socklen_t len)
{
	if (!make_room(g, peer)) {
		close(cfd);
		g->st.refused++;
		return 0;
	}
	/* MHD closes the socket itself when it cannot take it */
	if (MHD_add_connection(g->d, cfd, (const struct sockaddr *)peer,
	    len) != MHD_YES) {
		g->st.refused++;
		return 0;
	}
	return 1;
}

static void
on_accept(int fd, int events, void *arg)
{
	struct guard *g = arg;
	struct sockaddr_storage peer;
	socklen_t len;
	int i, cfd;

	(void)events;
	for (i = 0; i < ACCEPT_BATCH; i++) {
		len = sizeof(peer);
		cfd = accept4(fd, (struct sockaddr *)&peer, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				log_warnx("http: accept: %s; pausing %d s",
				    strerror(errno), PAUSE_S);
				pause_accepting(g);
			}
			break;		/* EAGAIN, or the client went */
		}
		admit(g, cfd, &peer, len);
	}
	g->pump(g->pump_arg);
}

/* --- deadlines --- */

static void
on_sweep(void *arg)
{
	struct guard *g = arg;
	struct hconn *h;
	wp_time now = clock_mono();
	bool any = false;

	for (h = g->head; h != NULL; h = h->next) {
		if (h->doomed || now < h->deadline)
			continue;
		doom(g, h);
		g->st.timed_out++;
		any = true;
	}
	if (any)
		g->pump(g->pump_arg);
	if (g->head != NULL)
		loop_timer_arm(g->sweeper, now + WP_SEC);
}

void
guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode toe)
{
	struct guard *g = cls;
	const union MHD_ConnectionInfo *ci;
	struct hconn *h;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if ((h = *socket_context) == NULL)
			return;
		if (!h->doomed)
			g->live--;
		unlink_conn(g, h);
		free(h);
		*socket_context = NULL;
		return;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		log_warnx("http: out of memory for a connection");
		return;			/* unguarded, MHD's timeout holds */
	}
	h->c = c;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	h->fd = ci != NULL ? ci->connect_fd : -1;
	peer_of(c, &h->peer);
	h->deadline = clock_mono() + GUARD_HEADER_S * WP_SEC;
	append_conn(g, h);
	g->live++;
	*socket_context = h;
	if (!loop_timer_armed(g->sweeper))
		loop_timer_arm(g->sweeper, clock_mono() + WP_SEC);
}

void
guard_request_begin(struct guard *g, struct MHD_Connection *c)
{
	struct hconn *h = conn_of(c);

	(void)g;
	if (h == NULL || h->in_request)
		return;
	h->in_request = true;
	h->deadline = clock_mono() + GUARD_REQUEST_S * WP_SEC;
}

void
guard_request_end(struct guard *g, struct MHD_Connection *c)
{
	struct hconn *h = conn_of(c);

	if (h == NULL || !h->in_request)
		return;
	h->in_request = false;
	h->deadline = clock_mono() + GUARD_IDLE_S * WP_SEC;
	unlink_conn(g, h);		/* idle from now: the youngest */
	append_conn(g, h);
}

/* --- failed passwords --- */

static struct auth_slot *
auth_find(struct guard *g, const struct sockaddr_storage *peer, bool make)
{
	struct auth_slot *s, *oldest = &g->auth[0];
	wp_time now = clock_mono();

	for (s = g->auth; s < g->auth + AUTH_SLOTS; s++) {
		if (s->since != 0 && now - s->since >=
		    GUARD_AUTH_WINDOW_S * WP_SEC)
			s->since = 0;		/* window over */
		if (s->since != 0 && same_client(&s->peer, peer))
			return s;
		if (s->since < oldest->since)
			oldest = s;
	}
	if (!make)
		return NULL;
	memset(oldest, 0, sizeof(*oldest));
	oldest->peer = *peer;
	oldest->since = now;
	return oldest;
}

unsigned
guard_auth_wait(struct guard *g, struct MHD_Connection *c)
{
	struct sockaddr_storage peer;
	struct auth_slot *s;
	wp_time left;

	peer_of(c, &peer);
	if ((s = auth_find(g, &peer, false)) == NULL ||
	    s->fails < GUARD_AUTH_FAILS)
		return 0;
	g->st.auth_limited++;
	left = s->since + GUARD_AUTH_WINDOW_S * WP_SEC - clock_mono();
	return (unsigned)(left / WP_SEC) + 1;
}

void
guard_auth_result(struct guard *g, struct MHD_Connection *c, bool ok)
{
	struct sockaddr_storage peer;
	struct auth_slot *s;

	peer_of(c, &peer);
	if (ok) {
		if ((s = auth_find(g, &peer, false)) != NULL)
			s->since = 0;
		return;
	}
	if ((s = auth_find(g, &peer, true)) != NULL && ++s->fails ==
	    GUARD_AUTH_FAILS)
		log_warnx("http: %u failed passwords from one client in "
		    "under %d s; it waits for the rest of the window",
		    GUARD_AUTH_FAILS, GUARD_AUTH_WINDOW_S);
}

/* --- life --- */

struct guard *
guard_new(struct loop *loop, const struct sockaddr_storage *ss,
    const char *listen_at, struct wp_err *err)
{
	struct guard *g;
	socklen_t len = ss->ss_family == AF_INET6 ?
	    sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int one = 1;

	if ((g = calloc(1, sizeof(*g))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	g->loop = loop;
	g->fd = -1;
	if ((g->sweeper = loop_timer_new(loop, on_sweep, g)) == NULL ||
	    (g->resume = loop_timer_new(loop, on_resume, g)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	g->fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (g->fd == -1 ||
	    setsockopt(g->fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) == -1 ||
	    (ss->ss_family == AF_INET6 && setsockopt(g->fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &one, sizeof(one)) == -1) ||
	    bind(g->fd, (const struct sockaddr *)ss, len) == -1 ||
	    listen(g->fd, SOMAXCONN) == -1) {
		err_set(err, WP_E_CONFIG, "collector: cannot listen on %s: "
		    "%s", listen_at, strerror(errno));
		goto fail;
	}
	return g;
fail:
	guard_free(g);
	return NULL;
}

int
guard_attach(struct guard *g, struct MHD_Daemon *d, guard_pump_fn pump,
    void *arg, struct wp_err *err)
{
	g->d = d;
	g->pump = pump;
	g->pump_arg = arg;
	if (loop_add_fd(g->loop, g->fd, LOOP_READ, on_accept, g) == -1)
		return err_set(err, WP_E_INTERNAL, "http: loop_add_fd");
	g->watching = true;
	return 0;
}

/* Connections still listed belong to MHD, which frees them (and calls
 * guard_notify) when it stops: stop MHD first. */
void
guard_free(struct guard *g)
{
	if (g == NULL)
		return;
	if (g->watching)
		loop_del_fd(g->loop, g->fd);
	if (g->fd != -1)
		close(g->fd);
	loop_timer_free(g->sweeper);
	loop_timer_free(g->resume);
	free(g);
}

void
guard_stats(const struct guard *g, struct http_stats *st)
{
	*st = g->st;
	st->open = g->live;
}
