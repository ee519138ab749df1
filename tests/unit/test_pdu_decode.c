/*
 * Unit tests: drivers/snmp_pdu/pdu_decode.c on real recordings.
 *
 * Each test parses a .snmprec recording (tests/fixtures/snmp/), runs the
 * discovery over all its varbinds with the shipped profile
 * (etc/pdu-profiles/), then decodes the values at the OIDs the driver would
 * GET, and checks them against the recording x the MIB's scale.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/shared.h"
#include "../../drivers/snmp_pdu/pdu_decode.h"
#include "../../drivers/snmp_pdu/snmp_detect.h"

struct rec {
	struct pdu_vb	*vb;
	size_t		 n;
};

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One "OID|type|value" line to a varbind; -1 if not understood. */
static int
parse_line(char *line, struct pdu_vb *vb)
{
	char *t, *v;
	size_t i;

	memset(vb, 0, sizeof(*vb));
	line[strcspn(line, "\r\n")] = '\0';
	if ((t = strchr(line, '|')) == NULL)
		return -1;
	*t++ = '\0';
	if ((v = strchr(t, '|')) == NULL)
		return -1;
	*v++ = '\0';
	if (pdu_oid_parse(line, &vb->oid) < 0)
		return -1;
	if (strcmp(t, "2") == 0) {
		vb->type = PDU_V_INT;
		vb->i = strtoll(v, NULL, 10);
	} else if (strcmp(t, "65") == 0 || strcmp(t, "66") == 0 ||
	    strcmp(t, "67") == 0 || strcmp(t, "70") == 0) {
		vb->type = t[1] == '5' ? PDU_V_COUNTER32 : t[1] == '6' ?
		    PDU_V_UINT : t[1] == '7' ? PDU_V_TIMETICKS :
		    PDU_V_COUNTER64;
		vb->u = strtoull(v, NULL, 10);
	} else if (strcmp(t, "4") == 0 || strcmp(t, "6") == 0) {
		vb->type = t[0] == '4' ? PDU_V_STRING : PDU_V_OID;
		snprintf(vb->s, sizeof(vb->s), "%s", v);
	} else if (strcmp(t, "4x") == 0) {
		vb->type = PDU_V_STRING;
		for (i = 0; v[2 * i] && v[2 * i + 1] &&
		    i + 1 < sizeof(vb->s); i++)
			vb->s[i] = (char)(hexval(v[2 * i]) * 16 +
			    hexval(v[2 * i + 1]));
	} else
		vb->type = PDU_V_OTHER;
	return 0;
}

static struct rec
load_rec(const char *name)
{
	char path[256], line[1024];
	struct rec r = { NULL, 0 };
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "tests/fixtures/snmp/%s.snmprec", name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (r.n == cap) {
			cap = cap ? cap * 2 : 256;
			r.vb = realloc(r.vb, cap * sizeof(*r.vb));
			assert_non_null(r.vb);
		}
		if (parse_line(line, &r.vb[r.n]) == 0)
			r.n++;
	}
	fclose(f);
	return r;
}

static const struct pdu_vb *
rec_find(const struct rec *r, const struct pdu_oid *o)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (pdu_oid_cmp(&r->vb[i].oid, o) == 0)
			return &r->vb[i];
	return NULL;
}

static struct pdu_profile *
profile(const char *name)
{
	char path[256];
	struct wp_err err;
	struct pdu_profile *p;

	snprintf(path, sizeof(path), "etc/pdu-profiles/%s.yaml", name);
	p = pdu_profile_load(path, &err);
	if (p == NULL)
		fail_msg("%s", err.msg);
	return p;
}

/* Discovery over the whole recording, as the GETBULK walks would see it. */
static void
discover(const struct pdu_profile *p, const struct rec *r,
    struct pdu_rows *rows)
{
	struct wp_err err;
	size_t i;
	struct pdu_finish fo = { .only_unit = -1 };

	memset(rows, 0, sizeof(*rows));
	for (i = 0; i < r->n; i++)
		assert_int_equal(pdu_rows_add(p, rows, &r->vb[i], &err), 0);
	pdu_rows_finish(p, rows, &fo);
}

static const struct pdu_row *
row_of(const struct pdu_profile *p, const struct pdu_rows *rows, int role,
    int number)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (p->tab[rows->v[i].table].role == role &&
		    rows->v[i].number == number)
			return &rows->v[i];
	return NULL;
}

/* The row of role and number in databus unit u. */
static const struct pdu_row *
row_in(const struct pdu_profile *p, const struct pdu_rows *rows, int role,
    uint32_t u, int number)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (p->tab[rows->v[i].table].role == role &&
		    rows->v[i].unit == u && rows->v[i].number == number)
			return &rows->v[i];
	return NULL;
}

static size_t
count_role(const struct pdu_profile *p, const struct pdu_rows *rows, int role)
{
	size_t i, n = 0;

	for (i = 0; i < rows->n; i++)
		n += p->tab[rows->v[i].table].role == role;
	return n;
}

/* Decodes what a GET of row's column would return; rc as pdu_decode_value. */
static int
value(const struct pdu_profile *p, const struct rec *r,
    const struct pdu_row *row, int col, struct wp_sample *s)
{
	struct pdu_oid o;
	const struct pdu_vb *vb;
	struct wp_err err;

	assert_non_null(row);
	assert_int_equal(pdu_get_oid(p, row, col, &o), 0);
	vb = rec_find(r, &o);
	assert_non_null(vb);
	return pdu_decode_value(p, row, col, vb, s, &err);
}

static void
assert_close(double a, double b)
{
	if (!(a > b - 1e-9 * (b < 0 ? -b : b) - 1e-9 &&
	    a < b + 1e-9 * (b < 0 ? -b : b) + 1e-9))
		fail_msg("%.9g != %.9g", a, b);
}

