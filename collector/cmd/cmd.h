/*
 * cmd.h - the subcommands of the wattpath binary.  Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the
 * process exit status: 0 ok, 1 failure, 2 usage error.  Machine output
 * (JSON, CSV) goes to stdout only; logs go to stderr.
 */
#ifndef WP_CMD_H
#define WP_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "../lib/clock.h"

int	 cmd_run(int argc, char **argv);		/* run_cmd.c */
int	 cmd_check_config(int argc, char **argv);	/* conf_cmd.c */
int	 cmd_journal(int argc, char **argv);		/* journal_cmd.c */
int	 cmd_ledger(int argc, char **argv);		/* journal_cmd.c */
int	 cmd_probe(int argc, char **argv);		/* probe_cmd.c */
int	 cmd_report(int argc, char **argv);		/* report_cmd.c */
int	 cmd_curve(int argc, char **argv);		/* report_cmd.c */
int	 cmd_graph(int argc, char **argv);		/* graph_cmd.c */
int	 cmd_calibrate(int argc, char **argv);	/* drift_cmd.c, also drift */
int	 cmd_advise(int argc, char **argv);		/* advise_cmd.c */

/* help.c: every command's synopsis to f; one command's synopsis, with
 * every option when full, to f (0, or -1 when there is no such command). */
void	 cmd_synopsis(FILE *f);
int	 cmd_usage(const char *name, FILE *f, bool full);
/* A time option of command cmd (lib/timearg.h: the start of a span, or
 * its end when to), "now" being the real clock.  0, or -1 said on stderr:
 * "wattpath report: --from: cannot parse 'xyz' (expected ...)". */
int	 cmd_time_opt(const char *cmd, const char *opt, const char *arg,
	    bool to, wp_time *out);
/* cmd_json.c: s as a JSON string (quotes, backslashes and controls
 * escaped); "key": v (null when not finite) followed by sep. */
void	 cmd_json_str(FILE *f, const char *s);
void	 cmd_json_num(FILE *f, const char *key, double v, const char *sep);

#endif
