/* expo_sites.c - the Sites view's rows, their sum and the peers' fetch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../conf/conf.h"
#include "../lib/jsonv.h"
#include "../lib/http.h"
#include "../lib/log.h"
#include "../lib/secret.h"
#include "../lib/shard.h"
#include "expo_sites.h"

static const char *const q_names[SQ_N] = { "wall", "gpu", "outlet",
	"facility", "it" };

/* --- rows --- */

static void
row_clear(struct site_row *r)
{
	memset(r->q, 0, sizeof(r->q));
	memset(r->has15, 0, sizeof(r->has15));
	r->has_pue15 = r->has_tokens = r->incomplete = false;
	r->nodes = r->up = r->down = 0;
	r->shard_index = r->shard_count = r->shards = 0;
}

void
site_row_self(const struct fleet *f, const struct history *h,
    struct site_row *r)
{
	double pue;
	int b;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", f->site);
	r->self = r->reachable = true;
	r->time = r->last_ok = f->now;
	r->nodes = (long)f->n_nodes;
	for (b = 0; b < FB_N; b++) {
		r->q[b] = (struct site_q){ f->total[b].power,
		    f->total[b].energy, f->total[b].has_power,
		    f->total[b].has_energy };
		r->has15[b] = h != NULL && history_tokens_window(h, f, b,
		    PUE_WINDOW, &r->e15[b], &r->t15[b]) == 0;
	}
	r->q[SQ_FACILITY] = (struct site_q){ f->fac_power, f->fac_energy,
	    f->has_fac_p, f->has_fac_e };
	r->q[SQ_IT] = (struct site_q){ f->it_power, f->it_energy,
	    f->has_it_p, f->has_it_e };
	pue = h != NULL ? history_pue(h, f, PUE_WINDOW) : NAN;
	r->pue15 = pue;
	r->has_pue15 = isfinite(pue);
	r->tokens_out = f->tokens_out;
	r->has_tokens = isfinite(f->tokens_out);
	r->up = (long)f->targets_up;
	r->down = (long)f->targets_down;
	r->shard_index = f->shard_index;
	r->shard_count = f->shard_count;
}

/* The number at key k of o: true with *v when it is one. */
static bool
jget(json_object *o, const char *k, double *v)
{
	json_object *x;

	if (o == NULL || !json_object_object_get_ex(o, k, &x) || x == NULL ||
	    (!json_object_is_type(x, json_type_double) &&
	    !json_object_is_type(x, json_type_int)))
		return false;
	*v = json_object_get_double(x);
	return isfinite(*v);
}

static json_object *
jobj(json_object *o, const char *k)
{
	json_object *x;

	return o != NULL && json_object_object_get_ex(o, k, &x) &&
	    json_object_is_type(x, json_type_object) ? x : NULL;
}

static void
parse_q(json_object *o, struct site_q *q)
{
	q->has_power = jget(o, "power_w", &q->power);
	q->has_energy = jget(o, "energy_j", &q->energy);
}

/* A peer's count as a long: 0 when it is not a count (negative, not
 * finite, past 1e12): the peer's document is not trusted. */
static long
count_of(double v)
{
	return isfinite(v) && v >= 0 && v <= 1e12 ? (long)v : 0;
}

/* "shard": {index, count} (collector.shard), or null when unsharded. */
static int
parse_shard(json_object *o, struct site_row *r, struct wp_err *err)
{
	double i, n;

	if (o == NULL)
		return 0;
	if (!jget(o, "index", &i) || !jget(o, "count", &n) || n < 1 ||
	    n > SHARD_COUNT_MAX || i < 0 || i >= n || i != floor(i) ||
	    n != floor(n))
		return err_set(err, WP_E_PROTOCOL, "its shard is not "
		    "{index, count} with 0 <= index < count <= %d",
		    SHARD_COUNT_MAX);
	r->shard_index = (unsigned)i;
	r->shard_count = (unsigned)n;
	return 0;
}

static int
parse_doc(json_object *d, const char *name, struct site_row *r,
    struct wp_err *err)
{
	json_object *x, *bs = jobj(d, "boundaries"), *b;
	const char *site;
	double v;
	int i;