static void
test_raritan_px3(void **st)
{
	struct pdu_profile *p = profile("raritan-pdu2");
	struct rec r = load_rec("raritan-pdu_px3");
	struct pdu_rows rows;
	struct wp_sample s;
	char name[64];

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 24);
	/* 1.1.5 = 143 W, 1.1.8 = 5812658 Wh (digits 0) */
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 1), PDU_COL_POWER,
	    &s), 1);
	assert_string_equal(s.series, "outlet/1/power");
	assert_int_equal(s.boundary, WP_B_OUTLET);
	assert_int_equal(s.kind, WP_GAUGE);
	assert_close(s.value, 143);
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 1), PDU_COL_ENERGY,
	    &s), 1);
	assert_string_equal(s.series, "outlet/1/energy");
	assert_int_equal(s.kind, WP_COUNTER);
	assert_close(s.value, 5812658.0 * 3600);
	assert_close(s.raw_value, 5812658);
	assert_string_equal(s.raw_unit, "Wh");
	assert_close(s.resolution, 3600);
	assert_close(s.wrap, 4294967296.0 * 3600);
	/* outlet 2 carries a name */
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 2), PDU_COL_POWER,
	    &s), 1);
	assert_close(s.value, 207);
	assert_int_equal(sample_get_label(&s, "name", name, sizeof(name)), 0);
	assert_string_equal(name, "DEVICE 8:PS1:Planned");
	/* inlet: 1665 W, 74057676 Wh */
	assert_int_equal(rows.total_role, PDU_ROLE_INLET);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_POWER, &s), 1);
	assert_string_equal(s.series, "inlet/1/power");
	assert_int_equal(s.boundary, WP_B_PDU);
	assert_close(s.value, 1665);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 74057676.0 * 3600);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

/* The decimal digits column divides the value (Raritan PDU2 sensors). */
static void
test_raritan_decimal_digits(void **st)
{
	struct pdu_profile *p = profile("raritan-pdu2");
	struct rec r = load_rec("raritan-pdu_px3");
	struct pdu_rows rows;
	struct wp_sample s;
	struct pdu_vb dig;
	struct wp_err err;
	size_t i;

	(void)st;
	memset(&rows, 0, sizeof(rows));
	for (i = 0; i < r.n; i++)
		assert_int_equal(pdu_rows_add(p, &rows, &r.vb[i], &err), 0);
	/* outletSensorDecimalDigits.1.1.5 = 2: 143 -> 1.43 W */
	memset(&dig, 0, sizeof(dig));
	assert_int_equal(pdu_oid_parse("1.3.6.1.4.1.13742.6.3.5.4.1.7.1.1.5",
	    &dig.oid), 0);
	dig.type = PDU_V_UINT;
	dig.u = 2;
	assert_int_equal(pdu_rows_add(p, &rows, &dig, &err), 0);
	pdu_rows_finish(p, &rows, &(struct pdu_finish){ .only_unit = -1 });
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 1), PDU_COL_POWER,
	    &s), 1);
	assert_close(s.value, 1.43);
	assert_close(s.resolution, 0.01);
	assert_close(s.raw_value, 1.43);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_raritan_px2_power_only(void **st)
{
	struct pdu_profile *p = profile("raritan-pdu2");
	struct rec r = load_rec("raritan-pdu_px2");
	struct pdu_rows rows;
	struct wp_sample s;
	size_t i;

	(void)st;
	discover(p, &r, &rows);
	assert_true(count_role(p, &rows, PDU_ROLE_OUTLET) >= 5);
	for (i = 0; i < rows.n; i++)
		assert_false(PDU_HAS(&rows.v[i], PDU_COL_ENERGY));
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 3), PDU_COL_POWER,
	    &s), 1);
	assert_close(s.value, 68);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_apc_device_hundredths_kw(void **st)
{
	struct pdu_profile *p = profile("apc-rpdu2");
	struct rec r = load_rec("apc_ap8853");
	struct pdu_rows rows;
	struct wp_sample s;

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 0);
	assert_int_equal(rows.total_role, PDU_ROLE_DEVICE);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 1140);	/* 114 x 0.01 kW */
	assert_string_equal(s.raw_unit, "0.01kW");
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 35128 * 0.1 * 3.6e6);
	assert_close(s.resolution, 360000);
	assert_close(s.wrap, 0);	/* INTEGER: no modulus, drops are resets */
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

