/*
 * conf_peer.c - collector.peers: the other sites' collectors whose fleet
 * figures the dashboard's Sites view shows beside this one's
 * (docs/config.md, "peers"; collector/expo/expo_sites.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_ld.h"
#include "../lib/url.h"
#include "../lib/ycheck.h"

#define PEER_MAX	16
#define PEER_NAME_MAX	64

static const char *const peer_keys[] = {
	"name", "url", "timeout", "ca_file", "insecure", "username",
	"password_file", "password_env", "password_credential", NULL
};

static bool
name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PEER_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* url: http(s)://host[:port][/prefix], no query; the API's base. */
static void
check_url(struct ld *l, const struct ynode *m, struct wp_peer *p,
    const char *where, bool *tls)
{
	struct wp_err err;
	const char *u = p->url;

	if (u == NULL)
		return;
	if (strstr(u, "://") == NULL)
		conf_bad(l, ynode_get(m, "url"), "%s: url '%s' needs its "
		    "scheme: https://%s (or http://)", where, u, u);
	else if (url_check(u, tls, &err) == -1)
		conf_bad(l, ynode_get(m, "url"), "%s: %s", where, err.msg);
	else if (strpbrk(u, "?#") != NULL)
		conf_bad(l, ynode_get(m, "url"), "%s: url is the collector's "
		    "base (https://host:port), without a query", where);
}

static void
load_one(struct ld *l, const struct ynode *m, struct wp_peer *p, size_t i)
{
	char where[64];
	bool tls = false, pw;

	snprintf(where, sizeof(where), "collector: peers[%zu]", i);
	*p = (struct wp_peer){ .timeout = 5 * WP_SEC, .line = m->line };
	ycheck_keys(&l->d, m, where, peer_keys);
	p->name = ycheck_scalar(&l->d, m, "name", where, true);
	if (p->name != NULL && !name_ok(p->name))
		conf_bad(l, ynode_get(m, "name"), "%s: name '%s' must be 1..%d "
		    "letters, digits, '.', '_' or '-' (the site.name of that "
		    "collector)", where, p->name, PEER_NAME_MAX);
	p->url = ycheck_scalar(&l->d, m, "url", where, true);
	check_url(l, m, p, where, &tls);
	ycheck_duration(&l->d, m, "timeout", where, WP_SEC, 60 * WP_SEC,
	    "1s..1m", &p->timeout);
	p->ca_file = ycheck_scalar(&l->d, m, "ca_file", where, false);
	ycheck_bool(&l->d, m, "insecure", where, &p->insecure);
	if ((p->ca_file != NULL || p->insecure) && p->url != NULL && !tls)
		conf_bad(l, ynode_get(m, p->ca_file ? "ca_file" : "insecure"),
		    "%s: ca_file and insecure are for an https:// url", where);
	p->username = ycheck_scalar(&l->d, m, "username", where, false);
	pw = conf_secret_pair(l, m, "password", where, &p->password_file,
	    &p->password_env);
	if (p->username != NULL && !pw)
		conf_bad(l, ynode_get(m, "username"), "%s: username needs one "
		    "of password_file, password_env, password_credential",
		    where);
	if (p->username == NULL && pw)
		conf_bad(l, m, "%s: a password needs username", where);
	if (p->username != NULL && p->url != NULL && !tls)
		conf_warn(l, ynode_get(m, "username"), "%s: a password over "
		    "http:// travels in the clear", where);
}

static bool
str_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* A peer of this site's own name is another shard of it: only for a
 * sharded collector (several peers of one name are a sharded site's
 * collectors, checked by the Sites view against their answers). */
static void
check_own(struct ld *l, const struct ynode *e, const struct wp_peer *p,
    size_t i)
{
	const char *self = l->c->site.name;

	if (str_same(p->name, self) && l->c->shard_count == 0)
		conf_bad(l, e, "collector: peers[%zu]: '%s' is this "
		    "collector's own site.name (a peer of its own site is "
		    "another of its shards: this collector has no "
		    "collector.shard)", i, self);
}

void
conf_peer_load(struct ld *l, const struct ynode *n)
{
	const struct ynode *e;
	const char *self = l->c->site.name;
	size_t i, j, cnt = 0;

	if (n == NULL || ycheck_is_null(n))
		return;
	if (n->type != YN_SEQ) {
		conf_bad(l, n, "collector: peers must be a list of {name: "
		    "SITE, url: https://host:port}");
		return;
	}
	for (e = n->child; e != NULL; e = e->next)
		cnt++;
	if (cnt > 0 && (self == NULL || *self == '\0'))
		conf_bad(l, n, "collector: peers need site.name (this "
		    "collector's own row in the Sites view)");
	if (cnt > PEER_MAX) {
		conf_bad(l, n, "collector: peers: at most %d", PEER_MAX);
		return;
	}
	if (cnt == 0 || (l->c->peers = calloc(cnt,
	    sizeof(*l->c->peers))) == NULL) {
		l->oom |= cnt > 0;
		return;
	}
	for (e = n->child, i = 0; e != NULL; e = e->next) {
		if (e->type != YN_MAP) {
			conf_bad(l, e, "collector: peers[%zu] must be a "
			    "mapping with name and url", i);
			continue;
		}
		load_one(l, e, &l->c->peers[i], i);
		check_own(l, e, &l->c->peers[i], i);
		for (j = 0; j < i; j++)
			if (str_same(l->c->peers[i].url, l->c->peers[j].url))
				conf_bad(l, e, "collector: peers[%zu]: url "
				    "'%s' is also peers[%zu]'s", i,
				    l->c->peers[i].url, j);
		i++;
	}
	l->c->n_peers = i;
}
