/* Varbinds + profile -> rows and samples (pure); see pdu_decode.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/decimal.h"
#include "pdu_decode.h"

#define ROWS_MAX	4096	/* more rows than this is not a rack PDU */

static const char *const vtype_names[] = { "INTEGER", "Gauge32",
	"Counter32", "Counter64", "TimeTicks", "OCTET STRING", "OID",
	"noSuchObject", "noSuchInstance", "endOfMibView", "unknown type" };

const char *
pdu_vtype_name(int type)
{
	if (type < 0 || type > PDU_V_OTHER)
		type = PDU_V_OTHER;
	return vtype_names[type];
}

static void
add_base(struct pdu_oid *out, size_t *n, size_t max, const struct pdu_oid *o)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (pdu_oid_cmp(&out[i], o) == 0)
			return;
	if (*n < max)
		out[(*n)++] = *o;
}

size_t
pdu_walk_bases(const struct pdu_profile *p, struct pdu_oid *out, size_t max)
{
	size_t n = 0, t;
	int c;

	for (t = 0; t < p->ntab; t++) {
		const struct pdu_table *tab = &p->tab[t];

		if (tab->has_filter)
			add_base(out, &n, max, &tab->filter);
		for (c = 0; c < PDU_NCOL; c++) {
			const struct pdu_col *col = &tab->col[c];

			if (!col->present)
				continue;
			add_base(out, &n, max, &col->oid);
			if (col->has_digits)
				add_base(out, &n, max, &col->digits);
			if (col->has_escale)
				add_base(out, &n, max, &col->escale);
		}
	}
	return n;
}

/*
 * If vb lies in column base (key_len components, then suffix), copies the
 * key and returns true.
 */
static bool
in_column(const struct pdu_oid *vb, const struct pdu_oid *base,
    size_t key_len, const uint32_t *suffix, size_t nsuffix, uint32_t *key)
{
	size_t i;

	if (!pdu_oid_has_prefix(vb, base) ||
	    vb->n != base->n + key_len + nsuffix)
		return false;
	for (i = 0; i < nsuffix; i++)
		if (vb->v[base->n + key_len + i] != suffix[i])
			return false;
	memcpy(key, vb->v + base->n, key_len * sizeof(key[0]));
	return true;
}

static struct pdu_row *
row_get(struct pdu_rows *r, size_t table, const uint32_t *key, size_t nkey,
    struct wp_err *err)
{
	struct pdu_row *row, *nv;
	size_t i, cap;

	for (i = 0; i < r->n; i++) {
		row = &r->v[i];
		if (row->table == table && row->nkey == nkey &&
		    memcmp(row->key, key, nkey * sizeof(key[0])) == 0)
			return row;
	}
	if (r->n >= ROWS_MAX) {
		err_set(err, WP_E_PROTOCOL, "more than %d table rows",
		    ROWS_MAX);
		return NULL;
	}
	if (r->n == r->cap) {
		cap = r->cap ? r->cap * 2 : 32;
		nv = realloc(r->v, cap * sizeof(*nv));
		if (nv == NULL) {
			err_set(err, WP_E_INTERNAL, "out of memory");
			return NULL;
		}
		r->v = nv;
		r->cap = cap;
	}
	row = &r->v[r->n++];
	memset(row, 0, sizeof(*row));
	row->table = table;
	row->nkey = nkey;
	memcpy(row->key, key, nkey * sizeof(key[0]));
	return row;
}

/* Raw number of a varbind; 1 ok, 0 "not supported", -1 wrong type. */
static int
vb_number(const struct pdu_vb *vb, bool as_string, double *out)
{
	const char *s;
	char *end;

	switch (vb->type) {
	case PDU_V_INT:
		*out = (double)vb->i;
		return vb->i < 0 ? 0 : 1;
	case PDU_V_UINT:
	case PDU_V_COUNTER32:
	case PDU_V_COUNTER64:
		*out = (double)vb->u;
		return 1;
	case PDU_V_STRING:
		if (!as_string)
			return -1;
		for (s = vb->s; *s == ' ' || *s == '\t'; s++)
			;
		errno = 0;
		*out = strtod(s, &end);
		if (end == s || errno != 0 || !isfinite(*out))
			return 0;	/* "not-support", "NULL", "" */
		while (*end == ' ' || *end == '\t')
			end++;
		if (*end != '\0' || *out < 0)
			return 0;
		return 1;
	default:
		return -1;
	}
}

static void
copy_name(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] != '\0' && i + 1 < len; i++)
		dst[i] = (src[i] == ';' || src[i] == '=' ||
		    (unsigned char)src[i] < 0x20) ? '_' : src[i];
	dst[i] = '\0';
	while (i > 0 && dst[i - 1] == ' ')
		dst[--i] = '\0';
}