/* AP7900B is switched, not metered: -1 everywhere, so no rows at all. */
static void
test_apc_unsupported_minus_one(void **st)
{
	struct pdu_profile *p = profile("apc-rpdu2");
	struct rec r = load_rec("apc_ap7900b");
	struct pdu_rows rows;
	struct wp_sample s;
	struct pdu_row row = { .table = 1, .nkey = 1,
	    .key = (const uint32_t[]){ 1 }, .number = 1 };
	struct pdu_oid o;
	struct wp_err err;

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(rows.n, 0);
	assert_int_equal(pdu_get_oid(p, &row, PDU_COL_POWER, &o), 0);
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER,
	    rec_find(&r, &o), &s, &err), 0);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_apc_epdu_phase_wh(void **st)
{
	struct pdu_profile *p = profile("apc-epdu");
	struct rec r = load_rec("apc-epdu_epdu1116s");
	struct pdu_rows rows;
	struct wp_sample s;

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_PHASE), 3);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_PHASE, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 332241.0 * 3600);
	assert_string_equal(s.series, "phase/1/energy");
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_eaton_strapping_zero_and_reset_time(void **st)
{
	struct pdu_profile *p = profile("eaton-epdu");
	struct rec r = load_rec("eatonpdu_2");
	struct pdu_rows rows;
	struct wp_sample s;
	struct pdu_val val;
	struct pdu_oid o;
	char name[64];

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 24);
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 1), PDU_COL_POWER,
	    &s), 1);
	assert_close(s.value, 80);
	assert_int_equal(sample_get_label(&s, "name", name, sizeof(name)), 0);
	assert_string_equal(name, "Power strip + s-rw-lab-rack");
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 1), PDU_COL_ENERGY,
	    &s), 1);
	assert_close(s.value, 785621.0 * 3600);
	assert_close(s.wrap, 4294967296.0 * 3600);
	assert_int_equal(pdu_get_oid(p, row_of(p, &rows, 0, 1), PDU_COL_RESET,
	    &o), 0);
	pdu_val_from_vb(rec_find(&r, &o), false, &val);
	assert_true(pdu_decode_reset_time(&val) == 1700853056LL * WP_SEC);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 1584);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 8185493.0 * 3600);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_sentry4_cords_tenths_kwh(void **st)
{
	struct pdu_profile *p = profile("servertech-sentry4");
	struct rec r = load_rec("sentry4");
	struct pdu_rows rows;
	struct wp_sample s;

	(void)st;
	assert_int_equal(p->max_repetitions, 4);
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_INLET), 2);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 1701);
	assert_string_equal(s.series, "u1/inlet/1/power");
	/* the linked unit (st4UnitIndex 2) is a PDU of its own */
	assert_true(rows.multi);
	assert_int_equal(value(p, &r, row_in(p, &rows, PDU_ROLE_INLET, 2, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 25659 * 0.1 * 3.6e6);
	assert_string_equal(s.series, "u2/inlet/1/energy");
	assert_int_equal(value(p, &r, row_in(p, &rows, PDU_ROLE_PHASE, 1, 3),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 848);
	assert_int_equal(value(p, &r, row_in(p, &rows, PDU_ROLE_INLET, 1, 1),
	    PDU_COL_APOWER, &s), 1);
	assert_int_equal(s.quantity, WP_Q_APPARENT_POWER);
	assert_close(s.value, 1790);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_sentry3(void **st)
{
	struct pdu_profile *p = profile("servertech-sentry3");
	struct rec r = load_rec("sentry3_3phase"), r2 = load_rec("sentry3");
	struct pdu_rows rows;
	struct wp_sample s;

	(void)st;
	discover(p, &r, &rows);
	/* infeeds come first: they are the inlets; the system total is
	 * shown by probe only */
	assert_int_equal(rows.total_role, PDU_ROLE_INLET);
	assert_false(pdu_row_reported(p, &rows, row_of(p, &rows,
	    PDU_ROLE_DEVICE, 1)));
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 279);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 147);
	pdu_rows_fini(&rows);
	discover(p, &r2, &rows);	/* current only: nothing to report */
	assert_int_equal(rows.n, 0);
	pdu_rows_fini(&rows);
	free(r.vb);
	free(r2.vb);
	pdu_profile_free(p);
}

static void
test_vertiv_totals_and_absurd(void **st)
{
	struct pdu_profile *p = profile("vertiv-geist");
	struct rec r = load_rec("vertiv-pdu_mg02e4w1");
	struct pdu_rows rows;
	struct wp_sample s;
	struct pdu_vb vb;
	struct wp_err err;
	const struct pdu_row *row;

	(void)st;
	discover(p, &r, &rows);
	row = row_of(p, &rows, PDU_ROLE_DEVICE, 1);
	assert_int_equal(value(p, &r, row, PDU_COL_POWER, &s), 1);
	assert_close(s.value, 1017);
	assert_int_equal(value(p, &r, row, PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 8483906.0 * 3600);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_PHASE), 3);
	/* beyond the declared range: rejected, not a sample */
	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_UINT;
	vb.u = 4294967295u;
	assert_int_equal(pdu_decode_value(p, row, PDU_COL_ENERGY, &vb, &s,
	    &err), -1);
	assert_int_equal(err.class, WP_E_PROTOCOL);
	assert_non_null(strstr(err.msg, "absurd"));
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_dell_outlets_power_only(void **st)
{
	struct pdu_profile *p = profile("dell-rpdu");
	struct rec r = load_rec("dell-rpdu");
	struct pdu_rows rows;
	struct wp_sample s;
	char name[64];

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 24);
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 3), PDU_COL_POWER,
	    &s), 1);
	assert_close(s.value, 352);
	assert_int_equal(sample_get_label(&s, "name", name, sizeof(name)), 0);
	assert_string_equal(name, "Outlet 3");
	assert_false(PDU_HAS(row_of(p, &rows, 0, 3), PDU_COL_ENERGY));
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 3790);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 630139 * 0.1 * 3.6e6);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_hpe_panduit_liebert(void **st)
{
	struct pdu_profile *p = profile("hpe-pdu3");
	struct rec r = load_rec("hpe-mapdu_pdu3");
	struct pdu_rows rows;
	struct wp_sample s;

	(void)st;
	discover(p, &r, &rows);
	assert_true(count_role(p, &rows, PDU_ROLE_OUTLET) >= 24);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 154);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);

	p = profile("panduit-g5");
	r = load_rec("panduit_g5-p32g13m");
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 2);
	assert_non_null(row_of(p, &rows, 0, 33));
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 1), PDU_COL_ENERGY,
	    &s), 1);
	assert_close(s.value, 0);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);

	p = profile("liebert-gp-pdu");
	r = load_rec("liebert_mph2rg");
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 16);
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 2), PDU_COL_ENERGY,
	    &s), 1);
	assert_close(s.value, 113 * 0.1 * 3.6e6);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 514);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_INLET, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 20450 * 0.1 * 3.6e6);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

/* CyberPower serves "NULL" text in an INTEGER column: wrong type, no sample
 * (the bank's load row: a circuit; the phase's row, BankNumber 0, reads). */
