/* promwrite.c - text exposition -> WriteRequest -> snappy (promwrite.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "promwrite.h"
#include "remote.pb-c.h"

/* One parsed label and one parsed series, by index into the arrays. */
struct pw_lab {
	const char *name, *value;
};

struct pw_ser {
	size_t	 first, n;	/* labels[first .. first + n) */
	double	 value;
};

/* What a parse builds: the text copied (strings point into it). */
struct pw_parse {
	const char *const *extra;	/* name, value, ..., NULL */
	char		*buf;
	struct pw_lab	*labs;
	size_t		 n_labs, cap_labs;
	struct pw_ser	*ser;
	size_t		 n_ser, cap_ser;
};

static int
grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 256;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if ((q = realloc(*p, n * size)) == NULL)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int
add_label(struct pw_parse *ps, const char *name, const char *value)
{
	if (grow((void **)&ps->labs, &ps->cap_labs, ps->n_labs + 1,
	    sizeof(*ps->labs)) == -1)
		return -1;
	ps->labs[ps->n_labs].name = name;
	ps->labs[ps->n_labs].value = value;
	ps->n_labs++;
	return 0;
}

/* Unescapes a quoted label value starting after its opening quote, in
 * place; *pp is left after the closing quote.  NULL when unterminated. */
static char *
quoted(char **pp)
{
	char *p = *pp, *w = p, *v = p;

	for (; *p != '"'; p++) {
		if (*p == '\0' || *p == '\n')
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'n')
				*w++ = '\n';
			else if (*p == '\\' || *p == '"')
				*w++ = *p;
			else
				return NULL;
			continue;
		}
		*w++ = *p;
	}
	*w = '\0';
	*pp = p + 1;
	return v;
}

/* The {k="v",...} block at *pp (after the '{'); 0 or -1. */
static int
label_block(struct pw_parse *ps, char **pp, size_t *n)
{
	char *p = *pp, *k, *v;

	while (*p != '}') {
		k = p;
		while (*p != '=' && *p != '\0' && *p != '\n' && *p != '}')
			p++;
		if (*p != '=' || p == k || p[1] != '"')
			return -1;
		*p = '\0';
		p += 2;
		if ((v = quoted(&p)) == NULL)
			return -1;
		if (*v != '\0') {
			if (++*n >= PROMWRITE_MAX_LABELS ||
			    add_label(ps, k, v) == -1)
				return -1;
		}
		if (*p == ',')
			p++;
		else if (*p != '}')
			return -1;
	}
	*pp = p + 1;
	return 0;
}

/* Sorts labels[0..n) by name (insertion: a handful per series); -1 when
 * a name repeats. */
static int
sort_labels(struct pw_lab *l, size_t n)
{
	size_t i, j;
	struct pw_lab t;

	for (i = 1; i < n; i++) {
		t = l[i];
		for (j = i; j > 0 && strcmp(l[j - 1].name, t.name) > 0; j--)
			l[j] = l[j - 1];
		l[j] = t;
	}
	for (i = 1; i < n; i++)
		if (strcmp(l[i - 1].name, l[i].name) == 0)
			return -1;
	return 0;
}

/* The extra labels series s does not carry itself; 0 or -1. */
static int
add_extra(struct pw_parse *ps, struct pw_ser *s)
{
	const char *const *x;
	size_t i;

	for (x = ps->extra; x != NULL && x[0] != NULL; x += 2) {
		for (i = s->first; i < s->first + s->n; i++)
			if (strcmp(ps->labs[i].name, x[0]) == 0)
				break;
		if (i < s->first + s->n || *x[1] == '\0')
			continue;
		if (++s->n > PROMWRITE_MAX_LABELS || add_label(ps, x[0], x[1]) == -1)
			return -1;
	}
	return 0;
}

/* One sample line at p (NUL-terminated at its end); 0 or -1. */
static int
sample_line(struct pw_parse *ps, char *p)
{
	struct pw_ser s = { ps->n_labs, 1, 0 };
	char *name = p, *end;

	while (*p != '\0' && *p != '{' && *p != ' ' && *p != '\t')
		p++;
	if (p == name || add_label(ps, "__name__", name) == -1)
		return -1;
	if (*p == '{') {
		*p++ = '\0';
		if (label_block(ps, &p, &s.n) == -1)
			return -1;
	} else if (*p != '\0')
		*p++ = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	s.value = strtod(p, &end);
	if (end == p || errno == ERANGE || (*end != '\0' && *end != ' '))
		return -1;
	if (add_extra(ps, &s) == -1 ||
	    sort_labels(ps->labs + s.first, s.n) == -1 ||
	    grow((void **)&ps->ser, &ps->cap_ser, ps->n_ser + 1,
	    sizeof(*ps->ser)) == -1)
		return -1;
	ps->ser[ps->n_ser++] = s;
	return 0;
}

