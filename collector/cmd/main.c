/*
 * wattpath - out-of-band fleet power collector.
 * main() dispatches subcommands; it is the only place that exits.
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "cmd.h"
#include "../lib/log.h"

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*usage;
} commands[] = {
	{ "run", cmd_run, "run -c FILE [--once] [--syslog]" },
	{ "check-config", cmd_check_config, "check-config -c FILE" },
	{ "probe", cmd_probe, "probe URL [options] [--json]" },
	{ "report", cmd_report,
	    "report -c FILE (--from T --to T | --requests LOG) [--format json|md|csv]" },
	{ "curve", cmd_curve,
	    "curve -c FILE (--node N | --class C) --from T --to T [--format json|csv|svg]" },
	{ "graph", cmd_graph, "graph -c FILE --node N [--from T --to T] -o FILE.png|svg" },
	{ "journal", cmd_journal, "journal (verify | export) -c FILE [--from T --to T]" },
	{ "ledger", cmd_ledger, "ledger rebuild (-c FILE | --dir DIR)" },
};

static int
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: wattpath COMMAND [options]\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "       wattpath %s\n", commands[i].usage);
	fprintf(f, "       wattpath version\n");
	return f == stdout ? 0 : 2;
}

/* No core dump and no ptrace by another user: the process holds BMC
 * passwords, SNMP keys and session tokens in memory. */
static void
no_core_dumps(void)
{
	const struct rlimit none = { 0, 0 };

	(void)setrlimit(RLIMIT_CORE, &none);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int
main(int argc, char **argv)
{
	size_t i;

	no_core_dumps();
	log_init(LOG_LVL_INFO, 0, "wattpath");
	if (argc < 2)
		return usage(stderr);
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("wattpath %s\n", WP_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)
		return usage(stdout);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "wattpath: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
