/* Unit tests: collector/lastset.c - a poll like the last keeps the pool and
 * takes the new numbers; one with other strings or another count is copied
 * whole; expanded, either gives back exactly what was set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lastset.h"

static void
mk(struct wp_sample *s, const char *series, const char *labels,
    const char *unit, double v)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->series, series);
	strcpy(s->labels, labels);
	strcpy(s->raw_unit, unit);
	s->value = s->raw_value = v;
	s->t_real = (wp_time)v * WP_SEC;
	s->kind = WP_COUNTER;
}

/* set s[0..n), expand, compare byte for byte */
static void
set_check(struct lastset *set, const struct wp_sample *s, size_t n)
{
	struct wp_sample out[4];
	size_t i;

	assert_int_equal(lastset_set(set, s, n), 0);
	assert_int_equal(lastset_expand(set, out), n);
	for (i = 0; i < n; i++)
		assert_memory_equal(&out[i], &s[i], sizeof(out[i]));
}

static void
test_same_and_changed(void **state)
{
	struct lastset set = { 0 };
	struct wp_sample s[3];
	size_t pool;

	(void)state;
	mk(&s[0], "wall/power", "bmc=a", "W", 100);
	mk(&s[1], "wall/energy", "bmc=a", "J", 5000);
	set_check(&set, s, 2);
	pool = set.pool.len;
	s[0].value = 120;			/* the next poll: numbers only */
	s[1].value = s[1].raw_value = 6000;
	s[1].t_real += WP_SEC;
	set_check(&set, s, 2);
	assert_int_equal(set.pool.len, pool);
	strcpy(s[1].labels, "bmc=b");		/* a label changed */
	set_check(&set, s, 2);
	strcpy(s[0].raw_unit, "kW");		/* a unit changed */
	set_check(&set, s, 2);
	mk(&s[2], "gpu0/power", "uuid=x", "W", 300);	/* one more */
	set_check(&set, s, 3);
	set_check(&set, s + 1, 2);		/* one fewer, shifted */
	set_check(&set, s, 0);
	assert_int_equal(set.n, 0);
	set_check(&set, s, 3);
	lastset_fini(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_and_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