static void
test_cyberpower_wrong_type(void **st)
{
	struct pdu_profile *p = profile("cyberpower");
	struct rec r = load_rec("cyberpower");
	struct pdu_rows rows;
	struct wp_sample s;
	struct pdu_oid o;
	struct wp_err err;
	const struct pdu_row *row;

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 10);
	assert_null(row_of(p, &rows, PDU_ROLE_PHASE, 2));
	row = row_of(p, &rows, PDU_ROLE_CIRCUIT, 1);
	assert_non_null(row);
	assert_false(PDU_HAS(row, PDU_COL_ENERGY));
	assert_int_equal(pdu_get_oid(p, row, PDU_COL_ENERGY, &o), 0);
	assert_int_equal(pdu_decode_value(p, row, PDU_COL_ENERGY,
	    rec_find(&r, &o), &s, &err), -1);
	assert_non_null(strstr(err.msg, "OCTET STRING"));
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_PHASE, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 0.1 * 3.6e6);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
test_schleifenbauer_enlogic(void **st)
{
	struct pdu_profile *p = profile("schleifenbauer");
	struct rec r = load_rec("schleifenbauer_dpm27e");
	struct pdu_rows rows;
	struct wp_sample s;

	(void)st;
	discover(p, &r, &rows);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 12);
	assert_int_equal(value(p, &r, row_of(p, &rows, 0, 12), PDU_COL_ENERGY,
	    &s), 1);
	assert_close(s.value, 0);
	assert_string_equal(s.raw_unit, "kWh");
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);

	p = profile("enlogic-pdu2");
	r = load_rec("enlogic-pdu2");
	discover(p, &r, &rows);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_POWER, &s), 1);
	assert_close(s.value, 1120);
	assert_int_equal(value(p, &r, row_of(p, &rows, PDU_ROLE_DEVICE, 1),
	    PDU_COL_ENERGY, &s), 1);
	assert_close(s.value, 527776 * 0.1 * 3.6e6);
	pdu_rows_fini(&rows);
	free(r.vb);
	pdu_profile_free(p);
}

static void
add_vb(const struct pdu_profile *p, struct pdu_rows *rows, const char *oid,
    int type, int64_t v, const char *s)
{
	struct pdu_vb vb;
	struct wp_err err;

	memset(&vb, 0, sizeof(vb));
	assert_int_equal(pdu_oid_parse(oid, &vb.oid), 0);
	vb.type = type;
	vb.i = v;
	vb.u = (uint64_t)v;
	if (s)
		snprintf(vb.s, sizeof(vb.s), "%s", s);
	assert_int_equal(pdu_rows_add(p, rows, &vb, &err), 0);
}


/* Decodes an INTEGER v as column col of row. */
static int
value_of(const struct pdu_profile *p, const struct pdu_row *row, int col,
    int64_t v, struct wp_sample *s)
{
	struct pdu_vb vb;
	struct wp_err err;

	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_INT;
	vb.i = v;
	return pdu_decode_value(p, row, col, &vb, s, &err);
}

/* A profile written here, for the engine's own cases. */
static struct pdu_profile *
yprofile(const char *yaml)
{
	struct wp_err err;
	struct pdu_profile *p = pdu_profile_parse(yaml, strlen(yaml), "t",
	    &err);

	if (p == NULL)
		fail_msg("%s", err.msg);
	return p;
}

static const char test_yaml[] =
    "name: t\nvendor: T\nmib: T-MIB\nrevision: \"1\"\n"
    "tables:\n"
    "  - role: outlet\n    key_len: 2\n    unit: 1\n    number: 2\n"
    "    name: 1.3.6.1.4.1.99.1.2\n"
    "    power: {oid: 1.3.6.1.4.1.99.1.3, unit: W}\n"
    "    energy: {oid: 1.3.6.1.4.1.99.1.4, unit: Wh, resettable: true}\n"
    "    apparent_power: {oid: 1.3.6.1.4.1.99.1.5, unit: kVA, scale: 0.1}\n"
    "    reactive_power: {oid: 1.3.6.1.4.1.99.1.6, unit: var, signed: true}\n"
    "  - role: circuit\n    key_len: 1\n"
    "    power: {oid: 1.3.6.1.4.1.99.2.3, unit: W, string: true}\n"
    "    apparent_energy: {oid: 1.3.6.1.4.1.99.2.4, unit: kVAh,\n"
    "      unit_oid: 1.3.6.1.4.1.99.2.5, scale_oid: 1.3.6.1.4.1.99.2.6}\n";

static void
finish(const struct pdu_profile *p, struct pdu_rows *rows, long unit,
    struct pdu_finish *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->only_unit = unit;
	pdu_rows_finish(p, rows, fo);
}

/* A table that ends early, a row with a missing column, -1 and text
 * "not available": rows keep what they have, nothing is invented. */
static void
test_bad_tables(void **st)
{
	struct pdu_profile *p = yprofile(test_yaml);
	struct pdu_rows rows;
	struct pdu_finish fo;
	const struct pdu_row *r3;

	(void)st;
	memset(&rows, 0, sizeof(rows));
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.1", PDU_V_INT, 10, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.2", PDU_V_INT, 20, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.3", PDU_V_INT, 30, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.4", PDU_V_INT, -1, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.4.1.1", PDU_V_UINT, 5, NULL);
	/* the energy column ends after row 1; row 4 meters nothing */
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.3.1", PDU_V_STRING, 0,
	    "not available");
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.3.2", PDU_V_STRING, 0, " 12.5 ");
	finish(p, &rows, -1, &fo);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 3);
	assert_true(PDU_HAS(row_of(p, &rows, 0, 1), PDU_COL_ENERGY));
	r3 = row_of(p, &rows, 0, 3);
	assert_non_null(r3);
	assert_true(PDU_HAS(r3, PDU_COL_POWER));
	assert_false(PDU_HAS(r3, PDU_COL_ENERGY));
	assert_null(row_of(p, &rows, 0, 4));
	assert_int_equal(count_role(p, &rows, PDU_ROLE_CIRCUIT), 1);
	assert_int_equal(row_of(p, &rows, PDU_ROLE_CIRCUIT, 1), NULL);
	assert_non_null(row_of(p, &rows, PDU_ROLE_CIRCUIT, 2));
	assert_string_equal(fo.warn, "");
	pdu_rows_fini(&rows);
	pdu_profile_free(p);
}

/* filter except: rows whose filter column says 0 (CPDU-MIB's and Enlogic's
 * placeholder outlets past the PDU's own) or another listed number, of any
 * numeric type, are left out; a row whose agent serves no filter value is
 * kept; a text value is no number: left out.
 * equals, except and text are exclusive. */
