/* listen.c - listening address and certificate; see listen.h. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "listen.h"
#include "log.h"

int
listen_resolve(const char *what, const char *listen,
    struct sockaddr_storage *ss, struct wp_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_PASSIVE }, *ai;
	char host[256], port_s[16];
	int port, rc;

	if (addr_parse_hostport(listen, host, sizeof(host), &port) == -1)
		return err_set(err, WP_E_CONFIG, "collector: %s '%s' is not "
		    "host:port", what, listen);
	snprintf(port_s, sizeof(port_s), "%d", port);
	if ((rc = getaddrinfo(*host ? host : NULL, port_s, &hints, &ai)) != 0)
		return err_set(err, WP_E_CONFIG, "collector: %s %s: %s", what,
		    listen, gai_strerror(rc));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

char *
listen_read_cert(const char *path)
{
	FILE *f;
	char *buf;
	size_t n;

	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	if ((buf = calloc(1, LISTEN_CERT_MAX + 1)) != NULL &&
	    ((n = fread(buf, 1, LISTEN_CERT_MAX + 1, f)) == 0 ||
	    n > LISTEN_CERT_MAX)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

void
listen_mhd_log(void *name, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;

	if (log_get_level() < LOG_LVL_DEBUG)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	log_debug("%s: %s", (const char *)name, line);
}
