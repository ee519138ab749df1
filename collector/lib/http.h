/*
 * http.h - the shared HTTP(S) transport of the Redfish and in-band drivers,
 * on the loop.  libcurl makes the connections (TLS verification on unless a
 * request says insecure, CA files, SHA-256 key pins, proxies); requests and
 * answers are HTTP/1.1 written and parsed by http_wire.c on those kept-alive
 * connections (one per http_conn, i.e. per device).  Every request has a
 * timeout and a body size cap; redirects are never followed (a 3xx is
 * returned as it is).
 */
#ifndef WP_HTTP_H
#define WP_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "clock.h"
#include "err.h"

struct loop;
struct http;
struct http_conn;
struct http_req;

#define HTTP_MAX_BODY_DEFAULT	(4u << 20)	/* 4 MiB */

struct http_req_opts {
	const char	*method;	/* "GET" (default), "POST", "DELETE" */
	const char	*url;
	const char	*body;		/* request body or NULL */
	size_t		 body_len;	/* 0: strlen(body) (binary: give it) */
	const char	*content_type;	/* for body; default application/json */
	const char *const *headers;	/* "Name: value", NULL-ended, or NULL */
	const char	*basic_user;	/* HTTP Basic when non-NULL */
	const char	*basic_password;
	const char	*ca_file;	/* the only trust anchors, or NULL:
					   the system's */
	const char	*pin_sha256;	/* "sha256//base64" or bare base64 */
	bool		 insecure;	/* skip TLS verification */
	wp_time		 timeout;	/* whole request; 0: 10 s */
	wp_time		 connect_timeout;	/* 0: min(timeout, 5 s) */
	size_t		 max_body;	/* 0: HTTP_MAX_BODY_DEFAULT */
	/*
	 * A stream (server-sent events): once the headers are in, the body
	 * is handed to stream as it arrives, in pieces, instead of being
	 * kept (max_body then caps what one read holds); the done callback
	 * still ends the exchange (the peer closed, the timeout, an error)
	 * with an empty body.  stream must not cancel or free the
	 * connection itself (arm a timer to).  NULL: an ordinary request.
	 */
	void		(*stream)(void *arg, long status, const char *p,
			    size_t n);
};

/* A finished exchange; borrowed by the callback, valid only during it. */
struct http_resp {
	long		 status;	/* HTTP status, 0 if none */
	const char	*body;		/* NUL-terminated */
	size_t		 len;
	const char	*headers;	/* raw response headers, NUL-terminated */
	const char	*content_type;	/* or NULL */
	const char	*peer_ip;	/* the address answering, or "" */
	wp_time		 elapsed;
};

/* err is NULL on transport success (any status); resp is NULL on failure. */
typedef void (*http_done_cb)(void *arg, const struct http_resp *resp,
    const struct wp_err *err);

/* Returns a new transport on l; max_inflight caps requests (0: none). */
struct http	*http_new(struct loop *l, int max_inflight, struct wp_err *err);
/* Cancels everything in flight (no callbacks) and frees. NULL-safe. */
void		 http_free(struct http *h);

/* A keep-alive connection owner (one per device); NULL on error. */
struct http_conn *http_conn_new(struct http *h, struct wp_err *err);
/* Cancels its request if any (no callback) and frees.  NULL-safe. */
void		 http_conn_free(struct http_conn *c);

/*
 * Starts one request on c (at most one in flight per connection; queued
 * if the global cap is reached).  cb runs exactly once on the loop thread,
 * never from inside http_start.  Returns 0, or -1 with err (nothing started).
 * The opts strings are copied.
 */
int	 http_start(struct http_conn *c, const struct http_req_opts *o,
	    http_done_cb cb, void *arg, struct wp_err *err);
/* Aborts c's request in flight; its callback will not run. */
void	 http_cancel(struct http_conn *c);
int	 http_busy(const struct http_conn *c);
/* Requests started or queued on h and not yet finished. */
int	 http_pending(const struct http *h);

/* Finds a response header (case-insensitive); copies its value. 0 or -1. */
/* The error class of an HTTP status that is not a success: 5xx, 408 and
 * 429 transient (retry later), 401 and 403 auth, the rest protocol. */
int	 http_status_class(long status);
int	 http_resp_header(const struct http_resp *r, const char *name,
	    char *buf, size_t len);

/*
 * Blocking convenience for one-shot commands (probe): runs the loop until
 * the request finishes.  On success *body is a new NUL-terminated buffer the
 * caller frees, *status the HTTP status; headers, if non-NULL, gets a copy
 * of the raw headers (caller frees).
 */
int	 http_fetch_sync(struct http *h, struct http_conn *c,
	    const struct http_req_opts *o, long *status, char **body,
	    size_t *len, char **headers, struct wp_err *err);

#endif
