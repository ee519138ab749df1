/*
 * guard.h - the exposition's listening socket and what keeps one client
 * from taking the server.  The guard accepts on the loop (level-
 * triggered: a backlog is never forgotten) and hands each connection to
 * libmicrohttpd with MHD_add_connection; it counts them, in all and per
 * client address, and gives every one a deadline:
 *
 *   - GUARD_HEADER_S to send a request's headers, counted from the
 *     accept or from the end of the previous request on the connection
 *     (GUARD_IDLE_S between requests of a kept-alive one);
 *   - GUARD_REQUEST_S for a request from its headers to its answer sent.
 *
 * A connection past its deadline is shut down.  At a limit the oldest
 * connection of that scope that is not in a request (half-open, or idle
 * between requests) gives way to the new one; with none, the new one is
 * closed.  So a flood of half-open connections from one address or
 * many never locks out a real client, and when a flood ends the server
 * answers at once.
 *
 * It also counts failed Basic-auth attempts per client address: past
 * GUARD_AUTH_FAILS in GUARD_AUTH_WINDOW_S, that address is answered 429
 * until the window ends; a good password clears its count.
 *
 * The owner creates the guard (it binds), starts MHD with
 * MHD_USE_NO_LISTEN_SOCKET and guard_notify as MHD_OPTION_NOTIFY_CONNECTION,
 * then guard_attach.  Loop thread only.
 */
#ifndef WP_GUARD_H
#define WP_GUARD_H

#include <stdbool.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "../lib/err.h"
#include "expo_fleet.h"

#define GUARD_MAX_CONNS		256	/* in all */
#define GUARD_MAX_PER_CLIENT	64	/* per client address */
#define GUARD_HEADER_S		10
#define GUARD_IDLE_S		30
#define GUARD_REQUEST_S		300
#define GUARD_AUTH_FAILS	10
#define GUARD_AUTH_WINDOW_S	60

struct loop;
struct guard;

/* Called after connections were handed to MHD or shut down: the owner
 * runs MHD. */
typedef void (*guard_pump_fn)(void *arg);

/* Binds and listens on ss (SOCK_STREAM, non-blocking); caller frees with
 * guard_free, which closes it.  NULL with err set. */
struct guard	*guard_new(struct loop *loop, const struct sockaddr_storage *ss,
		    const char *listen, struct wp_err *err);
/* Starts accepting for d; pump(arg) after each batch.  0 or -1. */
int		 guard_attach(struct guard *g, struct MHD_Daemon *d,
		    guard_pump_fn pump, void *arg, struct wp_err *err);
void		 guard_free(struct guard *g);		/* NULL-safe */

/* MHD_OPTION_NOTIFY_CONNECTION, with the guard as its closure. */
void		 guard_notify(void *cls, struct MHD_Connection *c,
		    void **socket_context, enum MHD_ConnectionNotificationCode);
/* A request on c has its headers / is done (MHD_OPTION_NOTIFY_COMPLETED). */
void		 guard_request_begin(struct guard *g, struct MHD_Connection *c);
void		 guard_request_end(struct guard *g, struct MHD_Connection *c);

/* Seconds c's client must wait before another password is tried, 0 if
 * it may now. */
unsigned	 guard_auth_wait(struct guard *g, struct MHD_Connection *c);
/* The password c sent was wrong / right. */
void		 guard_auth_result(struct guard *g, struct MHD_Connection *c,
		    bool ok);

/* The connections now and since the start (for /metrics). */
void		 guard_stats(const struct guard *g, struct http_stats *st);

#endif
