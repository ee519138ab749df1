/*
 * promtext.c - Prometheus / OpenMetrics text parser (see promtext.h).
 *
 * Each complete line is copied into a private buffer of max_line bytes and
 * tokenised in place (names and label values are NUL-terminated and
 * unescaped where they lie).  Families live in an open-addressing hash
 * table that never holds more than max_families entries.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/hmap.h"
#include "promtext.h"

#define HELP_MAX	512

struct family {
	char	*name;		/* first: the families map's key */
	char	*help;
	char	*unit;
	int	 type;
	bool	 typed;
};

struct prom_parser {
	struct prom_opts opts;
	prom_sample_cb	 cb;
	void		*arg;
	char		*line;		/* max_line + 1 bytes */
	size_t		 len;		/* bytes of the current partial line */
	unsigned long	 lineno;
	unsigned long	 samples;
	struct prom_label *labels;
	struct hmap	 fam;		/* struct family by name */
	bool		 eof_seen;	/* "# EOF" */
	bool		 failed;
	bool		 finished;
};

static const char *const type_names[] = {
	"untyped", "counter", "gauge", "histogram", "summary",
	"gaugehistogram", "info", "stateset",
};

const char *
prom_type_name(int type)
{
	if (type < 0 || type > PROM_STATESET)
		return "?";
	return type_names[type];
}

static int
type_parse(const char *s)
{
	size_t i;

	if (strcmp(s, "unknown") == 0)
		return PROM_UNTYPED;
	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strcmp(s, type_names[i]) == 0)
			return (int)i;
	return -1;
}

bool
prom_content_is_openmetrics(const char *ct)
{
	return ct != NULL && strncasecmp(ct, "application/openmetrics-text",
	    28) == 0;
}

const char *
prom_label(const struct prom_sample *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return s->labels[i].value;
	return NULL;
}

/* ---- family table ---------------------------------------------------- */

struct fam_key {
	const char	*s;
	size_t		 n;
};

static bool
fam_eq(const void *entry, const void *key)
{
	const struct family *f = entry;
	const struct fam_key *k = key;

	return strncmp(f->name, k->s, k->n) == 0 && f->name[k->n] == '\0';
}

/* Finds the family named s[0..n); NULL if absent. */
static struct family *
fam_find(struct prom_parser *p, const char *s, size_t n)
{
	struct fam_key k = { s, n };

	return hmap_get(&p->fam, hmap_hash_add(HMAP_SEED, s, n), fam_eq, &k);
}

static void
fam_free(struct family *f)
{
	if (f == NULL)
		return;
	free(f->name);
	free(f->help);
	free(f->unit);
	free(f);
}

/* Finds or adds family name; NULL with err when the table is full. */
static struct family *
fam_get(struct prom_parser *p, const char *name, struct wp_err *err)
{
	struct family *f;
	size_t n = strlen(name);

	if ((f = fam_find(p, name, n)) != NULL)
		return f;
	if (p->fam.n >= p->opts.max_families) {
		err_set(err, WP_E_PROTOCOL, "line %lu: more than %zu metric "
		    "families", p->lineno, p->opts.max_families);
		return NULL;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->name = strdup(name)) == NULL ||
	    hmap_put(&p->fam, hmap_hash_add(HMAP_SEED, name, n), f) == -1) {
		fam_free(f);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	return f;
}

