/*
 * conf.c - wattpath.yaml: libyaml events -> struct ynode tree ->
 * validated struct wp_conf with derived targets.  See conf.h and
 * docs/config.md.  Every problem is collected (never the first one only),
 * sorted by file and line, then handed to the caller.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "conf_ld.h"
#include "conf_rack.h"
#include "conf_tenant.h"
#include "conf_drift.h"
#include "conf_report.h"
#include "../lib/diag.h"
#include "../lib/hmap.h"
#include "../lib/ycheck.h"
#include "../lib/log.h"
#include "../lib/secret.h"
#include "../lib/shard.h"

#define NAME_MAX_LEN	63		/* node, pdu, meter, credential names */

/* ---------------------------------------------------------------- errors */

static int
push_msg(char ***v, size_t *n, size_t *cap, char *s)
{
	char **nv;
	size_t ncap;

	if (s == NULL)
		return -1;
	if (*n == *cap) {
		ncap = *cap ? *cap * 2 : 8;
		nv = realloc(*v, ncap * sizeof(*nv));
		if (nv == NULL) {
			free(s);
			return -1;
		}
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = s;
	return 0;
}

static char *
fmt_msg(const char *file, int line, const char *pfx, const char *fmt,
    va_list ap)
{
	char body[1024], *s;
	int r;

	vsnprintf(body, sizeof(body), fmt, ap);
	if (line > 0)
		r = asprintf(&s, "%s:%d: %s%s", file, line, pfx, body);
	else
		r = asprintf(&s, "%s: %s%s", file, pfx, body);
	return r < 0 ? NULL : s;
}

void
conf_errs_add(struct conf_errs *e, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	push_msg(&e->msg, &e->n, &e->cap, fmt_msg(file, line, "", fmt, ap));
	va_end(ap);
}

void
conf_errs_warn(struct conf_errs *e, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	push_msg(&e->warn, &e->n_warn, &e->cap_warn,
	    fmt_msg(file, line, "warning: ", fmt, ap));
	va_end(ap);
}

void
conf_errs_fini(struct conf_errs *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->n; i++)
		free(e->msg[i]);
	for (i = 0; i < e->n_warn; i++)
		free(e->warn[i]);
	free(e->msg);
	free(e->warn);
	memset(e, 0, sizeof(*e));
}

/* ------------------------------------------------------------- loading */

/* A name in an array of structs whose first member is their name. */
struct name_key {
	const void	*base;
	size_t		 stride;
	const char	*name;
};

static bool
name_eq(const void *entry, const void *key)
{
	const struct name_key *k = key;
	const char *const *nm = (const void *)((const char *)k->base +
	    hmap_ix_of(entry) * k->stride);

	return strcmp(*nm, k->name) == 0;
}

/* The element named name of base[0..] (stride bytes each), or NULL. */
static const void *
by_name(const struct hmap *m, const void *base, size_t stride,
    const char *name)
{
	struct name_key k = { base, stride, name };
	const void *e;

	if (name == NULL || base == NULL ||
	    (e = hmap_get(m, hmap_hash(name), name_eq, &k)) == NULL)
		return NULL;
	return (const char *)base + hmap_ix_of(e) * stride;
}

/* As by_name, for a config built by hand (no index): a scan of base[0..n). */
static const void *
scan_name(const void *base, size_t n, size_t stride, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && base != NULL && i < n; i++)
		if (strcmp(*(const char *const *)(const void *)
		    ((const char *)base + i * stride), name) == 0)
			return (const char *)base + i * stride;
	return NULL;
}

/* Puts the position i of an array into m under name; notes out of memory. */
static void
index_name(struct ld *l, struct hmap *m, const char *name, size_t i)
{
	if (hmap_put(m, hmap_hash(name), hmap_ix(i)) == -1)
		l->oom = true;
}

/* Moves every diagnostic, in order, into errs; d is empty after. */
static void
dg_flush(struct diag *d, struct conf_errs *errs)
{
	size_t i;

	diag_sort(d);
	for (i = 0; i < d->n; i++)
		if (d->v[i].warn)
			conf_errs_warn(errs, d->v[i].file, d->v[i].line, "%s",
			    d->v[i].msg);
		else
			conf_errs_add(errs, d->v[i].file, d->v[i].line, "%s",
			    d->v[i].msg);
	diag_fini(d);
}

static void
vbad(struct ld *l, const struct ynode *n, bool warn, const char *fmt,
    va_list ap)
{
	diag_vadd(&l->d, n ? n->file : NULL, n ? n->line : 0, warn, fmt, ap);
}

void
conf_bad(struct ld *l, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbad(l, n, false, fmt, ap);
	va_end(ap);
}

void
conf_warn(struct ld *l, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbad(l, n, true, fmt, ap);
	va_end(ap);
}

char *
conf_own(struct ld *l, const char *s)
{
	struct conf_priv *pv = l->pv;
	char *d;

	if ((d = strdup(s)) == NULL ||
	    push_msg(&pv->strs, &pv->n_strs, &pv->cap_strs, d) < 0) {
		l->oom = true;
		return NULL;
	}
	return d;
}

