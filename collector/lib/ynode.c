/*
 * ynode.c - YAML (libyaml events) into a tree of struct ynode with line
 * numbers, and the lookups and typed getters every reader of wattpath's
 * YAML files (the config, PDU profiles, meter maps) walks it with.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "diag.h"
#include "ynode.h"

#define DEPTH_MAX	64		/* nesting levels in a YAML file */

struct ynode *
ynode_new(int type, const char *key, const char *value, int line)
{
	struct ynode *n;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->type = type;
	n->line = line;
	if ((key && (n->key = strdup(key)) == NULL) ||
	    (value && (n->value = strdup(value)) == NULL)) {
		free(n->key);
		free(n);
		return NULL;
	}
	return n;
}

/* Frees n, its children and its following siblings. */
void
ynode_free(struct ynode *n)
{
	struct ynode *next;

	for (; n != NULL; n = next) {
		next = n->next;
		ynode_free(n->child);
		free(n->key);
		free(n->value);
		free(n);
	}
}

/* Appends c as the last child of parent. */
void
ynode_append(struct ynode *parent, struct ynode *c)
{
	if (parent->child == NULL)
		parent->child = c;
	else
		parent->last->next = c;
	parent->last = c;
}

size_t
ynode_count(const struct ynode *n)
{
	const struct ynode *c;
	size_t k = 0;

	for (c = n->child; c != NULL; c = c->next)
		k++;
	return k;
}

const char *
ynode_type_name(int type)
{
	switch (type) {
	case YN_MAP:	return "a mapping";
	case YN_SEQ:	return "a list";
	default:	return "a single value";
	}
}

/* ---------------------------------------------------------------- parser */

struct yparser {
	yaml_parser_t	 yp;
	FILE		*f;		/* for the line of a reader error */
	struct diag	*d;
	bool		 broken;	/* libyaml gave up: stop reading */
};

/* The 1-based line of byte offset off of f (0 when f cannot seek). */
static int
line_at(FILE *f, size_t off)
{
	size_t i;
	int c, line = 1;

	if (fseek(f, 0, SEEK_SET) != 0)
		return 0;
	for (i = 0; i < off && (c = getc(f)) != EOF; i++)
		if (c == '\n')
			line++;
	return line;
}

static int
next_event(struct yparser *p, yaml_event_t *ev)
{
	const char *problem, *ctx;
	int line;

	if (p->broken)
		return -1;
	if (yaml_parser_parse(&p->yp, ev))
		return 0;
	p->broken = true;
	line = (int)p->yp.problem_mark.line + 1;
	problem = p->yp.problem ? p->yp.problem : "unknown problem";
	ctx = p->yp.context;
	if (p->yp.error == YAML_MEMORY_ERROR)
		diag_add(p->d, NULL, 0, false, "out of memory while parsing");
	else if (p->yp.error == YAML_READER_ERROR)
		diag_add(p->d, NULL, line_at(p->f, p->yp.problem_offset), false,
		    "cannot read: %s (byte %zu: not UTF-8 text?)", problem,
		    p->yp.problem_offset);
	else
		diag_add(p->d, NULL, line, false, "YAML syntax error: %s%s%s",
		    problem, ctx ? " " : "", ctx ? ctx : "");
	return -1;
}

static struct ynode *parse_value(struct yparser *p, yaml_event_t *ev,
    int depth);

static bool
has_key(const struct ynode *map, const char *key)
{
	const struct ynode *c;

	for (c = map->child; c != NULL; c = c->next)
		if (strcmp(c->key, key) == 0)
			return true;
	return false;
}

