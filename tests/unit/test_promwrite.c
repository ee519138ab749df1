/*
 * Unit tests: collector/lib/promwrite.c - the remote-write body of a text
 * exposition, decoded by a reference: protoc --decode_raw (Debian
 * protobuf-compiler) reads the packed WriteRequest by field number alone,
 * so the field numbers, wire types, label order and values are checked
 * against the specification's messages, not against our own .proto; and
 * the snappy body is the packed one after the library's own decompression.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <snappy-c.h>

#include "../../collector/lib/promwrite.h"

static const char text[] =
    "# HELP wattpath_x A figure.\n"
    "# TYPE wattpath_x counter\n"
    "wattpath_x{site=\"s-1\",node=\"n\\\"1\\\\\",class=\"\",boundary=\"wall\"} 12.5\n"
    "\n"
    "wattpath_build_info{version=\"0.1.0\"} 1\n"
    "wattpath_up 0 1700000000000\n";

/* with the extra labels instance (every series) and site (where none) */
static const char *const extra[] = { "instance", "c-1:9810", "site", "other",
    NULL };

static const char want[] =
    "1 {\n"
    "  1 {\n    1: \"__name__\"\n    2: \"wattpath_x\"\n  }\n"
    "  1 {\n    1: \"boundary\"\n    2: \"wall\"\n  }\n"
    "  1 {\n    1: \"instance\"\n    2: \"c-1:9810\"\n  }\n"
    "  1 {\n    1: \"node\"\n    2: \"n\\\"1\\\\\"\n  }\n"
    "  1 {\n    1: \"site\"\n    2: \"s-1\"\n  }\n"
    "  2 {\n    1: 0x4029000000000000\n    2: 1796000000123\n  }\n"
    "}\n"
    "1 {\n"
    "  1 {\n    1: \"__name__\"\n    2: \"wattpath_build_info\"\n  }\n"
    "  1 {\n    1: \"instance\"\n    2: \"c-1:9810\"\n  }\n"
    "  1 {\n    1: \"site\"\n    2: \"other\"\n  }\n"
    "  1 {\n    1: \"version\"\n    2: \"0.1.0\"\n  }\n"
    "  2 {\n    1: 0x3ff0000000000000\n    2: 1796000000123\n  }\n"
    "}\n"
    "1 {\n"
    "  1 {\n    1: \"__name__\"\n    2: \"wattpath_up\"\n  }\n"
    "  1 {\n    1: \"instance\"\n    2: \"c-1:9810\"\n  }\n"
    "  1 {\n    1: \"site\"\n    2: \"other\"\n  }\n"
    "  2 {\n    2: 1796000000123\n  }\n"
    "}\n";

/* protoc --decode_raw of buf into a new string, or NULL without protoc. */
static char *
decode_raw(const uint8_t *buf, size_t len)
{
	char in[] = "/tmp/wp-promwrite-XXXXXX", cmd[128], *out = NULL;
	size_t n = 0;
	FILE *f, *p;
	int fd;

	if (system("command -v protoc >/dev/null 2>&1") != 0)
		return NULL;
	assert_true((fd = mkstemp(in)) >= 0);
	assert_true(write(fd, buf, len) == (ssize_t)len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s", in);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(f = open_memstream(&out, &n));
	for (int c; (c = fgetc(p)) != EOF;)
		fputc(c, f);
	fclose(f);
	assert_int_equal(pclose(p), 0);
	unlink(in);
	return out;
}

static void
test_pack_reference(void **st)
{
	uint8_t *pb;
	size_t len, n;
	struct wp_err err;
	char *got;

	(void)st;
	assert_int_equal(promwrite_pack(text, strlen(text), 1796000000123LL, extra,
	    &pb, &len, &n, &err), 0);
	assert_int_equal(n, 3);
	if ((got = decode_raw(pb, len)) == NULL) {
		free(pb);
		skip();
	}
	assert_string_equal(got, want);
	free(got);
	free(pb);
}

static void
test_encode_is_snappy_of_pack(void **st)
{
	uint8_t *pb, *z;
	size_t len, zlen, n, ulen;
	char *u;
	struct wp_err err;

	(void)st;
	assert_int_equal(promwrite_pack(text, strlen(text), 5, NULL, &pb, &len, &n,
	    &err), 0);
	assert_int_equal(promwrite_encode(text, strlen(text), 5, NULL, &z, &zlen, &n,
	    &err), 0);
	assert_int_equal(snappy_uncompressed_length((char *)z, zlen, &ulen),
	    SNAPPY_OK);
	assert_int_equal(ulen, len);
	assert_non_null(u = malloc(ulen));
	assert_int_equal(snappy_uncompress((char *)z, zlen, u, &ulen), SNAPPY_OK);
	assert_memory_equal(u, pb, len);
	free(u);
	free(z);
	free(pb);
}

static void
test_bad_lines(void **st)
{
	static const char *const bad[] = {
		"m{a=\"1\"\n",			/* unterminated block */
		"m{a=\"1} 2\n",			/* unterminated value */
		"m{a=\"1\",a=\"2\"} 2\n",	/* a label twice */
		"m{a=\"\\q\"} 2\n",		/* an unknown escape */
		"m{a=1} 2\n",			/* unquoted */
		"m abc\n",			/* no number */
		"m\n",				/* no value */
	};
	uint8_t *pb;
	size_t len, n, i;
	struct wp_err err;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char t[64];

		snprintf(t, sizeof(t), "# ok\n%s", bad[i]);
		assert_int_equal(promwrite_pack(t, strlen(t), 0, NULL, &pb, &len, &n,
		    &err), -1);
		assert_null(pb);
		assert_non_null(strstr(err.msg, "line 2"));
	}
}

static void
test_empty_and_values(void **st)
{
	static const char t[] = "a NaN\nb +Inf\nc -1.5e3\n";
	uint8_t *pb;
	size_t len, n;
	struct wp_err err;

	(void)st;
	assert_int_equal(promwrite_pack("", 0, 0, NULL, &pb, &len, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(len, 0);
	free(pb);
	assert_int_equal(promwrite_pack(t, strlen(t), 0, NULL, &pb, &len, &n, &err), 0);
	assert_int_equal(n, 3);
	free(pb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_reference),
		cmocka_unit_test(test_encode_is_snappy_of_pack),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_empty_and_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
