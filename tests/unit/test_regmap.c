/*
 * Unit tests: drivers/modbus/regmap.c - exact decode of every type and word
 * order, not-available patterns, sanity bounds, read plans, map loading
 * (every shipped map, register_base 1, malformed maps).  Run from the
 * repository root (the shipped maps are read from etc/meter-maps/).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/lib/sample.h"
#include "../../drivers/modbus/regmap.h"

static struct rm_value
mkval(int type, int order, double scale)
{
	struct rm_value v;
	static const uint8_t nregs[] = { 1, 1, 2, 2, 4, 4, 2, 4 };

	memset(&v, 0, sizeof(v));
	strcpy(v.name, "x");
	strcpy(v.unit, "W");
	v.type = (uint8_t)type;
	v.order = (uint8_t)order;
	v.nregs = nregs[type];
	v.scale = scale;
	v.si = 1;
	return v;
}

static double
dec(int type, int order, const uint16_t *regs)
{
	struct rm_value v = mkval(type, order, 1.0);
	struct rm_reading r;
	struct wp_err err;

	assert_int_equal(regmap_decode(&v, regs, &r, &err), 0);
	return r.value;
}

static void
test_assemble_orders(void **st)
{
	/* bytes A=0x11 B=0x22 C=0x33 D=0x44 as each order sends them */
	const uint16_t abcd[] = { 0x1122, 0x3344 };
	const uint16_t cdab[] = { 0x3344, 0x1122 };
	const uint16_t badc[] = { 0x2211, 0x4433 };
	const uint16_t dcba[] = { 0x4433, 0x2211 };
	const uint16_t q_abcd[] = { 0x0102, 0x0304, 0x0506, 0x0708 };
	const uint16_t q_cdab[] = { 0x0708, 0x0506, 0x0304, 0x0102 };
	const uint16_t q_badc[] = { 0x0201, 0x0403, 0x0605, 0x0807 };
	const uint16_t q_dcba[] = { 0x0807, 0x0605, 0x0403, 0x0201 };

	(void)st;
	assert_true(regmap_assemble(abcd, 2, RM_ABCD) == 0x11223344u);
	assert_true(regmap_assemble(cdab, 2, RM_CDAB) == 0x11223344u);
	assert_true(regmap_assemble(badc, 2, RM_BADC) == 0x11223344u);
	assert_true(regmap_assemble(dcba, 2, RM_DCBA) == 0x11223344u);
	assert_true(regmap_assemble(q_abcd, 4, RM_ABCD) ==
	    0x0102030405060708ull);
	assert_true(regmap_assemble(q_cdab, 4, RM_CDAB) ==
	    0x0102030405060708ull);
	assert_true(regmap_assemble(q_badc, 4, RM_BADC) ==
	    0x0102030405060708ull);
	assert_true(regmap_assemble(q_dcba, 4, RM_DCBA) ==
	    0x0102030405060708ull);
}

static void
test_integers_exact(void **st)
{
	const uint16_t u16max[] = { 0xFFFF };
	const uint16_t s16neg[] = { 0xFF85 };		/* -123 */
	const uint16_t u32big[] = { 0xFFFF, 0xFFFE };	/* 4294967294 */
	const uint16_t s32neg[] = { 0xFFFF, 0xFFFF };	/* -1 */
	const uint16_t s32min[] = { 0x8000, 0x0000 };
	const uint16_t s32cdab[] = { 0x0000, 0x8000 };	/* INT32_MIN, LSW 1st */
	const uint16_t u64big[] = { 0x0000, 0x0001, 0x0000, 0x0000 };
	const uint16_t s64neg[] = { 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFE };
	const uint16_t em24[] = { 0x5C15, 0x0001 };	/* 0x00015C15 LSW 1st */

	(void)st;
	assert_true(dec(RM_U16, RM_ABCD, u16max) == 65535.0);
	assert_true(dec(RM_S16, RM_ABCD, s16neg) == -123.0);
	assert_true(dec(RM_U32, RM_ABCD, u32big) == 4294967294.0);
	assert_true(dec(RM_S32, RM_ABCD, s32neg) == -1.0);
	assert_true(dec(RM_S32, RM_ABCD, s32min) == -2147483648.0);
	assert_true(dec(RM_S32, RM_CDAB, s32cdab) == -2147483648.0);
	assert_true(dec(RM_U64, RM_ABCD, u64big) == 4294967296.0);
	assert_true(dec(RM_S64, RM_ABCD, s64neg) == -2.0);
	assert_true(dec(RM_S32, RM_CDAB, em24) == 89109.0);
}

