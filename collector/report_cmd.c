/* Placeholder until this command lands. */
#include <stdio.h>

#include "cmd.h"

int
cmd_report(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "wattpath %s: not implemented yet\n", argv[0]);
	return 1;
}

int
cmd_curve(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "wattpath %s: not implemented yet\n", argv[0]);
	return 1;
}