static bool
name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > NAME_MAX_LEN || !isalnum((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' &&
		    s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* The required, well-formed name of an inventory entry, or NULL. */
static const char *
get_name(struct ld *l, const struct ynode *map, const char *what)
{
	const char *name = ycheck_scalar(&l->d, map, "name", what, true);

	if (name != NULL && !name_ok(name)) {
		conf_bad(l, ynode_get(map, "name"), "%s name '%s': use 1..%d "
		    "letters, digits, '-', '_' or '.', starting with a letter "
		    "or digit", what, name, NAME_MAX_LEN);
		return NULL;
	}
	return name;
}

/* The name of an entry for messages, even a bad one. */
static const char *
entry_name(const struct ynode *m)
{
	const char *s = ynode_str(m, "name");

	return s != NULL && *s != '\0' ? s : "(unnamed)";
}

/* "host:port", "[v6]:port" or, when bare_ok, a host name without port. */
static void
check_hostport(struct ld *l, const struct ynode *n, const char *where,
    const char *key, bool bare_ok)
{
	char host[256], tmp[300];
	int port;

	if (addr_parse_hostport(n->value, host, sizeof(host), &port) == 0)
		return;
	if (bare_ok && strchr(n->value, ':') == NULL &&
	    strlen(n->value) < sizeof(tmp) - 3) {
		snprintf(tmp, sizeof(tmp), "%s:1", n->value);
		if (addr_parse_hostport(tmp, host, sizeof(host), &port) == 0)
			return;
	}
	conf_bad(l, n, "%s: %s '%s' is not host:port (port 1..65535; IPv6 as "
	    "[addr]:port)", where, key, n->value);
}

/* collector: */
static const char *const collector_keys[] = {
	"interval", "timeout", "backoff_max", "data_dir", "listen",
	"rrdcached", "log_level", "syslog", "maps_dir", "journal_retention",
	"fsync", "workers", "http_max_inflight", "tls_cert_file",
	"tls_key_file", "http_user", "http_password_file", "http_password_env",
	"http_password_credential", "rrd_write_delay", "poll_batch", "shard",
	"ledger_slot", "ledger_retention", "remote_write", "peers",
	"push_listen", "push_url", "push_tls_cert_file", "push_tls_key_file",
	NULL
};

void
conf_set_str(struct ld *l, char **dst, const char *v)
{
	char *d;

	if (v == NULL)
		return;
	if ((d = strdup(v)) == NULL) {
		l->oom = true;
		return;
	}
	free(*dst);
	*dst = d;
}

/* Whether a listen address (host:port, checked) is a loopback one. */
static bool
loopback(const char *listen)
{
	char host[256];
	int port;

	if (addr_parse_hostport(listen, host, sizeof(host), &port) != 0)
		return true;	/* reported as malformed already */
	return strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0 ||
	    strcmp(host, "localhost") == 0;
}

/* The exposition server's TLS files and Basic auth user and secret. */
static void
load_collector_http(struct ld *l, const struct ynode *m)
{
	struct wp_conf *c = l->c;
	const char *pf = NULL, *pe = NULL;
	bool hp;

	conf_set_str(l, &c->tls_cert_file, ycheck_scalar(&l->d, m, "tls_cert_file",
	    "collector", false));
	conf_set_str(l, &c->tls_key_file, ycheck_scalar(&l->d, m, "tls_key_file",
	    "collector", false));
	conf_set_str(l, &c->http_user, ycheck_scalar(&l->d, m, "http_user", "collector",
	    false));
	/* the same checks as a credential's: a private file of the right
	 * size, or a variable that must be set when wattpath runs */
	hp = conf_secret_pair(l, m, "http_password", "collector", &pf, &pe);
	conf_set_str(l, &c->http_password_file, pf);
	conf_set_str(l, &c->http_password_env, pe);
	if ((c->tls_cert_file == NULL) != (c->tls_key_file == NULL))
		conf_bad(l, ynode_get(m, c->tls_cert_file ? "tls_cert_file" :
		    "tls_key_file"), "collector: tls_cert_file and "
		    "tls_key_file go together");
	if (c->http_user != NULL && !hp)
		conf_bad(l, ynode_get(m, "http_user"), "collector: http_user needs "
		    "one of http_password_file, http_password_env, "
		    "http_password_credential");
	if (c->http_user == NULL && hp)
		conf_bad(l, m, "collector: an http password needs http_user");
	if (c->http_user == NULL && c->listen != NULL && !loopback(c->listen))
		conf_warn(l, ynode_get(m, "listen"), "collector: listen %s is not a "
		    "loopback address and has no http_user: anyone who reaches "
		    "it reads every figure and the API (set http_user with a "
		    "password, and tls_cert_file)", c->listen);
}

/* maps_dir: a directory; a relative one is the config file's, never
 * the working directory's. */
static void
load_maps_dir(struct ld *l, const struct ynode *n, const char *v)
{
	struct stat st;
	char *abs = NULL;

	if (*v != '/' && l->c->conf_dir != NULL) {
		if (asprintf(&abs, "%s/%s", l->c->conf_dir, v) < 0) {
			l->oom = true;
			return;
		}
		v = abs;
	}
	if (stat(v, &st) < 0 || !S_ISDIR(st.st_mode))
		conf_bad(l, n, "collector: maps_dir %s is not a directory", v);
	conf_set_str(l, &l->c->maps_dir, v);
	free(abs);
}

static void
load_collector_paths(struct ld *l, const struct ynode *m)
{
	static const char *const fsyncs[] = { "poll", "segment", "none", NULL };
	const struct ynode *n;
	const char *v;

	conf_set_str(l, &l->c->data_dir, ycheck_scalar(&l->d, m, "data_dir", "collector",
	    false));
	if ((v = ycheck_scalar(&l->d, m, "listen", "collector", false)) != NULL) {
		check_hostport(l, ynode_get(m, "listen"), "collector", "listen",
		    false);
		conf_set_str(l, &l->c->listen, v);
	}
	if ((v = ycheck_scalar(&l->d, m, "rrdcached", "collector", false)) != NULL) {
		n = ynode_get(m, "rrdcached");
		if (strncmp(v, "unix:", 5) == 0) {
			if (v[5] != '/')
				conf_bad(l, n, "collector: rrdcached: unix: needs an "
				    "absolute socket path");
		} else if (*v != '/')
			check_hostport(l, n, "collector", "rrdcached", false);
		conf_set_str(l, &l->c->rrdcached, v);
	}
	if ((v = ycheck_scalar(&l->d, m, "maps_dir", "collector", false)) != NULL)
		load_maps_dir(l, ynode_get(m, "maps_dir"), v);
	if ((v = ycheck_enum(&l->d, m, "fsync", "collector", fsyncs,
	    "poll, segment, none")) != NULL)
		conf_set_str(l, &l->c->fsync, v);
	load_collector_http(l, m);
	conf_push_load(l, m);
}

/* collector.shard: {index: I, count: N}, 0 <= I < N <= 4096. */
static void
load_shard(struct ld *l, const struct ynode *m)
{
	static const char *const keys[] = { "index", "count", NULL };
	long idx = -1, cnt = -1;

	if (m == NULL)
		return;
	if (m->type != YN_MAP) {
		conf_bad(l, m, "collector: shard must be a mapping {index: I, "
		    "count: N}");
		return;
	}
	ycheck_keys(&l->d, m, "collector: shard", keys);
	if (ynode_get(m, "index") == NULL || ynode_get(m, "count") == NULL) {
		conf_bad(l, m, "collector: shard needs index and count");
		return;
	}
	if (ycheck_long(&l->d, m, "count", "collector: shard", 1,
	    SHARD_COUNT_MAX, &cnt) != 0 || ycheck_long(&l->d, m, "index",
	    "collector: shard", 0, SHARD_COUNT_MAX - 1, &idx) != 0)
		return;
	if (idx >= cnt) {
		conf_bad(l, ynode_get(m, "index"), "collector: shard: index %ld "
		    "must be below count %ld (shards are 0..%ld)", idx, cnt,
		    cnt - 1);
		return;
	}
	l->c->shard_index = (unsigned)idx;
	l->c->shard_count = (unsigned)cnt;
}

static void
load_collector(struct ld *l, const struct ynode *m)
{
	struct wp_conf *c = l->c;
	const char *v;
	long n;
	int lvl;

	ycheck_keys(&l->d, m, "collector", collector_keys);
	ycheck_duration(&l->d, m, "interval", "collector", WP_SEC, 3600 * WP_SEC,
	    "1s..1h", &c->interval);
	c->timeout = c->interval / 10 * 8;
	if (ycheck_duration(&l->d, m, "timeout", "collector", 100 * WP_MS, 3600 * WP_SEC,
	    "100ms..1h", &c->timeout) == 0) {
		l->timeout_set = true;
		if (c->timeout > c->interval)
			conf_bad(l, ynode_get(m, "timeout"), "collector: timeout "
			    "must not be longer than the interval");
	}
	if (c->backoff_max < c->interval)
		c->backoff_max = c->interval;
	if (ycheck_duration(&l->d, m, "backoff_max", "collector", WP_SEC,
	    86400 * WP_SEC, "1s..1d", &c->backoff_max) == 0 &&
	    c->backoff_max < c->interval)
		conf_bad(l, ynode_get(m, "backoff_max"), "collector: backoff_max "
		    "must not be shorter than the interval");
	ycheck_duration(&l->d, m, "poll_batch", "collector", 0, 60 * WP_SEC, "0..1m",
	    &c->poll_batch);
	ycheck_duration(&l->d, m, "journal_retention", "collector", 3600 * WP_SEC,
	    3650 * 86400 * WP_SEC, "1h..3650d", &c->journal_retention);
	if (ycheck_duration(&l->d, m, "ledger_slot", "collector", 600 * WP_SEC,
	    3600 * WP_SEC, "10m..1h", &c->ledger_slot) == 0 &&
	    (3600 * WP_SEC) % c->ledger_slot != 0)
		conf_bad(l, ynode_get(m, "ledger_slot"), "collector: ledger_slot "
		    "must divide an hour into whole 10-minute summary slots "
		    "(10m, 20m, 30m or 1h)");
	else if (c->ledger_slot % (600 * WP_SEC) != 0)
		conf_bad(l, ynode_get(m, "ledger_slot"), "collector: ledger_slot "
		    "must be a multiple of the 10-minute summary slot");
	ycheck_duration(&l->d, m, "ledger_retention", "collector", 86400 * WP_SEC,
	    36500LL * 86400 * WP_SEC, "1d..36500d", &c->ledger_retention);
	ycheck_duration(&l->d, m, "rrd_write_delay", "collector", 0, 3600 * WP_SEC,
	    "0..1h", &c->rrd_write_delay);
	if ((v = ycheck_scalar(&l->d, m, "log_level", "collector", false)) != NULL) {
		if ((lvl = log_level_parse(v)) < 0)
			conf_bad(l, ynode_get(m, "log_level"), "collector: log_level "
			    "must be one of error, warn, info, debug, not '%s'",
			    v);
		else
			c->log_level = lvl;
	}
	ycheck_bool(&l->d, m, "syslog", "collector", &c->log_syslog);
	if (ycheck_long(&l->d, m, "workers", "collector", 1, 256, &n) == 0)
		c->workers = (int)n;
	if (ycheck_long(&l->d, m, "http_max_inflight", "collector", 1, 65536, &n) == 0)
		c->http_max_inflight = (int)n;
	load_collector_paths(l, m);
	load_shard(l, ynode_get(m, "shard"));
	conf_rw_load(l, ynode_get(m, "remote_write"));
}

/* credentials: */
static const char *const cred_keys[] = {
	"name", "username", "password_file", "password_env",
	"password_credential", "community_file", "community_env",
	"community_credential", "auth_protocol", "auth_password_file",
	"auth_password_env", "auth_password_credential", "priv_protocol",
	"priv_password_file", "priv_password_env", "priv_password_credential",
	"token_file", "token_env", "token_credential", NULL
};

static bool
env_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/*
 * A systemd credential PFX_credential: NAME stands for the file NAME in
 * $CREDENTIALS_DIRECTORY, checked as one; its path (kept by the conf).
 * When it fails the name comes back, so that the blocks that use it are
 * not also told they have no secret (the conf has an error anyway).
 */
static const char *
cred_file(struct ld *l, const struct ynode *m, const char *key,
    const char *name, const char *where)
{
	char path[4096];
	struct wp_err err;

	err_clear(&err);
	if (secret_cred_path(name, path, sizeof(path), &err) < 0 ||
	    secret_check_file(path, &err) < 0) {
		conf_bad(l, ynode_get(m, key), "%s: %s %s: %s", where, key, name,
		    err.msg);
		return conf_own(l, name);
	}
	return conf_own(l, path);
}

/*
 * Checks the sources PFX_file / PFX_env / PFX_credential (at most one);
 * returns true if one is set.  A credential comes back as its file.
 */
bool
conf_secret_pair(struct ld *l, const struct ynode *m, const char *pfx,
    const char *where, const char **file, const char **env)
{
	char kf[64], ke[64], kc[64];
	struct wp_err err;
	const char *f, *e, *cn;

	snprintf(kf, sizeof(kf), "%s_file", pfx);
	snprintf(ke, sizeof(ke), "%s_env", pfx);
	snprintf(kc, sizeof(kc), "%s_credential", pfx);
	f = ycheck_scalar(&l->d, m, kf, where, false);
	e = ycheck_scalar(&l->d, m, ke, where, false);
	cn = ycheck_scalar(&l->d, m, kc, where, false);
	if ((f != NULL) + (e != NULL) + (cn != NULL) > 1) {
		conf_bad(l, ynode_get(m, cn ? kc : ke), "%s: give one of %s, %s, "
		    "%s", where, kf, ke, kc);
		return true;
	}
	if (f != NULL && secret_check_file(f, &err) < 0)
		conf_bad(l, ynode_get(m, kf), "%s: %s", where, err.msg);
	if (cn != NULL)
		f = cred_file(l, m, kc, cn, where);
	if (e != NULL) {
		if (!env_name_ok(e))
			conf_bad(l, ynode_get(m, ke), "%s: %s: '%s' is not an "
			    "environment variable name", where, ke, e);
		else if (getenv(e) == NULL)
			conf_warn(l, ynode_get(m, ke), "%s: environment variable %s "
			    "is not set (it must be when wattpath runs)", where,
			    e);
	}
	if (file != NULL && f != NULL)
		*file = f;
	if (env != NULL && e != NULL)
		*env = e;
	return f != NULL || e != NULL || cn != NULL;
}

static void
load_cred(struct ld *l, const struct ynode *m, struct wp_cred *cr)
{
	static const char *const auths[] = { "MD5", "SHA", "SHA-1", "SHA-224",
	    "SHA-256", "SHA-384", "SHA-512", NULL };
	static const char *const privs[] = { "DES", "AES", "AES-128",
	    "AES-192", "AES-256", NULL };
	char where[128];
	bool pw, com, apw, ppw, tok;
	const char *ap, *pp;

	snprintf(where, sizeof(where), "credential %s", cr->name);
	ycheck_keys(&l->d, m, where, cred_keys);
	cr->username = ycheck_scalar(&l->d, m, "username", where, false);
	pw = conf_secret_pair(l, m, "password", where, &cr->password_file,
	    &cr->password_env);
	com = conf_secret_pair(l, m, "community", where, &cr->password_file,
	    &cr->password_env);
	if (pw && com)
		conf_bad(l, m, "%s: give a password or a community, not both", where);
	apw = conf_secret_pair(l, m, "auth_password", where, NULL, NULL);
	ppw = conf_secret_pair(l, m, "priv_password", where, NULL, NULL);
	tok = conf_secret_pair(l, m, "token", where, NULL, NULL);
	ap = ycheck_enum(&l->d, m, "auth_protocol", where, auths,
	    "MD5, SHA, SHA-224, SHA-256, SHA-384, SHA-512");
	pp = ycheck_enum(&l->d, m, "priv_protocol", where, privs,
	    "DES, AES, AES-128, AES-192, AES-256");
	if (ynode_get(m, "auth_protocol") != NULL && !apw)
		conf_bad(l, m, "%s: auth_protocol needs auth_password_file, "
		    "_env or _credential", where);
	if (apw && ynode_get(m, "auth_protocol") == NULL)
		conf_bad(l, m, "%s: auth_password needs auth_protocol", where);
	if (ynode_get(m, "priv_protocol") != NULL && !ppw)
		conf_bad(l, m, "%s: priv_protocol needs priv_password_file, "
		    "_env or _credential", where);
	if (ppw && ynode_get(m, "priv_protocol") == NULL)
		conf_bad(l, m, "%s: priv_password needs priv_protocol", where);
	if (ppw && !apw)
		conf_bad(l, m, "%s: SNMPv3 privacy needs authentication too "
		    "(auth_protocol, auth_password_*)", where);
	if ((apw || ppw) && cr->username == NULL)
		conf_bad(l, m, "%s: SNMPv3 needs a username", where);
	if (!pw && !com && !apw && !tok && cr->username == NULL)
		conf_bad(l, m, "%s: no username and no secret", where);
	(void)ap;
	(void)pp;
}

static void
load_creds(struct ld *l, const struct ynode *seq)
{
	const struct ynode *m;
	struct wp_cred *cr;
	const char *name;
	size_t n = 0;

	n += ynode_count(seq);
	if (n == 0 || (l->c->creds = calloc(n, sizeof(*cr))) == NULL) {
		l->oom = n > 0;
		return;
	}
	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			conf_bad(l, m, "credentials: each entry must be a mapping");
			continue;
		}
		if ((name = get_name(l, m, "credential")) == NULL ||
		    conf_cred(l->c, name) != NULL) {
			struct wp_cred tmp = { .name = entry_name(m) };

			if (name != NULL)
				conf_bad(l, ynode_get(m, "name"), "duplicate "
				    "credential name '%s'", name);
			load_cred(l, m, &tmp);	/* report the rest too */
			continue;
		}
		cr = &l->c->creds[l->c->n_creds];
		cr->name = name;
		cr->block = m;
		cr->line = m->line;
		load_cred(l, m, cr);
		index_name(l, &l->pv->creds, name, l->c->n_creds++);
	}
}