	if (!json_object_object_get_ex(d, "site", &x) ||
	    !json_object_is_type(x, json_type_string) || bs == NULL ||
	    !json_object_object_get_ex(d, "time", &x) ||
	    !json_object_is_type(x, json_type_string) ||
	    clock_parse_time(json_object_get_string(x), &r->time) == -1)
		return err_set(err, WP_E_PROTOCOL, "not a wattpath "
		    "/api/v1/fleet document (an older collector, or not a "
		    "collector)");
	json_object_object_get_ex(d, "site", &x);
	site = json_object_get_string(x);
	if (strcmp(site, name) != 0)
		return err_set(err, WP_E_CONFIG, "it answers as site '%s', "
		    "not '%s'", site, name);
	for (i = 0; i < FB_N; i++) {
		b = jobj(bs, fleet_boundary_name(i));
		parse_q(b, &r->q[i]);
		r->has15[i] = jget(b, "energy_15m_j", &r->e15[i]) &&
		    jget(b, "tokens_15m", &r->t15[i]);
	}
	parse_q(jobj(d, "facility"), &r->q[SQ_FACILITY]);
	parse_q(jobj(d, "it"), &r->q[SQ_IT]);
	r->has_pue15 = jget(d, "pue_15m", &r->pue15);
	r->has_tokens = jget(jobj(d, "tokens"), "output", &r->tokens_out);
	if (jget(d, "nodes", &v))
		r->nodes = count_of(v);
	if (jget(jobj(d, "targets"), "up", &v))
		r->up = count_of(v);
	if (jget(jobj(d, "targets"), "down", &v))
		r->down = count_of(v);
	return parse_shard(jobj(d, "shard"), r, err);
}

int
site_row_parse(const char *name, const char *body, wp_time now,
    struct site_row *r, struct wp_err *err)
{
	json_object *d = json_tokener_parse(body);
	int rc;

	row_clear(r);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->self = false;
	if (d == NULL || !json_object_is_type(d, json_type_object))
		rc = err_set(err, WP_E_PROTOCOL, "the answer is not JSON");
	else
		rc = parse_doc(d, name, r, err);
	json_object_put(d);
	if (rc == -1) {
		row_clear(r);
		r->reachable = false;
		snprintf(r->error, sizeof(r->error), "%s", err->msg);
		return -1;
	}
	r->reachable = true;
	r->error[0] = '\0';
	r->last_ok = now;
	return 0;
}

/* --- a sharded site's rows --- */

/* Adds shard row r's figures into d (a sum begun by row_clear). */
static void
row_add(struct site_row *d, const struct site_row *r)
{
	int k;

	for (k = 0; k < SQ_N; k++) {
		if (r->q[k].has_power) {
			d->q[k].power += r->q[k].power;
			d->q[k].has_power = true;
		}
		if (r->q[k].has_energy) {
			d->q[k].energy += r->q[k].energy;
			d->q[k].has_energy = true;
		}
	}
	for (k = 0; k < FB_N; k++)
		if (r->has15[k]) {
			d->e15[k] += r->e15[k];
			d->t15[k] += r->t15[k];
			d->has15[k] = true;
		}
	if (r->has_tokens) {
		d->tokens_out += r->tokens_out;
		d->has_tokens = true;
	}
	/* every shard's collector lists the whole inventory's nodes */
	if (r->nodes > d->nodes)
		d->nodes = r->nodes;
	d->up += r->up;
	d->down += r->down;
	if (d->time == 0 || (r->time != 0 && r->time < d->time))
		d->time = r->time;
}

static bool
has_meters(const struct site_row *r)
{
	return r->q[SQ_FACILITY].has_power || r->q[SQ_IT].has_power;
}

/* What keeps the shards g[0..k) of one site from summing, into why;
 * false when nothing: each answered, one count, each index once. */