static void
test_filter_except(void **st)
{
	static const char yaml[] =
	    "name: t\nvendor: T\nmib: T-MIB\nrevision: \"1\"\n"
	    "tables:\n"
	    "  - role: outlet\n    key_len: 1\n"
	    "    filter: {oid: 1.3.6.1.4.1.99.1.2, except: [0, 9]}\n"
	    "    power: {oid: 1.3.6.1.4.1.99.1.3, unit: W}\n";
	static const char both[] =
	    "name: t\nvendor: T\nmib: T-MIB\nrevision: \"1\"\n"
	    "tables:\n"
	    "  - role: outlet\n    key_len: 1\n"
	    "    filter: {oid: 1.3.6.1.4.1.99.1.2, except: 0, equals: 1}\n"
	    "    power: {oid: 1.3.6.1.4.1.99.1.3, unit: W}\n";
	struct pdu_profile *p = yprofile(yaml);
	struct pdu_rows rows;
	struct pdu_finish fo;
	struct wp_err err;

	(void)st;
	memset(&rows, 0, sizeof(rows));
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.2.1", PDU_V_INT, 1, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.2.2", PDU_V_INT, 0, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.2.4", PDU_V_STRING, 0, "none");
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.2.5", PDU_V_UINT, 9, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.2.6", PDU_V_COUNTER64, 7, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1", PDU_V_INT, 57, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.2", PDU_V_INT, 0, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.3", PDU_V_INT, 12, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.4", PDU_V_INT, 13, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.5", PDU_V_INT, 14, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.6", PDU_V_INT, 15, NULL);
	finish(p, &rows, -1, &fo);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 3);
	assert_non_null(row_of(p, &rows, PDU_ROLE_OUTLET, 1));
	assert_null(row_of(p, &rows, PDU_ROLE_OUTLET, 2));
	assert_non_null(row_of(p, &rows, PDU_ROLE_OUTLET, 3));
	assert_null(row_of(p, &rows, PDU_ROLE_OUTLET, 4));
	assert_null(row_of(p, &rows, PDU_ROLE_OUTLET, 5));	/* Gauge32 9 */
	assert_non_null(row_of(p, &rows, PDU_ROLE_OUTLET, 6));	/* Counter64 7 */
	pdu_rows_fini(&rows);
	pdu_profile_free(p);
	assert_null(pdu_profile_parse(both, strlen(both), "t", &err));
	assert_non_null(strstr(err.msg, "one of equals, except, text"));
}

/* An index that repeats: two rows naming one outlet keep the first, with
 * a message; only_unit keeps one databus unit. */
static void
test_repeated_index_and_units(void **st)
{
	struct pdu_profile *p = yprofile(test_yaml);
	struct pdu_rows rows;
	struct pdu_finish fo;
	struct wp_sample s;

	(void)st;
	p->tab[0].unit_pos = 0;		/* as if the unit were not known */
	memset(&rows, 0, sizeof(rows));
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.3", PDU_V_INT, 30, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.2.3", PDU_V_INT, 40, NULL);
	finish(p, &rows, -1, &fo);
	assert_int_equal(count_role(p, &rows, PDU_ROLE_OUTLET), 1);
	assert_int_equal(fo.dropped, 1);
	assert_non_null(strstr(fo.warn, "outlet/3: two rows"));
	assert_int_equal(value_of(p, &rows.v[0], PDU_COL_POWER, 30, &s), 1);
	assert_close(s.value, 30);	/* the first, never a mix */
	pdu_rows_fini(&rows);
	p->tab[0].unit_pos = 1;		/* now units: u2 is its own PDU */
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.3", PDU_V_INT, 30, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.2.3", PDU_V_INT, 40, NULL);
	finish(p, &rows, -1, &fo);
	assert_int_equal(rows.n, 2);
	assert_true(rows.multi);
	assert_int_equal(value_of(p, &rows.v[1], PDU_COL_POWER, 40, &s), 1);
	assert_string_equal(s.series, "u2/outlet/3/power");
	pdu_rows_fini(&rows);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.3", PDU_V_INT, 30, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.2.3", PDU_V_INT, 40, NULL);
	finish(p, &rows, 2, &fo);	/* unit: 2 in the config */
	assert_int_equal(rows.n, 1);
	assert_false(rows.multi);
	assert_int_equal(value_of(p, &rows.v[0], PDU_COL_POWER, 40, &s), 1);
	assert_string_equal(s.series, "outlet/3/power");
	pdu_rows_fini(&rows);
	pdu_profile_free(p);
}

/* VA, var (signed), VAh from a unit and scale the device names; a
 * resettable counter has no wrap; noSuchObject at a GET is an error that
 * names the reading. */
static void
test_quantities_units_nosuch(void **st)
{
	struct pdu_profile *p = yprofile(test_yaml);
	struct pdu_rows rows;
	struct pdu_finish fo;
	struct wp_sample s;
	struct pdu_vb vb;
	struct wp_err err;
	const struct pdu_row *o, *c;

	(void)st;
	memset(&rows, 0, sizeof(rows));
	add_vb(p, &rows, "1.3.6.1.4.1.99.1.3.1.1", PDU_V_INT, 100, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.4.7", PDU_V_UINT, 1234, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.5.7", PDU_V_STRING, 0, "VAh");
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.6.7", PDU_V_INT, -10, NULL);
	finish(p, &rows, -1, &fo);
	o = row_of(p, &rows, 0, 1);
	c = row_of(p, &rows, PDU_ROLE_CIRCUIT, 7);
	assert_non_null(c);
	assert_int_equal(value_of(p, o, PDU_COL_APOWER, 15, &s), 1);
	assert_int_equal(s.quantity, WP_Q_APPARENT_POWER);
	assert_close(s.value, 1500);		/* 15 x 0.1 kVA */
	assert_string_equal(s.series, "outlet/1/apparent_power");
	assert_int_equal(value_of(p, o, PDU_COL_RPOWER, -436, &s), 1);
	assert_int_equal(s.quantity, WP_Q_REACTIVE_POWER);
	assert_close(s.value, -436);		/* signed: not "n/a" */
	assert_int_equal(value_of(p, o, PDU_COL_POWER, -1, &s), 0);
	/* VAh named by the device on a kVAh column, divided by 10: 0.1 VAh */
	assert_int_equal(value_of(p, c, PDU_COL_AENERGY, 1234, &s), 1);
	assert_int_equal(s.quantity, WP_Q_APPARENT_ENERGY);
	assert_int_equal(s.kind, WP_COUNTER);
	assert_close(s.value, 123.4);
	assert_string_equal(s.series, "circuit/7/apparent_energy");
	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_COUNTER32;
	vb.u = 7;
	assert_int_equal(pdu_decode_value(p, o, PDU_COL_ENERGY, &vb, &s,
	    &err), 1);
	assert_true(s.flags & WP_F_RESETTABLE);
	assert_close(s.wrap, 0);	/* resettable: a drop is a reset */
	vb.type = PDU_V_NOSUCHOBJECT;
	assert_int_equal(pdu_decode_value(p, o, PDU_COL_ENERGY, &vb, &s,
	    &err), -1);
	assert_int_equal(err.class, WP_E_PROTOCOL);
	assert_non_null(strstr(err.msg, "outlet/1 energy: noSuchObject"));
	pdu_rows_fini(&rows);
	pdu_profile_free(p);
}