/* Targets: collected per section, put in order at the end. */
static void
pend_add(struct ld *l, struct pendv *pv, const struct pend *p)
{
	struct pend *nv;

	if (pv->n == pv->cap) {
		size_t ncap = pv->cap ? pv->cap * 2 : 16;

		if ((nv = realloc(pv->v, ncap * sizeof(*nv))) == NULL) {
			l->oom = true;
			return;
		}
		pv->v = nv;
		pv->cap = ncap;
	}
	pv->v[pv->n++] = *p;
}

/*
 * Adds the target "name" for block (driver's, named where in messages);
 * reads the block's interval/timeout overrides.  A rejected entry
 * (l->scratch) is kept for its driver's validation only.
 */
static void
add_target(struct ld *l, struct pendv *pv, const struct pend *t)
{
	struct pend p = *t;
	const struct ynode *block = p.block;

	p.interval = l->c->interval;
	ycheck_duration(&l->d, block, "interval", p.where, WP_SEC,
	    3600 * WP_SEC, "1s..1h", &p.interval);
	p.timeout = p.interval / 10 * 8;
	if (l->timeout_set && l->c->timeout < p.timeout)
		p.timeout = l->c->timeout;
	if (ycheck_duration(&l->d, block, "timeout", p.where, 100 * WP_MS,
	    3600 * WP_SEC, "100ms..1h", &p.timeout) == 0 &&
	    p.timeout > p.interval)
		conf_bad(l, ynode_get(block, "timeout"), "%s: timeout must not be "
		    "longer than the interval", p.where);
	p.scratch = l->scratch;
	if ((p.name = conf_own(l, p.name)) == NULL ||
	    (p.where = conf_own(l, p.where)) == NULL)
		return;
	pend_add(l, pv, &p);
}

