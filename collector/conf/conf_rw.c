/*
 * conf_rw.c - collector.remote_write: a list of receivers of the
 * Prometheus remote-write protocol (docs/config.md, "Remote write").
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_ld.h"
#include "../lib/url.h"
#include "../lib/ycheck.h"

#define RW_MAX		8		/* receivers */
#define RW_NAME_MAX	64

static const char *const rw_keys[] = {
	"name", "url", "timeout", "max_queue_bytes", "ca_file", "insecure",
	"username", "password_file", "password_env", "password_credential",
	"headers", "labels", NULL
};

static bool
name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > RW_NAME_MAX || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* The default name: the URL past its scheme, other characters as '_'. */
static const char *
name_from_url(struct ld *l, const char *url)
{
	char buf[RW_NAME_MAX + 1];
	const char *p = strstr(url, "://");
	size_t i;

	p = p ? p + 3 : url;
	for (i = 0; i < RW_NAME_MAX && p[i] != '\0'; i++)
		buf[i] = isalnum((unsigned char)p[i]) || strchr(".-", p[i]) ?
		    p[i] : '_';
	buf[i] = '\0';
	return conf_own(l, buf);
}

/* headers: a map of Name: value; names are tokens, values one line,
 * and the protocol's own headers are not to be replaced. */
static void
load_headers(struct ld *l, const struct ynode *m, const char *where)
{
	static const char *const own[] = { "content-type", "content-encoding",
	    "content-length", "x-prometheus-remote-write-version",
	    "authorization", "host", "user-agent", NULL };
	const struct ynode *h;
	const char *k;
	size_t i;

	for (h = m->child; h != NULL; h = h->next) {
		for (k = h->key, i = 0; k[i]; i++)
			if (!isalnum((unsigned char)k[i]) && !strchr("-_", k[i]))
				break;
		if (*k == '\0' || k[i] != '\0')
			conf_bad(l, h, "%s: headers: '%s' is not a header name",
			    where, k);
		for (i = 0; own[i]; i++)
			if (strcasecmp(k, own[i]) == 0)
				conf_bad(l, h, "%s: headers: %s is set by the "
				    "protocol (or by username) and cannot be "
				    "given", where, k);
		if (h->type != YN_SCALAR || h->value == NULL ||
		    strpbrk(h->value, "\r\n") != NULL)
			conf_bad(l, h, "%s: headers: %s needs a one-line value",
			    where, k);
	}
}

/* labels: a map of label: value added to every series that has none of
 * that name (instance defaults to this host:port); names as Prometheus
 * allows, not reserved (__*), values one line. */
static void
load_labels(struct ld *l, const struct ynode *m, const char *where)
{
	const struct ynode *h;
	const char *k;
	size_t i, n = 0;

	for (h = m->child; h != NULL; h = h->next, n++) {
		k = h->key;
		for (i = 0; k[i]; i++)
			if (!(isalpha((unsigned char)k[i]) || k[i] == '_' ||
			    (i > 0 && isdigit((unsigned char)k[i]))))
				break;
		if (*k == '\0' || k[i] != '\0' || strncmp(k, "__", 2) == 0)
			conf_bad(l, h, "%s: labels: '%s' is not a label name "
			    "([a-zA-Z_][a-zA-Z0-9_]*, not __...)", where, k);
		if (h->type != YN_SCALAR || h->value == NULL || !*h->value ||
		    strpbrk(h->value, "\r\n") != NULL)
			conf_bad(l, h, "%s: labels: %s needs a one-line value",
			    where, k);
	}
	if (n > 15)
		conf_bad(l, m, "%s: labels: at most 15", where);
}

static void
load_auth(struct ld *l, const struct ynode *m, struct wp_remote_write *r,
    const char *where)
{
	bool pw;

	r->username = ycheck_scalar(&l->d, m, "username", where, false);
	pw = conf_secret_pair(l, m, "password", where, &r->password_file,
	    &r->password_env);
	if (r->username != NULL && !pw)
		conf_bad(l, ynode_get(m, "username"), "%s: username needs one "
		    "of password_file, password_env, password_credential",
		    where);
	if (r->username == NULL && pw)
		conf_bad(l, m, "%s: a password needs username", where);
}

