/*
 * fuzz_csv.c - libFuzzer harness for the CSV inventory (nodes_csv,
 * collector/conf/conf_csv.c): the input is the CSV (the corpus: the test
 * inventories), read through a fixed configuration that defines the
 * credentials and PDUs its rows may name.  Invariants: fuzz_conf.h, and a
 * loaded config holds no more nodes than the CSV has lines plus the one
 * the configuration itself defines.  Built and run by tests/fuzz/run.sh.
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
	char yaml[768], path[64], csv[64];
	size_t lines = fuzz_lines(data, size);
	int fd, yfd;

	fd = fuzz_memfd("nodes.csv", data, size);
	snprintf(csv, sizeof(csv), "/proc/self/fd/%d", fd);
	snprintf(yaml, sizeof(yaml),
	    "credentials: [{name: c, username: u, password_env: PATH},\n"
	    "  {name: pub, community_env: PATH}]\n"
	    "pdus: [{name: pa, address: \"127.0.0.1:161\", credentials: pub}]\n"
	    "nodes: [{name: gpu-001, gpu: {nvml: true}}]\n"
	    "nodes_csv: %s\n", csv);
	yfd = fuzz_memfd("wattpath.yaml", yaml, strlen(yaml));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", yfd);
	c = conf_load(path, registry_find, &errs);
	fuzz_check_conf(c, &errs, csv, lines);
	if (c != NULL && c->n_nodes > lines + 1)
		abort();
	conf_free(c);
	conf_errs_fini(&errs);
	close(yfd);
	close(fd);
	return 0;
}