/* pdus: SNMP (address) or Redfish (url); the driver checks the rest. */
static void
load_pdu(struct ld *l, const struct ynode *m, struct wp_pdu *pdu)
{
	const struct ynode *addr, *url, *snmp;
	char where[128];

	snprintf(where, sizeof(where), "pdu %s", pdu->name);
	addr = ycheck_typed(&l->d, m, "address", YN_SCALAR, where, false);
	url = ycheck_typed(&l->d, m, "url", YN_SCALAR, where, false);
	if (addr != NULL && url != NULL)
		conf_bad(l, url, "%s: give address (SNMP) or url (Redfish), not "
		    "both", where);
	else if (addr == NULL && url == NULL && !ynode_get(m, "address") &&
	    !ynode_get(m, "url"))
		conf_bad(l, m, "%s: needs address (SNMP) or url (Redfish)", where);
	if ((snmp = ynode_get(m, "snmp")) != NULL && url != NULL)
		conf_bad(l, snmp, "%s: snmp: applies to SNMP PDUs (address), not "
		    "Redfish ones (url)", where);
	add_target(l, &l->pt_pdus, &(struct pend){ .name = pdu->name,
	    .kind = "pdu", .driver = url != NULL ? "redfish" : "snmp_pdu",
	    .where = where, .block = m });
}

