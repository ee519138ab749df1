/*
 * sim_history.c - `wattpath-sim history` (in progress).
 */
#include <stdio.h>

#include "sim_cmd.h"

int
sim_cmd_history(const struct sim_args *a)
{
	(void)a;
	fprintf(stderr, "wattpath-sim: history is not implemented yet\n");
	return 1;
}
