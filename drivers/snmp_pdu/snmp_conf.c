/* One PDU's SNMP settings from its block or probe's options; see
 * snmp_conf.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/addr.h"
#include "../../collector/lib/datafile.h"
#include "../../collector/lib/diag.h"
#include "../../collector/lib/secret.h"
#include "../../collector/lib/ycheck.h"
#include "../../collector/lib/ynode.h"
#include "snmp_conf.h"

static int
auth_proto(const char *s, struct sp_cfg *c, struct wp_err *err)
{
	static const struct { const char *name; const oid *o; } t[] = {
		{ "SHA", usmHMACSHA1AuthProtocol },
		{ "SHA-224", usmHMAC128SHA224AuthProtocol },
		{ "SHA-256", usmHMAC192SHA256AuthProtocol },
		{ "SHA-384", usmHMAC256SHA384AuthProtocol },
		{ "SHA-512", usmHMAC384SHA512AuthProtocol },
		{ "MD5", usmHMACMD5AuthProtocol },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcasecmp(s, t[i].name) == 0) {
			c->auth_proto = t[i].o;
			c->auth_proto_len = USM_AUTH_PROTO_SHA_LEN;
			return 0;
		}
	return err_set(err, WP_E_CONFIG, "auth_protocol '%s': expected SHA, "
	    "SHA-224, SHA-256, SHA-384, SHA-512 or MD5", s);
}

static int
sec_level(const char *s, int *level, struct wp_err *err)
{
	if (s == NULL || strcmp(s, "authPriv") == 0)
		*level = SNMP_SEC_LEVEL_AUTHPRIV;
	else if (strcmp(s, "authNoPriv") == 0)
		*level = SNMP_SEC_LEVEL_AUTHNOPRIV;
	else if (strcmp(s, "noAuthNoPriv") == 0)
		*level = SNMP_SEC_LEVEL_NOAUTH;
	else
		return err_set(err, WP_E_CONFIG, "security_level '%s': "
		    "expected authPriv, authNoPriv or noAuthNoPriv", s);
	return 0;
}

/* Records where a secret lives (copies the names); reads nothing
 * (check-config runs this). */
static int
secref_set(struct secref *r, const char *file, const char *env,
    const char *what, struct wp_err *err)
{
	if (file == NULL && env == NULL)
		return err_set(err, WP_E_CONFIG, "%s: give a *_file or *_env "
		    "source", what);
	if ((file != NULL && strlen(file) >= PATH_MAX) ||
	    (env != NULL && strlen(env) >= 128))
		return err_set(err, WP_E_CONFIG, "%s: file or variable name "
		    "too long", what);
	free(r->file);
	free(r->env);
	r->file = file ? strdup(file) : NULL;
	r->env = env ? strdup(env) : NULL;
	if ((file && r->file == NULL) || (env && r->env == NULL))
		return err_set(err, WP_E_INTERNAL, "out of memory");
	return 0;
}

/* Loads one secret: a new string (caller frees with secret_free), or
 * NULL with err. */
static char *
secref_load(const struct secref *r, const char *what, size_t minlen,
    struct wp_err *err)
{
	struct wp_err e;
	char msg[WP_ERR_MSG], *s;

	err_clear(&e);
	s = secret_load(r->file, r->env, &e);
	if (s == NULL) {
		snprintf(msg, sizeof(msg), "%s", e.msg[0] ? e.msg : "missing");
		err_set(err, WP_E_CONFIG, "%s: %s", what, msg);
		return NULL;
	}
	if (strlen(s) < minlen) {
		secret_free(s);
		err_set(err, WP_E_CONFIG, "%s is shorter than %zu characters",
		    what, minlen);
		return NULL;
	}
	return s;
}


/* Reads v3 settings from getter g (config block or probe options). */
typedef const char *(*opt_fn)(const void *src, const char *key);

/* r from PFX_file, PFX_env or PFX_credential (a systemd credential: its
 * file in $CREDENTIALS_DIRECTORY) as g finds them. */
static int
secref_from(struct secref *r, opt_fn g, const void *src, const char *pfx,
    const char *what, struct wp_err *err)
{
	char kf[48], ke[48], kc[48], path[PATH_MAX];
	const char *f, *cn;

	snprintf(kf, sizeof(kf), "%s_file", pfx);
	snprintf(ke, sizeof(ke), "%s_env", pfx);
	snprintf(kc, sizeof(kc), "%s_credential", pfx);
	f = g(src, kf);
	if ((cn = g(src, kc)) != NULL) {
		if (secret_cred_path(cn, path, sizeof(path), err) < 0) {
			err_prefix(err, "%s", what);
			return -1;
		}
		f = path;
	}
	return secref_set(r, f, g(src, ke), what, err);
}