/* meters: the role is the core's (PUE); the driver checks the rest. */
static void
load_meter(struct ld *l, const struct ynode *m, struct wp_meter *me)
{
	static const char *const roles[] = { "facility_total", "it_total",
	    "cooling", "other", NULL };
	char where[128];
	const char *role;

	snprintf(where, sizeof(where), "meter %s", me->name);
	if (ynode_get(m, "role") == NULL)
		conf_bad(l, m, "%s: missing required key 'role' (facility_total, "
		    "it_total, cooling or other)", where);
	role = ycheck_enum(&l->d, m, "role", where, roles,
	    "facility_total, it_total, cooling, other");
	me->role = role != NULL ? role : "other";
	me->map = ynode_str(m, "map");
	add_target(l, &l->pt_meters, &(struct pend){ .name = me->name,
	    .kind = "meter", .driver = "modbus", .where = where,
	    .block = m });
}

static size_t
count_children(const struct ynode *n)
{
	size_t k = 0;

	for (n = n ? n->child : NULL; n != NULL; n = n->next)
		k++;
	return k;
}

static bool
target_name_taken(struct ld *l, const char *name)
{
	return conf_pdu(l->c, name) != NULL || conf_meter(l->c, name) != NULL;
}

static void
load_pdus(struct ld *l, const struct ynode *seq)
{
	const struct ynode *m;
	const char *name;
	size_t n = count_children(seq);

	if (n == 0)
		return;
	if ((l->c->pdus = calloc(n, sizeof(*l->c->pdus))) == NULL) {
		l->oom = true;
		return;
	}
	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			conf_bad(l, m, "pdus: each entry must be a mapping");
			continue;
		}
		if ((name = get_name(l, m, "pdu")) == NULL ||
		    target_name_taken(l, name)) {
			struct wp_pdu tmp = { .name = entry_name(m) };

			if (name != NULL)
				conf_bad(l, ynode_get(m, "name"), "duplicate pdu "
				    "name '%s'", name);
			l->scratch = true;
			load_pdu(l, m, &tmp);
			l->scratch = false;
			continue;
		}
		l->c->pdus[l->c->n_pdus] = (struct wp_pdu){ .name = name,
		    .block = m, .line = m->line };
		index_name(l, &l->pv->pdus, name, l->c->n_pdus);
		load_pdu(l, m, &l->c->pdus[l->c->n_pdus++]);
	}
}

static void
load_meters(struct ld *l, const struct ynode *seq)
{
	const struct ynode *m;
	const char *name;
	size_t n = count_children(seq);

	if (n == 0)
		return;
	if ((l->c->meters = calloc(n, sizeof(*l->c->meters))) == NULL) {
		l->oom = true;
		return;
	}
	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			conf_bad(l, m, "meters: each entry must be a mapping");
			continue;
		}
		if ((name = get_name(l, m, "meter")) == NULL ||
		    target_name_taken(l, name)) {
			struct wp_meter tmp = { .name = entry_name(m) };

			if (name != NULL)
				conf_bad(l, ynode_get(m, "name"), "duplicate meter "
				    "name '%s'%s", name, conf_pdu(l->c, name) ?
				    " (a pdu has it)" : "");
			l->scratch = true;
			load_meter(l, m, &tmp);
			l->scratch = false;
			continue;
		}
		l->c->meters[l->c->n_meters] = (struct wp_meter){ .name = name,
		    .block = m, .line = m->line };
		index_name(l, &l->pv->meters, name, l->c->n_meters);
		load_meter(l, m, &l->c->meters[l->c->n_meters++]);
	}
}

/* nodes: */
static const char *const node_keys[] = {
	"name", "class", "rack", "bmc", "gpu", "engines", "outlets", NULL
};

/* Turns an outlet written "pdu:outlet" into {pdu: .., outlet: ..}. */
static int
outlet_expand(struct ynode *it)
{
	struct ynode *p, *o;
	char *colon;

	if ((colon = strrchr(it->value, ':')) == NULL || colon == it->value ||
	    colon[1] == '\0')
		return -1;
	*colon = '\0';
	p = ynode_new(YN_SCALAR, "pdu", it->value, it->line);
	o = ynode_new(YN_SCALAR, "outlet", colon + 1, it->line);
	*colon = ':';
	if (p == NULL || o == NULL) {
		ynode_free(p);
		ynode_free(o);
		return -1;
	}
	p->file = o->file = it->file;
	free(it->value);
	it->value = NULL;
	it->type = YN_MAP;
	ynode_append(it, p);
	ynode_append(it, o);
	return 0;
}

/* Another node (or this one) already claims pdu/outlet?  Its name, or
 * NULL: then the outlet is self's, claimed unless self is a rejected
 * entry (whose outlets nobody else must lose). */
static const char *
outlet_owner(struct ld *l, const char *pdu, const char *outlet,
    const struct wp_node *self)
{
	char key[2 * WP_LABEL_MAX];
	struct claim *c;
	uint64_t h;
	size_t j;

	snprintf(key, sizeof(key), "%s\037%s", pdu, outlet);
	h = hmap_hash(key);
	if ((c = hmap_get(&l->claims, h, hmap_str_eq, key)) != NULL)
		return c->owner;
	for (j = 0; j < self->n_outlets; j++)
		if (strcmp(self->outlets[j].pdu, pdu) == 0 &&
		    strcmp(self->outlets[j].outlet, outlet) == 0)
			return self->name;
	if (l->scratch)
		return NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->key = strdup(key)) == NULL || hmap_put(&l->claims, h, c) == -1) {
		if (c != NULL)
			free(c->key);
		free(c);
		l->oom = true;
		return NULL;
	}
	c->owner = self->name;
	return NULL;
}

