/*
 * conf_push.c - the push listener's keys of collector: (push_listen,
 * push_url, push_tls_cert_file, push_tls_key_file; docs/config.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_ld.h"
#include "../lib/addr.h"
#include "../lib/ycheck.h"

static void
check_hostport(struct ld *l, const struct ynode *n, const char *v)
{
	char host[256];
	int port;

	if (addr_parse_hostport(v, host, sizeof(host), &port) != 0)
		conf_bad(l, n, "collector: push_listen '%s' is not host:port "
		    "(port 1..65535; IPv6 as [addr]:port)", v);
}

/* A wildcard host (any address): no URL a BMC could POST to. */
static bool
wildcard(const char *listen)
{
	char host[256];
	int port;

	if (addr_parse_hostport(listen, host, sizeof(host), &port) != 0)
		return false;	/* reported as malformed already */
	return host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 ||
	    strcmp(host, "::") == 0;
}

/* push_url: https://host[:port], no path (the listener adds its own). */
static void
check_push_url(struct ld *l, const struct ynode *n, const char *v)
{
	const char *h = strncmp(v, "https://", 8) == 0 ? v + 8 : NULL;

	if (h == NULL || *h == '\0' || strpbrk(h, "/?#@ ") != NULL)
		conf_bad(l, n, "collector: push_url '%s' is not https://host"
		    "[:port] (TLS only, no path)", v);
}

/* The push listener: host:port, the URL BMCs reach it at, TLS files
 * (its own or the exposition's: TLS is required). */
void
conf_push_load(struct ld *l, const struct ynode *m)
{
	struct wp_conf *c = l->c;
	const char *v;

	conf_set_str(l, &c->push_tls_cert_file, ycheck_scalar(&l->d, m,
	    "push_tls_cert_file", "collector", false));
	conf_set_str(l, &c->push_tls_key_file, ycheck_scalar(&l->d, m,
	    "push_tls_key_file", "collector", false));
	if ((v = ycheck_scalar(&l->d, m, "push_url", "collector", false)) !=
	    NULL) {
		check_push_url(l, ynode_get(m, "push_url"), v);
		conf_set_str(l, &c->push_url, v);
	}
	if ((c->push_tls_cert_file == NULL) != (c->push_tls_key_file == NULL))
		conf_bad(l, ynode_get(m, c->push_tls_cert_file ?
		    "push_tls_cert_file" : "push_tls_key_file"), "collector: "
		    "push_tls_cert_file and push_tls_key_file go together");
	if ((v = ycheck_scalar(&l->d, m, "push_listen", "collector", false)) ==
	    NULL) {
		if (c->push_url != NULL || c->push_tls_cert_file != NULL)
			conf_bad(l, ynode_get(m, c->push_url ? "push_url" :
			    "push_tls_cert_file"), "collector: push_url and "
			    "push_tls_* need push_listen");
		return;
	}
	check_hostport(l, ynode_get(m, "push_listen"), v);
	conf_set_str(l, &c->push_listen, v);
	if (c->push_tls_cert_file == NULL && c->tls_cert_file == NULL)
		conf_bad(l, ynode_get(m, "push_listen"), "collector: "
		    "push_listen needs TLS: set push_tls_cert_file and "
		    "push_tls_key_file (or tls_cert_file and tls_key_file)");
	if (c->push_url == NULL && wildcard(v))
		conf_bad(l, ynode_get(m, "push_listen"), "collector: "
		    "push_listen %s listens on every address: set push_url "
		    "(https://name:port, the address BMCs reach)", v);
}