static void
test_floats_and_resolution(void **st)
{
	/* 230.5f = 0x43668000; 1e6f = 0x49742400 */
	const uint16_t f_abcd[] = { 0x4366, 0x8000 };
	const uint16_t f_cdab[] = { 0x8000, 0x4366 };
	const uint16_t f_badc[] = { 0x6643, 0x0080 };
	const uint16_t f_dcba[] = { 0x0080, 0x6643 };
	const uint16_t big[] = { 0x4974, 0x2400 };
	/* 1234.5678 as double = 0x40934A456D5CFAAD */
	const uint16_t d_abcd[] = { 0x4093, 0x4A45, 0x6D5C, 0xFAAD };
	const uint16_t d_dcba[] = { 0xADFA, 0x5C6D, 0x454A, 0x9340 };
	struct rm_value v = mkval(RM_F32, RM_ABCD, 1.0);
	struct rm_reading r;
	struct wp_err err;

	(void)st;
	assert_true(dec(RM_F32, RM_ABCD, f_abcd) == 230.5);
	assert_true(dec(RM_F32, RM_CDAB, f_cdab) == 230.5);
	assert_true(dec(RM_F32, RM_BADC, f_badc) == 230.5);
	assert_true(dec(RM_F32, RM_DCBA, f_dcba) == 230.5);
	assert_true(dec(RM_F64, RM_ABCD, d_abcd) == 1234.5678);
	assert_true(dec(RM_F64, RM_DCBA, d_dcba) == 1234.5678);
	/* a float32 total of 1e6 kWh moves in steps of 2^-4 kWh = 225 kJ */
	strcpy(v.unit, "kWh");
	assert_int_equal(regmap_decode(&v, big, &r, &err), 0);
	assert_true(r.value == 1e6);
	assert_true(r.resolution == 0.0625);
	/* an integer with scale 0.1 has resolution 0.1 */
	v = mkval(RM_U32, RM_ABCD, 0.1);
	assert_int_equal(regmap_decode(&v, f_abcd, &r, &err), 0);
	assert_true(fabs(r.resolution - 0.1) < 1e-15);
	assert_true(r.raw == (double)0x43668000u);
}

static void
test_nan_inf_bounds(void **st)
{
	const uint16_t nan32[] = { 0x7FC0, 0x0000 };
	const uint16_t inf32[] = { 0x7F80, 0x0000 };
	const uint16_t neg[] = { 0xC2C8, 0x0000 };	/* -100.0f */
	const uint16_t swapped[] = { 0x0000, 0x4366 };	/* wrong order */
	struct rm_value v = mkval(RM_F32, RM_ABCD, 1.0);
	struct rm_reading r;
	struct wp_err err;

	(void)st;
	assert_int_equal(regmap_decode(&v, nan32, &r, &err), -1);
	assert_non_null(strstr(err.msg, "NaN"));
	assert_int_equal(regmap_decode(&v, inf32, &r, &err), -1);
	assert_non_null(strstr(err.msg, "infinite"));
	v.has_min = true;
	v.min = 0;
	assert_int_equal(regmap_decode(&v, neg, &r, &err), -1);
	assert_non_null(strstr(err.msg, "sanity"));
	/* 0x00004366 as float is a denormal: in bounds but tiny; an integer
	 * read with the wrong word order is huge and refused */
	v = mkval(RM_U32, RM_ABCD, 0.1);
	v.has_max = true;
	v.max = 1e6;
	assert_int_equal(regmap_decode(&v, swapped, &r, &err), 0);
	v.order = RM_CDAB;
	assert_int_equal(regmap_decode(&v, swapped, &r, &err), -1);
}

static void
test_not_available(void **st)
{
	const uint16_t all_ff[] = { 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF };
	const uint16_t s32na[] = { 0x7FFF, 0xFFFF };
	const uint16_t ok[] = { 0, 0, 0, 100 };
	struct rm_value v = mkval(RM_U64, RM_ABCD, 0.01);
	struct rm_reading r;
	struct wp_err err;

	(void)st;
	v.na[v.n_na++] = UINT64_MAX;
	assert_int_equal(regmap_decode(&v, all_ff, &r, &err), 1);
	assert_int_equal(regmap_decode(&v, ok, &r, &err), 0);
	assert_true(r.value == 1.0);
	v = mkval(RM_S32, RM_ABCD, 0.01);
	v.na[v.n_na++] = 0x7FFFFFFF;
	assert_int_equal(regmap_decode(&v, s32na, &r, &err), 1);
}