static void
vb_small_int(const struct pdu_vb *vb, int *out)
{
	if (vb->type == PDU_V_INT && vb->i >= -24 && vb->i <= 24)
		*out = (int)vb->i;
	else if ((vb->type == PDU_V_UINT) && vb->u <= 24)
		*out = (int)vb->u;
}

/* Applies vb to row if it belongs to one of table t's columns. */
static int
add_to_table(const struct pdu_profile *p, size_t t, struct pdu_rows *r,
    const struct pdu_vb *vb, struct wp_err *err)
{
	const struct pdu_table *tab = &p->tab[t];
	uint32_t key[PDU_KEY_MAX];
	struct pdu_row *row;
	double d;
	int c;

	if (tab->has_filter &&
	    in_column(&vb->oid, &tab->filter, tab->key_len, NULL, 0, key)) {
		if ((row = row_get(r, t, key, tab->key_len, err)) == NULL)
			return -1;
		row->filter_seen = true;
		row->filter = vb->type == PDU_V_INT ? (long)vb->i :
		    (long)vb->u;
	}
	for (c = 0; c < PDU_NCOL; c++) {
		const struct pdu_col *col = &tab->col[c];

		if (!col->present)
			continue;
		if (in_column(&vb->oid, &col->oid, tab->key_len, col->suffix,
		    col->nsuffix, key)) {
			if ((row = row_get(r, t, key, tab->key_len, err)) ==
			    NULL)
				return -1;
			if (c == PDU_COL_NAME && vb->type == PDU_V_STRING)
				copy_name(row->name, sizeof(row->name), vb->s);
			else if (c != PDU_COL_NAME)
				row->has[c] = vb_number(vb, col->string,
				    &d) == 1;
		}
		if (col->has_digits && in_column(&vb->oid, &col->digits,
		    tab->key_len, col->suffix, col->nsuffix, key)) {
			if ((row = row_get(r, t, key, tab->key_len, err)) ==
			    NULL)
				return -1;
			vb_small_int(vb, &row->digits[c]);
		}
		if (col->has_escale && in_column(&vb->oid, &col->escale,
		    tab->key_len, col->suffix, col->nsuffix, key)) {
			if ((row = row_get(r, t, key, tab->key_len, err)) ==
			    NULL)
				return -1;
			int sc = 9;	/* units(9) */

			vb_small_int(vb, &sc);
			row->escale[c] = sc - 9;
		}
	}
	return 0;
}

int
pdu_rows_add(const struct pdu_profile *p, struct pdu_rows *r,
    const struct pdu_vb *vb, struct wp_err *err)
{
	size_t t;

	if (vb->type == PDU_V_NOSUCHOBJECT || vb->type ==
	    PDU_V_NOSUCHINSTANCE || vb->type == PDU_V_ENDOFMIB)
		return 0;
	for (t = 0; t < p->ntab; t++)
		if (add_to_table(p, t, r, vb, err) < 0)
			return -1;
	return 0;
}

static bool
row_keep(const struct pdu_profile *p, const struct pdu_row *row)
{
	const struct pdu_table *tab = &p->tab[row->table];
	size_t i;

	if (!row->has[PDU_COL_POWER] && !row->has[PDU_COL_ENERGY])
		return false;
	for (i = 0; i < tab->nmatch; i++)
		if (row->key[tab->match_pos[i] - 1] != tab->match_val[i])
			return false;
	if (tab->has_filter &&
	    (!row->filter_seen || row->filter != tab->filter_value))
		return false;
	if (tab->number_pos > 0 &&
	    row->key[tab->number_pos - 1] + 1 < (uint32_t)tab->index_base + 1)
		return false;
	return true;
}

