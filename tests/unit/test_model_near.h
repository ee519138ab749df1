/* test_model_near.h - assert_near() for the model's unit tests (this
 * cmocka predates assert_double_equal); prints both values on failure.
 * Include after <cmocka.h>. */
#ifndef TEST_MODEL_NEAR_H
#define TEST_MODEL_NEAR_H

#include <math.h>

static void
near_check(double a, double b, double eps, const char *ea, const char *file,
    int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%s = %.10g, expected %.10g +/- %g\n", ea, a, b,
		    eps);
		_fail(file, line);
	}
}

#define assert_near(a, b, eps) \
	near_check((a), (b), (eps), #a, __FILE__, __LINE__)

#endif