static struct regmap *
write_and_load(const char *text, struct wp_err *err)
{
	char path[] = "/tmp/test_regmap.XXXXXX";
	struct regmap *m;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	m = regmap_load_file(path, "t", err);
	unlink(path);
	return m;
}

#define HDR "vendor: V\nmodel: M\ndocument: D p. 1\n"
#define E_OK "  - {name: e, meaning: m, fc: 3, address: 10, type: u32, " \
	"unit: kWh, kind: counter, role: total_energy_import}\n"
#define P_OK "  - {name: p, meaning: m, fc: 3, address: 12, type: f32, " \
	"unit: W, kind: gauge, role: total_power}\n"

static void
test_plan_limits(void **st)
{
	char *text;
	size_t len = 0, i;
	FILE *f;
	struct regmap *m;
	struct rm_plan plan;
	struct wp_err err;

	(void)st;
	f = open_memstream(&text, &len);
	fputs(HDR "values:\n" E_OK P_OK, f);
	/* 200 contiguous u16 at fc 3 from 100, and 3 at fc 4 */
	for (i = 0; i < 200; i++)
		fprintf(f, "  - {name: h%zu, meaning: m, fc: 3, address: %zu, "
		    "type: u16, unit: V, kind: gauge}\n", i, 100 + i);
	fputs("  - {name: i1, meaning: m, fc: 4, address: 14, type: u16, "
	    "unit: V, kind: gauge}\n", f);
	fputs("  - {name: i2, meaning: m, fc: 4, address: 15, type: f64, "
	    "unit: V, kind: gauge}\n", f);
	fputs("  - {name: i3, meaning: m, fc: 4, address: 30, type: u16, "
	    "unit: V, kind: gauge}\n", f);
	fclose(f);
	m = write_and_load(text, &err);
	free(text);
	assert_non_null(m);
	assert_int_equal(regmap_plan(m, &plan, &err), 0);
	/* fc3: 10..13 (e, p adjacent), 100..224 (125), 225..299 (75);
	 * fc4: 14..18 (never merged with fc 3's 10..13), 30 */
	assert_int_equal(plan.n, 5);
	assert_int_equal(plan.r[0].fc, 3);
	assert_int_equal(plan.r[0].addr, 10);
	assert_int_equal(plan.r[0].count, 4);
	assert_int_equal(plan.r[1].addr, 100);
	assert_int_equal(plan.r[1].count, 125);
	assert_int_equal(plan.r[2].addr, 225);
	assert_int_equal(plan.r[2].count, 75);
	assert_int_equal(plan.r[3].fc, 4);
	assert_int_equal(plan.r[3].addr, 14);
	assert_int_equal(plan.r[3].count, 5);
	assert_int_equal(plan.r[4].addr, 30);
	for (i = 0; i < plan.n; i++)
		assert_true(plan.r[i].count <= RM_MAX_READ);
	regmap_plan_fini(&plan);
	regmap_free(m);
}

static void
test_plan_gap_and_max_read(void **st)
{
	struct regmap *m;
	struct rm_plan plan;
	struct wp_err err;

	(void)st;
	m = write_and_load(HDR "max_read: 8\nmax_gap: 2\nvalues:\n" E_OK P_OK
	    "  - {name: a, meaning: m, fc: 3, address: 16, type: u16, "
	    "unit: V, kind: gauge}\n"
	    "  - {name: b, meaning: m, fc: 3, address: 20, type: u16, "
	    "unit: V, kind: gauge}\n", &err);
	assert_non_null(m);
	assert_int_equal(regmap_plan(m, &plan, &err), 0);
	/* 10..13 + gap 2 + 16 -> 10..16 (7); 20 would make 11 > 8 */
	assert_int_equal(plan.n, 2);
	assert_int_equal(plan.r[0].count, 7);
	assert_int_equal(plan.r[1].addr, 20);
	regmap_plan_fini(&plan);
	regmap_free(m);
}