static int
row_cmp(const void *a, const void *b)
{
	const struct pdu_row *x = a, *y = b;
	size_t i;

	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	for (i = 0; i < x->nkey && i < y->nkey; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return 0;
}

void
pdu_rows_finish(const struct pdu_profile *p, struct pdu_rows *r)
{
	size_t i, n = 0, t = (size_t)-1;
	int ord = 0;

	for (i = 0; i < r->n; i++)
		if (row_keep(p, &r->v[i]))
			r->v[n++] = r->v[i];
	r->n = n;
	if (n > 0)
		qsort(r->v, n, sizeof(r->v[0]), row_cmp);
	for (i = 0; i < n; i++) {
		const struct pdu_table *tab = &p->tab[r->v[i].table];

		if (r->v[i].table != t) {
			t = r->v[i].table;
			ord = 0;
		}
		ord++;
		if (tab->number_pos == 0)
			r->v[i].number = ord;
		else
			r->v[i].number = (int)(r->v[i].key[tab->number_pos -
			    1] - (uint32_t)tab->index_base + 1);
	}
}

void
pdu_rows_fini(struct pdu_rows *r)
{
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

int
pdu_rows_total_table(const struct pdu_profile *p, const struct pdu_rows *r)
{
	size_t t, i;

	for (t = 0; t < p->ntab; t++) {
		if (p->tab[t].role == PDU_ROLE_OUTLET)
			continue;
		for (i = 0; i < r->n; i++)
			if (r->v[i].table == t)
				return (int)t;
	}
	return -1;
}

int
pdu_get_oid(const struct pdu_profile *p, const struct pdu_row *row, int col,
    struct pdu_oid *out)
{
	const struct pdu_col *c = &p->tab[row->table].col[col];

	if (!c->present || c->oid.n + row->nkey + c->nsuffix > PDU_OID_MAX)
		return -1;
	*out = c->oid;
	memcpy(out->v + out->n, row->key, row->nkey * sizeof(row->key[0]));
	out->n += row->nkey;
	memcpy(out->v + out->n, c->suffix, c->nsuffix * sizeof(c->suffix[0]));
	out->n += c->nsuffix;
	return 0;
}

/* Writes prefix "/" number at buf (len > 0), truncating like snprintf. */
static void
put_role_number(char *buf, size_t len, const char *prefix, int number)
{
	char digits[DECIMAL_MAX];
	size_t n = decimal_put(digits, number), pl = strlen(prefix);

	if (pl + 1 + n >= len) {	/* rare: the slow, exact way */
		snprintf(buf, len, "%s/%d", prefix, number);
		return;
	}
	memcpy(buf, prefix, pl);
	buf[pl] = '/';
	memcpy(buf + pl + 1, digits, n);
	buf[pl + 1 + n] = '\0';
}

void
pdu_row_series(const struct pdu_profile *p, const struct pdu_row *row,
    char *buf, size_t len)
{
	put_role_number(buf, len, p->tab[row->table].role == PDU_ROLE_OUTLET ?
	    "outlet" : "inlet", row->number);
}

void
pdu_row_path(const struct pdu_profile *p, const struct pdu_row *row,
    char *buf, size_t len)
{
	put_role_number(buf, len, pdu_role_name(p->tab[row->table].role),
	    row->number);
}

/* 10^k, exact for the small k profiles use. */
static double
pow10i(int k)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18 };

	if (k >= 0 && k < (int)(sizeof(p10) / sizeof(p10[0])))
		return p10[k];
	return pow(10.0, k);
}

/* What a value is, for its error messages: "outlet/3 energy". */
static const char *
value_what(const struct pdu_profile *p, const struct pdu_row *row, int col,
    char what[96])
{
	size_t n;

	pdu_row_path(p, row, what, 80);
	n = strlen(what);
	snprintf(what + n, 96 - n, " %s", col == PDU_COL_ENERGY ? "energy" :
	    "power");
	return what;
}

static int
check_value(const struct pdu_profile *p, const struct pdu_row *row, int col,
    const struct pdu_vb *vb, double *raw, struct wp_err *err)
{
	const struct pdu_col *c = &p->tab[row->table].col[col];
	char what[96];
	int rc;

	if (vb->type == PDU_V_NOSUCHOBJECT || vb->type ==
	    PDU_V_NOSUCHINSTANCE || vb->type == PDU_V_ENDOFMIB)
		return err_set(err, WP_E_PROTOCOL, "%s: %s",
		    value_what(p, row, col, what), pdu_vtype_name(vb->type));
	rc = vb_number(vb, c->string, raw);
	if (rc < 0)
		return err_set(err, WP_E_PROTOCOL, "%s: %s where a number was "
		    "expected", value_what(p, row, col, what),
		    pdu_vtype_name(vb->type));
	if (rc == 0)
		return 0;
	if (c->max_raw > 0 && *raw > c->max_raw)
		return err_set(err, WP_E_PROTOCOL, "%s: absurd value %.0f "
		    "(above %.0f)", value_what(p, row, col, what), *raw,
		    c->max_raw);
	return 1;
}

static void
fill_labels(const struct pdu_profile *p, const struct pdu_row *row,
    struct wp_sample *s)
{
	char idx[64];
	size_t i, off = 0;

	if (p->tab[row->table].role != PDU_ROLE_OUTLET)
		sample_add_label(s, "role",
		    pdu_role_name(p->tab[row->table].role));
	if (row->name[0] != '\0')
		sample_add_label(s, "name", row->name);
	/* a key component is a uint32_t: "." and at most 10 digits */
	for (i = 0; i < row->nkey && off + 12 < sizeof(idx); i++) {
		if (i)
			idx[off++] = '.';
		off += decimal_put(idx + off, row->key[i]);
	}
	idx[off] = '\0';
	sample_add_label(s, "index", idx);
}