static bool
shards_refused(const struct site_row *rows, const size_t *g, size_t k,
    char *why, size_t len)
{
	unsigned cnt = rows[g[0]].shard_count, seen_n = 0;
	unsigned char seen[SHARD_COUNT_MAX] = { 0 };
	size_t i, w;

	for (i = 0; i < k; i++)
		if (!rows[g[i]].reachable) {
			snprintf(why, len, "a shard's collector: %s",
			    rows[g[i]].error);
			return true;
		}
	for (i = 0; i < k; i++) {
		const struct site_row *r = &rows[g[i]];

		if (r->shard_count == 0) {
			snprintf(why, len, "listed %zu times, but a collector "
			    "of it is not sharded (an HA pair? list one of "
			    "the pair)", k);
			return true;
		}
		if (r->shard_count != cnt) {
			snprintf(why, len, "its shards' counts differ (%u and "
			    "%u)", cnt, r->shard_count);
			return true;
		}
		if (seen[r->shard_index]++) {
			snprintf(why, len, "shard %u is listed twice (an HA "
			    "pair? list one of the pair)", r->shard_index);
			return true;
		}
		seen_n++;
	}
	if (seen_n == cnt)
		return false;
	w = (size_t)snprintf(why, len, "shard");
	for (i = 0, k = 0; i < cnt && w < len; i++)
		if (!seen[i] && k++ < 8)
			w += (size_t)snprintf(why + w, len - w, "%s %zu",
			    k > 1 ? "," : "", i);
	if (w < len)
		snprintf(why + w, len - w, "%s of %u not in collector.peers",
		    k > 8 ? ", ..." : "", cnt);
	return true;
}

/* The site's row from its shards' rows g[0..k), into out. */
static void
shards_fold(const struct site_row *rows, const size_t *g, size_t k,
    struct site_row *out)
{
	const struct site_row *pue = NULL;
	size_t i, meters = 0, pues = 0;
	char why[WP_ERR_MSG];
	bool self = false;
	wp_time last = 0;

	for (i = 0; i < k; i++) {
		const struct site_row *r = &rows[g[i]];

		self |= r->self;
		if (i == 0 || r->last_ok < last)
			last = r->last_ok;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->name, rows[g[0]].name, sizeof(out->name));
	out->self = self;
	out->last_ok = last;
	out->shard_count = rows[g[0]].shard_count;
	out->shards = (unsigned)k;
	for (i = 0, out->reachable = true; i < k; i++)
		out->reachable &= rows[g[i]].reachable;
	if (shards_refused(rows, g, k, why, sizeof(why))) {
		/* every shard answered: incomplete, else unreachable */
		out->incomplete = out->reachable;
		snprintf(out->error, sizeof(out->error), "%s", why);
		return;
	}
	for (i = 0; i < k; i++) {
		row_add(out, &rows[g[i]]);
		meters += has_meters(&rows[g[i]]);
		if (rows[g[i]].has_pue15) {
			pues++;
			pue = &rows[g[i]];
		}
	}
	/* a PUE of one shard is the site's only when it holds every meter */
	out->has_pue15 = pues == 1 && meters == 1 && has_meters(pue);
	out->pue15 = out->has_pue15 ? pue->pue15 : NAN;
}

size_t
sites_merge_shards(struct site_row *rows, size_t n)
{
	bool used[SITES_MAX] = { false };
	size_t g[SITES_MAX], i, j, k, out = 0;
	struct site_row m;

	if (n > SITES_MAX)
		n = SITES_MAX;
	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		for (j = i, k = 0; j < n; j++)
			if (!used[j] && strcmp(rows[j].name, rows[i].name) == 0) {
				used[j] = true;
				g[k++] = j;
			}
		if (k == 1 && rows[i].shard_count == 0) {
			if (out != i)
				rows[out] = rows[i];
			out++;
			continue;
		}
		shards_fold(rows, g, k, &m);
		rows[out++] = m;
	}
	return out;
}

/* --- the combination --- */

static void
miss(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
}

