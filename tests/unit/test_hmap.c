/* Unit tests: collector/lib/hmap.c - the one string-keyed hash table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/hmap.h"

struct ent {
	char	*key;
	int	 val;
};

static struct ent *
put(struct hmap *m, const char *k, int v)
{
	struct ent *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->key = strdup(k);
	e->val = v;
	assert_int_equal(hmap_put(m, hmap_hash(k), e), 0);
	return e;
}

static struct ent *
get(const struct hmap *m, const char *k)
{
	return hmap_get(m, hmap_hash(k), hmap_str_eq, k);
}

static void
drop(struct hmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slot[i].e != NULL) {
			free(((struct ent *)m->slot[i].e)->key);
			free(m->slot[i].e);
		}
	hmap_fini(m);
}

static void
test_put_get_grow(void **state)
{
	struct hmap m = { 0 };
	char k[32];
	int i;

	(void)state;
	assert_null(get(&m, "absent"));		/* no array yet */
	for (i = 0; i < 5000; i++) {
		snprintf(k, sizeof(k), "gpu-%04d/bmc|wall/energy", i);
		put(&m, k, i);
		assert_true(m.n * 2 <= m.cap);	/* at most half full */
	}
	assert_int_equal(m.n, 5000);
	for (i = 0; i < 5000; i++) {
		snprintf(k, sizeof(k), "gpu-%04d/bmc|wall/energy", i);
		assert_non_null(get(&m, k));
		assert_int_equal(get(&m, k)->val, i);
	}
	assert_null(get(&m, "gpu-5000/bmc|wall/energy"));
	assert_null(get(&m, ""));
	drop(&m);
	assert_int_equal(m.cap, 0);
}

/* A dense map fills to three quarters: half the slots of a sparse one for
 * the same entries here, every entry found, a reserve that does not grow. */
static void
test_dense(void **state)
{
	struct hmap d = { .dense = true }, m = { 0 };
	char k[40];
	int i;

	(void)state;
	for (i = 0; i < 12000; i++) {
		snprintf(k, sizeof(k), "pdu-r%03d-a|outlet/%d/energy", i / 48,
		    i % 48 + 1);
		put(&d, k, i);
		put(&m, k, i);
		assert_true(d.n * 4 <= d.cap * 3);
		assert_true(8 * d.n > 3 * d.cap || d.cap == 16);	/* grown at 3/4 */
	}
	assert_int_equal(d.cap, 16384);		/* 12000 > 8192 * 3/4 */
	assert_int_equal(m.cap, 32768);		/* 12000 > 16384 / 2 */
	for (i = 0; i < 12000; i++) {
		snprintf(k, sizeof(k), "pdu-r%03d-a|outlet/%d/energy", i / 48,
		    i % 48 + 1);
		assert_int_equal(get(&d, k)->val, i);
	}
	assert_null(get(&d, "pdu-r250-a|outlet/1/energy"));
	assert_int_equal(hmap_reserve(&d, 12288), 0);
	assert_int_equal(d.cap, 16384);
	assert_int_equal(hmap_reserve(&d, 12289), 0);
	assert_int_equal(d.cap, 32768);
	assert_int_equal(get(&d, "pdu-r000-a|outlet/1/energy")->val, 0);
	drop(&d);
	drop(&m);
}

static void
test_hash_in_pieces(void **state)
{
	uint64_t a = hmap_hash("pdu-1|outlet/7/energy");
	uint64_t b = hmap_hash_add(hmap_hash_add(hmap_hash_add(HMAP_SEED,
	    "pdu-1", 5), "|", 1), "outlet/7/energy", 15);

	(void)state;
	assert_true(a == b);
	assert_true(hmap_hash("a") != hmap_hash("b"));
	/* Bernstein's xor variant: ((5381 * 33) ^ 'a') */
	assert_true(hmap_hash("a") == ((uint64_t)5381 * 33 ^ 'a'));
}

/* Colliding hashes: eq tells the entries apart. */
static bool
first_char_eq(const void *entry, const void *key)
{
	return strcmp(((const struct ent *)entry)->key, key) == 0;
}

static void
test_collisions(void **state)
{
	struct hmap m = { .min_cap = 4 };
	struct ent e[40];
	char keys[40][8];
	int i;

	(void)state;
	for (i = 0; i < 40; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		e[i] = (struct ent){ keys[i], i };
		assert_int_equal(hmap_put(&m, 42, &e[i]), 0);	/* one hash */
	}
	for (i = 0; i < 40; i++)
		assert_ptr_equal(hmap_get(&m, 42, first_char_eq, keys[i]), &e[i]);
	assert_null(hmap_get(&m, 42, first_char_eq, "k40"));
	assert_null(hmap_get(&m, 43, first_char_eq, "k1"));
	hmap_fini(&m);
}