/* Reads members until MAPPING-END; ev is the MAPPING-START (consumed). */
static struct ynode *
parse_map(struct yparser *p, yaml_event_t *ev, int depth)
{
	struct ynode *map, *val;
	yaml_event_t kev, vev;
	char *key;
	int kline;

	map = ynode_new(YN_MAP, NULL, NULL, (int)ev->start_mark.line + 1);
	yaml_event_delete(ev);
	if (map == NULL)
		return NULL;
	for (;;) {
		if (next_event(p, &kev) < 0)
			break;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return map;
		}
		kline = (int)kev.start_mark.line + 1;
		key = NULL;
		if (kev.type == YAML_SCALAR_EVENT)
			key = strdup((const char *)kev.data.scalar.value);
		else
			diag_add(p->d, NULL, kline, false,
			    "mapping keys must be plain words, not %s",
			    kev.type == YAML_ALIAS_EVENT ? "aliases" :
			    "lists or mappings");
		/* A non-scalar key: parse it to skip it. */
		if (kev.type != YAML_SCALAR_EVENT)
			ynode_free(parse_value(p, &kev, depth + 1));
		else
			yaml_event_delete(&kev);
		if (next_event(p, &vev) < 0) {
			free(key);
			break;
		}
		val = parse_value(p, &vev, depth + 1);
		if (key == NULL || val == NULL) {
			free(key);
			ynode_free(val);
			continue;
		}
		if (has_key(map, key)) {
			diag_add(p->d, NULL, kline, false, "duplicate key '%s'", key);
			free(key);
			ynode_free(val);
			continue;
		}
		val->key = key;
		val->line = kline;	/* a member's line is its key's */
		ynode_append(map, val);
	}
	ynode_free(map);
	return NULL;
}

/* Reads items until SEQUENCE-END; ev is the SEQUENCE-START (consumed). */
static struct ynode *
parse_seq(struct yparser *p, yaml_event_t *ev, int depth)
{
	struct ynode *seq, *item;
	yaml_event_t iev;

	seq = ynode_new(YN_SEQ, NULL, NULL, (int)ev->start_mark.line + 1);
	yaml_event_delete(ev);
	if (seq == NULL)
		return NULL;
	for (;;) {
		if (next_event(p, &iev) < 0)
			break;
		if (iev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&iev);
			return seq;
		}
		if ((item = parse_value(p, &iev, depth + 1)) != NULL)
			ynode_append(seq, item);
	}
	ynode_free(seq);
	return NULL;
}

/*
 * Builds the node that starts with ev (consumed).  Returns NULL after an
 * error (reported) when the value cannot be represented; parsing goes on
 * unless libyaml itself failed.
 */
static struct ynode *
parse_value(struct yparser *p, yaml_event_t *ev, int depth)
{
	struct ynode *n;
	int line = (int)ev->start_mark.line + 1;

	if (depth > DEPTH_MAX) {
		diag_add(p->d, NULL, line, false, "nested more than %d levels deep",
		    DEPTH_MAX);
		yaml_event_delete(ev);
		p->broken = true;
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = ynode_new(YN_SCALAR, NULL,
		    (const char *)ev->data.scalar.value, line);
		if (n && strlen(n->value) != ev->data.scalar.length) {
			diag_add(p->d, NULL, line, false,
			    "value contains a NUL character");
			ynode_free(n);
			n = NULL;
		}
		yaml_event_delete(ev);
		return n;
	case YAML_MAPPING_START_EVENT:
		return parse_map(p, ev, depth);
	case YAML_SEQUENCE_START_EVENT:
		return parse_seq(p, ev, depth);
	case YAML_ALIAS_EVENT:
		diag_add(p->d, NULL, line, false, "YAML aliases (*%s) are not "
		    "supported: write the value out", ev->data.alias.anchor);
		yaml_event_delete(ev);
		return NULL;
	default:
		diag_add(p->d, NULL, line, false, "unexpected YAML event");
		yaml_event_delete(ev);
		p->broken = true;
		return NULL;
	}
}

