/*
 * redfish_bmc.h - one BMC as the Redfish driver's targets share it: one
 * keep-alive connection, one session, one request in flight.
 *
 * A BMC is known by its base URL, authentication, user, where the
 * password comes from and the TLS settings (the key); every target with
 * the same key shares one struct rf_bmc (through wp_services.shared, the
 * runtime's table; without one, each target has its own).  So the nodes
 * of a two-node blade, or of an enclosure, poll over one connection and
 * one session.  Targets take turns: a target asks (rf_bmc_want), its
 * ready() runs when the session is open and the connection is its own,
 * it sends requests (rf_bmc_request) and gets each answer() until it says
 * it is done (rf_bmc_done); the next target waiting is then served.
 *
 * Sessions: POST SessionService/Sessions (405: the legacy
 * /redfish/v1/Sessions), 201/204/200 accepted, the URI from Location or
 * the body's @odata.id, X-Auth-Token.  The URI and token are kept in
 * <state_dir>/redfish-session-<host_port>-<user> (0600) so that the next
 * start deletes a session a crash left behind, before logging in.  A 401
 * on a target's request drops the token and logs in again once per poll
 * (rf_user.relogged), then the target is ready again and repeats its
 * request.  A login or a stale DELETE in flight is never cancelled: when
 * the target it served goes, the next one (or nobody) takes the turn.
 * When the last target goes (rf_bmc_unref), the session is deleted
 * (2 s; the connection goes with the DELETE) and the state file removed
 * only if it still names this session.
 */
#ifndef WP_REDFISH_BMC_H
#define WP_REDFISH_BMC_H

#include <stdbool.h>

#include "../../collector/lib/clock.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/http.h"

enum rf_auth { AUTH_SESSION, AUTH_BASIC, AUTH_NONE };

/* What identifies a BMC (strings borrowed by rf_bmc_get, copied). */
struct rf_bmc_conf {
	const char	*base;		/* scheme://host[:port] */
	int		 auth;		/* enum rf_auth */
	const char	*user;		/* or NULL */
	const char	*pw_file, *pw_env;	/* where the password is */
	const char	*ca_file, *pin;
	bool		 insecure;
};

/* A target using a BMC; embedded in the target, callbacks set by it. */
struct rf_user {
	/* Its turn: the session is open; send a request or say done. */
	void		(*ready)(struct rf_user *u);
	/* The answer to its request (r NULL: transport error e). */
	void		(*answer)(struct rf_user *u, const struct http_resp *r,
			    const struct wp_err *e);
	/* The session could not be opened (e says why); its turn ends. */
	void		(*failed)(struct rf_user *u, const struct wp_err *e);
	const char	*name;		/* for log lines */
	wp_time		 timeout;	/* of its requests */
	bool		 relogged;	/* logged in again this poll */
	/* the BMC's */
	struct rf_user	*next;
	bool		 queued;
};

struct rf_bmc;

/*
 * The BMC for c: the one svc->shared holds under the same key (a new
 * user of it), or a new one put there.  Returns it (drop with
 * rf_bmc_unref), or NULL with err on ENOMEM.
 */
struct rf_bmc	*rf_bmc_get(const struct rf_bmc_conf *c,
		    const struct wp_services *svc, struct wp_err *err);
/* One more holder of b (a request that outlives its target, such as
 * the DELETE of a push subscription, which needs the session): drop it
 * with rf_bmc_unref. */
void		 rf_bmc_ref(struct rf_bmc *b);
/* One user less; the last one deletes the session and frees b.
 * NULL-safe. */
void		 rf_bmc_unref(struct rf_bmc *b);

/* Queues u for its turn (ready() runs at once when the BMC is idle). */
void	 rf_bmc_want(struct rf_bmc *b, struct rf_user *u);
/*
 * Sends u's request (it must have the turn): method, path ("/redfish/..."
 * or an absolute URL), slow: a discovery request (timeout at least 10 s).
 * Returns 0, or -1 with err (nothing sent).
 */
int	 rf_bmc_request(struct rf_bmc *b, struct rf_user *u, const char *method,
	    const char *path, bool slow, struct wp_err *err);
/* u is done for now: the next user waiting gets the turn. */
void	 rf_bmc_done(struct rf_bmc *b, struct rf_user *u);
/*
 * u goes (its poll was cancelled, or the target is freed): out of the
 * queue; if it has the turn, its own request in flight is cancelled and
 * the turn passes (a login or stale DELETE goes on).
 */
void	 rf_bmc_leave(struct rf_bmc *b, struct rf_user *u);
/* Does u have the turn? */
bool	 rf_bmc_serving(const struct rf_bmc *b, const struct rf_user *u);
/* "session", "basic" or "no auth"; the base URL. */
const char *rf_bmc_auth_name(const struct rf_bmc *b);
const char *rf_bmc_base(const struct rf_bmc *b);
/*
 * The settings of a request to b on another connection than b's own (the
 * SSE stream): URL base + path, authentication (the session's token in
 * hdr, "X-Auth-Token: ..."; Basic), TLS.  o's strings are borrowed from b
 * and hdr (len bytes, wiped by the caller after http_start).  Returns 0,
 * or -1 when session auth has no session yet (a poll opens one).
 */
int	 rf_bmc_side_opts(const struct rf_bmc *b, struct http_req_opts *o,
	    char *url, size_t urllen, const char *path, char *hdr,
	    size_t len);
/* Users of b (for tests). */
int	 rf_bmc_users(const struct rf_bmc *b);

#endif