static void
test_register_base_one(void **st)
{
	struct regmap *m;
	struct wp_err err;

	(void)st;
	m = write_and_load(HDR "register_base: 1\nvalues:\n"
	    "  - {name: e, meaning: m, fc: 3, address: 3204, type: s64, "
	    "unit: Wh, kind: counter, role: total_energy_import}\n"
	    "  - {name: p, meaning: m, fc: 3, address: 3060, type: f32, "
	    "unit: kW, kind: gauge, role: total_power}\n", &err);
	assert_non_null(m);
	assert_int_equal(m->v[0].addr, 3203);
	assert_int_equal(m->v[1].addr, 3059);
	assert_true(m->v[1].si == 1e3);
	assert_true(m->v[0].si == 3600.0);
	regmap_free(m);
	/* documented register 0 cannot exist with base 1 */
	m = write_and_load(HDR "register_base: 1\nvalues:\n"
	    "  - {name: e, meaning: m, fc: 3, address: 0, type: s64, "
	    "unit: Wh, kind: counter, role: total_energy_import}\n" P_OK,
	    &err);
	assert_null(m);
	assert_non_null(strstr(err.msg, "address"));
}

static void
expect_bad(const char *text, const char *why)
{
	struct regmap *m;
	struct wp_err err;

	memset(&err, 0, sizeof(err));
	m = write_and_load(text, &err);
	if (m != NULL || strstr(err.msg, why) == NULL)
		fail_msg("expected \"%s\", got \"%s\"", why, err.msg);
}

static void
test_bad_maps(void **st)
{
	(void)st;
	expect_bad(HDR "values:\n" E_OK, "total_power");
	expect_bad(HDR "values:\n" P_OK, "total_energy_import");
	expect_bad(HDR "values:\n" E_OK E_OK P_OK, "duplicate");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 5, address: 1, type: u16, "
	    "unit: V, kind: gauge}\n", "fc must be");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 3, address: 1, type: u24, "
	    "unit: V, kind: gauge}\n", "type must be");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 3, address: 1, type: u32, "
	    "order: ACBD, unit: V, kind: gauge}\n", "order must be");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 3, address: 65535, type: u32, "
	    "unit: V, kind: gauge}\n", "out of range");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 3, address: 1, type: u32, "
	    "unit: furlong, kind: gauge}\n", "unknown unit");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 3, address: 1, type: u16, "
	    "unit: V, kind: gauge, not_available: 0x1FFFF}\n",
	    "not_available");
	expect_bad(HDR "values:\n" E_OK P_OK
	    "  - {name: x, meaning: m, fc: 3, address: 1, type: u16, "
	    "unit: V, kind: gauge, colour: red}\n", "unknown key");
	expect_bad(HDR "values:\n"
	    "  - {name: e, meaning: m, fc: 3, address: 10, type: u32, "
	    "unit: kW, kind: gauge, role: total_energy_import}\n" P_OK,
	    "energy counter");
	expect_bad("vendor: V\nvalues: [\n", "YAML");
	expect_bad("", "mapping");
	expect_bad(HDR "max_read: 200\nvalues:\n" E_OK P_OK, "max_read");
	expect_bad("model: M\ndocument: D\nvalues:\n" E_OK P_OK, "vendor");
}

static void
test_shipped_maps(void **st)
{
	static const char *const stems[] = { "schneider-pm5000",
	    "schneider-iem3000", "eastron-sdm630", "janitza-umg",
	    "socomec-diris-a", "carlogavazzi-em24", "abb-m4m" };
	char path[256];
	struct regmap *m;
	struct rm_plan plan;
	struct wp_err err;
	size_t i, j;

	(void)st;
	for (i = 0; i < sizeof(stems) / sizeof(stems[0]); i++) {
		snprintf(path, sizeof(path), "etc/meter-maps/%s.yaml",
		    stems[i]);
		m = regmap_load_file(path, stems[i], &err);
		if (m == NULL)
			fail_msg("%s: %s", stems[i], err.msg);
		assert_true(strlen(m->document) > 20);
		assert_int_equal(regmap_plan(m, &plan, &err), 0);
		for (j = 0; j < plan.n; j++)
			assert_true(plan.r[j].count <= m->max_read);
		assert_true(plan.n < m->n);	/* something coalesced */
		regmap_plan_fini(&plan);
		if (strncmp(stems[i], "schneider", 9) == 0) {
			assert_int_equal(m->register_base, 1);
			assert_int_equal(m->v[m->power].addr, 3059);
			assert_int_equal(m->v[m->energy].addr, 3203);
		}
		regmap_free(m);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assemble_orders),
		cmocka_unit_test(test_integers_exact),
		cmocka_unit_test(test_floats_and_resolution),
		cmocka_unit_test(test_nan_inf_bounds),
		cmocka_unit_test(test_not_available),
		cmocka_unit_test(test_plan_limits),
		cmocka_unit_test(test_plan_gap_and_max_read),
		cmocka_unit_test(test_register_base_one),
		cmocka_unit_test(test_bad_maps),
		cmocka_unit_test(test_shipped_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