static void
load_one(struct ld *l, const struct ynode *m, struct wp_remote_write *r,
    size_t i)
{
	char where[64];
	struct wp_err err;
	bool tls = false;
	long v;

	snprintf(where, sizeof(where), "collector: remote_write[%zu]", i);
	*r = (struct wp_remote_write){ .timeout = 10 * WP_SEC,
	    .max_queue_bytes = 1LL << 30, .line = m->line };
	ycheck_keys(&l->d, m, where, rw_keys);
	if ((r->url = ycheck_scalar(&l->d, m, "url", where, true)) != NULL &&
	    url_check(r->url, &tls, &err) == -1)
		conf_bad(l, ynode_get(m, "url"), "%s: %s", where, err.msg);
	r->name = ycheck_scalar(&l->d, m, "name", where, false);
	if (r->name != NULL && !name_ok(r->name))
		conf_bad(l, ynode_get(m, "name"), "%s: name '%s' must be 1..%d "
		    "letters, digits, '.', '_' or '-'", where, r->name,
		    RW_NAME_MAX);
	if (r->name == NULL && r->url != NULL)
		r->name = name_from_url(l, r->url);
	ycheck_duration(&l->d, m, "timeout", where, WP_SEC, 300 * WP_SEC,
	    "1s..5m", &r->timeout);
	/* 64 KiB .. 1 TiB (or what a long holds) */
	if (ycheck_long(&l->d, m, "max_queue_bytes", where, 65536,
	    (long)(LONG_MAX / 2 < (1LL << 40) ? LONG_MAX : (1LL << 40)),
	    &v) == 0)
		r->max_queue_bytes = v;
	r->ca_file = ycheck_scalar(&l->d, m, "ca_file", where, false);
	ycheck_bool(&l->d, m, "insecure", where, &r->insecure);
	if ((r->ca_file != NULL || r->insecure) && r->url != NULL && !tls)
		conf_bad(l, ynode_get(m, r->ca_file ? "ca_file" : "insecure"),
		    "%s: ca_file and insecure are for an https:// url", where);
	load_auth(l, m, r, where);
	if (r->username != NULL && r->url != NULL && !tls)
		conf_warn(l, ynode_get(m, "username"), "%s: a password over "
		    "http:// travels in the clear", where);
	if ((r->headers = ycheck_typed(&l->d, m, "headers", YN_MAP, where,
	    false)) != NULL)
		load_headers(l, r->headers, where);
	if ((r->labels = ycheck_typed(&l->d, m, "labels", YN_MAP, where,
	    false)) != NULL)
		load_labels(l, r->labels, where);
}

void
conf_rw_load(struct ld *l, const struct ynode *n)
{
	const struct ynode *e;
	size_t i, j, cnt = 0;

	if (n == NULL || ycheck_is_null(n))
		return;
	if (n->type != YN_SEQ) {
		conf_bad(l, n, "collector: remote_write must be a list of "
		    "{url: ...}");
		return;
	}
	cnt += ynode_count(n);
	if (cnt > RW_MAX) {
		conf_bad(l, n, "collector: remote_write: at most %d receivers",
		    RW_MAX);
		return;
	}
	if (cnt == 0 || (l->c->remote_write = calloc(cnt,
	    sizeof(*l->c->remote_write))) == NULL) {
		l->oom |= cnt > 0;
		return;
	}
	for (e = n->child, i = 0; e != NULL; e = e->next) {
		if (e->type != YN_MAP) {
			conf_bad(l, e, "collector: remote_write[%zu] must be a "
			    "mapping with url", i);
			continue;
		}
		load_one(l, e, &l->c->remote_write[i], i);
		for (j = 0; j < i; j++)
			if (l->c->remote_write[i].name != NULL &&
			    l->c->remote_write[j].name != NULL &&
			    strcmp(l->c->remote_write[i].name,
			    l->c->remote_write[j].name) == 0)
				conf_bad(l, e, "collector: remote_write[%zu]: name "
				    "'%s' is taken by remote_write[%zu] (each "
				    "has its own queue)", i,
				    l->c->remote_write[i].name, j);
		i++;
	}
	l->c->n_remote_write = i;
}
