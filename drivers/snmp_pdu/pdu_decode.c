/* Varbinds + profile -> rows and samples (pure); see pdu_decode.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/decimal.h"
#include "pdu_decode.h"
#include "pdu_units.h"

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
add_ref(const struct pdu_profile *p, struct pdu_ref *out, size_t *n,
    size_t max, struct pdu_ref r)
{
	size_t i;

	if (r.n == 0)
		return;
	for (i = 0; i < *n; i++)
		if (out[i].n == r.n && memcmp(p->arena + out[i].off,
		    p->arena + r.off, r.n * sizeof(uint32_t)) == 0)
			return;
	if (*n < max)
		out[(*n)++] = r;
}

size_t
pdu_walk_cols(const struct pdu_profile *p, struct pdu_ref *out, size_t max)
{
	size_t n = 0, t;
	int c;

	for (t = 0; t < p->ntab; t++) {
		const struct pdu_table *tab = &p->tab[t];

		add_ref(p, out, &n, max, tab->filter);
		for (c = 0; c < PDU_NCOL; c++) {
			const struct pdu_col *col = &tab->col[c];

			if (!col->present || c == PDU_COL_RESET)
				continue;
			add_ref(p, out, &n, max, col->oid);
			add_ref(p, out, &n, max, col->digits);
			add_ref(p, out, &n, max, col->escale);
			add_ref(p, out, &n, max, col->exp);
			add_ref(p, out, &n, max, col->mult);
			add_ref(p, out, &n, max, col->unit_col);
		}
	}
	return n;
}

/*
 * If vb lies in column base (key_len components, then suffix), copies the
 * key and returns true.
 */
static bool
in_column(const struct pdu_profile *p, const struct pdu_oid *vb,
    struct pdu_ref base, size_t key_len, const uint32_t *suffix,
    size_t nsuffix, uint32_t *key)
{
	size_t i;

	if (base.n == 0 || vb->n != base.n + key_len + nsuffix ||
	    !pdu_ref_under(p, base, vb))
		return false;
	for (i = 0; i < nsuffix; i++)
		if (vb->v[base.n + key_len + i] != suffix[i])
			return false;
	memcpy(key, vb->v + base.n, key_len * sizeof(key[0]));
	return true;
}

/* A block of the rows' text (struct pdu_rows): keys and names as rows
 * come, each from a word (4 bytes) on. */
struct pdu_text {
	struct pdu_text	*next;
	size_t		 used, cap;	/* in uint32_t */
	uint32_t	 w[];
};

#define TEXT_BLOCK	1024		/* words a block holds, at least */

/* The words len bytes take in the text (one at least: never NULL). */
static size_t
text_words(size_t len)
{
	return len == 0 ? 1 : (len + 3) / 4;
}

/* A copy of src[0..len) in r's text (it stays put until pdu_rows_finish
 * or pdu_rows_fini), or NULL (out of memory). */
static void *
text_copy(struct pdu_rows *r, const void *src, size_t len)
{
	size_t words = text_words(len), cap;
	struct pdu_text *b = r->text;

	if (b == NULL || b->cap - b->used < words) {
		cap = words > TEXT_BLOCK ? words : TEXT_BLOCK;
		if ((b = malloc(sizeof(*b) + cap * sizeof(b->w[0]))) == NULL)
			return NULL;
		b->next = r->text;
		b->used = 0;
		b->cap = cap;
		r->text = b;
	}
	b->used += words;
	return memcpy(b->w + b->used - words, src, len);
}