void
sites_combine(const struct site_row *rows, size_t n, struct sites_sum *s)
{
	double fp = 0, ip = 0;
	bool pue = n > 0;
	size_t i;
	int k;

	memset(s, 0, sizeof(*s));
	s->has_tokens = n > 0;
	for (k = 0; k < SQ_N; k++)
		s->q[k].has_power = s->q[k].has_energy = n > 0;
	for (i = 0; i < n; i++) {
		const struct site_row *r = &rows[i];

		for (k = 0; k < SQ_N; k++) {
			if (r->q[k].has_power)
				s->q[k].power += r->q[k].power;
			else {
				s->q[k].has_power = false;
				miss(s->miss_p[k], sizeof(s->miss_p[k]),
				    r->name);
			}
			if (r->q[k].has_energy)
				s->q[k].energy += r->q[k].energy;
			else {
				s->q[k].has_energy = false;
				miss(s->miss_e[k], sizeof(s->miss_e[k]),
				    r->name);
			}
		}
		for (k = 0; k < FB_N; k++)
			if (r->has15[k] && r->t15[k] > 0) {
				s->e15[k] += r->e15[k];
				s->t15[k] += r->t15[k];
				s->jpt_sites[k]++;
			}
		if (r->q[SQ_FACILITY].has_power && r->q[SQ_IT].has_power) {
			fp += r->q[SQ_FACILITY].power;
			ip += r->q[SQ_IT].power;
		} else
			pue = false;
		if (r->has_tokens)
			s->tokens_out += r->tokens_out;
		else
			s->has_tokens = false;
		if (r->reachable && !r->incomplete) {
			s->up += r->up;
			s->down += r->down;
		} else if (!r->reachable)
			s->unreachable++;
	}
	s->pue = pue && ip > 0 ? fp / ip : NAN;
}

/* --- the document --- */

/* A time, null when never (0). */
static json_object *
jwhen(wp_time t)
{
	return t != 0 ? jtime(t) : NULL;
}

/* A text, null when none or empty. */
static json_object *
jtext(const char *s)
{
	return s != NULL && *s ? jstr(s) : NULL;
}

static json_object *
q_json(const struct site_q *q)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "power_w", q->has_power ? jnum(q->power) :
	    NULL);
	json_object_object_add(o, "energy_j", q->has_energy ?
	    jnum(q->energy) : NULL);
	return o;
}

static void
add_jpt(json_object *o, double e, double t, bool has)
{
	json_object_object_add(o, "energy_15m_j", has ? jnum(e) : NULL);
	json_object_object_add(o, "tokens_15m", has ? jnum(t) : NULL);
	json_object_object_add(o, "joules_per_token_15m", has && t > 0 ?
	    jnum(e / t) : NULL);
}

static json_object *
row_json(const struct site_row *r)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	json_object *k;
	bool known = r->reachable && !r->incomplete;
	int i;

	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "self", json_object_new_boolean(r->self));
	json_object_object_add(o, "reachable",
	    json_object_new_boolean(r->reachable));
	json_object_object_add(o, "incomplete",
	    json_object_new_boolean(r->incomplete));
	json_object_object_add(o, "error", jtext(r->error));
	if (r->shard_count > 0) {
		k = json_object_new_object();
		json_object_object_add(k, "count",
		    json_object_new_int64(r->shard_count));
		json_object_object_add(k, "summed",
		    json_object_new_int64(r->shards));
		json_object_object_add(o, "shards", k);
	} else
		json_object_object_add(o, "shards", NULL);
	json_object_object_add(o, "time", jwhen(r->time));
	json_object_object_add(o, "last_success", jwhen(r->last_ok));
	json_object_object_add(o, "nodes", known ?
	    json_object_new_int64(r->nodes) : NULL);
	for (i = 0; i < SQ_N; i++) {
		k = q_json(&r->q[i]);
		if (i < FB_N)
			add_jpt(k, r->e15[i], r->t15[i], r->has15[i]);
		json_object_object_add(b, q_names[i], k);
	}
	json_object_object_add(o, "boundaries", b);
	json_object_object_add(o, "pue_15m", r->has_pue15 ? jnum(r->pue15) :
	    NULL);
	json_object_object_add(o, "output_tokens", r->has_tokens ?
	    jnum(r->tokens_out) : NULL);
	k = json_object_new_object();
	json_object_object_add(k, "up", known ?
	    json_object_new_int64(r->up) : NULL);
	json_object_object_add(k, "down", known ?
	    json_object_new_int64(r->down) : NULL);
	json_object_object_add(o, "targets", k);
	return o;
}