/* A device unit of the wrong quantity, an odd scale: that reading is
 * unusable, never a wrong value. */
static void
test_bad_device_units(void **st)
{
	struct pdu_profile *p = yprofile(test_yaml);
	struct pdu_rows rows;
	struct pdu_finish fo;

	(void)st;
	memset(&rows, 0, sizeof(rows));
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.4.1", PDU_V_UINT, 5, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.5.1", PDU_V_STRING, 0, "kWh");
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.4.2", PDU_V_UINT, 5, NULL);
	add_vb(p, &rows, "1.3.6.1.4.1.99.2.6.2", PDU_V_INT, -7, NULL);
	finish(p, &rows, -1, &fo);
	assert_int_equal(rows.n, 0);
	pdu_rows_fini(&rows);
	pdu_profile_free(p);
}

/* GETNEXT answers: a row, past the column, a loop (not greater). */
static void
test_probe_answers(void **st)
{
	struct pdu_profile *p = profile("aten-pe");
	struct pdu_oid asked;
	struct pdu_probe_ans a;
	struct pdu_vb vb;

	(void)st;
	assert_int_equal(pdu_oid_parse("1.3.6.1.4.1.21317.1.3.2.2.2.2.99.1.4",
	    &asked), 0);
	memset(&vb, 0, sizeof(vb));
	vb.oid = asked;
	vb.oid.v[vb.oid.n++] = 1;
	vb.type = PDU_V_INT;
	vb.i = 118332;
	pdu_probe_answer(&asked, &vb, &a);
	assert_int_equal(a.state, PDU_ANS_UNDER);
	assert_int_equal(pdu_probe_hit(p, &asked, &a), 1);
	vb.i = -2000000;	/* not supported: no reading */
	pdu_probe_answer(&asked, &vb, &a);
	assert_int_equal(pdu_probe_hit(p, &asked, &a), 0);
	vb.oid = asked;		/* the OID asked again: a GETNEXT loop */
	pdu_probe_answer(&asked, &vb, &a);
	assert_int_equal(a.state, PDU_ANS_LOOP);
	assert_int_equal(pdu_probe_hit(p, &asked, &a), 0);
	vb.oid.v[vb.oid.n - 1] -= 1;	/* smaller than asked */
	pdu_probe_answer(&asked, &vb, &a);
	assert_int_equal(a.state, PDU_ANS_LOOP);
	vb.oid.v[vb.oid.n - 1] += 2;	/* the next column: outside */
	pdu_probe_answer(&asked, &vb, &a);
	assert_int_equal(a.state, PDU_ANS_OUTSIDE);
	pdu_profile_free(p);
}

/* Detection on a generic sysObjectID: a probe, then the profile whose
 * columns answered. */
static void
test_detect_by_probe(void **st)
{
	struct rec r = load_rec("atenpdu");
	struct pdu_oid sysoid;
	struct pdu_profile *p = NULL;
	struct sp_detect *d;
	const struct pdu_oid *o;
	struct wp_err err;
	size_t i, j;

	(void)st;
	assert_int_equal(pdu_oid_parse("1.3.6.1.4.1.21317", &sysoid), 0);
	d = sp_detect_new(NULL, NULL, &sysoid, &err);
	assert_non_null(d);
	assert_int_equal(sp_detect_next(d, &p, &err), 0);
	for (i = 0; (o = sp_detect_asked(d, i)) != NULL; i++) {
		struct pdu_vb end = { .type = PDU_V_ENDOFMIB, .oid = *o };

		for (j = 0; j < r.n && pdu_oid_cmp(&r.vb[j].oid, o) <= 0; j++)
			;
		sp_detect_answer(d, i, j < r.n ? &r.vb[j] : &end);
	}
	assert_true(i > 10 && i <= DETECT_ASK_MAX);
	sp_detect_scored(d);
	assert_int_equal(sp_detect_next(d, &p, &err), 1);
	assert_string_equal(p->name, "aten-pe");
	assert_string_equal(sp_detect_label(d), "probe");
	assert_non_null(strstr(sp_detect_reason(d, p->name),
	    "generic: names no product"));
	pdu_profile_free(p);
	sp_detect_empty(d, "aten-pe");	/* say it walked empty: next */
	while (sp_detect_next(d, &p, &err) == 1)	/* a lower score */
		pdu_profile_free(p);
	/* the fallback profiles (entity-sensor) are probed last */
	assert_non_null(sp_detect_asked(d, 0));
	for (i = 0; (o = sp_detect_asked(d, i)) != NULL; i++) {
		struct pdu_vb end = { .type = PDU_V_ENDOFMIB, .oid = *o };

		sp_detect_answer(d, i, &end);
	}
	sp_detect_scored(d);
	assert_int_equal(sp_detect_next(d, &p, &err), -1);
	assert_non_null(strstr(err.msg, "found no rows: aten-pe"));
	sp_detect_free(d);
	free(r.vb);
}

