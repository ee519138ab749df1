/*
 * wattpath - out-of-band fleet power collector.
 * main() dispatches subcommands and checks that what they wrote to stdout
 * was written; it is the only place that exits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "cmd.h"
#include "../lib/log.h"

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
} commands[] = {
	{ "run", cmd_run },
	{ "check-config", cmd_check_config },
	{ "probe", cmd_probe },
	{ "report", cmd_report },
	{ "curve", cmd_curve },
	{ "graph", cmd_graph },
	{ "journal", cmd_journal },
	{ "ledger", cmd_ledger },
	{ "calibrate", cmd_calibrate },
	{ "drift", cmd_calibrate },
	{ "advise", cmd_advise },
};

static bool
is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* `help`, `help CMD`: to stdout, 0; an unknown CMD: 2. */
static int
help(int argc, char **argv)
{
	if (argc < 3) {
		cmd_synopsis(stdout);
		return 0;
	}
	if (cmd_usage(is_help(argv[2]) ? "help" : argv[2], stdout,
	    true) == 0)
		return 0;
	fprintf(stderr, "wattpath: unknown command '%s'\n", argv[2]);
	cmd_synopsis(stderr);
	return 2;
}

/* CMD ... --help ... (before any "--"): the command's usage, 0. */
static bool
wants_help(int argc, char **argv)
{
	int i;

	for (i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i]))
			return true;
	return false;
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

/* rc, unless what the command wrote to stdout was not all written (a
 * full disk, a closed pipe's EPIPE): said, and 1 if rc was 0.  A report
 * cut short must not exit 0. */
static int
output_written(int rc)
{
	int e = fflush(stdout) != 0 ? errno : 0;

	if (e == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "wattpath: cannot write the output: %s\n",
	    e != 0 ? strerror(e) : "write error");
	return rc != 0 ? rc : 1;
}

static int
dispatch(int argc, char **argv)
{
	size_t i;

	no_core_dumps();
	log_init(LOG_LVL_INFO, 0, "wattpath");
	if (argc < 2) {
		cmd_synopsis(stderr);
		return 2;
	}
	if (strcmp(argv[1], "help") == 0 || is_help(argv[1]))
		return help(argc, argv);
	if (wants_help(argc, argv) && cmd_usage(argv[1], stdout, true) == 0)
		return 0;
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("wattpath %s\n", WP_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "wattpath: unknown command '%s'\n", argv[1]);
	cmd_synopsis(stderr);
	return 2;
}

int
main(int argc, char **argv)
{
	return output_written(dispatch(argc, argv));
}