/* ---- lexing helpers -------------------------------------------------- */

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *
skip_blanks(char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

static bool
name_start(char c, bool colon)
{
	return isalpha((unsigned char)c) || c == '_' || (colon && c == ':');
}

static bool
name_char(char c, bool colon)
{
	return name_start(c, colon) || isdigit((unsigned char)c);
}

/* Length of a metric (colon) or label name at s. */
static size_t
name_len(const char *s, bool colon)
{
	size_t n = 0;

	if (!name_start(s[0], colon))
		return 0;
	while (name_char(s[n], colon))
		n++;
	return n;
}

/* Parses a sample value: a float, NaN, +Inf, -Inf (any case). */
static int
parse_value(const char *tok, double *out)
{
	char *end;

	if (*tok == '\0')
		return -1;
	errno = 0;
	*out = strtod(tok, &end);
	if (*end != '\0' || end == tok)
		return -1;
	/* strtod saturates to +/-HUGE_VAL on overflow: an absurd reading. */
	if (errno == ERANGE && isinf(*out))
		return -1;
	return 0;
}

/* Prometheus: integer milliseconds; OpenMetrics: float seconds. */
static int
parse_ts(const char *tok, bool om, double *out)
{
	char *end;
	long long ms;

	if (om) {
		if (parse_value(tok, out) == -1 || !isfinite(*out))
			return -1;
		return 0;
	}
	errno = 0;
	ms = strtoll(tok, &end, 10);
	if (*end != '\0' || end == tok || errno == ERANGE)
		return -1;
	*out = (double)ms / 1000.0;
	return 0;
}

/* Unescapes a HELP text in place (\\ and \n; OpenMetrics also \"). */
static void
unescape_help(char *s)
{
	char *d = s;

	for (; *s != '\0'; s++) {
		if (*s == '\\' && s[1] == 'n') {
			*d++ = '\n';
			s++;
		} else if (*s == '\\' && (s[1] == '\\' || s[1] == '"')) {
			*d++ = s[1];
			s++;
		} else
			*d++ = *s;
	}
	*d = '\0';
}

/* ---- metadata lines -------------------------------------------------- */

static int
meta_type(struct prom_parser *p, struct family *f, char *arg,
    struct wp_err *err)
{
	int t;
	char *e = arg + strlen(arg);

	while (e > arg && is_blank(e[-1]))
		*--e = '\0';
	if ((t = type_parse(arg)) == -1)
		return err_set(err, WP_E_PROTOCOL, "line %lu: unknown TYPE "
		    "\"%.32s\" for %.64s", p->lineno, arg, f->name);
	if (f->typed && f->type != t)
		return err_set(err, WP_E_PROTOCOL, "line %lu: TYPE of %.64s "
		    "changes from %s to %s", p->lineno, f->name,
		    prom_type_name(f->type), prom_type_name(t));
	f->type = t;
	f->typed = true;
	return 0;
}

static int
meta_text(struct family *f, char **slot, char *arg, struct wp_err *err)
{
	char *dup;

	(void)f;
	unescape_help(arg);
	if (strlen(arg) > HELP_MAX)
		arg[HELP_MAX] = '\0';
	if ((dup = strdup(arg)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	free(*slot);
	*slot = dup;
	return 0;
}

/* "# HELP name text", "# TYPE name type", "# UNIT name unit", "# EOF". */
static int
parse_comment(struct prom_parser *p, char *s, struct wp_err *err)
{
	static const char *const kw[] = { "HELP", "TYPE", "UNIT" };
	struct family *f;
	size_t i, n;
	char *name, *arg;

	s = skip_blanks(s + 1);
	if (p->opts.openmetrics && strcmp(s, "EOF") == 0) {
		p->eof_seen = true;
		return 0;
	}
	for (i = 0; i < 3; i++)
		if (strncmp(s, kw[i], 4) == 0 &&
		    (is_blank(s[4]) || s[4] == '\0'))
			break;
	if (i == 3)
		return 0;	/* a plain comment */
	name = skip_blanks(s + 4);
	if ((n = name_len(name, true)) == 0)
		return err_set(err, WP_E_PROTOCOL, "line %lu: %s without a "
		    "valid metric name", p->lineno, kw[i]);
	if (name[n] != '\0' && !is_blank(name[n]))
		return err_set(err, WP_E_PROTOCOL, "line %lu: bad metric name "
		    "in %s", p->lineno, kw[i]);
	arg = name[n] == '\0' ? name + n : skip_blanks(name + n + 1);
	name[n] = '\0';
	if ((f = fam_get(p, name, err)) == NULL)
		return -1;
	if (i == 1)
		return meta_type(p, f, arg, err);
	return meta_text(f, i == 0 ? &f->help : &f->unit, arg, err);
}

/* ---- sample lines ---------------------------------------------------- */

struct suffix_rule {
	const char	*text;
	int		 suffix;
	unsigned	 types;		/* bit mask of prom_type */
};

#define T(x)	(1u << (x))

static const struct suffix_rule suffix_rules[] = {
	{ "_total", PROM_S_TOTAL, T(PROM_COUNTER) },
	{ "_bucket", PROM_S_BUCKET, T(PROM_HISTOGRAM) | T(PROM_GAUGEHISTOGRAM) },
	{ "_sum", PROM_S_SUM, T(PROM_HISTOGRAM) | T(PROM_SUMMARY) },
	{ "_count", PROM_S_COUNT, T(PROM_HISTOGRAM) | T(PROM_SUMMARY) },
	{ "_created", PROM_S_CREATED, T(PROM_COUNTER) | T(PROM_HISTOGRAM) |
	    T(PROM_SUMMARY) },
	{ "_gsum", PROM_S_GSUM, T(PROM_GAUGEHISTOGRAM) },
	{ "_gcount", PROM_S_GCOUNT, T(PROM_GAUGEHISTOGRAM) },
	{ "_info", PROM_S_INFO, T(PROM_INFO) },
};

/* Resolves the family of a sample name (exact, or stem + known suffix). */
static void
resolve_family(struct prom_parser *p, struct prom_sample *s)
{
	const struct suffix_rule *r;
	struct family *f;
	size_t n = strlen(s->name), i, sl;

	s->family = s->name;
	s->type = PROM_UNTYPED;
	s->suffix = PROM_S_NONE;
	s->help = s->unit = "";
	if ((f = fam_find(p, s->name, n)) == NULL) {
		for (i = 0; i < sizeof(suffix_rules) / sizeof(*r); i++) {
			r = &suffix_rules[i];
			sl = strlen(r->text);
			if (n <= sl || strcmp(s->name + n - sl, r->text) != 0)
				continue;
			f = fam_find(p, s->name, n - sl);
			if (f != NULL && (r->types & T(f->type))) {
				s->suffix = r->suffix;
				break;
			}
			f = NULL;
		}
	} else if (f->type == PROM_COUNTER && n > 6 &&
	    strcmp(s->name + n - 6, "_total") == 0)
		s->suffix = PROM_S_TOTAL;
	if (f == NULL)
		return;
	s->family = f->name;
	s->type = f->type;
	s->help = f->help ? f->help : "";
	s->unit = f->unit ? f->unit : "";
}

/* Parses one label value starting after the opening quote, unescaping in
 * place.  Returns the position after the closing quote, or NULL. */
static char *
label_value(struct prom_parser *p, char *s, struct wp_err *err)
{
	char *d = s;

	for (;;) {
		if (*s == '\0') {
			err_set(err, WP_E_PROTOCOL, "line %lu: unterminated "
			    "label value", p->lineno);
			return NULL;
		}
		if (*s == '"')
			break;
		if (*s == '\\') {
			if (s[1] == 'n')
				*d++ = '\n';
			else if (s[1] == '\\' || s[1] == '"')
				*d++ = s[1];
			else {
				err_set(err, WP_E_PROTOCOL, "line %lu: invalid "
				    "escape \\%c in label value", p->lineno,
				    isprint((unsigned char)s[1]) ? s[1] : '?');
				return NULL;
			}
			s += 2;
			continue;
		}
		*d++ = *s++;
	}
	*d = '\0';
	return s + 1;
}

static int
label_dup(struct prom_parser *p, const struct prom_sample *s, const char *name,
    struct wp_err *err)
{
	size_t i;

	for (i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return err_set(err, WP_E_PROTOCOL, "line %lu: label "
			    "%.64s repeated", p->lineno, name);
	return 0;
}

/* Parses "{a="x",b="y"}" starting after '{'.  Returns the rest, or NULL. */
static char *
parse_labels(struct prom_parser *p, char *s, struct prom_sample *smp,
    struct wp_err *err)
{
	struct prom_label *l;
	size_t n;
	char *name;

	for (;;) {
		s = skip_blanks(s);
		if (*s == '}')
			return s + 1;
		if ((n = name_len(s, false)) == 0) {
			err_set(err, WP_E_PROTOCOL, "line %lu: expected a label "
			    "name", p->lineno);
			return NULL;
		}
		if (smp->n_labels >= p->opts.max_labels) {
			err_set(err, WP_E_PROTOCOL, "line %lu: more than %zu "
			    "labels", p->lineno, p->opts.max_labels);
			return NULL;
		}
		name = s;
		s = skip_blanks(s + n);
		if (*s != '=') {
			err_set(err, WP_E_PROTOCOL, "line %lu: expected '=' "
			    "after label name", p->lineno);
			return NULL;
		}
		name[n] = '\0';
		s = skip_blanks(s + 1);
		if (*s != '"') {
			err_set(err, WP_E_PROTOCOL, "line %lu: label value not "
			    "quoted", p->lineno);
			return NULL;
		}
		if (label_dup(p, smp, name, err) == -1)
			return NULL;
		l = &p->labels[smp->n_labels];
		l->name = name;
		l->value = s + 1;
		if ((s = label_value(p, s + 1, err)) == NULL)
			return NULL;
		smp->n_labels++;
		s = skip_blanks(s);
		if (*s == ',')
			s++;
		else if (*s != '}') {
			err_set(err, WP_E_PROTOCOL, "line %lu: expected ',' or "
			    "'}' after label", p->lineno);
			return NULL;
		}
	}
}

/* Cuts the next blank-separated token; returns it ("" at the end). */
static char *
next_token(char **sp)
{
	char *s = skip_blanks(*sp), *t = s;

	while (*s != '\0' && !is_blank(*s))
		s++;
	if (*s != '\0')
		*s++ = '\0';
	*sp = s;
	return t;
}

/* After value and timestamp: OpenMetrics may carry an exemplar. */
static int
parse_tail(struct prom_parser *p, char *s, struct prom_sample *smp,
    struct wp_err *err)
{
	char *tok = next_token(&s);

	if (*tok != '\0' && *tok != '#') {
		if (parse_ts(tok, p->opts.openmetrics, &smp->ts) == -1)
			return err_set(err, WP_E_PROTOCOL, "line %lu: bad "
			    "timestamp \"%.32s\"", p->lineno, tok);
		smp->has_ts = true;
		tok = next_token(&s);
	}
	if (*tok == '\0')
		return 0;
	if (p->opts.openmetrics && strcmp(tok, "#") == 0 &&
	    *skip_blanks(s) == '{' && strchr(s, '}') != NULL)
		return 0;	/* exemplar: not used */
	return err_set(err, WP_E_PROTOCOL, "line %lu: unexpected \"%.32s\" "
	    "after the value", p->lineno, tok);
}

static int
parse_sample(struct prom_parser *p, char *s, struct wp_err *err)
{
	struct prom_sample smp;
	size_t n;
	char *tok;

	memset(&smp, 0, sizeof(smp));
	smp.labels = p->labels;
	smp.line = p->lineno;
	if ((n = name_len(s, true)) == 0)
		return err_set(err, WP_E_PROTOCOL, "line %lu: expected a "
		    "metric name", p->lineno);
	smp.name = s;
	if (s[n] == '{') {
		s[n] = '\0';
		if ((s = parse_labels(p, s + n + 1, &smp, err)) == NULL)
			return -1;
	} else if (is_blank(s[n])) {
		s[n] = '\0';
		s += n + 1;
	} else if (s[n] == '\0')
		return err_set(err, WP_E_PROTOCOL, "line %lu: no value after "
		    "%.64s", p->lineno, s);
	else
		return err_set(err, WP_E_PROTOCOL, "line %lu: bad character "
		    "after metric name", p->lineno);
	tok = next_token(&s);
	if (parse_value(tok, &smp.value) == -1)
		return err_set(err, WP_E_PROTOCOL, "line %lu: bad value "
		    "\"%.32s\" for %.64s", p->lineno, tok, smp.name);
	if (parse_tail(p, s, &smp, err) == -1)
		return -1;
	resolve_family(p, &smp);
	p->samples++;
	return p->cb(p->arg, &smp, err);
}

static int
process_line(struct prom_parser *p, char *s, size_t len, struct wp_err *err)
{
	p->lineno++;
	if (len > 0 && s[len - 1] == '\r')
		s[--len] = '\0';
	if (memchr(s, '\0', len) != NULL)
		return err_set(err, WP_E_PROTOCOL, "line %lu: NUL byte",
		    p->lineno);
	if (p->eof_seen)
		return err_set(err, WP_E_PROTOCOL, "line %lu: data after "
		    "# EOF", p->lineno);
	s = skip_blanks(s);
	if (*s == '\0')
		return 0;
	if (*s == '#')
		return parse_comment(p, s, err);
	return parse_sample(p, s, err);
}

/* ---- driver ---------------------------------------------------------- */

struct prom_parser *
prom_new(const struct prom_opts *opts, prom_sample_cb cb, void *arg,
    struct wp_err *err)
{
	struct prom_parser *p;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if (opts != NULL)
		p->opts = *opts;
	if (p->opts.max_line == 0)
		p->opts.max_line = PROM_LINE_MAX_DEFAULT;
	if (p->opts.max_labels == 0)
		p->opts.max_labels = PROM_LABELS_MAX_DEFAULT;
	if (p->opts.max_families == 0)
		p->opts.max_families = PROM_FAMILIES_MAX_DEFAULT;
	p->cb = cb;
	p->arg = arg;
	p->line = malloc(p->opts.max_line + 1);
	p->labels = calloc(p->opts.max_labels, sizeof(*p->labels));
	if (p->line == NULL || p->labels == NULL) {
		prom_free(p);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	return p;
}

void
prom_free(struct prom_parser *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->fam.cap; i++)
		fam_free(p->fam.slot[i].e);
	hmap_fini(&p->fam);
	free(p->line);
	free(p->labels);
	free(p);
}

unsigned long
prom_samples(const struct prom_parser *p)
{
	return p->samples;
}

/* Appends buf[0..n) to the partial line; fails past max_line. */
static int
append(struct prom_parser *p, const char *buf, size_t n, struct wp_err *err)
{
	if (n > p->opts.max_line - p->len)
		return err_set(err, WP_E_PROTOCOL, "line %lu: longer than %zu "
		    "bytes", p->lineno + 1, p->opts.max_line);
	memcpy(p->line + p->len, buf, n);
	p->len += n;
	return 0;
}

int
prom_feed(struct prom_parser *p, const char *buf, size_t len,
    struct wp_err *err)
{
	const char *nl;
	size_t n;

	if (p->failed || p->finished)
		return err_set(err, WP_E_INTERNAL, "parser already finished");
	while (len > 0) {
		nl = memchr(buf, '\n', len);
		n = nl ? (size_t)(nl - buf) : len;
		if (append(p, buf, n, err) == -1)
			goto fail;
		if (nl == NULL)
			break;
		p->line[p->len] = '\0';
		if (process_line(p, p->line, p->len, err) == -1)
			goto fail;
		p->len = 0;
		buf += n + 1;
		len -= n + 1;
	}
	return 0;
fail:
	p->failed = true;
	return -1;
}

int
prom_finish(struct prom_parser *p, struct wp_err *err)
{
	if (p->failed || p->finished)
		return err_set(err, WP_E_INTERNAL, "parser already finished");
	p->finished = true;
	if (p->len > 0) {
		/* OpenMetrics allows "# EOF" without its newline. */
		p->line[p->len] = '\0';
		if (p->opts.openmetrics && !p->eof_seen &&
		    strcmp(p->line, "# EOF") == 0)
			p->eof_seen = true;
		else
			return err_set(err, WP_E_PROTOCOL, "line %lu: body ends "
			    "inside a line (truncated?)", p->lineno + 1);
	}
	if (p->opts.openmetrics && !p->eof_seen)
		return err_set(err, WP_E_PROTOCOL, "OpenMetrics body without "
		    "# EOF (truncated?)");
	return 0;
}

int
prom_parse(const char *buf, size_t len, const struct prom_opts *opts,
    prom_sample_cb cb, void *arg, struct wp_err *err)
{
	struct prom_parser *p;
	int rc;

	if ((p = prom_new(opts, cb, arg, err)) == NULL)
		return -1;
	rc = prom_feed(p, buf, len, err);
	if (rc == 0)
		rc = prom_finish(p, err);
	prom_free(p);
	return rc;
}
