/*
 * sim_cmd.h - the wattpath-sim subcommands and their parsed arguments.
 * Each returns the exit status: 0 ok, 1 failure, 2 usage.
 */
#ifndef SIM_CMD_H
#define SIM_CMD_H

#include <stdint.h>

#include "sim_model.h"

struct sim_args {
	struct sim_opts	 fo;
	double		 kwh_step;
	uint32_t	 addr_base;
	int		 port_base;
	const char	*config_out;
	double		 start;		/* NAN: now */
	const char	*interval;
	int		 listen_port;
	double		 from, to;	/* NAN: unset */
	int		 json;
	double		 every;		/* naive: sampling period, s */
	double		 days, step;	/* history */
	const char	*data_dir;
	int		 no_snmp;
	int		 snmp_max_get;	/* > 0: a GET of more varbinds is tooBig */
	const char	*pdu_profile;
	const char	*meter_map;
	const char	*maps_dir;	/* collector.maps_dir, or NULL */
	int		 drift_bmc;	/* node whose BMC drifts, -1 none */
	int		 dead_outlet;	/* node whose A outlet dies, -1 none */
	double		 fault_at;	/* NAN: the start (serve), --from */
	double		 drift_gain;	/* the drifting BMC's gain at the end */
	double		 drift_ramp;	/* s to reach it (0: at once) */
	int		 dead_pdu;	/* PDU that never answers, -1 none */
};

struct sim_srv;
/* Sets a's faults on s (sim_srv.c); -1 when a node is out of range. */
int	 sim_srv_faults(struct sim_srv *s, const struct sim_args *a);

int	 sim_cmd_serve(const struct sim_args *a);	/* sim_serve.c */
int	 sim_cmd_truth(const struct sim_args *a);	/* sim_truth.c */
int	 sim_cmd_naive(const struct sim_args *a);	/* sim_truth.c */
/* The per-model truth with --shared (sim_truth_models.c). */
struct json_object;
struct sim_fleet;
struct json_object *sim_truth_models(const struct sim_fleet *f, double a,
	    double b);
/* The truth of a power-limit sweep (sim_truth_caps.c). */
struct json_object *sim_truth_caps(const struct sim_fleet *f, double a,
	    double b);
int	 sim_cmd_history(const struct sim_args *a);	/* sim_history.c */

#endif
