/*
 * cmd.h - the subcommands of the wattpath binary.  Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the
 * process exit status: 0 ok, 1 failure, 2 usage error.  Machine output
 * (JSON, CSV) goes to stdout only; logs go to stderr.
 */
#ifndef WP_CMD_H
#define WP_CMD_H

int	 cmd_run(int argc, char **argv);		/* run_cmd.c */
int	 cmd_check_config(int argc, char **argv);	/* conf_cmd.c */
int	 cmd_journal(int argc, char **argv);		/* journal_cmd.c */
int	 cmd_ledger(int argc, char **argv);		/* journal_cmd.c */
int	 cmd_probe(int argc, char **argv);		/* probe_cmd.c */
int	 cmd_report(int argc, char **argv);		/* report_cmd.c */
int	 cmd_curve(int argc, char **argv);		/* report_cmd.c */
int	 cmd_graph(int argc, char **argv);		/* graph_cmd.c */

#endif