static json_object *
names_json(const char *joined)
{
	json_object *a = json_object_new_array();
	const char *p = joined, *e;

	while (*p) {
		e = strstr(p, ", ");
		json_object_array_add(a, json_object_new_string_len(p,
		    e ? (int)(e - p) : (int)strlen(p)));
		p = e ? e + 2 : p + strlen(p);
	}
	return a;
}

static json_object *
sum_json(const struct site_row *rows, size_t n, const struct sites_sum *s)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	json_object *k, *a;
	size_t i;
	int j;

	json_object_object_add(o, "sites", json_object_new_int64((int64_t)n));
	for (j = 0; j < SQ_N; j++) {
		k = q_json(&s->q[j]);
		json_object_object_add(k, "partial", json_object_new_boolean(
		    !s->q[j].has_power || !s->q[j].has_energy));
		json_object_object_add(k, "missing_power",
		    names_json(s->miss_p[j]));
		json_object_object_add(k, "missing_energy",
		    names_json(s->miss_e[j]));
		if (j < FB_N) {
			add_jpt(k, s->e15[j], s->t15[j], s->jpt_sites[j] > 0);
			json_object_object_add(k, "joules_per_token_sites",
			    json_object_new_int64((int64_t)s->jpt_sites[j]));
		}
		json_object_object_add(b, q_names[j], k);
	}
	json_object_object_add(o, "boundaries", b);
	json_object_object_add(o, "pue", jnum(s->pue));
	json_object_object_add(o, "output_tokens", s->has_tokens ?
	    jnum(s->tokens_out) : NULL);
	k = json_object_new_object();
	json_object_object_add(k, "up", json_object_new_int64(s->up));
	json_object_object_add(k, "down", json_object_new_int64(s->down));
	json_object_object_add(o, "targets", k);
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		if (!rows[i].reachable)
			json_object_array_add(a,
			    json_object_new_string(rows[i].name));
	json_object_object_add(o, "unreachable", a);
	return o;
}

char *
sites_json(const struct site_row *rows, size_t n, wp_time now)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct sites_sum *s;
	const char *t;
	char *out = NULL;
	size_t i;

	if ((s = malloc(sizeof(*s))) == NULL) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	sites_combine(rows, n, s);
	json_object_object_add(o, "time", jwhen(now));
	for (i = 0; i < n; i++)
		json_object_array_add(a, row_json(&rows[i]));
	json_object_object_add(o, "sites", a);
	json_object_object_add(o, "combined", sum_json(rows, n, s));
	free(s);
	t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (t != NULL)
		out = strdup(t);
	json_object_put(o);
	return out;
}

/* --- the peers' fetch --- */

struct peer {
	struct peers		*ps;
	char			*name, *url, *api, *ca_file, *user, *pass;
	char			*pw_file, *pw_env;
	wp_time			 timeout;
	bool			 insecure;
	struct http_conn	*conn;
	struct site_row		 row;
};

struct peers {
	struct http		*http;
	struct peer		*v;
	size_t			 n;
};

static bool
str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL &&
	    strcmp(a, b) == 0);
}

bool
peers_same(const struct peers *p, const struct wp_conf *c)
{
	size_t i;

	if ((p == NULL ? 0 : p->n) != c->n_peers)
		return false;
	for (i = 0; i < c->n_peers; i++) {
		const struct peer *a = &p->v[i];
		const struct wp_peer *b = &c->peers[i];

		if (!str_eq(a->name, b->name) || !str_eq(a->url, b->url) ||
		    !str_eq(a->ca_file, b->ca_file) ||
		    !str_eq(a->user, b->username) ||
		    !str_eq(a->pw_file, b->password_file) ||
		    !str_eq(a->pw_env, b->password_env) ||
		    a->timeout != b->timeout || a->insecure != b->insecure)
			return false;
	}
	return true;
}