/* Every shipped profile loads; no two share a name. */
static void
test_all_profiles_load(void **st)
{
	struct pdu_profiles all;
	struct wp_err err;
	size_t i;

	(void)st;
	assert_int_equal(pdu_profile_all(NULL, NULL, &all, &err), 0);
	assert_true(all.n >= 30);
	for (i = 1; i < all.n; i++)
		assert_true(strcmp(all.v[i - 1]->name, all.v[i]->name) < 0);
	pdu_profiles_free(&all);
}

/*
 * Targets that load the same profile share one copy: every profile loaded
 * twice and shared is one profile with two holders, kept until the last
 * lets go.  A profile of the same name that differs (an edited file, a
 * reload) is not taken for it: it becomes the shared one, and the older
 * one's holders keep theirs.
 */
static void
test_profile_share(void **st)
{
	struct pdu_profiles a, b;
	struct pdu_profile *p, *q, *r;
	struct wp_shared *sh = shared_new();
	struct wp_err err;
	size_t i;

	(void)st;
	assert_non_null(sh);
	assert_int_equal(pdu_profile_all(NULL, NULL, &a, &err), 0);
	assert_int_equal(pdu_profile_all(NULL, NULL, &b, &err), 0);
	assert_int_equal(a.n, b.n);
	for (i = 0; i < a.n; i++) {
		p = pdu_profile_share(sh, a.v[i]);
		assert_ptr_equal(p, a.v[i]);
		q = pdu_profile_share(sh, b.v[i]);	/* b.v[i] freed */
		assert_ptr_equal(q, p);
		assert_int_equal(p->users, 2);
		b.v[i] = NULL;
	}
	assert_int_equal(shared_count(sh), (int)a.n);
	p = a.v[0];
	r = pdu_profile_share(NULL, p);		/* nothing shared: as it is */
	assert_ptr_equal(r, p);
	q = profile(p->name);			/* the same name, edited */
	q->max_get = (uint8_t)(p->max_get == 1 ? 2 : 1);
	r = pdu_profile_share(sh, q);
	assert_ptr_equal(r, q);
	assert_ptr_equal(shared_get(sh, "snmp_pdu/profile", p->name), q);
	pdu_profile_free(p);			/* one holder of p left */
	pdu_profile_free(p);			/* p freed: q stays shared */
	assert_ptr_equal(shared_get(sh, "snmp_pdu/profile", q->name), q);
	pdu_profile_free(q);
	for (i = 1; i < a.n; i++) {
		pdu_profile_free(a.v[i]);
		assert_ptr_equal(shared_get(sh, "snmp_pdu/profile",
		    a.v[i]->name), a.v[i]);
		pdu_profile_free(a.v[i]);
	}
	assert_int_equal(shared_count(sh), 0);
	a.n = b.n = 0;
	pdu_profiles_free(&a);
	pdu_profiles_free(&b);
	shared_free(sh);
}

/*
 * ENTITY-SENSOR-MIB: no recording carries a power sensor, so these
 * varbinds are written from RFC 3433 (type watts(6), scale kilo(10),
 * precision 1): 123 -> 12.3 kW.  A precision of -8..-1 ("the number of
 * accurate digits" of a whole number) scales nothing: sensor 11, units(9),
 * precision -2, 1480 -> 1480 W.  A temperature sensor (type 8) is ignored.
 */
static void
test_entity_sensor_scale(void **st)
{
	struct pdu_profile *p = profile("entity-sensor");
	struct pdu_rows rows;
	struct wp_sample s;
	struct pdu_vb vb;
	struct wp_err err;

	(void)st;
	memset(&rows, 0, sizeof(rows));
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.1.7", PDU_V_INT, 6, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.2.7", PDU_V_INT, 10, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.3.7", PDU_V_INT, 1, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.4.7", PDU_V_INT, 123, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.1.9", PDU_V_INT, 8, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.4.9", PDU_V_INT, 37, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.1.11", PDU_V_INT, 6, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.2.11", PDU_V_INT, 9, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.3.11", PDU_V_INT, -2, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.99.1.1.1.4.11", PDU_V_INT, 1480, NULL);
	add_vb(p, &rows, "1.3.6.1.2.1.47.1.1.1.1.7.7", PDU_V_STRING, 0,
	    "PS1 input");
	pdu_rows_finish(p, &rows, &(struct pdu_finish){ .only_unit = -1 });
	assert_int_equal(rows.n, 2);
	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_INT;
	vb.i = 1480;
	assert_int_equal(pdu_decode_value(p, &rows.v[1], PDU_COL_POWER, &vb,
	    &s, &err), 1);
	assert_close(s.value, 1480);
	assert_close(s.resolution, 1);
	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_INT;
	vb.i = 123;
	assert_int_equal(pdu_decode_value(p, &rows.v[0], PDU_COL_POWER, &vb,
	    &s, &err), 1);
	assert_close(s.value, 12300);
	assert_close(s.resolution, 100);
	assert_string_equal(s.series, "inlet/1/power");
	pdu_rows_fini(&rows);
	pdu_profile_free(p);
}