static void
load_outlets(struct ld *l, struct ynode *seq, struct wp_node *nd,
    const char *where)
{
	static const char *const keys[] = { "pdu", "outlet", NULL };
	struct ynode *it;
	const char *pdu, *out, *owner;
	long num;

	nd->outlets = calloc(count_children(seq) + 1, sizeof(*nd->outlets));
	if (nd->outlets == NULL) {
		l->oom = true;
		return;
	}
	for (it = seq->child; it != NULL; it = it->next) {
		if (it->type == YN_SCALAR && outlet_expand(it) < 0) {
			conf_bad(l, it, "%s: outlet '%s' is not PDU:OUTLET", where,
			    it->value);
			continue;
		}
		if (it->type != YN_MAP) {
			conf_bad(l, it, "%s: each outlet is {pdu: NAME, outlet: N} "
			    "or \"NAME:N\"", where);
			continue;
		}
		ycheck_keys(&l->d, it, where, keys);
		pdu = ycheck_scalar(&l->d, it, "pdu", where, true);
		out = ycheck_scalar(&l->d, it, "outlet", where, true);
		if (pdu == NULL || out == NULL)
			continue;
		if (conf_pdu(l->c, pdu) == NULL) {
			conf_bad(l, ynode_get(it, "pdu"), "%s: outlet on unknown PDU "
			    "'%s'", where, pdu);
			continue;
		}
		if (isdigit((unsigned char)*out) &&
		    ynode_parse_long(out, 1, 100000, &num) < 0) {
			conf_bad(l, ynode_get(it, "outlet"), "%s: outlet number '%s' "
			    "must be 1 or more", where, out);
			continue;
		}
		if ((owner = outlet_owner(l, pdu, out, nd)) != NULL) {
			conf_bad(l, it, "%s: outlet %s:%s is already assigned to "
			    "node %s", where, pdu, out, owner);
			continue;
		}
		nd->outlets[nd->n_outlets++] = (struct wp_outlet_ref){
		    .pdu = pdu, .outlet = out, .line = it->line };
	}
}

/* A node's target of kind (its block b): "<node>/<suffix>". */
static void
node_target(struct ld *l, const struct ynode *node, const struct ynode *b,
    const char *name, const char *kind, const char *driver,
    const char *where)
{
	char tname[128];

	snprintf(tname, sizeof(tname), "%s/%s", name, kind);
	add_target(l, &l->pt_nodes, &(struct pend){ .name = tname,
	    .node = name, .kind = kind, .driver = driver, .where = where,
	    .block = b, .gpu_inband = ynode_get(node, "gpu") != NULL });
}

static void
load_engines(struct ld *l, const struct ynode *node,
    const struct ynode *seq, struct wp_node *nd)
{
	const char *name = nd->name;
	const struct ynode *e;
	char where[128], tname[128];
	int held[REPORT_ENGINE_GPUS];
	size_t i = 0;

	for (i = 0; i < REPORT_ENGINE_GPUS; i++)
		held[i] = -1;
	i = 0;
	i += ynode_count(seq);
	if ((nd->engines = calloc(i + 1, sizeof(*nd->engines))) == NULL) {
		l->oom = true;
		return;
	}
	nd->n_engines = i;
	i = 0;
	for (e = seq->child; e != NULL; e = e->next, i++) {
		snprintf(where, sizeof(where), "node %s: engines[%zu]", name,
		    i);
		if (e->type != YN_MAP) {
			conf_bad(l, e, "%s: must be a mapping {url: ..., kind: ...}",
			    where);
			continue;
		}
		conf_engine_attr(l, e, &nd->engines[i], held, i, where);
		snprintf(tname, sizeof(tname), "%s/engine%zu", name, i);
		add_target(l, &l->pt_nodes, &(struct pend){ .name = tname,
		    .node = name, .kind = "engine", .driver = "inband",
		    .where = where, .block = e,
		    .gpu_inband = ynode_get(node, "gpu") != NULL });
	}
}

static void
load_node(struct ld *l, struct ynode *m, struct wp_node *nd)
{
	const struct ynode *b;
	struct ynode *c;
	char where[128], bw[160];

	snprintf(where, sizeof(where), "node %s", nd->name);
	ycheck_keys(&l->d, m, where, node_keys);
	nd->class = ycheck_scalar(&l->d, m, "class", where, false);
	nd->rack = ycheck_scalar(&l->d, m, "rack", where, false);
	snprintf(bw, sizeof(bw), "node %s: bmc", nd->name);
	if ((b = ycheck_typed(&l->d, m, "bmc", YN_MAP, where, false)) != NULL)
		node_target(l, m, b, nd->name, "bmc", "redfish", bw);
	snprintf(bw, sizeof(bw), "node %s: gpu", nd->name);
	if ((b = ycheck_typed(&l->d, m, "gpu", YN_MAP, where, false)) != NULL)
		node_target(l, m, b, nd->name, "gpu", "inband", bw);
	if ((b = ycheck_typed(&l->d, m, "engines", YN_SEQ, where,
	    false)) != NULL)
		load_engines(l, m, b, nd);
	if (ycheck_typed(&l->d, m, "outlets", YN_SEQ, where, false) != NULL) {
		for (c = m->child; strcmp(c->key, "outlets") != 0; c = c->next)
			;
		load_outlets(l, c, nd, where);
	}
}

void
conf_load_node_list(struct ld *l, struct ynode *seq)
{
	struct ynode *m;
	struct wp_node *nd;
	const char *name;

	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			conf_bad(l, m, "nodes: each entry must be a mapping");
			continue;
		}
		if ((name = get_name(l, m, "node")) == NULL ||
		    conf_node_by_name(l->c, name) != NULL) {
			struct wp_node tmp = { .name = entry_name(m) };

			if (name != NULL)
				conf_bad(l, ynode_get(m, "name"), "duplicate node "
				    "name '%s'", name);
			l->scratch = true;
			load_node(l, m, &tmp);
			l->scratch = false;
			free(tmp.outlets);
			free(tmp.engines);
			continue;
		}
		nd = &l->c->nodes[l->c->n_nodes];
		*nd = (struct wp_node){ .name = name, .block = m,
		    .line = m->line };
		load_node(l, m, nd);
		index_name(l, &l->pv->nodes, name, l->c->n_nodes++);
	}
}