static int
load_v3(struct sp_cfg *c, opt_fn g, const void *src, const char *level,
    struct wp_err *err)
{
	const char *user = g(src, "username"), *ap = g(src, "auth_protocol");
	const char *pp = g(src, "priv_protocol"), *ctx = g(src, "context");

	if (sec_level(level, &c->level, err) < 0)
		return -1;
	if (user == NULL || strlen(user) >= sizeof(c->user))
		return err_set(err, WP_E_CONFIG, "SNMPv3 needs a username");
	snprintf(c->user, sizeof(c->user), "%s", user);
	if (ctx != NULL && strlen(ctx) >= sizeof(c->context))
		return err_set(err, WP_E_CONFIG, "SNMPv3 context too long");
	snprintf(c->context, sizeof(c->context), "%s", ctx ? ctx : "");
	if (c->level == SNMP_SEC_LEVEL_NOAUTH)
		return 0;
	if (auth_proto(ap ? ap : "SHA-256", c, err) < 0 ||
	    secref_from(&c->auth_ref, g, src, "auth_password",
	    "SNMPv3 auth password", err) < 0)
		return -1;
	if (c->level == SNMP_SEC_LEVEL_AUTHNOPRIV)
		return 0;
	if (pp != NULL && strcasecmp(pp, "AES") != 0 &&
	    strcasecmp(pp, "AES-128") != 0)
		return err_set(err, WP_E_CONFIG, "priv_protocol '%s': only AES "
		    "(AES-128) is supported", pp);
	return secref_from(&c->priv_ref, g, src, "priv_password",
	    "SNMPv3 authPriv priv password", err);
}

struct cred_src {
	const struct wp_cred	*cr;
	const struct ynode	*snmp;
};

static const char *
cred_opt(const void *src, const char *key)
{
	const struct cred_src *cs = src;

	if (strcmp(key, "username") == 0)
		return cs->cr->username;
	if (strcmp(key, "context") == 0)
		return cs->snmp ? ynode_str(cs->snmp, "context") : NULL;
	return ynode_str(cs->cr->block, key);
}

/* The credentials (in snmp: or the PDU's block) into c: a v2c community
 * or an SNMPv3 user; where the secrets live, none read. */
static void
cred_conf(const struct wp_target_conf *tc, const struct ynode *snmp,
    struct sp_cfg *c, struct diag *d)
{
	const struct ynode *n = NULL;
	const char *level = NULL;
	const struct wp_cred *cr;
	struct cred_src cs;
	struct wp_err err = { 0 };
	int rc;

	if (snmp != NULL) {
		n = ycheck_typed(d, snmp, "credentials", YN_SCALAR, tc->where,
		    false);
		level = ycheck_scalar(d, snmp, "security_level", tc->where,
		    false);
	}
	if (n == NULL)
		n = ycheck_typed(d, tc->block, "credentials", YN_SCALAR,
		    tc->where, false);
	if (n == NULL) {
		if (ynode_get(tc->block, "credentials") == NULL &&
		    (snmp == NULL || ynode_get(snmp, "credentials") == NULL))
			diag_at(d, snmp ? snmp : tc->block, false, "%s: snmp: "
			    "needs credentials (a community or an SNMPv3 user)",
			    tc->where);
		return;
	}
	if ((cr = driver_cred(tc, n->value)) == NULL) {
		diag_at(d, n, false, "%s: unknown credential '%s'", tc->where,
		    n->value);
		return;
	}
	cs = (struct cred_src){ cr, snmp };
	if (c->version == SNMP_VERSION_3)
		rc = load_v3(c, cred_opt, &cs, level, &err);
	else if ((rc = secref_from(&c->community_ref, cred_opt, &cs,
	    "community", "SNMP v2c community", &err)) < 0)
		err_prefix(&err, "credentials '%s'", n->value);
	if (rc < 0)
		diag_err(d, n, tc->where, &err, false);
}

/* The snmp: block (version, timing) and the credentials into c. */
static void
snmp_conf(const struct wp_target_conf *tc, struct sp_cfg *c,
    struct diag *d)
{
	static const char *const keys[] = { "version", "credentials",
		"timeout", "retries", "security_level", "context", NULL };
	static const char *const versions[] = { "2c", "3", NULL };
	const struct ynode *snmp;
	const char *v = NULL;
	wp_time t = 0;