/* Counter32 energy: wrap = 2^32 x scale; noSuchInstance; strings. */
static void
test_types_and_bad_values(void **st)
{
	struct pdu_profile *p = profile("liebert-gp-pdu");
	struct pdu_row row = { .table = 0, .nkey = 3,
	    .key = (const uint32_t[]){ 1, 2, 5 }, .number = 5 };
	struct wp_sample s;
	struct pdu_vb vb;
	struct wp_err err;

	(void)st;
	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_COUNTER32;
	vb.u = 4294967290u;
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_ENERGY, &vb, &s,
	    &err), 1);
	assert_close(s.wrap, 4294967296.0 * 360000);
	assert_close(s.value, 4294967290.0 * 360000);
	/* a counter no meter reaches: refused here, as the core would */
	vb.type = PDU_V_COUNTER64;
	vb.u = UINT64_MAX;
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_ENERGY, &vb, &s,
	    &err), -1);
	assert_non_null(strstr(err.msg, "absurd energy"));
	vb.type = PDU_V_NOSUCHINSTANCE;
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), -1);
	assert_non_null(strstr(err.msg, "noSuchInstance"));
	assert_non_null(strstr(err.msg, "outlet/5 power"));
	vb.type = PDU_V_OID;
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), -1);
	vb.type = PDU_V_INT;
	vb.i = -1;
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 0);
	vb.i = 2000000;		/* 2 MW on one outlet */
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), -1);
	assert_non_null(strstr(err.msg, "absurd"));
	/* a column served as text (ATEN style) */
	p->tab[0].col[PDU_COL_POWER].string = true;
	vb.type = PDU_V_STRING;
	snprintf(vb.s, sizeof(vb.s), " 12.50");
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 1);
	assert_close(s.value, 12.5);
	snprintf(vb.s, sizeof(vb.s), "not-support");
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 0);
	snprintf(vb.s, sizeof(vb.s), "-3");
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 0);
	pdu_profile_free(p);
}

static void
test_identity_labels(void **st)
{
	struct pdu_profile *p = profile("raritan-pdu2");
	struct pdu_row row = { .table = 0, .nkey = 2,
	    .key = (const uint32_t[]){ 1, 3 }, .number = 3 };
	struct wp_sample s;
	struct pdu_vb vb;
	struct wp_err err;
	char d[PDU_DESCR_LABEL_MAX + 1], buf[WP_LABEL_MAX], big[300];
	char name[PDU_ROW_NAME_MAX];

	(void)st;
	/* sanitised: ';' '=' and control characters, blanks collapsed */
	pdu_label_text(d, sizeof(d), "  PX3;a=b\r\n  FW:4.2\t ");
	assert_string_equal(d, "PX3_a_b FW:4.2");
	pdu_label_text(d, sizeof(d), "");
	assert_string_equal(d, "");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pdu_label_text(d, sizeof(d), big);
	assert_int_equal(strlen(d), PDU_DESCR_LABEL_MAX);
	/* a cut inside a UTF-8 sequence drops the partial character */
	memset(big, 'y', PDU_DESCR_LABEL_MAX - 1);
	snprintf(big + PDU_DESCR_LABEL_MAX - 1, 8, "\xc3\xa9z");
	pdu_label_text(d, sizeof(d), big);
	assert_int_equal(strlen(d), PDU_DESCR_LABEL_MAX - 1);
	pdu_label_text(d, 5, "ab   cd");
	assert_string_equal(d, "ab c");

	memset(&vb, 0, sizeof(vb));
	vb.type = PDU_V_UINT;
	vb.u = 1234;
	row.name = "web-01";
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 1);
	pdu_label_text(d, sizeof(d), "Raritan PDU;\r\nPX3");
	assert_int_equal(pdu_identity_labels(&s, p, NULL, d), 0);
	assert_int_equal(sample_get_label(&s, "profile", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "raritan-pdu2");
	assert_int_equal(sample_get_label(&s, "vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "Raritan");
	assert_int_equal(sample_get_label(&s, "sysdescr", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "Raritan PDU_ PX3");
	assert_int_equal(sample_get_label(&s, "name", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "web-01");
	/* a long outlet name: sysDescr shortened to fit, name kept */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	row.name = name;
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 1);
	memset(big, 'D', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(p->name, sizeof(p->name), "%s", "a-very-long-profile-name-for-test");
	pdu_label_text(d, sizeof(d), big);
	assert_int_equal(pdu_identity_labels(&s, p, NULL, d), 0);
	assert_true(strlen(s.labels) < WP_LABEL_MAX);
	assert_int_equal(sample_get_label(&s, "name", buf, sizeof(buf)), 0);
	assert_int_equal(strlen(buf), sizeof(name) - 1);
	assert_int_equal(sample_get_label(&s, "sysdescr", buf, sizeof(buf)), 0);
	assert_true(strlen(buf) > 0 && strlen(buf) <= PDU_DESCR_LABEL_MAX);
	/* no sysDescr: no empty label */
	assert_int_equal(pdu_decode_value(p, &row, PDU_COL_POWER, &vb, &s,
	    &err), 1);
	assert_int_equal(pdu_identity_labels(&s, p, NULL, ""), 0);
	assert_int_equal(sample_get_label(&s, "sysdescr", buf, sizeof(buf)), -1);
	pdu_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raritan_px3),
		cmocka_unit_test(test_raritan_decimal_digits),
		cmocka_unit_test(test_raritan_px2_power_only),
		cmocka_unit_test(test_apc_device_hundredths_kw),
		cmocka_unit_test(test_apc_unsupported_minus_one),
		cmocka_unit_test(test_apc_epdu_phase_wh),
		cmocka_unit_test(test_eaton_strapping_zero_and_reset_time),
		cmocka_unit_test(test_sentry4_cords_tenths_kwh),
		cmocka_unit_test(test_sentry3),
		cmocka_unit_test(test_vertiv_totals_and_absurd),
		cmocka_unit_test(test_dell_outlets_power_only),
		cmocka_unit_test(test_hpe_panduit_liebert),
		cmocka_unit_test(test_cyberpower_wrong_type),
		cmocka_unit_test(test_schleifenbauer_enlogic),
		cmocka_unit_test(test_entity_sensor_scale),
		cmocka_unit_test(test_types_and_bad_values),
		cmocka_unit_test(test_identity_labels),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_filter_except),
		cmocka_unit_test(test_repeated_index_and_units),
		cmocka_unit_test(test_quantities_units_nosuch),
		cmocka_unit_test(test_bad_device_units),
		cmocka_unit_test(test_probe_answers),
		cmocka_unit_test(test_detect_by_probe),
		cmocka_unit_test(test_all_profiles_load),
		cmocka_unit_test(test_profile_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