/* --------------------------------------------------- site, report, top */

static const char *const top_keys[] = {
	"collector", "credentials", "nodes", "nodes_csv", "pdus", "meters",
	"site", "report", "drift", "tenants", "racks", NULL
};

static void
load_inventory(struct ld *l, struct ynode *root)
{
	const struct ynode *n;
	size_t total;

	if ((n = ycheck_typed(&l->d, root, "credentials", YN_SEQ, "config", false)))
		load_creds(l, n);
	if ((n = ycheck_typed(&l->d, root, "pdus", YN_SEQ, "config", false)))
		load_pdus(l, n);
	if ((n = ycheck_typed(&l->d, root, "meters", YN_SEQ, "config", false)))
		load_meters(l, n);
	if ((n = ycheck_typed(&l->d, root, "nodes_csv", YN_SCALAR, "config", false)))
		conf_csv_load(l, n);
	n = ycheck_typed(&l->d, root, "nodes", YN_SEQ, "config", false);
	total = count_children(n) + count_children(l->pv->csv);
	if (total == 0)
		return;
	if ((l->c->nodes = calloc(total, sizeof(*l->c->nodes))) == NULL) {
		l->oom = true;
		return;
	}
	if (n != NULL)
		conf_load_node_list(l, (struct ynode *)n);
	if (l->pv->csv != NULL)
		conf_load_node_list(l, l->pv->csv);
}

static void
load_root(struct ld *l, struct ynode *root)
{
	const struct ynode *n, *site, *report;

	if (root->type != YN_MAP) {
		conf_bad(l, root, "the configuration must be a mapping (collector:, "
		    "nodes:, ...), not %s", ynode_type_name(root->type));
		return;
	}
	ycheck_keys(&l->d, root, NULL, top_keys);
	if ((n = ycheck_typed(&l->d, root, "collector", YN_MAP, "config", false)))
		load_collector(l, n);
	load_inventory(l, root);
	site = ycheck_typed(&l->d, root, "site", YN_MAP, "config", false);
	report = ycheck_typed(&l->d, root, "report", YN_MAP, "config", false);
	conf_report_load(l->c, report, site, &l->d);
	if (n != NULL)		/* after site: (its name is checked there) */
		conf_peer_load(l, ynode_get(n, "peers"));
	if (conf_tenants_load(l->c, ycheck_typed(&l->d, root, "tenants", YN_SEQ,
	    "config", false), &l->d) == -1)
		l->oom = true;
	if (conf_racks_load(l->c, ycheck_typed(&l->d, root, "racks", YN_SEQ,
	    "config", false), &l->d) == -1)
		l->oom = true;
	conf_drift_load(&l->c->drift, ycheck_typed(&l->d, root, "drift",
	    YN_MAP, "config", false), &l->d);
}

/* ---------------------------------------------------------- targets */

/* The keys of a target's block the core reads, by kind. */
static const char *const *
core_keys(const char *kind)
{
	static const char *const node[] = { "interval", "timeout", NULL };
	static const char *const pdu[] = { "name", "address", "url",
	    "interval", "timeout", NULL };
	static const char *const meter[] = { "name", "role", "zone",
	    "interval", "timeout", NULL };

	return strcmp(kind, "pdu") == 0 ? pdu : strcmp(kind, "meter") == 0 ?
	    meter : node;
}

/* What a driver is handed for the pending target p. */
static struct wp_target_conf
target_conf(const struct ld *l, const struct pend *p)
{
	return (struct wp_target_conf){ .name = p->name, .node = p->node,
	    .kind = p->kind, .where = p->where, .block = p->block,
	    .core_keys = core_keys(p->kind),
	    .creds = l->c->creds, .n_creds = l->c->n_creds,
	    .maps_dir = l->c->maps_dir, .conf_dir = l->c->conf_dir,
	    .node_gpu_inband = p->gpu_inband,
	    .interval = p->interval, .timeout = p->timeout };
}

/* Whether this collector's shard owns p (a node's targets go together). */
static bool
shard_owns(const struct wp_conf *c, const struct pend *p)
{
	return c->shard_count <= 1 || shard_of(p->node ? p->node : p->name,
	    c->shard_count) == c->shard_index;
}

static void
order_targets(struct ld *l)
{
	struct pendv *pvs[] = { &l->pt_nodes, &l->pt_pdus, &l->pt_meters };
	struct wp_conf *c = l->c;
	size_t i, j, n = 0;
	struct pend *p;

	for (i = 0; i < 3; i++)
		n += pvs[i]->n;
	if (n == 0)
		return;
	c->targets = calloc(n, sizeof(*c->targets));
	c->target_drivers = calloc(n, sizeof(*c->target_drivers));
	if (c->targets == NULL || c->target_drivers == NULL) {
		l->oom = true;
		return;
	}
	for (i = 0; i < 3; i++)
		for (j = 0; j < pvs[i]->n; j++) {
			p = &pvs[i]->v[j];
			if (p->scratch || !shard_owns(c, p))
				continue;
			c->targets[c->n_targets] = target_conf(l, p);
			c->target_drivers[c->n_targets++] = p->driver;
		}
}

/* Hands every target's block, rejected entries' too, to its driver's
 * validate hook: the driver checks its own block, the core nothing of it. */
static void
validate_targets(struct ld *l, conf_driver_fn find)
{
	struct pendv *pvs[] = { &l->pt_nodes, &l->pt_pdus, &l->pt_meters };
	const struct wp_driver *drv;
	struct wp_target_conf tc;
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < pvs[i]->n; j++) {
			const struct pend *p = &pvs[i]->v[j];

			if ((drv = find(p->driver)) == NULL) {
				conf_bad(l, p->block, "%s: no driver '%s' in this "
				    "build", p->where, p->driver);
				continue;
			}
			tc = target_conf(l, p);
			if (drv->validate != NULL)
				drv->validate(&tc, &l->d);
		}
}

/* ------------------------------------------------------ load and free */

