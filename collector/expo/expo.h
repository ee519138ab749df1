/*
 * expo.h - the exposition HTTP server (libmicrohttpd) on the collector's
 * loop: one thread, no locks.  MHD runs in its epoll mode without threads;
 * its epoll fd is watched by the loop and MHD_run is called on readiness
 * and at the timeout MHD asks for.  Listens on collector.listen, with TLS
 * (collector.tls_cert_file, tls_key_file) and HTTP Basic auth
 * (collector.http_user + http_password_file or _env) when configured.
 *   /metrics           Prometheus text exposition (expo_metrics.h)
 *   /api/v1/...        JSON (expo_api.h); report and curves on worker
 *                      threads of the server's own, the connection
 *                      suspended meanwhile (503 + Retry-After when busy)
 *   /                  the dashboard, HTML with inline SVG (dashboard.h)
 *   /healthz           "ok"
 * A history of fleet figures (expo_history.h) is sampled every interval.
 * Endpoints and metrics: docs/exposition.md.
 */
#ifndef WP_EXPO_H
#define WP_EXPO_H

#include "../lib/err.h"

struct loop;
struct collector;
struct expo;

/* Starts serving co on loop.  Returns a new server (caller frees with
 * expo_free), or NULL with err set (e.g. the address is in use). */
struct expo	*expo_new(struct loop *loop, struct collector *co,
		    struct wp_err *err);
void		 expo_free(struct expo *x);	/* NULL-safe */

#endif