static void
on_done(void *arg, const struct http_resp *resp, const struct wp_err *err)
{
	struct peer *p = arg;
	struct wp_err e = { 0 };
	struct site_row *r = &p->row;
	wp_time last = r->last_ok;
	bool was = r->reachable;

	if (err != NULL || resp == NULL || resp->status != 200) {
		row_clear(r);
		r->reachable = false;
		r->time = 0;
		if (err != NULL)
			snprintf(r->error, sizeof(r->error), "%s", err->msg);
		else
			snprintf(r->error, sizeof(r->error), "%s answered "
			    "HTTP %ld", p->api, resp ? resp->status : 0L);
	} else if (site_row_parse(p->name, resp->body, clock_real(), r,
	    &e) == -1) {
		r->last_ok = last;
		r->time = 0;
	}
	if (was && !r->reachable)
		log_warnx("peers: site %s: %s", p->name, r->error);
	else if (!was && r->reachable && last != 0)
		log_info("peers: site %s answers again", p->name);
}

void
peers_tick(struct peers *ps)
{
	struct wp_err err;
	size_t i;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->n; i++) {
		struct peer *p = &ps->v[i];
		struct http_req_opts o = { .method = "GET", .url = p->api,
		    .ca_file = p->ca_file, .insecure = p->insecure,
		    .basic_user = p->user, .basic_password = p->pass,
		    .timeout = p->timeout, .max_body = 1u << 20 };

		if (http_busy(p->conn))
			continue;
		if (http_start(p->conn, &o, on_done, p, &err) == -1) {
			row_clear(&p->row);
			p->row.reachable = false;
			p->row.time = 0;
			snprintf(p->row.error, sizeof(p->row.error), "%s",
			    err.msg);
		}
	}
}

size_t
peers_rows(const struct peers *ps, struct site_row *out, size_t max)
{
	size_t i;

	for (i = 0; ps != NULL && i < ps->n && i < max; i++)
		out[i] = ps->v[i].row;
	return i;
}

static char *
dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*oom = true;
	return d;
}

static int
peer_init(struct peers *ps, struct peer *p, const struct wp_peer *c,
    struct wp_err *err)
{
	size_t n = strlen(c->url);
	bool oom = false;

	p->ps = ps;
	p->timeout = c->timeout;
	p->insecure = c->insecure;
	p->name = dup_or_null(c->name, &oom);
	p->url = dup_or_null(c->url, &oom);
	p->ca_file = dup_or_null(c->ca_file, &oom);
	p->user = dup_or_null(c->username, &oom);
	p->pw_file = dup_or_null(c->password_file, &oom);
	p->pw_env = dup_or_null(c->password_env, &oom);
	while (n > 0 && c->url[n - 1] == '/')
		n--;
	if (!oom && asprintf(&p->api, "%.*s/api/v1/fleet", (int)n,
	    c->url) < 0) {
		p->api = NULL;
		oom = true;
	}
	if (oom)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	snprintf(p->row.name, sizeof(p->row.name), "%s", c->name);
	snprintf(p->row.error, sizeof(p->row.error), "not fetched yet");
	if (c->username != NULL && (p->pass = secret_load(c->password_file,
	    c->password_env, err)) == NULL) {
		err_prefix(err, "collector: peers: %s: password", c->name);
		return -1;
	}
	if ((p->conn = http_conn_new(ps->http, err)) == NULL)
		return -1;
	return 0;
}

struct peers *
peers_new(struct loop *l, const struct wp_conf *c, struct wp_err *err)
{
	struct peers *ps;
	size_t i;

	err_clear(err);
	if (c->n_peers == 0)
		return NULL;
	if ((ps = calloc(1, sizeof(*ps))) == NULL ||
	    (ps->v = calloc(c->n_peers, sizeof(*ps->v))) == NULL) {
		free(ps);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	ps->n = c->n_peers;
	if ((ps->http = http_new(l, 0, err)) == NULL)
		goto fail;
	for (i = 0; i < c->n_peers; i++)
		if (peer_init(ps, &ps->v[i], &c->peers[i], err) == -1)
			goto fail;
	return ps;
fail:
	peers_free(ps);
	return NULL;
}

void
peers_free(struct peers *ps)
{
	size_t i;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->n; i++) {
		struct peer *p = &ps->v[i];

		http_conn_free(p->conn);
		free(p->name);
		free(p->url);
		free(p->api);
		free(p->ca_file);
		free(p->user);
		free(p->pw_file);
		free(p->pw_env);
		secret_free(p->pass);
	}
	http_free(ps->http);
	free(ps->v);
	free(ps);
}
