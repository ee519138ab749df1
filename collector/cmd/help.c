/*
 * help.c - `wattpath help [CMD]`, `wattpath CMD --help`: the usage of
 * every subcommand, every option with one line (docs/wattpath.8 says the
 * same at length; tests/integration/510-cli.sh checks that both name every
 * option a command parses).
 */
#include <stdio.h>
#include <string.h>

#include "../lib/timearg.h"
#include "cmd.h"

struct help {
	const char	*name;
	const char	*synopsis;	/* after "wattpath " */
	const char	*text;		/* the options, one a line */
	bool		 times;		/* takes --from/--to: say the forms */
};

static const struct help helps[] = {
	{ "run", "run -c FILE [--once] [--syslog] [--log-level LEVEL]",
	    "Polls every target of the config, writes the RRD store and the\n"
	    "journal, serves the exposition, until SIGTERM or SIGINT.\n"
	    "  -c, --config FILE    the configuration (wattpath.yaml(5))\n"
	    "  --once               poll every target once, then exit; exits 1\n"
	    "                       when every target failed\n"
	    "  --syslog             log to syslog as well as stderr\n"
	    "  --log-level LEVEL    error, warn, info or debug (overrides\n"
	    "                       log_level)\n", false },
	{ "check-config", "check-config -c FILE [-v]",
	    "Loads the config as run would, lets every driver check its block,\n"
	    "prints each problem as FILE:LINE: message.\n"
	    "  -c, --config FILE    the configuration\n"
	    "  -v, --verbose        also list the targets\n", false },
	{ "probe", "probe URL [options]",
	    "Connects to one device and prints what it offers (no config).\n"
	    "  --json               JSON instead of a table\n"
	    "  --protocol P         redfish, prometheus (inband), snmp or modbus\n"
	    "                       (default: from the URL)\n"
	    "  --user U             user name (Redfish, SNMPv3)\n"
	    "  --password-file F    the password, in a file\n"
	    "  --ca-file F          CA bundle for https\n"
	    "  --insecure           do not verify the TLS certificate\n"
	    "  --community-file F   SNMPv2c community, in a file\n"
	    "  --snmp-version V     2c or 3\n"
	    "  --auth-protocol P    SNMPv3 authentication protocol\n"
	    "  --auth-password-file F  SNMPv3 authentication password, in a file\n"
	    "  --priv-protocol P    SNMPv3 privacy protocol\n"
	    "  --priv-password-file F  SNMPv3 privacy password, in a file\n"
	    "  --security-level L   SNMPv3 security level\n"
	    "  --profile, --map NAME  PDU profile or Modbus register map\n"
	    "  --maps-dir DIR       where profiles and maps are looked up first\n"
	    "  --timeout DURATION   the probe's deadline (default 10s)\n"
	    "  -o, --option K=V     a driver option (e.g. -o system=Id)\n",
	    false },
	{ "report", "report -c FILE (--from T --to T | --requests LOG) "
	    "[options]",
	    "Energy per token per boundary, PUE, carbon and cost over a window.\n"
	    "  -c, --config FILE    the configuration (repeat: one per site, a\n"
	    "                       report over several sites with a fleet total)\n"
	    "  --from T, --to T     the window\n"
	    "  --requests LOG       a request log (JSON lines); without --from\n"
	    "                       and --to its first start to its last end\n"
	    "  --runs N             statistics over N runs (1..64)\n"
	    "  --idle-from T, --idle-to T  the idle window (default report.idle)\n"
	    "  --period P           hour, day, month or year: only that PUE period;\n"
	    "                       month or year: the table by calendar month\n"
	    "                       (--from 2026 alone: that year)\n"
	    "  --format F           json (default), md or csv\n"
	    "  --carbon-csv FILE    also the sustainability CSV to FILE (-: only\n"
	    "                       that, to stdout)\n"
	    "  --showback-csv FILE  also the per-tenant and per-model CSV to\n"
	    "                       FILE (-: only that, to stdout)\n"
	    "  --finalise           record the report's instrument claims in the\n"
	    "                       ledger under data_dir (no MWh claimed twice)\n"
	    "  --data-dir DIR       a collector's data dir (repeat: shards, an HA\n"
	    "                       pair; each verified, one per target kept;\n"
	    "                       default report.data_dirs, else data_dir)\n"
	    "Exits 1 when the report has no figure at all.\n", true },
	{ "curve", "curve -c FILE (--node N | --class C) --from T --to T "
	    "[options]",
	    "Wall power against GPU power of a node or a class, with fits.\n"
	    "  -c, --config FILE    the configuration\n"
	    "  --node N             one node\n"
	    "  --class C            every node of class C\n"
	    "  --from T, --to T     the window\n"
	    "  --step DURATION      the interval of each point (default from\n"
	    "                       report.curve_step or the sampling interval)\n"
	    "  --data-dir DIR       a collector's data dir (repeatable, as report)\n"
	    "  --format F           json (default), csv or svg\n", true },
	{ "graph", "graph -c FILE --node N [--from T --to T] -o FILE.png|svg|pdf "
	    "[--format png|svg|pdf]",
	    "Draws a node's wall, GPU and outlet power from the RRD store, up to\n"
	    "the last value every file holds (rrdcached: flushed first); exit 1\n"
	    "when the window has no data.\n"
	    "  -c, --config FILE    the configuration\n"
	    "  --node N             the node\n"
	    "  --from T, --to T     the window (default: the last hour)\n"
	    "  -o, --output FILE    the image\n"
	    "  --format F           png, svg or pdf (default: the extension)\n",
	    true },
	{ "journal", "journal (verify | export) (-c FILE | --dir DIR) "
	    "[--from T] [--to T]",
	    "verify checks the hash chain of every segment and the ledger beside\n"
	    "the journal (exit 1 at the first break); export writes the records\n"
	    "as CSV to stdout.\n"
	    "  -c FILE              the journal under this config's data_dir\n"
	    "  --dir DIR            a journal directory (verify: repeatable, each\n"
	    "                       collector's journal verified on its own)\n"
	    "  --from T, --to T     export: the window (default: everything)\n",
	    true },
	{ "ledger", "ledger rebuild (-c FILE | --dir DIR)",
	    "Recomputes the long-term ledger (data_dir/ledger) from the raw\n"
	    "journal that exists, keeps the blocks of expired segments, then\n"
	    "verifies it.\n"
	    "  -c FILE              the ledger under this config's data_dir\n"
	    "  --dir DIR            a journal directory (its ledger beside it)\n",
	    false },
	{ "calibrate", "calibrate -c FILE --from T --to T [--format text|json]",
	    "The pairs of instruments that measure the same energy (wall and\n"
	    "outlets, outlets and inlet, inlets and IT meter, GPUs in-band and\n"
	    "BMC): ratios, spreads and drift per window (docs/drift.md).\n"
	    "  -c, --config FILE    the configuration (drift: block)\n"
	    "  --from T, --to T     the period\n"
	    "  --format F           text (default) or json\n", true },
	{ "drift", "drift -c FILE --from T --to T [--format text|json]",
	    "The same as calibrate.\n"
	    "  -c, --config FILE    the configuration (drift: block)\n"
	    "  --from T, --to T     the period\n"
	    "  --format F           text (default) or json\n", true },
	{ "advise", "advise -c FILE --class C --from T --to T [--slo SPEC] "
	    "[options]",
	    "The power-cap curve of a node class (J/token at the wall and the\n"
	    "facility, throughput and SLO attainment per GPU power limit seen)\n"
	    "and the limit that minimises facility J/token while meeting the\n"
	    "SLO, with its uncertainty (docs/advise.md).\n"
	    "  -c, --config FILE    the configuration\n"
	    "  --class C            the node class\n"
	    "  --from T, --to T     the period\n"
	    "  --slo SPEC           ttft_ms=N,tpot_ms=N,target=SHARE (any of them;\n"
	    "                       default report.slo, target 0.99); needs\n"
	    "                       --requests\n"
	    "  --requests LOG       the request log (JSON lines) for attainment\n"
	    "  --window DURATION    the length of each window (default 5m)\n"
	    "  --format F           text (default) or json\n"
	    "  --plot FILE.svg      also the curve as SVG\n"
	    "Exits 1 when it refuses to advise (too few power limits, none\n"
	    "meeting the SLO).\n", true },
	{ "version", "version", "Prints the version.\n", false },
	{ "help", "help [COMMAND]",
	    "Lists the commands, or the usage of one (as COMMAND --help).\n",
	    false },
};