/* The slot order depends only on the keys and the order they went in
 * (reports list series in it): two maps built alike iterate alike, and a
 * reserved map holds the same entries. */
static void
test_order_reproducible(void **state)
{
	struct hmap a = { .min_cap = 1024 }, b = { .min_cap = 1024 };
	struct ent e[700];
	char keys[700][24];
	size_t i;

	(void)state;
	for (i = 0; i < 700; i++) {
		snprintf(keys[i], sizeof(keys[i]), "t%zu|s%zu", i % 37, i);
		e[i] = (struct ent){ keys[i], (int)i };
		assert_int_equal(hmap_put(&a, hmap_hash(keys[i]), &e[i]), 0);
	}
	for (i = 0; i < 700; i++)
		assert_int_equal(hmap_put(&b, hmap_hash(keys[i]), &e[i]), 0);
	assert_int_equal(a.cap, b.cap);
	for (i = 0; i < a.cap; i++)
		assert_ptr_equal(a.slot[i].e, b.slot[i].e);
	hmap_fini(&b);
	b.min_cap = 1024;
	assert_int_equal(hmap_reserve(&b, 700), 0);
	assert_int_equal(b.cap, 2048);
	for (i = 0; i < 700; i++)
		assert_int_equal(hmap_put(&b, hmap_hash(keys[i]), &e[i]), 0);
	assert_int_equal(b.cap, 2048);		/* reserved: no growth */
	for (i = 0; i < 700; i++)
		assert_ptr_equal(hmap_get(&b, hmap_hash(keys[i]), hmap_str_eq,
		    keys[i]), &e[i]);
	hmap_fini(&a);
	hmap_fini(&b);
}

/* An index map's keys: strings in an array the map holds positions of. */
struct ikey {
	char	**names;
	const char *name;
};

static bool
ikey_eq(const void *entry, const void *key)
{
	const struct ikey *k = key;

	return strcmp(k->names[hmap_ix_of(entry)], k->name) == 0;
}

/* Positions put are found again through growth (and only they), in
 * 8-byte slots never more than 3/4 full; a reserved map does not grow;
 * a position of 2^32 - 1 or more is refused. */
static void
test_index_map(void **state)
{
	enum { N = 20000 };
	struct hidx m = { 0 }, r = { 0 };
	char **names = calloc(N, sizeof(*names)), buf[32];
	struct ikey k = { names, NULL };
	void *e;
	size_t i, cap;

	(void)state;
	assert_non_null(names);
	assert_null(hidx_get(&m, hmap_hash("x"), ikey_eq, &k));
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "outlet/%zu/power", i);
		assert_non_null(names[i] = strdup(buf));
		assert_int_equal(hidx_put(&m, hmap_hash(buf), i), 0);
		assert_true(4 * m.n <= 3 * m.cap);
	}
	assert_int_equal(m.n, N);
	for (i = 0; i < N; i++) {
		k.name = names[i];
		assert_non_null(e = hidx_get(&m, hmap_hash(names[i]), ikey_eq,
		    &k));
		assert_int_equal(hmap_ix_of(e), i);
	}
	k.name = "outlet/20000/power";
	assert_null(hidx_get(&m, hmap_hash(k.name), ikey_eq, &k));
	assert_int_equal(hidx_reserve(&r, N), 0);
	cap = r.cap;
	for (i = 0; i < N; i++)
		assert_int_equal(hidx_put(&r, hmap_hash(names[i]), i), 0);
	assert_int_equal(r.cap, cap);
	assert_true(4 * r.n <= 3 * r.cap);
	assert_int_equal(hidx_put(&r, 1, (size_t)UINT32_MAX), -1);
	assert_int_equal(r.n, N);
	hidx_fini(&m);
	hidx_fini(&r);
	assert_null(m.slot);
	/* hashes alike in their low 32 bits (0 here, position 0: the slot
	 * is still not free), told apart by eq */
	assert_int_equal(hidx_put(&m, (uint64_t)1 << 32, 0), 0);
	assert_int_equal(hidx_put(&m, (uint64_t)2 << 32, 1), 0);
	k.name = names[1];
	assert_non_null(e = hidx_get(&m, 0, ikey_eq, &k));
	assert_int_equal(hmap_ix_of(e), 1);
	k.name = names[0];
	assert_non_null(e = hidx_get(&m, 0, ikey_eq, &k));
	assert_int_equal(hmap_ix_of(e), 0);
	k.name = names[2];
	assert_null(hidx_get(&m, 0, ikey_eq, &k));
	hidx_fini(&m);
	for (i = 0; i < N; i++)
		free(names[i]);
	free(names);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_grow),
		cmocka_unit_test(test_dense),
		cmocka_unit_test(test_hash_in_pieces),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_order_reproducible),
		cmocka_unit_test(test_index_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