int
pdu_decode_value(const struct pdu_profile *p, const struct pdu_row *row,
    int col, const struct pdu_vb *vb, struct wp_sample *s,
    struct wp_err *err)
{
	const struct pdu_table *tab = &p->tab[row->table];
	const struct pdu_col *c = &tab->col[col];
	char series[WP_SERIES_MAX], what[96];
	double raw, step, wrap, div;
	bool energy = col == PDU_COL_ENERGY;
	int rc;

	if (col != PDU_COL_POWER && col != PDU_COL_ENERGY)
		return err_set(err, WP_E_INTERNAL, "decode: bad column");
	if ((rc = check_value(p, row, col, vb, &raw, err)) <= 0)
		return rc;
	div = pow10i(row->digits[col]);
	step = c->factor / div * pow10i(3 * row->escale[col]);
	pdu_row_series(p, row, series, sizeof(series));
	strncat(series, energy ? "/energy" : "/power",
	    sizeof(series) - strlen(series) - 1);
	if (sample_init(s, series, tab->role == PDU_ROLE_OUTLET ?
	    WP_B_OUTLET : WP_B_PDU, energy ? WP_Q_ENERGY : WP_Q_POWER,
	    energy && c->cumulative ? WP_COUNTER : WP_GAUGE) < 0)
		return err_set(err, WP_E_INTERNAL, "%s: series name",
		    value_what(p, row, col, what));
	s->value = raw * step;
	s->raw_value = raw / div;
	sample_set_unit(s, c->unit);
	s->resolution = step;
	if (!energy && s->value > tab->max_power)
		return err_set(err, WP_E_PROTOCOL, "%s: absurd value %.0f W "
		    "(above %.0f W)", value_what(p, row, col, what), s->value,
		    tab->max_power);
	if (energy) {
		wrap = c->wrap;
		if (wrap == 0 && vb->type == PDU_V_COUNTER32)
			wrap = 4294967296.0;
		s->wrap = wrap * step;
	}
	fill_labels(p, row, s);
	return 1;
}

void
pdu_label_text(char *dst, size_t len, const char *src)
{
	size_t o = 0, max = len - 1;
	bool blank = false;
	unsigned char c;

	if (len == 0)
		return;
	if (max > PDU_DESCR_LABEL_MAX)
		max = PDU_DESCR_LABEL_MAX;
	for (; (c = (unsigned char)*src) != '\0' && o < max; src++) {
		if (c < 0x20 || c == 0x7f || c == ' ') {
			blank = o > 0;
			continue;
		}
		if (blank) {
			dst[o++] = ' ';
			blank = false;
			if (o == max)
				break;
		}
		dst[o++] = c == ';' || c == '=' ? '_' : (char)c;
	}
	/* do not end in the middle of a UTF-8 sequence, nor on a blank */
	if (o == max && ((unsigned char)*src & 0xc0) == 0x80) {
		while (o > 0 && ((unsigned char)dst[o - 1] & 0xc0) == 0x80)
			o--;
		if (o > 0 && (unsigned char)dst[o - 1] >= 0xc0)
			o--;
	}
	while (o > 0 && dst[o - 1] == ' ')
		o--;
	dst[o] = '\0';
}

int
pdu_identity_labels(struct wp_sample *s, const struct pdu_profile *p,
    const char *sysdescr)
{
	char d[PDU_DESCR_LABEL_MAX + 1];
	size_t room, used, n = sysdescr ? strnlen(sysdescr, sizeof(d) - 1) : 0;

	if (sample_add_label(s, "profile", p->name) < 0 ||
	    (p->vendor[0] != '\0' && sample_add_label(s, "vendor",
	    p->vendor) < 0))
		return -1;
	memcpy(d, sysdescr ? sysdescr : "", n);	/* per sample: not snprintf */
	d[n] = '\0';
	used = strlen(s->labels);
	/* ";sysdescr=" plus the text plus the NUL */
	if (d[0] == '\0' || used + 10 + 1 >= sizeof(s->labels))
		return 0;
	room = sizeof(s->labels) - used - 10 - 1;
	if (strlen(d) > room)
		pdu_label_text(d, room + 1, d);
	if (d[0] != '\0')
		sample_add_label(s, "sysdescr", d);
	return 0;
}

wp_time
pdu_decode_reset_time(const struct pdu_vb *vb)
{
	uint64_t v;

	if (vb->type == PDU_V_INT && vb->i > 0)
		v = (uint64_t)vb->i;
	else if ((vb->type == PDU_V_UINT || vb->type == PDU_V_COUNTER32) &&
	    vb->u > 0)
		v = vb->u;
	else
		return 0;
	if (v > 4102444800ULL)	/* 2100-01-01: not a UNIX time */
		return 0;
	return (wp_time)v * WP_SEC;
}
