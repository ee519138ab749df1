/*
 * fuzz_conf.c - libFuzzer harness for the configuration reader
 * (collector/conf/, collector/lib/ynode.c and ycheck.c, and every
 * driver's validate hook through the registry, as check-config runs it).
 * The input is a wattpath.yaml (the corpus: the shipped and test
 * configurations).  Invariants: fuzz_conf.h.  Built and run by
 * tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_conf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	char path[64];
	int fd;

	fd = fuzz_memfd("wattpath.yaml", data, size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	c = conf_load(path, registry_find, &errs);
	fuzz_check_conf(c, &errs, path, fuzz_lines(data, size));
	conf_free(c);
	conf_errs_fini(&errs);
	close(fd);
	return 0;
}
