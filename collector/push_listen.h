/*
 * push_listen.h - the push listener (collector.push_listen): an HTTPS
 * server on the loop to which devices POST their reports (Redfish
 * EventService subscriptions, EventFormatType MetricReport).
 *
 * It knows no protocol: a POST to PUSH_LISTEN_PATH<token> with a body of
 * at most PUSH_BODY_MAX bytes is handed, whole, to route() with the
 * token, the sender's numeric address and the body; route() says whether
 * the token names a target (the owner then hands the body to the
 * target's driver, or counts it oversized).  A token that names none, or
 * another path, is refused (HTTP 404) and counted here as
 * WP_PUSH_UNKNOWN_SENDER; another method is refused (405) and counted
 * malformed.  TLS is required: the certificate and key are PEM files
 * read at start.  Connections are capped (64, 8 per address, 10 s idle).
 * All on the loop thread.
 */
#ifndef WP_PUSH_LISTEN_H
#define WP_PUSH_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "lib/push.h"

struct loop;
struct push_listen;

#define PUSH_LISTEN_PATH	"/wattpath/push/"
#define PUSH_BODY_MAX		(1u << 20)	/* one POSTed report, bytes */
#define PUSH_TOKEN_LEN		64		/* hex characters */

/* What a listener got: 0 routed (taken), -1 no target has token.  body
 * is borrowed for the call; oversized: it went over PUSH_BODY_MAX (body
 * is then "" and must be refused). */
typedef int (*push_route_cb)(void *arg, const char *token, const char *peer,
    const char *body, size_t len, bool oversized);

/* A listener on listen (host:port) with TLS from the PEM files cert and
 * key (the key read as a secret).  Returns it (free with
 * push_listen_free), or NULL with err. */
struct push_listen *push_listen_new(struct loop *l, const char *listen,
		    const char *cert, const char *key, push_route_cb route,
		    void *arg, struct wp_err *err);
void	 push_listen_free(struct push_listen *pl);	/* NULL-safe */
/* The refusals counted here (no target), by WP_PUSH_*. */
const unsigned long *push_listen_refused(const struct push_listen *pl);

/* Fills tok (PUSH_TOKEN_LEN + 1 bytes) with a new random hex token.
 * 0, or -1 with err (no randomness). */
int	 push_token_new(char *tok, struct wp_err *err);
/* Constant-time comparison of two tokens (of PUSH_TOKEN_LEN hex
 * characters; a shorter or longer a is unequal). */
bool	 push_token_eq(const char *a, const char *b);

#endif
