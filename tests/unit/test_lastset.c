/* Unit tests: collector/lastset.c - a poll like the last keeps its strings
 * (the same sertext) and takes the new numbers; one with other strings or
 * another count gets new ones; a sertext given is held; expanded, each
 * gives back exactly what was set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lastset.h"

/* malloc, wrapped (the Makefile links this test with --wrap=malloc): the
 * call that fails, counted down from fail_at; -1: none. */
static int fail_at = -1;
void	*__real_malloc(size_t n);
void	*__wrap_malloc(size_t n);

void *
__wrap_malloc(size_t n)
{
	if (fail_at >= 0 && fail_at-- == 0)
		return NULL;
	return __real_malloc(n);
}

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

	assert_int_equal(lastset_set(set, s, n, NULL), 0);
	assert_int_equal(lastset_expand(set, out), n);
	for (i = 0; i < n; i++)
		assert_memory_equal(&out[i], &s[i], sizeof(out[i]));
}

static void
test_same_and_changed(void **state)
{
	struct lastset set = { 0 };
	struct wp_sample s[3];
	struct sertext *text;

	(void)state;
	mk(&s[0], "wall/power", "bmc=a", "W", 100);
	mk(&s[1], "wall/energy", "bmc=a", "J", 5000);
	set_check(&set, s, 2);
	text = set.text;
	s[0].value = 120;			/* the next poll: numbers only */
	s[1].value = s[1].raw_value = 6000;
	s[1].t_real += WP_SEC;
	set_check(&set, s, 2);
	assert_ptr_equal(set.text, text);	/* the same strings */
	assert_int_equal(text->refs, 1);
	strcpy(s[1].labels, "bmc=b");		/* a label changed */
	set_check(&set, s, 2);
	assert_ptr_not_equal(set.text, text);
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

/*
 * The fields a poll's samples share are kept once per distinct set: two
 * here (a power's and an energy's resolution and wrap) for many samples;
 * more distinct sets than fit on the stack (every sample its own device
 * time) take the heap path.  Times are offsets from the first sample's
 * (read a few hundred ns apart, some before it), or kept whole when one
 * is seconds away.  Every way expands byte for byte to what was set.
 */
static void
test_shared_fields(void **state)
{
	struct lastset set = { 0 };
	struct wp_sample s[40], out[40];
	wp_time t;
	double v;
	int kind;
	size_t i;

	(void)state;
	for (i = 0; i < 40; i++) {
		mk(&s[i], i % 2 ? "outlet/energy" : "outlet/power", "o=1",
		    i % 2 ? "Wh" : "W", 100 + (double)i);
		s[i].series[0] = (char)('A' + i / 2);	/* distinct names */
		s[i].t_real = 1000 * WP_SEC + (wp_time)i * 500 - 1000;
		s[i].t_mono = 7 * WP_SEC + (wp_time)i * 480 - 900;
		s[i].resolution = i % 2 ? 3600 : 1;
		s[i].wrap = i % 2 ? 4294967296.0 : 0;
		s[i].kind = i % 2 ? WP_COUNTER : WP_GAUGE;
	}
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_int_equal(set.nrare, 2);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	for (i = 0; i < 40; i++)		/* the next poll */
		s[i].t_real += 30 * WP_SEC;
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_int_equal(set.nrare, 2);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	lastset_reading(&set, 3, &t, &v, &kind);
	assert_int_equal(t, 1030 * WP_SEC + 500);
	assert_null(set.wide);
	s[39].t_real += 3 * WP_SEC;		/* a slow answer: wide */
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_non_null(set.wide);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	s[39].t_real -= 3 * WP_SEC;		/* narrow again */
	s[0].t_mono -= 5 * WP_SEC;
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_non_null(set.wide);
	s[0].t_mono += 5 * WP_SEC;
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_null(set.wide);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	assert_true(v == 103 && kind == WP_COUNTER);
	for (i = 0; i < 40; i++)		/* every sample its own */
		s[i].device_time = (wp_time)i * WP_SEC;
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_int_equal(set.nrare, 40);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	for (i = 0; i < 40; i++) {		/* and back to one */
		s[i].device_time = 0;
		s[i].resolution = 1;
		s[i].wrap = 0;
	}
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_int_equal(set.nrare, 1);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	s[0].t_real = INT64_MAX;		/* times at the ends of the range */
	s[1].t_real = INT64_MAX - 5;		/* (no overflow: UBSan) */
	s[2].t_mono = INT64_MIN + 1;
	assert_int_equal(lastset_set(&set, s, 40, NULL), 0);
	assert_non_null(set.wide);
	assert_int_equal(lastset_expand(&set, out), 40);
	assert_memory_equal(out, s, sizeof(s));
	assert_int_equal(lastset_set(&set, s, 2, NULL), 0);	/* narrow there */
	assert_null(set.wide);
	assert_int_equal(lastset_expand(&set, out), 2);
	assert_memory_equal(out, s, 2 * sizeof(s[0]));
	lastset_fini(&set);
}

/* A sertext given is held, not copied: the journal's previous record and
 * the last samples keep one copy of a target's strings. */
static void
test_text_shared(void **state)
{
	struct lastset set = { 0 };
	struct wp_sample s[2], out[2];
	struct sertext *text, *next;

	(void)state;
	mk(&s[0], "outlet/1/power", "outlet=1", "W", 100);
	mk(&s[1], "outlet/1/energy", "outlet=1", "Wh", 5000);
	assert_non_null(text = sertext_new(s, 2, sizeof(s[0])));
	assert_true(sertext_same(text, s, 2, sizeof(s[0])));
	assert_int_equal(lastset_set(&set, s, 2, text), 0);
	assert_ptr_equal(set.text, text);
	assert_int_equal(text->refs, 2);
	assert_int_equal(lastset_expand(&set, out), 2);
	assert_memory_equal(out, s, sizeof(s));
	assert_int_equal(lastset_find(&set, "outlet/1/energy", 0), 1);
	sertext_drop(text);			/* the set's reference lives */
	assert_int_equal(lastset_expand(&set, out), 2);
	assert_memory_equal(out, s, sizeof(s));
	text = sertext_hold(set.text);
	lastset_fini(&set);
	assert_int_equal(text->refs, 1);
	assert_ptr_equal(next = sertext_for(text, s, 2, sizeof(s[0])), text);
	assert_int_equal(text->refs, 2);	/* the same strings: held */
	sertext_drop(next);
	strcpy(s[0].raw_unit, "kW");		/* another unit: a new one */
	assert_false(sertext_same(text, s, 2, sizeof(s[0])));
	assert_non_null(next = sertext_for(text, s, 2, sizeof(s[0])));
	assert_ptr_not_equal(next, text);
	assert_true(sertext_same(next, s, 2, sizeof(s[0])));
	assert_int_equal(next->refs, 1);
	assert_int_equal(text->refs, 1);
	assert_false(sertext_same(NULL, s, 2, sizeof(s[0])));
	sertext_drop(next);
	assert_non_null(next = sertext_for(NULL, s, 2, sizeof(s[0])));
	assert_int_equal(next->refs, 1);	/* none before: a new one */
	sertext_drop(next);
	sertext_drop(text);
}

/* Out of memory part way (the new strings' sertext, the new values' array,
 * or a later malloc), with the strings given or not: -1, and the set is
 * what it was, whether it kept its times narrow or wide and whatever the
 * new samples' were. */
static void
test_unchanged_on_failure(void **state)
{
	struct lastset set = { 0 };
	struct wp_sample old[4], s[2], out[4];
	struct sertext *text, *had;
	size_t i;
	int k, f, failed[8] = { 0 };

	(void)state;
	for (k = 0; k < 8; k++) {
		for (f = 0; f < 3; f++) {
			for (i = 0; i < 4; i++) {
				mk(&old[i], "outlet/power", "o=1", "W",
				    10 + (double)i);
				old[i].series[0] = (char)('a' + i);
				old[i].t_real = (k & 1 ? 9 : 0) * (wp_time)i *
				    WP_SEC / 2;
			}
			for (i = 0; i < 2; i++) {	/* other names */
				mk(&s[i], "inlet/power", "i=1", "W", 7);
				s[i].series[0] = (char)('p' + i);
				s[i].t_real = (k & 2 ? 5 : 0) * (wp_time)i *
				    WP_SEC;
			}
			assert_int_equal(lastset_set(&set, old, 4, NULL), 0);
			had = set.text;
			text = k & 4 ? sertext_new(s, 2, sizeof(s[0])) : NULL;
			fail_at = f;
			if (lastset_set(&set, s, 2, text) == 0) {
				fail_at = -1;
				sertext_drop(text);
				continue;	/* no such malloc */
			}
			fail_at = -1;
			if (text != NULL)	/* not kept */
				assert_int_equal(text->refs, 1);
			sertext_drop(text);
			failed[k]++;
			assert_ptr_equal(set.text, had);	/* its own, once */
			assert_int_equal(set.text->refs, 1);
			assert_int_equal(set.n, 4);
			assert_int_equal(lastset_expand(&set, out), 4);
			assert_memory_equal(out, old, sizeof(old));
		}
	}
	for (k = 0; k < 8; k++)		/* each k failed at least once */
		assert_true(failed[k] >= 1);
	lastset_fini(&set);
}

/* A text of another count than the samples given is not taken: the set
 * makes its own, and the text is left as it was. */
static void
test_text_of_another_count(void **state)
{
	struct lastset set = { 0 };
	struct wp_sample s[3], out[3];
	struct sertext *text;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		mk(&s[i], "outlet/power", "o=1", "W", 10 + i);
		s[i].series[0] = (char)('a' + i);
	}
	assert_non_null(text = sertext_new(s, 2, sizeof(s[0])));
	assert_int_equal(lastset_set(&set, s, 3, text), 0);
	assert_ptr_not_equal(set.text, text);
	assert_int_equal(text->refs, 1);
	assert_int_equal(set.text->n, 3);
	assert_int_equal(lastset_expand(&set, out), 3);
	assert_memory_equal(out, s, sizeof(s));
	assert_int_equal(lastset_find(&set, "cutlet/power", 0), 2);
	sertext_drop(text);
	lastset_fini(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_and_changed),
		cmocka_unit_test(test_shared_fields),
		cmocka_unit_test(test_unchanged_on_failure),
		cmocka_unit_test(test_text_shared),
		cmocka_unit_test(test_text_of_another_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