	c->version = SNMP_VERSION_2c;
	c->retries = 1;
	c->timeout = tc->timeout > 0 ? tc->timeout / 3 : 2 * WP_SEC;
	if (c->timeout > 3 * WP_SEC)
		c->timeout = 3 * WP_SEC;
	snmp = ycheck_typed(d, tc->block, "snmp", YN_MAP, tc->where, false);
	if (snmp != NULL) {
		driver_check_keys(tc, snmp, tc->where, keys, d);
		ycheck_long(d, snmp, "retries", tc->where, 0, 5, &c->retries);
		if (ycheck_duration(d, snmp, "timeout", tc->where, 100 * WP_MS,
		    60 * WP_SEC, "100ms..60s", &t) == 0)
			c->timeout = t;
		v = ycheck_enum(d, snmp, "version", tc->where, versions,
		    "2c, 3");
	}
	if (v != NULL && strcmp(v, "3") == 0)
		c->version = SNMP_VERSION_3;
	cred_conf(tc, snmp, c, d);
}


/* address: HOST[:PORT] (161 by default). */
static void
addr_conf(struct sp_cfg *c, const struct wp_target_conf *tc, struct diag *d)
{
	const struct ynode *n;

	if ((n = ycheck_typed(d, tc->block, "address", YN_SCALAR, tc->where,
	    true)) == NULL)
		return;
	if (addr_parse_hostport(n->value, c->host, sizeof(c->host),
	    &c->port) == 0)
		return;
	if (strchr(n->value, ':') == NULL && strlen(n->value) <
	    sizeof(c->host) - 5) {
		char hp[sizeof(c->host)];

		snprintf(hp, sizeof(hp), "%s:161", n->value);
		if (addr_parse_hostport(hp, c->host, sizeof(c->host),
		    &c->port) == 0)
			return;
	}
	diag_at(d, n, false, "%s: address '%s' is not host:port (port "
	    "1..65535; IPv6 as [addr]:port)", tc->where, n->value);
}


static const char *
extra_opt(const void *src, const char *key)
{
	const char *const *x = src;
	size_t kl = strlen(key);

	if (strcmp(key, "username") == 0)
		key = "user", kl = 4;
	for (; x != NULL && *x != NULL; x++)
		if (strncmp(*x, key, kl) == 0 && (*x)[kl] == '=')
			return *x + kl + 1;
	return NULL;
}

static int
probe_url(const char *url, struct sp_cfg *c, struct wp_err *err)
{
	const char *hp;
	char buf[300];

	if (strncasecmp(url, "snmp://", 7) != 0)
		return err_set(err, WP_E_CONFIG, "expected snmp://HOST[:PORT]");
	hp = url + 7;
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(hp, "/"), hp);
	c->port = 161;
	if ((strchr(buf, ':') != NULL && buf[0] != '[' &&
	    strchr(strchr(buf, ':') + 1, ':') == NULL) || buf[0] == '[') {
		if (addr_parse_hostport(buf, c->host, sizeof(c->host),
		    &c->port) < 0)
			return err_set(err, WP_E_CONFIG, "bad address in %s",
			    url);
	} else if (buf[0] != '\0' && strlen(buf) < sizeof(c->host))
		snprintf(c->host, sizeof(c->host), "%s", buf);
	else
		return err_set(err, WP_E_CONFIG, "bad address in %s", url);
	return 0;
}

int
snmp_cfg_probe(struct sp_cfg *c, const struct wp_probe_req *req,
    struct wp_err *err)
{
	const char *v = extra_opt(req->extra, "version");

