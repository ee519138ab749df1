/*
 * mb_link.c - a libmodbus connection used from a worker thread.
 *
 * libmodbus waits with select(), which cannot take a descriptor at or above
 * FD_SETSIZE (glibc aborts the process).  A collector polling thousands of
 * BMCs holds more descriptors than that, so each link reserves a low one
 * when it is made (at configuration time, when few are open) and its
 * connection is moved onto it (dup3) when it lands higher.  TCP connects
 * here (poll()), not in modbus_connect, which select()s too.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <modbus.h>

#include "../../collector/lib/log.h"
#include "../../collector/lib/lowfd.h"
#include "mb_link.h"

#define BACKOFF_MIN	(1 * WP_SEC)
#define BACKOFF_MAX	(60 * WP_SEC)

struct mb_link {
	struct mb_link_conf c;
	modbus_t	*ctx;		/* NULL while disconnected */
	wp_time		 backoff;	/* current reconnect backoff */
	wp_time		 retry_at;	/* no connect before (monotonic) */
	int		 slot;		/* reserved low descriptor, or -1 */
	bool		 in_slot;	/* the connection sits on slot */
};

struct mb_link *
mb_link_new(const struct mb_link_conf *c, struct wp_err *err)
{
	struct mb_link *l;

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	l->c = *c;
	l->slot = lowfd_reserve();
	return l;
}

static void
drop(struct mb_link *l)
{
	if (l->ctx == NULL)
		return;
	if (l->in_slot && !l->c.rtu && lowfd_release(l->slot) == 0)
		modbus_set_socket(l->ctx, -1);	/* the socket is closed */
	modbus_close(l->ctx);
	modbus_free(l->ctx);
	l->ctx = NULL;
	if (l->in_slot &&
	    fcntl(l->slot, F_GETFD) == -1) {
		/* an RTU line restored and closed by modbus_close: reserve
		 * again (the lowest free descriptor, likely the same) */
		l->slot = lowfd_reserve();
	}
	l->in_slot = false;
}

void
mb_link_free(struct mb_link *l)
{
	if (l == NULL)
		return;
	drop(l);
	if (l->slot >= 0)
		close(l->slot);
	free(l);
}

void
mb_link_end_poll(struct mb_link *l)
{
	if (l != NULL && l->c.rtu)
		drop(l);
}

void
mb_link_key(const struct mb_link_conf *c, char *buf, size_t len)
{
	if (c->rtu)
		snprintf(buf, len, "rtu:%s", c->device);
	else
		snprintf(buf, len, "tcp:%s:%d", c->host, c->port);
}

static void
set_timeout(modbus_t *ctx, wp_time t)
{
	if (t < 10 * WP_MS)
		t = 10 * WP_MS;
	modbus_set_response_timeout(ctx, (uint32_t)(t / WP_SEC),
	    (uint32_t)((t % WP_SEC) / WP_US));
	modbus_set_byte_timeout(ctx, (uint32_t)(t / WP_SEC),
	    (uint32_t)((t % WP_SEC) / WP_US));
}

static const char *
where(const struct mb_link *l, char *buf, size_t len)
{
	if (l->c.rtu)
		snprintf(buf, len, "%s unit %d", l->c.device, l->c.unit);
	else
		snprintf(buf, len, "%s:%d unit %d", l->c.host, l->c.port,
		    l->c.unit);
	return buf;
}

static modbus_t *
new_ctx(const struct mb_link *l)
{
	char port[16];

	if (l->c.rtu)
		return modbus_new_rtu(l->c.device, l->c.baud, l->c.parity,
		    l->c.data_bits, l->c.stop_bits);
	snprintf(port, sizeof(port), "%d", l->c.port);
	return modbus_new_tcp_pi(l->c.host, port);
}

/* A connected TCP socket to the link's host and port (non-blocking, as
 * libmodbus makes it), or -1 with errno set. */