static void
text_free(struct pdu_text *b)
{
	struct pdu_text *next;

	for (; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
}

/* The kept rows' keys and names copied into one block of their size (so
 * text_copy below never allocates), the blocks of the walk freed; a failed
 * allocation keeps them. */
static void
text_compact(struct pdu_rows *r)
{
	struct pdu_text *old = r->text, *b = NULL;
	size_t i, words = 0;

	for (i = 0; i < r->n; i++)
		words += text_words(r->v[i].nkey * sizeof(uint32_t)) +
		    (r->v[i].name != NULL ?
		    text_words(strlen(r->v[i].name) + 1) : 0);
	if (words > 0) {
		if ((b = malloc(sizeof(*b) + words * sizeof(b->w[0]))) == NULL)
			return;
		b->next = NULL;
		b->used = 0;
		b->cap = words;
	}
	r->text = b;
	for (i = 0; i < r->n; i++) {
		struct pdu_row *row = &r->v[i];

		row->key = text_copy(r, row->key,
		    row->nkey * sizeof(row->key[0]));
		if (row->name != NULL)
			row->name = text_copy(r, row->name,
			    strlen(row->name) + 1);
	}
	text_free(old);
}

static struct pdu_row *
row_get(struct pdu_rows *r, size_t table, const uint32_t *key, size_t nkey,
    struct wp_err *err)
{
	struct pdu_row *row, *nv;
	const uint32_t *k;
	size_t i, cap;

	for (i = r->n; i-- > 0;) {	/* walks fill rows in order */
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
		cap = r->cap ? r->cap * 2 : 16;
		nv = realloc(r->v, cap * sizeof(*nv));
		if (nv == NULL) {
			err_set(err, WP_E_INTERNAL, "out of memory");
			return NULL;
		}
		r->v = nv;
		r->cap = cap;
	}
	if ((k = text_copy(r, key, nkey * sizeof(key[0]))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	row = &r->v[r->n++];
	memset(row, 0, sizeof(*row));
	row->table = (uint8_t)table;
	row->nkey = (uint8_t)nkey;
	row->key = k;
	return row;
}

/* Number of a text value; 1 a number, 0 "not supported" text. */
static int
text_number(const char *s, double *out)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	*out = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(*out))
		return 0;	/* "not-support", "NULL", "" */
	while (*end == ' ' || *end == '\t')
		end++;
	return *end == '\0' ? 1 : 0;
}

void
pdu_val_from_vb(const struct pdu_vb *vb, bool as_string, struct pdu_val *out)
{
	out->type = (uint8_t)vb->type;
	out->num = 0;
	out->rc = -1;
	switch (vb->type) {
	case PDU_V_INT:
		out->num = (double)vb->i;
		out->rc = 1;
		break;
	case PDU_V_UINT:
	case PDU_V_COUNTER32:
	case PDU_V_COUNTER64:
		out->num = (double)vb->u;
		out->rc = 1;
		break;
	case PDU_V_STRING:
		if (as_string)
			out->rc = (int8_t)text_number(vb->s, &out->num);
		break;
	default:
		break;
	}
}

/* Whether a value is "not supported": negative (unless signed), the
 * column's missing value, text that is no number. */
static bool
unsupported(const struct pdu_col *c, const struct pdu_val *v)
{
	if (v->rc == 0)
		return true;
	if (c->has_missing && v->num == (double)c->missing)
		return true;
	return v->num < 0 && !c->is_signed;
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

/* A small integer of vb (digits, scales), or def. */
static long
vb_small(const struct pdu_vb *vb, long def)
{
	if (vb->type == PDU_V_INT && vb->i >= -1000000 && vb->i <= 1000000)
		return (long)vb->i;
	if (vb->type == PDU_V_UINT && vb->u <= 1000000)
		return (long)vb->u;
	return def;
}

/* log10 of a Rittal-style scale (+n multiply, -n divide); -1 unusable. */
static int
mult_exp10(long m, int *e)
{
	long a = m < 0 ? -m : m;
	int k = 0;

	if (m == 0 || m == 1 || m == -1) {
		*e = 0;
		return 0;
	}
	while (a > 1 && a % 10 == 0) {
		a /= 10;
		k++;
	}
	if (a != 1)
		return -1;
	*e = m < 0 ? -k : k;
	return 0;
}

/* A scale column of col c: its contribution to the row's exponent. */
static void
scale_vb(const struct pdu_col *col, int c, int which,
    const struct pdu_vb *vb, struct pdu_row *row)
{
	int e = 0;
	long v;

	switch (which) {
	case 0:		/* decimal digits; -8..-1 (RFC 3433's
			   EntitySensorPrecision: accurate digits of a
			   whole number) scale nothing */
		v = vb_small(vb, 0);
		if (v < -8 || v > 9)
			row->bad |= (uint16_t)(1u << c);
		else if (v > 0)
			row->exp10[c] = (int8_t)(row->exp10[c] - v);
		return;
	case 1:		/* ENTITY-SENSOR scale: units(9) = 10^0 */
		v = vb_small(vb, 9);
		if (v < 1 || v > 17)
			row->bad |= (uint16_t)(1u << c);
		else
			row->exp10[c] = (int8_t)(row->exp10[c] + 3 * (v - 9));
		return;
	case 2:		/* a signed power of ten */
		v = vb_small(vb, 0);
		if (v < -9 || v > 9)
			row->bad |= (uint16_t)(1u << c);
		else
			row->exp10[c] = (int8_t)(row->exp10[c] + v);
		return;
	case 3:		/* +n multiply, -n divide */
		if (mult_exp10(vb_small(vb, 0), &e) < 0)
			row->bad |= (uint16_t)(1u << c);
		else
			row->exp10[c] = (int8_t)(row->exp10[c] + e);
		return;
	default:	/* the unit named by the device */
		if (vb->type != PDU_V_STRING || pdu_unit_exp10(vb->s,
		    col->bunit, pdu_col_quantity(c), &e) < 0)
			row->bad |= (uint16_t)(1u << c);
		else
			row->exp10[c] = (int8_t)(row->exp10[c] + e);
	}
}

/* '*' matches any run of characters; the rest match themselves. */
static bool
glob_match(const char *pat, const char *s)
{
	if (*pat == '\0')
		return *s == '\0';
	if (*pat == '*')
		return glob_match(pat + 1, s) || (*s != '\0' &&
		    glob_match(pat, s + 1));
	return *s == *pat && glob_match(pat + 1, s + 1);
}

/* Whether vb is an unsigned number (its value in vb->u). */
static bool
unsigned_num(const struct pdu_vb *vb)
{
	return vb->type == PDU_V_UINT || vb->type == PDU_V_COUNTER32 ||
	    vb->type == PDU_V_COUNTER64;
}

static void
filter_vb(const struct pdu_table *tab, const struct pdu_vb *vb,
    struct pdu_row *row)
{
	bool ok = false;
	size_t i;

	if (tab->filter_is_text)
		ok = vb->type == PDU_V_STRING &&
		    glob_match(tab->filter_text, vb->s);
	for (i = 0; !tab->filter_is_text && i < tab->nfilter; i++)
		ok |= (vb->type == PDU_V_INT &&
		    vb->i == tab->filter_value[i]) ||
		    (unsigned_num(vb) && tab->filter_value[i] >= 0 &&
		    vb->u == (uint64_t)tab->filter_value[i]);
	if (tab->filter_except)	/* a number, and none of those */
		ok = !ok && (vb->type == PDU_V_INT || unsigned_num(vb));
	row->filter = ok ? 1 : 2;
}

/* vb in one of column col's OIDs (0 value, 1.. scale columns, -1 none). */
static int
col_part(const struct pdu_profile *p, const struct pdu_table *tab,
    const struct pdu_col *col, const struct pdu_oid *o, uint32_t *key)
{
	const struct pdu_ref refs[] = { col->digits, col->escale, col->exp,
	    col->mult, col->unit_col };
	size_t i;

	if (in_column(p, o, col->oid, tab->key_len, col->suffix,
	    col->nsuffix, key))
		return 0;
	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (in_column(p, o, refs[i], tab->key_len, col->suffix,
		    col->nsuffix, key))
			return (int)i + 1;
	return -1;
}

/* The row's name from text (cleaned, PDU_ROW_NAME_MAX at most; "" is
 * none).  0, or -1 out of memory. */
static int
set_name(struct pdu_rows *r, struct pdu_row *row, const char *text,
    struct wp_err *err)
{
	char name[PDU_ROW_NAME_MAX];

	copy_name(name, sizeof(name), text);
	row->name = NULL;
	if (name[0] != '\0' &&
	    (row->name = text_copy(r, name, strlen(name) + 1)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	return 0;
}

/* Applies vb to a row if it belongs to one of table t's columns. */
static int
add_to_table(const struct pdu_profile *p, size_t t, struct pdu_rows *r,
    const struct pdu_vb *vb, struct wp_err *err)
{
	const struct pdu_table *tab = &p->tab[t];
	uint32_t key[PDU_KEY_MAX];
	struct pdu_row *row;
	struct pdu_val v;
	int c, part;

	if (in_column(p, &vb->oid, tab->filter, tab->key_len, NULL, 0, key)) {
		if ((row = row_get(r, t, key, tab->key_len, err)) == NULL)
			return -1;
		filter_vb(tab, vb, row);
	}
	for (c = 0; c < PDU_NCOL; c++) {
		const struct pdu_col *col = &tab->col[c];

		if (!col->present || c == PDU_COL_RESET ||
		    (part = col_part(p, tab, col, &vb->oid, key)) < 0)
			continue;
		if ((row = row_get(r, t, key, tab->key_len, err)) == NULL)
			return -1;
		if (c == PDU_COL_NAME) {
			if (part == 0 && vb->type == PDU_V_STRING &&
			    set_name(r, row, vb->s, err) < 0)
				return -1;
		} else if (part > 0)
			scale_vb(col, c, part - 1, vb, row);
		else {
			pdu_val_from_vb(vb, col->string, &v);
			if (v.rc == 1 && !unsupported(col, &v))
				row->has |= (uint16_t)(1u << c);
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
row_keep(const struct pdu_profile *p, struct pdu_row *row, long only_unit)
{
	const struct pdu_table *tab = &p->tab[row->table];
	size_t i;

	row->has &= (uint16_t)~row->bad;
	row->has &= (uint16_t)~(1u << PDU_COL_NAME);
	if (row->has == 0)
		return false;
	for (i = 0; i < tab->nmatch; i++)
		if (row->key[tab->match_pos[i] - 1] != tab->match_val[i])
			return false;
	/* equals, text: the row's value must match; except: a row whose
	 * agent gives no value (a column left out) is kept */
	if (tab->filter.n > 0 && row->filter != 1 &&
	    !(tab->filter_except && row->filter == 0))
		return false;
	if (tab->number_pos > 0 &&
	    row->key[tab->number_pos - 1] < (uint32_t)tab->index_base)
		return false;
	row->unit = tab->unit_pos > 0 ? row->key[tab->unit_pos - 1] : 0;
	if (only_unit >= 0 && tab->unit_pos > 0 &&
	    row->unit != (uint32_t)only_unit)
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

/* Numbers the rows (sorted): a key component, or the ordinal per table
 * and unit. */
static void
number_rows(const struct pdu_profile *p, struct pdu_rows *r)
{
	size_t i, t = (size_t)-1;
	uint32_t unit = 0;
	int ord = 0;

	for (i = 0; i < r->n; i++) {
		struct pdu_row *row = &r->v[i];
		const struct pdu_table *tab = &p->tab[row->table];

		if (row->table != t || row->unit != unit) {
			t = row->table;
			unit = row->unit;
			ord = 0;
		}
		ord++;
		if (tab->number_pos == 0)
			row->number = ord + tab->first - 1;
		else
			row->number = (int32_t)(row->key[tab->number_pos - 1] -
			    (uint32_t)tab->index_base + 1);
	}
}

/* The series group of a role: totals (inlet, device) are "inlet". */
static const char *
role_series(int role)
{
	return role == PDU_ROLE_DEVICE ? "inlet" : pdu_role_name(role);
}

static void
decide(const struct pdu_profile *p, struct pdu_rows *r, long only_unit)
{
	uint32_t first = 0;
	size_t i, t;
	bool seen = false;

	r->total_role = -1;
	for (t = 0; t < p->ntab && r->total_role < 0; t++) {
		if (p->tab[t].role != PDU_ROLE_INLET &&
		    p->tab[t].role != PDU_ROLE_DEVICE)
			continue;
		for (i = 0; i < r->n; i++)
			if (r->v[i].table == t) {
				r->total_role = p->tab[t].role;
				break;
			}
	}
	for (i = 0; i < r->n && only_unit < 0; i++) {
		if (p->tab[r->v[i].table].unit_pos == 0)
			continue;
		if (seen && r->v[i].unit != first)
			r->multi = true;
		first = seen ? first : r->v[i].unit;
		seen = true;
	}
	for (i = 0; i < r->n; i++)
		r->v[i].prefixed = r->multi &&
		    p->tab[r->v[i].table].unit_pos > 0;
}

bool
pdu_row_reported(const struct pdu_profile *p, const struct pdu_rows *r,
    const struct pdu_row *row)
{
	int role = p->tab[row->table].role;

	return (role != PDU_ROLE_INLET && role != PDU_ROLE_DEVICE) ||
	    role == r->total_role;
}

/* Whether rows a and b give the same series (or, totals a poll does not
 * report, the same probe path). */
static bool
same_series(const struct pdu_profile *p, const struct pdu_rows *r,
    const struct pdu_row *a, const struct pdu_row *b)
{
	int ra = p->tab[a->table].role, rb = p->tab[b->table].role;
	bool pa = pdu_row_reported(p, r, a), pb = pdu_row_reported(p, r, b);

	if (a->number != b->number || a->prefixed != b->prefixed ||
	    (a->prefixed && a->unit != b->unit) || pa != pb)
		return false;
	if (!pa)
		return ra == rb;
	return strcmp(role_series(ra), role_series(rb)) == 0;
}

/* A later row naming a series an earlier one names loses those readings
 * (a repeated index, two tables for one outlet): never two values. */
static void
drop_repeats(const struct pdu_profile *p, struct pdu_rows *r,
    struct pdu_finish *o)
{
	char what[64];
	size_t i, j, n = 0;
	uint16_t both;

	for (i = 0; i < r->n; i++) {
		struct pdu_row *b = &r->v[i];

		for (j = 0; j < i && b->has != 0; j++) {
			const struct pdu_row *a = &r->v[j];

			if (a->has == 0 || !same_series(p, r, a, b) ||
			    (both = a->has & b->has) == 0)
				continue;
			b->has &= (uint16_t)~both;
			o->dropped++;
			pdu_row_series(p, b, what, sizeof(what));
			if (o->warn[0] == '\0')
				snprintf(o->warn, sizeof(o->warn), "%s: two rows "
				    "name it (the second, %s table, left out)",
				    what, pdu_role_name(p->tab[b->table].role));
		}
	}
	for (i = 0; i < r->n; i++)
		if (r->v[i].has != 0)
			r->v[n++] = r->v[i];
	r->n = n;
}

void
pdu_rows_finish(const struct pdu_profile *p, struct pdu_rows *r,
    struct pdu_finish *o)
{
	size_t i, n = 0;

	o->warn[0] = '\0';
	o->dropped = 0;
	for (i = 0; i < r->n; i++)
		if (row_keep(p, &r->v[i], o->only_unit))
			r->v[n++] = r->v[i];
	r->n = n;
	if (n > 0)
		qsort(r->v, n, sizeof(r->v[0]), row_cmp);
	number_rows(p, r);
	r->multi = o->multi;
	decide(p, r, o->only_unit);
	drop_repeats(p, r, o);
	if (r->n < r->cap && r->n > 0) {	/* give back the slack */
		struct pdu_row *v = realloc(r->v, r->n * sizeof(*v));

		if (v != NULL) {
			r->v = v;
			r->cap = r->n;
		}
	}
	text_compact(r);
}

void
pdu_rows_fini(struct pdu_rows *r)
{
	free(r->v);
	text_free(r->text);
	r->v = NULL;
	r->text = NULL;
	r->n = r->cap = 0;
}

size_t
pdu_rows_readings(const struct pdu_profile *p, const struct pdu_rows *r)
{
	size_t i, n = 0;
	int c;

	for (i = 0; i < r->n; i++)
		if (pdu_row_reported(p, r, &r->v[i]))
			for (c = PDU_COL_READ_FIRST; c <= PDU_COL_READ_LAST;
			    c++)
				n += PDU_HAS(&r->v[i], c);
	return n;
}

int
pdu_get_oid(const struct pdu_profile *p, const struct pdu_row *row, int col,
    struct pdu_oid *out)
{
	const struct pdu_col *c = &p->tab[row->table].col[col];

	if (!c->present || c->oid.n + row->nkey + c->nsuffix > PDU_OID_MAX)
		return -1;
	pdu_ref_oid(p, c->oid, out);
	memcpy(out->v + out->n, row->key, row->nkey * sizeof(row->key[0]));
	out->n += row->nkey;
	memcpy(out->v + out->n, c->suffix, c->nsuffix * sizeof(c->suffix[0]));
	out->n += c->nsuffix;
	return 0;
}

/* Writes ["u" unit "/"] prefix "/" number at buf (len > 0), truncating
 * like snprintf. */
static void
put_role_number(char *buf, size_t len, const struct pdu_row *row,
    const char *prefix)
{
	char digits[DECIMAL_MAX], udig[DECIMAL_MAX];
	size_t n = decimal_put(digits, row->number), pl = strlen(prefix);
	size_t un = row->prefixed ? decimal_put(udig, row->unit) : 0;
	size_t o = 0;

	if ((row->prefixed ? un + 2 : 0) + pl + 1 + n >= len) {
		if (row->prefixed)
			snprintf(buf, len, "u%u/%s/%d", row->unit, prefix,
			    row->number);
		else
			snprintf(buf, len, "%s/%d", prefix, row->number);
		return;
	}
	if (row->prefixed) {	/* per sample: not snprintf */
		buf[o++] = 'u';
		memcpy(buf + o, udig, un);
		o += un;
		buf[o++] = '/';
	}
	memcpy(buf + o, prefix, pl);
	o += pl;
	buf[o++] = '/';
	memcpy(buf + o, digits, n);
	buf[o + n] = '\0';
}

void
pdu_row_series(const struct pdu_profile *p, const struct pdu_row *row,
    char *buf, size_t len)
{
	put_role_number(buf, len, row, role_series(p->tab[row->table].role));
}

void
pdu_row_path(const struct pdu_profile *p, const struct pdu_row *row,
    char *buf, size_t len)
{
	put_role_number(buf, len, row, pdu_role_name(p->tab[row->table].role));
}

/* 10^k, exact for the small k profiles use. */
static double
pow10i(int k)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18 };

	if (k >= 0 && k < (int)(sizeof(p10) / sizeof(p10[0])))
		return p10[k];
	if (k < 0 && -k < (int)(sizeof(p10) / sizeof(p10[0])))
		return 1 / p10[-k];
	return pow(10.0, k);
}

/* What a value is, for its error messages: "outlet/3 energy". */
static const char *
value_what(const struct pdu_profile *p, const struct pdu_row *row, int col,
    char what[96])
{
	size_t n;

	pdu_row_path(p, row, what, 72);
	n = strlen(what);
	snprintf(what + n, 96 - n, " %s", pdu_col_name(col));
	return what;
}

static int
check_value(const struct pdu_profile *p, const struct pdu_row *row, int col,
    const struct pdu_val *v, struct wp_err *err)
{
	const struct pdu_col *c = &p->tab[row->table].col[col];
	char what[96];

	if (v->type == PDU_V_NOSUCHOBJECT || v->type ==
	    PDU_V_NOSUCHINSTANCE || v->type == PDU_V_ENDOFMIB)
		return err_set(err, WP_E_PROTOCOL, "%s: %s",
		    value_what(p, row, col, what), pdu_vtype_name(v->type));
	if (v->rc < 0)
		return err_set(err, WP_E_PROTOCOL, "%s: %s where a number was "
		    "expected", value_what(p, row, col, what),
		    pdu_vtype_name(v->type));
	if (unsupported(c, v))
		return 0;
	if (c->max_raw > 0 && fabs(v->num) > c->max_raw)
		return err_set(err, WP_E_PROTOCOL, "%s: absurd value %.0f "
		    "(above %.0f)", value_what(p, row, col, what), v->num,
		    c->max_raw);
	return 1;
}

static void
fill_labels(const struct pdu_profile *p, const struct pdu_row *row,
    struct wp_sample *s)
{
	const struct pdu_table *tab = &p->tab[row->table];
	char idx[PDU_KEY_MAX * 11 + 1], u[DECIMAL_MAX + 1];
	size_t i, off = 0;

	if (tab->role != PDU_ROLE_OUTLET)
		sample_add_label(s, "role", pdu_role_name(tab->role));
	if (row->name != NULL && row->name[0] != '\0')
		sample_add_label(s, "name", row->name);
	/* a key component is a uint32_t: "." and at most 10 digits */
	for (i = 0; i < row->nkey && off + 12 < sizeof(idx); i++) {
		if (i)
			idx[off++] = '.';
		off += decimal_put(idx + off, row->key[i]);
	}
	idx[off] = '\0';
	sample_add_label(s, "index", idx);
	if (tab->unit_pos > 0) {
		u[decimal_put(u, row->unit)] = '\0';
		sample_add_label(s, "unit", u);
	}
}

/* Series name of a reading: "<row series>/<quantity>". */
static int
reading_init(const struct pdu_profile *p, const struct pdu_row *row,
    int col, struct wp_sample *s)
{
	const struct pdu_table *tab = &p->tab[row->table];
	char series[WP_SERIES_MAX];
	int q = pdu_col_quantity(col);
	bool counter = q == WP_Q_ENERGY || q == WP_Q_APPARENT_ENERGY;
	size_t n;

	pdu_row_series(p, row, series, sizeof(series));
	n = strlen(series);
	snprintf(series + n, sizeof(series) - n, "/%s", quantity_name(q));
	return sample_init(s, series, tab->role == PDU_ROLE_OUTLET ?
	    WP_B_OUTLET : WP_B_PDU, q, counter ? WP_COUNTER : WP_GAUGE);
}

int
pdu_decode_val(const struct pdu_profile *p, const struct pdu_row *row,
    int col, const struct pdu_val *v, struct wp_sample *s,
    struct wp_err *err)
{
	const struct pdu_table *tab = &p->tab[row->table];
	const struct pdu_col *c = &tab->col[col];
	char what[96];
	double step, wrap;
	int rc;

	if (col < PDU_COL_READ_FIRST || col > PDU_COL_READ_LAST)
		return err_set(err, WP_E_INTERNAL, "decode: bad column");
	if ((rc = check_value(p, row, col, v, err)) <= 0)
		return rc;
	step = c->factor * pow10i(row->exp10[col]);
	if (reading_init(p, row, col, s) < 0)
		return err_set(err, WP_E_INTERNAL, "%s: series name",
		    value_what(p, row, col, what));
	s->value = v->num * step;
	s->raw_value = v->num * pow10i(row->exp10[col]);
	sample_set_unit(s, c->unit);
	s->resolution = step;
	if (s->kind == WP_GAUGE && fabs(s->value) > tab->max_power)
		return err_set(err, WP_E_PROTOCOL, "%s: absurd value %.0f %s "
		    "(above %.0f)", value_what(p, row, col, what), s->value,
		    quantity_unit(s->quantity), tab->max_power);
	if (s->kind == WP_COUNTER) {
		wrap = c->wrap;
		if (wrap == 0 && v->type == PDU_V_COUNTER32 && !c->resettable)
			wrap = 4294967296.0;
		s->wrap = wrap * step;
		if (c->resettable)
			s->flags |= WP_F_RESETTABLE;
	}
	fill_labels(p, row, s);
	/* what the core would refuse, e.g. a Counter64 near 2^64 of 10 J */
	if (sample_validate(s, err) < 0)
		return -1;
	return 1;
}

int
pdu_decode_value(const struct pdu_profile *p, const struct pdu_row *row,
    int col, const struct pdu_vb *vb, struct wp_sample *s,
    struct wp_err *err)
{
	struct pdu_val v;

	if (col < PDU_COL_READ_FIRST || col > PDU_COL_READ_LAST)
		return err_set(err, WP_E_INTERNAL, "decode: bad column");
	pdu_val_from_vb(vb, p->tab[row->table].col[col].string, &v);
	return pdu_decode_val(p, row, col, &v, s, err);
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
    const char *reason, const char *sysdescr)
{
	char d[PDU_DESCR_LABEL_MAX + 1];
	size_t room, used, n = sysdescr ? strnlen(sysdescr, sizeof(d) - 1) : 0;

	if (sample_add_label(s, "profile", p->name) < 0 ||
	    (p->vendor[0] != '\0' && sample_add_label(s, "vendor",
	    p->vendor) < 0))
		return -1;
	if (reason != NULL && reason[0] != '\0')
		sample_add_label(s, "profile_reason", reason);
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
pdu_decode_reset_time(const struct pdu_val *v)
{
	double t = v->num;

	if (v->rc != 1 || (v->type != PDU_V_INT && v->type != PDU_V_UINT &&
	    v->type != PDU_V_COUNTER32) || !(t > 0))
		return 0;
	if (t > 4102444800.0)	/* 2100-01-01: not a UNIX time */
		return 0;
	return (wp_time)t * WP_SEC;
}

/* --- detection ---------------------------------------------------------- */

size_t
pdu_probe_oids(const struct pdu_profile *p, struct pdu_oid *out, size_t max)
{
	struct pdu_ref refs[PDU_TABLES_MAX * 5];
	size_t n = 0, t, i;
	int c;

	for (t = 0; t < p->ntab; t++)
		for (c = PDU_COL_READ_FIRST; c <= PDU_COL_READ_LAST; c++)
			if (p->tab[t].col[c].present)
				add_ref(p, refs, &n, sizeof(refs) /
				    sizeof(refs[0]), p->tab[t].col[c].oid);
	for (i = 0; i < n && i < max; i++)
		pdu_ref_oid(p, refs[i], &out[i]);
	return i;
}

void
pdu_probe_answer(const struct pdu_oid *asked, const struct pdu_vb *vb,
    struct pdu_probe_ans *out)
{
	memset(out, 0, sizeof(*out));
	if (vb->type == PDU_V_ENDOFMIB || vb->type == PDU_V_NOSUCHOBJECT ||
	    vb->type == PDU_V_NOSUCHINSTANCE)
		out->state = PDU_ANS_OUTSIDE;
	else if (pdu_oid_cmp(&vb->oid, asked) <= 0)
		out->state = PDU_ANS_LOOP;
	else if (!pdu_oid_has_prefix(&vb->oid, asked))
		out->state = PDU_ANS_OUTSIDE;
	else {
		out->state = PDU_ANS_UNDER;
		pdu_val_from_vb(vb, false, &out->num);
		pdu_val_from_vb(vb, true, &out->str);
	}
}

int
pdu_probe_hit(const struct pdu_profile *p, const struct pdu_oid *asked,
    const struct pdu_probe_ans *a)
{
	const struct pdu_val *v;
	struct pdu_oid o;
	size_t t;
	int c;

	if (a->state != PDU_ANS_UNDER)
		return 0;
	for (t = 0; t < p->ntab; t++)
		for (c = PDU_COL_READ_FIRST; c <= PDU_COL_READ_LAST; c++) {
			const struct pdu_col *col = &p->tab[t].col[c];

			if (!col->present)
				continue;
			pdu_ref_oid(p, col->oid, &o);
			if (pdu_oid_cmp(&o, asked) != 0)
				continue;
			if (col->nsuffix > 0)
				return 1;
			v = col->string ? &a->str : &a->num;
			if (v->rc == 1 && !unsupported(col, v))
				return 1;
		}
	return 0;
}
