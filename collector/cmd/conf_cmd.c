/*
 * conf_cmd.c - `wattpath check-config -c FILE [-v]`.
 *
 * Loads the file as `run` would, and also lets every driver validate its
 * target's block offline.  Every error and warning goes to stderr as
 * "FILE:LINE: message"; on success "configuration OK" and a one-line
 * summary go to stdout (-v also lists the targets).  Exit 0 ok, 1 errors,
 * 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../conf/conf.h"
#include "../registry.h"

static int
check_usage(void)
{
	cmd_usage("check-config", stderr, false);
	return 2;
}

static void
print_targets(const struct wp_conf *c)
{
	size_t i;

	for (i = 0; i < c->n_targets; i++)
		printf("  %-28s %-9s %-6s every %.3gs, timeout %.3gs\n",
		    c->targets[i].name, c->target_drivers[i],
		    c->targets[i].kind,
		    (double)c->targets[i].interval / WP_SEC,
		    (double)c->targets[i].timeout / WP_SEC);
}

int
cmd_check_config(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	struct conf_errs errs = { 0 };
	const char *path = NULL;
	struct wp_conf *c;
	bool verbose = false;
	size_t i;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return check_usage();
		}
	}
	if (path == NULL || optind != argc)
		return check_usage();
	c = conf_load(path, registry_find, &errs);
	for (i = 0; i < errs.n_warn; i++)
		fprintf(stderr, "%s\n", errs.warn[i]);
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "%s\n", errs.msg[i]);
	if (c == NULL) {
		fprintf(stderr, "%s: %zu error%s\n", path, errs.n,
		    errs.n == 1 ? "" : "s");
		conf_errs_fini(&errs);
		return 1;
	}
	printf("configuration OK: %zu nodes, %zu pdus, %zu meters, "
	    "%zu targets%s\n", c->n_nodes, c->n_pdus, c->n_meters,
	    c->n_targets, errs.n_warn ? " (see warnings)" : "");
	if (verbose)
		print_targets(c);
	conf_errs_fini(&errs);
	conf_free(c);
	return 0;
}
