/*
 * sim_conf.h - the generated wattpath.yaml for a running simulator.
 *
 * Writes the config (the shape in docs and the brief) next to secrets it
 * creates with mode 0600 (<dir>/secrets/bmc, <dir>/secrets/community);
 * the collector's data_dir is <dir>/data.  Paths are made absolute by the
 * caller.  The file is written to a temporary name and renamed, so a
 * reader never sees half of it.
 */
#ifndef SIM_CONF_H
#define SIM_CONF_H

#include <stddef.h>

#include "sim_srv.h"

struct sim_conf_opts {
	const char	*path;		/* absolute */
	const char	*ca_path;	/* absolute */
	const char	*interval;	/* "10s" */
	int		 listen_port;	/* collector.listen on 127.0.0.1 */
	int		 with_pdus;	/* the SNMP front end runs */
	const char	*pdu_profile;
	const char	*meter_map;
	const char	*maps_dir;	/* or NULL: the source tree's etc/, else the
				   share directory (written absolute) */
	const char	*data_dir;	/* NULL: <dir>/data */
	const char	*fsync;		/* collector.fsync, or NULL */
	const char	*retention;	/* collector.journal_retention, or NULL */
};

int	 sim_conf_write(const struct sim_srv *s, const struct sim_conf_opts *o,
	    char *err, size_t errlen);

#endif
