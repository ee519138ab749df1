/*
 * listen.h - what a listening server takes from its config: the address
 * to bind and its TLS certificate.  Shared by the exposition server and
 * the push listener.
 */
#ifndef WP_LISTEN_H
#define WP_LISTEN_H

#include <stdarg.h>
#include <sys/socket.h>

#include "err.h"

/* Largest certificate file (PEM chain) read. */
#define LISTEN_CERT_MAX	(1u << 20)

/* Resolves listen ("host:port"; an empty host binds every address) into
 * ss; 0, or -1 with a WP_E_CONFIG error naming it as the key what. */
int	 listen_resolve(const char *what, const char *listen,
	    struct sockaddr_storage *ss, struct wp_err *err);
/* Reads a certificate file whole (public: no privacy check).  Returns its
 * text, NUL-ended (caller frees), or NULL if unreadable, empty or over
 * LISTEN_CERT_MAX. */
char	*listen_read_cert(const char *path);
/* libmicrohttpd's logger (MHD_OPTION_EXTERNAL_LOGGER, with the name of the
 * server as its argument): its messages are about clients (a connection
 * closed early, a bad TLS hello), so debug lines, one each, "NAME: ...". */
void	 listen_mhd_log(void *name, const char *fmt, va_list ap);

#endif