/* Parses the one document of f; returns its root (or NULL, reported). */
struct ynode *
ynode_parse(FILE *f, struct diag *d)
{
	struct yparser p = { .f = f, .d = d };
	struct ynode *root = NULL;
	yaml_event_t ev;
	bool done = false;

	if (!yaml_parser_initialize(&p.yp)) {
		diag_add(d, NULL, 0, false, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_file(&p.yp, f);
	while (!done && next_event(&p, &ev) == 0) {
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			/* FALLTHROUGH */
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			yaml_event_delete(&ev);
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (root != NULL) {
				diag_add(d, NULL, (int)ev.start_mark.line + 1, false,
				    "more than one YAML document in the file");
				done = true;
			}
			yaml_event_delete(&ev);
			break;
		default:
			if (root != NULL)	/* cannot happen */
				ynode_free(root);
			root = parse_value(&p, &ev, 0);
			if (root == NULL)
				done = true;
			break;
		}
	}
	yaml_parser_delete(&p.yp);
	if (p.broken) {
		ynode_free(root);
		return NULL;
	}
	return root;
}

/* ---------------------------------------------------------------- lookups */

const struct ynode *
ynode_get(const struct ynode *map, const char *key)
{
	const struct ynode *c;

	if (map == NULL || map->type != YN_MAP || key == NULL)
		return NULL;
	for (c = map->child; c != NULL; c = c->next)
		if (c->key != NULL && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const char *
ynode_str(const struct ynode *map, const char *key)
{
	const struct ynode *n = ynode_get(map, key);

	return n != NULL && n->type == YN_SCALAR ? n->value : NULL;
}

int
ynode_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	size_t i;

	for (i = 0; yes[i] != NULL; i++)
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, 0;
	for (i = 0; no[i] != NULL; i++)
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, 0;
	return -1;
}

int
ynode_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (*s == '\0' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0' || errno != 0 || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
ynode_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (*s == '\0' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || errno != 0 || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* Looks key up for a typed getter: 1 absent, 0 scalar in *np, -1 error. */
static int
typed_lookup(const struct ynode *map, const char *key,
    const struct ynode **np, const char *what, struct wp_err *err)
{
	const struct ynode *n = ynode_get(map, key);

	if (n == NULL)
		return 1;
	*np = n;
	if (n->type != YN_SCALAR)
		return err_set(err, WP_E_CONFIG, "line %d: %s: expected %s, "
		    "not %s", n->line, key, what, ynode_type_name(n->type));
	return 0;
}

int
ynode_bool(const struct ynode *map, const char *key, bool *out,
    struct wp_err *err)
{
	const struct ynode *n;
	int r;

	if ((r = typed_lookup(map, key, &n, "true or false", err)) != 0)
		return r;
	if (ynode_parse_bool(n->value, out) < 0)
		return err_set(err, WP_E_CONFIG, "line %d: %s: expected true "
		    "or false, got '%s'", n->line, key, n->value);
	return 0;
}

int
ynode_int(const struct ynode *map, const char *key, long min,
    long max, long *out, struct wp_err *err)
{
	const struct ynode *n;
	int r;

	if ((r = typed_lookup(map, key, &n, "an integer", err)) != 0)
		return r;
	if (ynode_parse_long(n->value, min, max, out) < 0)
		return err_set(err, WP_E_CONFIG, "line %d: %s: expected an "
		    "integer in %ld..%ld, got '%s'", n->line, key, min, max,
		    n->value);
	return 0;
}

int
ynode_double(const struct ynode *map, const char *key, double *out,
    struct wp_err *err)
{
	const struct ynode *n;
	int r;

	if ((r = typed_lookup(map, key, &n, "a number", err)) != 0)
		return r;
	if (ynode_parse_double(n->value, out) < 0)
		return err_set(err, WP_E_CONFIG, "line %d: %s: expected a "
		    "number, got '%s'", n->line, key, n->value);
	return 0;
}

int
ynode_duration(const struct ynode *map, const char *key,
    wp_time *out, struct wp_err *err)
{
	const struct ynode *n;
	int r;

	if ((r = typed_lookup(map, key, &n, "a duration", err)) != 0)
		return r;
	if (clock_parse_duration(n->value, out) < 0)
		return err_set(err, WP_E_CONFIG, "line %d: %s: expected a "
		    "duration like 10s, 5m, 1h or 250ms, got '%s'", n->line,
		    key, n->value);
	return 0;
}

bool
ynode_key_in(const char *key, const char *const *allowed)
{
	for (; *allowed != NULL; allowed++)
		if (strcmp(key, *allowed) == 0)
			return true;
	return false;
}

/* The edit distance of a and b (insertions, deletions, substitutions and
 * swaps of two neighbours, ASCII case folded), capped at 9. */
static int
key_distance(const char *a, const char *b)
{
	int rows[3][YNODE_KEY_MAX + 1], *pp, *p, *r, *t, i, j, c, v;
	size_t na = strlen(a), nb = strlen(b);

	if (na > YNODE_KEY_MAX || nb > YNODE_KEY_MAX)
		return 9;
	for (j = 0; j <= (int)nb; j++)
		rows[1][j] = j;
	pp = rows[0], p = rows[1], r = rows[2];
	for (i = 1; i <= (int)na; i++) {
		r[0] = i;
		for (j = 1; j <= (int)nb; j++) {
			c = tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]);
			v = p[j - 1] + c;
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (r[j - 1] + 1 < v)
				v = r[j - 1] + 1;
			if (i > 1 && j > 1 && c && tolower((unsigned char)
			    a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) ==
			    tolower((unsigned char)b[j - 1]) &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			r[j] = v;
		}
		t = pp;
		pp = p;
		p = r;
		r = t;
	}
	return p[nb] < 9 ? p[nb] : 9;
}

/* Whether one of a, b starts the other at a word boundary ("ttft" and
 * "ttft_ms", "grid" and "grid_zone"), case folded, the shorter >= 3. */
static bool
key_prefix(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	const char *s = na < nb ? a : b, *l = na < nb ? b : a;
	size_t n = na < nb ? na : nb;

	return n >= 3 && na != nb && strncasecmp(s, l, n) == 0 &&
	    (l[n] == '_' || l[n] == '-');
}

static void
nearest_in(const char *key, const char *const *list, const char **best,
    int *best_d)
{
	int d;

	for (; list != NULL && *list != NULL; list++) {
		d = key_distance(key, *list);
		if (key_prefix(key, *list) && d > 1)
			d = 1;		/* "ttft" for "ttft_ms" */
		if (d < *best_d) {
			*best = *list;
			*best_d = d;
		}
	}
}

const char *
ynode_key_nearest(const char *key, const char *const *a,
    const char *const *b)
{
	const char *best = NULL;
	int best_d = 99, max;

	nearest_in(key, a, &best, &best_d);
	nearest_in(key, b, &best, &best_d);
	/* one edit in a short key, two in a longer one, a third of a long
	 * one: a suggestion should look like a typo of it */
	max = strlen(key) <= 4 ? 1 : strlen(key) <= 9 ? 2 : 3;
	return best != NULL && best_d <= max && best_d < (int)strlen(key) ?
	    best : NULL;
}

#define KNOWN_LISTED	8	/* a block with at most this many keys lists them */

int
ynode_key_hint(char *buf, size_t len, const char *key,
    const char *const *a, const char *const *b)
{
	const char *near = ynode_key_nearest(key, a, b);
	const char *const *lists[2] = { a, b };
	size_t n = 0, i, at;
	int r;

	if (near != NULL)
		return snprintf(buf, len, "unknown key '%s' (did you mean "
		    "'%s'?)", key, near);
	for (i = 0; i < 2; i++)
		for (at = 0; lists[i] != NULL && lists[i][at] != NULL; at++)
			n++;
	r = snprintf(buf, len, "unknown key '%s'", key);
	if (n == 0 || n > KNOWN_LISTED || r < 0 || (size_t)r >= len)
		return r;
	/* a short block: its keys, so the right one is in the message */
	r += snprintf(buf + r, len - (size_t)r, " (known:");
	for (i = 0; i < 2; i++)
		for (at = 0; lists[i] != NULL && lists[i][at] != NULL &&
		    (size_t)r < len; at++)
			r += snprintf(buf + r, len - (size_t)r, "%s %s",
			    i + at == 0 ? "" : ",", lists[i][at]);
	if ((size_t)r < len)
		r += snprintf(buf + r, len - (size_t)r, ")");
	return r;
}

int
ynode_check_keys(const struct ynode *map, const char *const *allowed,
    struct wp_err *err)
{
	const struct ynode *c;

	if (map == NULL)
		return err_set(err, WP_E_CONFIG, "missing mapping");
	if (map->type != YN_MAP)
		return err_set(err, WP_E_CONFIG, "line %d: expected a mapping, "
		    "not %s", map->line, ynode_type_name(map->type));
	for (c = map->child; c != NULL; c = c->next)
		if (!ynode_key_in(c->key, allowed)) {
			char hint[160];

			ynode_key_hint(hint, sizeof(hint), c->key, allowed,
			    NULL);
			return err_set(err, WP_E_CONFIG, "line %d: %s",
			    c->line, hint);
		}
	return 0;
}