#define N_HELPS	(sizeof(helps) / sizeof(helps[0]))

static const struct help *
find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < N_HELPS; i++)
		if (strcmp(helps[i].name, name) == 0)
			return &helps[i];
	return NULL;
}

void
cmd_synopsis(FILE *f)
{
	size_t i;

	fprintf(f, "usage: wattpath COMMAND [options]\n");
	for (i = 0; i < N_HELPS; i++)
		fprintf(f, "       wattpath %s\n", helps[i].synopsis);
	fprintf(f, "'wattpath help COMMAND' or 'wattpath COMMAND --help': the "
	    "options of one.\n");
}

int
cmd_usage(const char *name, FILE *f, bool full)
{
	const struct help *h = find(name);

	if (h == NULL)
		return -1;
	fprintf(f, "usage: wattpath %s\n", h->synopsis);
	if (!full) {
		fprintf(f, "(wattpath %s --help: every option)\n", name);
		return 0;
	}
	fputs(h->text, f);
	if (h->times)
		fprintf(f, "Times T: %s.  A day, month or year as --from is its "
		    "start, as --to its end.\n", timearg_forms);
	return 0;
}

int
cmd_time_opt(const char *cmd, const char *opt, const char *arg, bool to,
    wp_time *out)
{
	char msg[768];

	if (timearg_opt(opt, arg, to ? TA_TO : TA_FROM, clock_real(), out, msg,
	    sizeof(msg)) == 0)
		return 0;
	fprintf(stderr, "wattpath %s: %s\n", cmd, msg);
	return -1;
}