	if (probe_url(req->url, c, err) < 0)
		return -1;
	c->version = v != NULL && strcmp(v, "3") == 0 ? SNMP_VERSION_3 :
	    SNMP_VERSION_2c;
	if (v != NULL && strcmp(v, "3") != 0 && strcmp(v, "2c") != 0)
		return err_set(err, WP_E_CONFIG, "SNMP version '%s': 2c or 3",
		    v);
	c->timeout = req->timeout > 0 ? req->timeout / 2 : 2 * WP_SEC;
	if (c->timeout < 100 * WP_MS)
		c->timeout = 100 * WP_MS;
	c->retries = 1;
	snprintf(c->profile, sizeof(c->profile), "%s",
	    req->profile ? req->profile : "auto");
	c->unit = -1;
	if (extra_opt(req->extra, "unit") != NULL && ynode_parse_long(
	    extra_opt(req->extra, "unit"), 0, UINT32_MAX, &c->unit) < 0)
		return err_set(err, WP_E_CONFIG, "unit '%s': a databus unit "
		    "number", extra_opt(req->extra, "unit"));
	if (req->maps_dir && (c->maps_dir = strdup(req->maps_dir)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (c->version == SNMP_VERSION_3)
		return load_v3(c, extra_opt, req->extra,
		    extra_opt(req->extra, "security_level"), err);
	if (req->community_file == NULL)
		return err_set(err, WP_E_CONFIG, "SNMP v2c: give "
		    "--community-file (or v3 options)");
	return secref_set(&c->community_ref, req->community_file, NULL,
	    "SNMP v2c community", err);
}


/* Reads the secrets the session needs; at the first poll, never offline. */
int
snmp_cfg_secrets(struct sp_cfg *c, struct wp_err *err)
{
	if (c->loaded)
		return 0;
	if (c->version == SNMP_VERSION_2c) {
		if ((c->community = secref_load(&c->community_ref,
		    "SNMP v2c community", 1, err)) == NULL)
			return -1;
	} else if (c->level != SNMP_SEC_LEVEL_NOAUTH) {
		if ((c->auth_pass = secref_load(&c->auth_ref,
		    "SNMPv3 auth password", 8, err)) == NULL)
			return -1;
		if (c->level == SNMP_SEC_LEVEL_AUTHPRIV &&
		    (c->priv_pass = secref_load(&c->priv_ref,
		    "SNMPv3 priv password", 8, err)) == NULL) {
			secret_free(c->auth_pass);
			c->auth_pass = NULL;
			return -1;
		}
	}
	c->loaded = true;
	return 0;
}

static void
secref_fini(struct secref *r)
{
	free(r->file);
	free(r->env);
	r->file = r->env = NULL;
}

void
snmp_cfg_fini(struct sp_cfg *c)
{
	secret_free(c->community);
	secret_free(c->auth_pass);
	secret_free(c->priv_pass);
	c->community = c->auth_pass = c->priv_pass = NULL;
	c->loaded = false;
	secref_fini(&c->community_ref);
	secref_fini(&c->auth_ref);
	secref_fini(&c->priv_ref);
	free(c->maps_dir);
	c->maps_dir = NULL;
	free(c->conf_dir);
	c->conf_dir = NULL;
}

/* profile: a name found in the data-file search (datafile.h), or
 * "auto" (chosen at the first poll); loaded now when named. */
static void
profile_conf(struct sp_cfg *c, const struct wp_target_conf *tc,
    struct pdu_profile **prof, struct diag *d)
{
	const struct ynode *n;
	struct wp_err err = { 0 };
	char path[PATH_MAX];

	n = ycheck_typed(d, tc->block, "profile", YN_SCALAR, tc->where, false);
	snprintf(c->profile, sizeof(c->profile), "%s", n ? n->value : "auto");
	if (n == NULL || strcmp(n->value, "auto") == 0)
		return;
	if (strlen(n->value) >= sizeof(c->profile) ||
	    datafile_find(tc->maps_dir, tc->conf_dir, "pdu-profiles",
	    n->value, ".yaml", path, sizeof(path)) < 0) {
		diag_at(d, n, false, "%s: unknown PDU profile '%s' (no "
		    "pdu-profiles/%s.yaml in %s)", tc->where, n->value,
		    n->value, DATAFILE_SEARCH);
		return;
	}
	if ((*prof = pdu_profile_load(path, &err)) == NULL)
		diag_err(d, n, tc->where, &err, false);
}

void
snmp_cfg_read(struct sp_cfg *c, const struct wp_target_conf *tc,
    struct pdu_profile **prof, struct diag *d)
{
	static const char *const keys[] = { "profile", "snmp", "credentials",
		"unit", "rack", "description", "labels", NULL };

	driver_check_keys(tc, tc->block, tc->where, keys, d);
	addr_conf(c, tc, d);
	profile_conf(c, tc, prof, d);
	c->unit = -1;
	ycheck_long(d, tc->block, "unit", tc->where, 0, UINT32_MAX, &c->unit);
	if ((tc->maps_dir != NULL && (c->maps_dir = strdup(tc->maps_dir)) ==
	    NULL) || (tc->conf_dir != NULL && (c->conf_dir =
	    strdup(tc->conf_dir)) == NULL))
		diag_at(d, tc->block, false, "%s: out of memory", tc->where);
	snmp_conf(tc, c, d);
}