static int
tcp_connect(const struct mb_link *l, wp_time timeout)
{
	struct addrinfo hints, *ai, *a;
	char port[16];
	int fd = -1, e = ECONNREFUSED, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", l->c.port);
	if (getaddrinfo(l->c.host, port, &hints, &ai) != 0) {
		errno = EHOSTUNREACH;
		return -1;
	}
	for (a = ai; a != NULL; a = a->ai_next) {
		struct pollfd p;
		socklen_t len = sizeof(e);

		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		e = errno;
		p.fd = fd;
		p.events = POLLOUT;
		if (e == EINPROGRESS && poll(&p, 1, (int)(timeout / WP_MS)) ==
		    1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 &&
		    e == 0)
			break;
		if (e == EINPROGRESS)
			e = ETIMEDOUT;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		errno = e;
	return fd;
}

/* Puts the connection's descriptor fd where select() can take it and
 * hands it to libmodbus.  0, or -1 with errno set (fd closed). */
static int
place(struct mb_link *l, int fd)
{
	if (fd >= FD_SETSIZE) {
		if (lowfd_move(fd, l->slot) == -1) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		fd = l->slot;
		l->in_slot = true;
	}
	return modbus_set_socket(l->ctx, fd);
}

/* Opens the connection of a fresh context.  0, or -1 with errno set. */
static int
open_conn(struct mb_link *l, wp_time timeout)
{
	int fd;

	if (!l->c.rtu) {
		if ((fd = tcp_connect(l, timeout)) < 0)
			return -1;
		return place(l, fd);
	}
	if (modbus_connect(l->ctx) == -1)
		return -1;
	if ((fd = modbus_get_socket(l->ctx)) < FD_SETSIZE)
		return 0;
	/* drop() closes the line (restoring its settings) and reserves
	 * a descriptor again */
	if (lowfd_move(fd, l->slot) == -1)
		return -1;
	l->in_slot = true;
	return modbus_set_socket(l->ctx, l->slot);
}

/* Connects if needed, honouring the backoff.  0 or -1. */
static int
ensure(struct mb_link *l, wp_time timeout, struct wp_err *err)
{
	wp_time now = clock_mono();
	char w[300];
	int e;

	if (l->ctx != NULL)
		return 0;
	if (now < l->retry_at)
		return err_set(err, WP_E_TRANSIENT, "%s: reconnect backoff, "
		    "next try in %.1fs", where(l, w, sizeof(w)),
		    (double)(l->retry_at - now) / WP_SEC);
	if ((l->ctx = new_ctx(l)) == NULL)
		return err_set(err, WP_E_CONFIG, "%s: %s",
		    where(l, w, sizeof(w)), modbus_strerror(errno));
	set_timeout(l->ctx, timeout);
	if (modbus_set_slave(l->ctx, l->c.unit) == -1 ||
	    open_conn(l, timeout) == -1) {
		e = errno;
		drop(l);
		l->backoff = l->backoff == 0 ? BACKOFF_MIN :
		    (l->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX :
		    l->backoff * 2);
		l->retry_at = clock_mono() + l->backoff;
		return err_set(err, WP_E_TRANSIENT, "%s: connect: %s",
		    where(l, w, sizeof(w)), modbus_strerror(e));
	}
	l->backoff = 0;
	return 0;
}

static bool
is_exception(int e)
{
	return e >= EMBXILFUN && e <= EMBXGTAR;
}

/* A reply that broke framing: the stream cannot be trusted any more. */
static bool
is_desync(int e)
{
	return e == EMBBADCRC || e == EMBBADDATA || e == EMBBADEXC ||
	    e == EMBUNKEXC || e == EMBMDATA || e == EMBBADSLAVE;
}

static int
read_one(struct mb_link *l, const struct rm_read *r, uint16_t *dst)
{
	int rc;

	if (r->fc == 3)
		rc = modbus_read_registers(l->ctx, r->addr, r->count, dst);
	else
		rc = modbus_read_input_registers(l->ctx, r->addr, r->count,
		    dst);
	if (rc == r->count)
		return 0;
	if (rc >= 0)
		errno = EMBMDATA;
	return -1;
}

/*
 * One read with recovery: a desync or a dropped connection closes the
 * link and the read is tried once more on a fresh connection.  Returns 0,
 * an exception code (> 0), or -1 with err set.
 */
static int
read_retry(struct mb_link *l, const struct rm_read *r, uint16_t *dst,
    wp_time deadline, struct wp_err *err)
{
	char w[300];
	wp_time left;
	int attempt, e = 0;

	for (attempt = 0; attempt < 2; attempt++) {
		left = deadline - clock_mono();
		if (left <= 0)
			return err_set(err, WP_E_TRANSIENT, "%s: poll deadline "
			    "passed", where(l, w, sizeof(w)));
		if (left > l->c.timeout)
			left = l->c.timeout;
		if (ensure(l, left, err) == -1)
			return -1;
		set_timeout(l->ctx, left);
		if (read_one(l, r, dst) == 0)
			return 0;
		e = errno;
		if (is_exception(e) && e != EMBXGPATH && e != EMBXGTAR)
			return e - MODBUS_ENOBASE;
		if (e == ETIMEDOUT || e == EMBXGPATH || e == EMBXGTAR) {
			/* unit not answering: do not hold the line longer;
			 * anything arriving late is flushed, and a reply
			 * that still comes later is caught as a desync */
			if (e == ETIMEDOUT)
				modbus_flush(l->ctx);
			break;
		}
		/* desync, CRC, reset or refused: start over cleanly */
		drop(l);
		if (attempt == 0)
			log_info("%s: %s; reconnecting", where(l, w, sizeof(w)),
			    modbus_strerror(e));
		if (!is_desync(e) && e != ECONNRESET && e != EPIPE &&
		    e != EBADF && e != ENOTCONN)
			break;
	}
	return err_set(err, WP_E_TRANSIENT, "%s: fc%d read of %u at %u: %s",
	    where(l, w, sizeof(w)), r->fc, r->count, r->addr,
	    modbus_strerror(e));
}

int
mb_link_read_plan(struct mb_link *l, const struct rm_read *r, size_t n,
    uint16_t *regs, int *status, wp_time deadline, atomic_bool *abort,
    struct wp_err *err)
{
	size_t i, off = 0;
	int rc;

	for (i = 0; i < n; i++) {
		if (abort != NULL && atomic_load(abort))
			return err_set(err, WP_E_TRANSIENT, "poll cancelled");
		rc = read_retry(l, &r[i], regs + off, deadline, err);
		if (rc == -1)
			return -1;
		status[i] = rc;
		off += r[i].count;
	}
	return 0;
}