static void
conf_defaults(struct wp_conf *c)
{
	c->interval = 10 * WP_SEC;
	c->timeout = 8 * WP_SEC;
	c->backoff_max = 300 * WP_SEC;
	c->poll_batch = 250 * WP_MS;
	c->log_level = LOG_LVL_INFO;
	c->journal_retention = 90 * 86400 * WP_SEC;
	c->ledger_slot = 3600 * WP_SEC;
	c->ledger_retention = 3650LL * 86400 * WP_SEC;
	c->rrd_write_delay = 300 * WP_SEC;
	c->workers = 4;
	c->http_max_inflight = 256;
	c->data_dir = strdup("/var/lib/wattpath");
	c->listen = strdup("127.0.0.1:9810");
	c->fsync = strdup("poll");
}

static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static void
pend_fini(struct ld *l)
{
	size_t i;

	for (i = 0; i < l->claims.cap; i++) {
		struct claim *c = l->claims.slot[i].e;

		if (c != NULL) {
			free(c->key);
			free(c);
		}
	}
	hmap_fini(&l->claims);
	free(l->pt_nodes.v);
	free(l->pt_pdus.v);
	free(l->pt_meters.v);
	free(l->dir);
}

/* Parses and validates; everything found goes to l->d. */
static void
load_all(struct ld *l, const char *path, conf_driver_fn find)
{
	FILE *fp;

	if ((fp = fopen(path, "re")) == NULL) {
		diag_add(&l->d, NULL, 0, false, "cannot open: %s", strerror(errno));
		return;
	}
	l->pv->root = ynode_parse(fp, &l->d);
	fclose(fp);
	if (l->pv->root == NULL) {
		if (l->d.n_err == 0)
			diag_add(&l->d, NULL, 0, false, "the file is empty; see "
			    "etc/wattpath.yaml for an example");
		return;
	}
	l->c->root = l->pv->root;
	load_root(l, l->pv->root);
	order_targets(l);
	if (find != NULL && !l->oom)
		validate_targets(l, find);
}

struct wp_conf *
conf_load(const char *path, conf_driver_fn drivers, struct conf_errs *errs)
{
	struct ld l = { 0 };
	struct wp_conf *c;

	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->priv = l.pv = calloc(1, sizeof(*l.pv))) == NULL ||
	    (c->path = strdup(path)) == NULL || (l.dir = dir_of(path)) == NULL ||
	    ((c->conf_dir = realpath(l.dir, NULL)) == NULL &&
	    (c->conf_dir = strdup(l.dir)) == NULL))
		l.oom = true;
	else
		conf_defaults(c);
	l.c = c;
	l.d.main_file = path;
	if (!l.oom && (c->data_dir == NULL || c->listen == NULL ||
	    c->fsync == NULL))
		l.oom = true;
	if (!l.oom)
		load_all(&l, path, drivers);
	if (l.oom)
		diag_add(&l.d, NULL, 0, false, "out of memory");
	/* Flush before conf_free: messages may point at owned file names. */
	if (l.d.n_err > 0) {
		dg_flush(&l.d, errs);
		pend_fini(&l);
		conf_free(c);
		return NULL;
	}
	dg_flush(&l.d, errs);
	pend_fini(&l);
	return c;
}

void
conf_free(struct wp_conf *c)
{
	struct conf_priv *pv;
	size_t i;

	if (c == NULL)
		return;
	if ((pv = c->priv) != NULL) {
		ynode_free(pv->root);
		ynode_free(pv->csv);
		for (i = 0; i < pv->n_strs; i++)
			free(pv->strs[i]);
		free(pv->strs);
		hmap_fini(&pv->nodes);
		hmap_fini(&pv->pdus);
		hmap_fini(&pv->meters);
		hmap_fini(&pv->creds);
		free(pv);
	}
	conf_report_free(c);
	conf_tenants_free(c);
	conf_racks_free(c);
	for (i = 0; i < c->n_nodes; i++) {
		free(c->nodes[i].outlets);
		free(c->nodes[i].engines);
	}
	free(c->nodes);
	free(c->creds);
	free(c->pdus);
	free(c->meters);
	free(c->targets);
	free(c->target_drivers);
	free(c->remote_write);
	free(c->peers);
	free(c->path);
	free(c->data_dir);
	free(c->listen);
	free(c->rrdcached);
	free(c->maps_dir);
	free(c->conf_dir);
	free(c->fsync);
	free(c->tls_cert_file);
	free(c->tls_key_file);
	free(c->push_listen);
	free(c->push_url);
	free(c->push_tls_cert_file);
	free(c->push_tls_key_file);
	free(c->http_user);
	free(c->http_password_file);
	free(c->http_password_env);
	free(c);
}

/* ------------------------------------------------------------ lookups */

const struct wp_cred *
conf_cred(const struct wp_conf *c, const char *name)
{
	const struct conf_priv *pv = c != NULL ? c->priv : NULL;

	return pv == NULL ? NULL : by_name(&pv->creds, c->creds,
	    sizeof(*c->creds), name);
}

const struct wp_node *
conf_node_by_name(const struct wp_conf *c, const char *name)
{
	const struct conf_priv *pv = c != NULL ? c->priv : NULL;

	return pv == NULL ? NULL : by_name(&pv->nodes, c->nodes,
	    sizeof(*c->nodes), name);
}

int
conf_node_index(const struct wp_conf *c, const char *name, size_t len)
{
	const struct wp_node *nd;
	char key[256];
	size_t i;

	if (c == NULL)
		return -1;
	if (c->priv != NULL && len < sizeof(key)) {
		memcpy(key, name, len);
		key[len] = '\0';
		nd = conf_node_by_name(c, key);
		return nd == NULL ? -1 : (int)(nd - c->nodes);
	}
	for (i = 0; i < c->n_nodes; i++)	/* a config built by hand */
		if (strlen(c->nodes[i].name) == len &&
		    strncmp(c->nodes[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

const struct wp_pdu *
conf_pdu(const struct wp_conf *c, const char *name)
{
	const struct conf_priv *pv = c != NULL ? c->priv : NULL;

	if (pv == NULL)		/* none, or a config built by hand */
		return c == NULL ? NULL : scan_name(c->pdus, c->n_pdus,
		    sizeof(*c->pdus), name);
	return by_name(&pv->pdus, c->pdus, sizeof(*c->pdus), name);
}

const struct wp_meter *
conf_meter(const struct wp_conf *c, const char *name)
{
	const struct conf_priv *pv = c != NULL ? c->priv : NULL;

	if (pv == NULL)		/* none, or a config built by hand */
		return c == NULL ? NULL : scan_name(c->meters, c->n_meters,
		    sizeof(*c->meters), name);
	return by_name(&pv->meters, c->meters, sizeof(*c->meters), name);
}