static int
parse(struct pw_parse *ps, const char *text, size_t len, struct wp_err *err)
{
	char *p, *nl;
	size_t line = 0;

	if ((ps->buf = malloc(len + 1)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	memcpy(ps->buf, text, len);
	ps->buf[len] = '\0';
	for (p = ps->buf; *p != '\0'; p = nl) {
		line++;
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		else
			nl = p + strlen(p);
		if (*p == '#' || *p == '\0')
			continue;
		if (sample_line(ps, p) == -1)
			return err_set(err, WP_E_INTERNAL, "exposition line %zu "
			    "does not parse (or out of memory)", line);
	}
	return 0;
}

static void
parse_free(struct pw_parse *ps)
{
	free(ps->buf);
	free(ps->labs);
	free(ps->ser);
}

/* The protobuf-c tree over a parse, in four arrays. */
struct pw_tree {
	Prometheus__Label	 *lab, **labp;
	Prometheus__Sample	 *smp, **smpp;
	Prometheus__TimeSeries	 *ts, **tsp;
};

static void
tree_free(struct pw_tree *t)
{
	free(t->lab);
	free(t->labp);
	free(t->smp);
	free(t->smpp);
	free(t->ts);
	free(t->tsp);
}

static int
tree_build(struct pw_tree *t, const struct pw_parse *ps, int64_t ts_ms)
{
	static const Prometheus__Label l0 = PROMETHEUS__LABEL__INIT;
	static const Prometheus__Sample s0 = PROMETHEUS__SAMPLE__INIT;
	static const Prometheus__TimeSeries t0 = PROMETHEUS__TIME_SERIES__INIT;
	size_t i, k, nl = ps->n_labs ? ps->n_labs : 1,
	    ns = ps->n_ser ? ps->n_ser : 1;

	t->lab = malloc(nl * sizeof(*t->lab));
	t->labp = malloc(nl * sizeof(*t->labp));
	t->smp = malloc(ns * sizeof(*t->smp));
	t->smpp = malloc(ns * sizeof(*t->smpp));
	t->ts = malloc(ns * sizeof(*t->ts));
	t->tsp = malloc(ns * sizeof(*t->tsp));
	if (!t->lab || !t->labp || !t->smp || !t->smpp || !t->ts || !t->tsp)
		return -1;
	for (k = 0; k < ps->n_labs; k++) {
		t->lab[k] = l0;
		t->lab[k].name = (char *)ps->labs[k].name;
		t->lab[k].value = (char *)ps->labs[k].value;
		t->labp[k] = &t->lab[k];
	}
	for (i = 0; i < ps->n_ser; i++) {
		t->smp[i] = s0;
		t->smp[i].value = ps->ser[i].value;
		t->smp[i].timestamp = ts_ms;
		t->smpp[i] = &t->smp[i];
		t->ts[i] = t0;
		t->ts[i].n_labels = ps->ser[i].n;
		t->ts[i].labels = t->labp + ps->ser[i].first;
		t->ts[i].n_samples = 1;
		t->ts[i].samples = &t->smpp[i];
		t->tsp[i] = &t->ts[i];
	}
	return 0;
}

int
promwrite_pack(const char *text, size_t len, int64_t ts_ms,
    const char *const *extra, uint8_t **out, size_t *out_len,
    size_t *n_samples, struct wp_err *err)
{
	Prometheus__WriteRequest wr = PROMETHEUS__WRITE_REQUEST__INIT;
	struct pw_parse ps = { .extra = extra };
	struct pw_tree t = { 0 };
	int rc = -1;

	*out = NULL;
	if (parse(&ps, text, len, err) == -1)
		goto done;
	if (tree_build(&t, &ps, ts_ms) == -1) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto done;
	}
	wr.n_timeseries = ps.n_ser;
	wr.timeseries = t.tsp;
	*out_len = prometheus__write_request__get_packed_size(&wr);
	if ((*out = malloc(*out_len ? *out_len : 1)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto done;
	}
	prometheus__write_request__pack(&wr, *out);
	*n_samples = ps.n_ser;
	rc = 0;
done:
	tree_free(&t);
	parse_free(&ps);
	return rc;
}

int
promwrite_encode(const char *text, size_t len, int64_t ts_ms,
    const char *const *extra, uint8_t **out, size_t *out_len,
    size_t *n_samples, struct wp_err *err)
{
	uint8_t *pb, *z;
	size_t pb_len, z_len;

	*out = NULL;
	if (promwrite_pack(text, len, ts_ms, extra, &pb, &pb_len, n_samples,
	    err) == -1)
		return -1;
	z_len = snappy_max_compressed_length(pb_len);
	if ((z = malloc(z_len)) == NULL) {
		free(pb);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	if (snappy_compress((const char *)pb, pb_len, (char *)z, &z_len) !=
	    SNAPPY_OK) {
		free(pb);
		free(z);
		return err_set(err, WP_E_INTERNAL, "snappy: compression failed");
	}
	free(pb);
	*out = z;
	*out_len = z_len;
	return 0;
}
