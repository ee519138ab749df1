/*
 * conf.h - wattpath.yaml: parse fully (libyaml), validate, then use.
 *
 * conf_load builds a complete struct wp_conf or reports every error it
 * finds as "FILE:LINE: message" (one per line in errs).  The YAML document
 * is kept as a tree of struct ynode (with line numbers) so that drivers
 * and the model validate their own blocks with the ynode_* getters; the
 * core reads the collector block and derives one target per device:
 *   node.bmc      -> "<node>/bmc"        driver redfish
 *   node.gpu      -> "<node>/gpu"        driver inband
 *   node.engines  -> "<node>/engine<i>"  driver inband
 *   pdus[]        -> "<pdu>"             driver snmp_pdu (redfish if it has url)
 *   meters[]      -> "<meter>"           driver modbus
 * Reload is by swap: load a new conf, keep the old one if it fails.
 * Keys, defaults and checks: docs/config.md.  A target's block may carry
 * interval/timeout overrides (read here into wp_target_conf).
 */
#ifndef WP_CONF_H
#define WP_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/addr.h"
#include "../lib/clock.h"
#include "../lib/datafile.h"
#include "../lib/driver.h"
#include "../lib/err.h"
#include "../lib/ynode.h"
#include "../../model/drift.h"
#include "../../model/report_input.h"

/* Error list: every problem found, sorted by file and line (the config
 * first, then nodes_csv).  Warnings (unset *_env variable, credentials
 * over http://, a driver "not built yet") do not make conf_load fail. */
struct conf_errs {
	char	**msg;		/* "FILE:LINE: message" */
	size_t	  n, cap;
	char	**warn;		/* "FILE:LINE: warning: message" (not fatal) */
	size_t	  n_warn, cap_warn;
};

struct wp_outlet_ref {
	const char	*pdu;
	const char	*outlet;	/* number (1-based) or name, as text */
	int		 line;
};

struct wp_node {
	const char	*name;
	const char	*class;		/* may be NULL */
	const char	*rack;		/* may be NULL */
	struct wp_outlet_ref *outlets;
	size_t		 n_outlets;
	struct report_engine *engines;	/* engines[i]: model, gpus */
	size_t		 n_engines;
	const struct ynode *block;	/* the whole node mapping */
	int		 line;
};

struct wp_pdu {
	const char	*name;
	const struct ynode *block;
	int		 line;
};

struct wp_meter {
	const char	*name;
	const char	*role;		/* facility_total, it_total, cooling, other */
	const char	*map;
	const char	*zone;		/* zone of partial PUE, or NULL */
	const char	*it_measured_at;	/* it_total: as written, or NULL */
	const struct ynode *block;
	int		 line;
};

struct wp_rack;			/* conf_rack.h */

/* One collector.remote_write entry (docs/config.md); strings borrowed
 * from the YAML tree, valid while the conf lives. */
struct wp_remote_write {
	const char	*name;		/* the queue's folder and the metrics'
					   label; default from the URL */
	const char	*url;		/* http(s), checked */
	wp_time		 timeout;	/* per request; default 10 s */
	long long	 max_queue_bytes;	/* disk bound; default 1 GiB */
	const char	*ca_file;	/* or NULL */
	bool		 insecure;	/* skip TLS verification */
	const char	*username;	/* Basic auth, or NULL */
	const char	*password_file, *password_env;	/* one with username */
	const struct ynode *headers;	/* map of extra headers, or NULL */
	const struct ynode *labels;	/* map of labels for every series */
	int		 line;
};

/* One collector.peers entry: another site's collector, its API read for
 * the Sites view (expo_sites.h); strings borrowed from the YAML tree. */
struct wp_peer {
	const char	*name;		/* that collector's site.name */
	const char	*url;		/* its base, http(s), checked */
	wp_time		 timeout;	/* per request; default 5 s */
	const char	*ca_file;	/* or NULL */
	bool		 insecure;	/* skip TLS verification */
	const char	*username;	/* Basic auth, or NULL */
	const char	*password_file, *password_env;	/* one with username */
	int		 line;
};

struct wp_conf {
	char		*path;
	/* collector: */
	wp_time		 interval;	/* 1 s .. 1 h; default 10 s */
	wp_time		 timeout;	/* per poll; default interval * 0.8 */
	wp_time		 backoff_max;	/* failure backoff cap; default 5 min */
	wp_time		 poll_batch;	/* wake-up grid of polls; default 250 ms */
	char		*data_dir;	/* default /var/lib/wattpath */
	char		*listen;	/* host:port; default 127.0.0.1:9810 */
	char		*rrdcached;	/* unix:/path or host:port, or NULL */
	char		*maps_dir;	/* absolute (a relative one is taken from
					   the config's directory), or NULL */
	char		*conf_dir;	/* the config file's directory,
					   absolute: data files are looked up
					   there after maps_dir */
	int		 log_level;
	bool		 log_syslog;
	wp_time		 journal_retention;	/* default 14 d */
	wp_time		 ledger_slot;		/* default 1 h */
	wp_time		 ledger_retention;	/* default 3650 d */
	char		*fsync;		/* "poll" (default), "segment", "none" */
	wp_time		 rrd_write_delay;	/* librrd batching; default 5 min */
	int		 workers;	/* worker threads; default 4 */
	int		 http_max_inflight;	/* global cap; default 256 */
	/* collector.shard: this collector owns the targets whose shard key
	 * (the node's name for a node's targets, else the target's name)
	 * lib/shard.h puts in shard_index of shard_count; count 0: all */
	unsigned	 shard_index, shard_count;
	/* collector.remote_write: the receivers each poll's figures go to */
	struct wp_remote_write *remote_write;
	size_t		 n_remote_write;
	/* collector.peers: the other sites' collectors (Sites view) */
	struct wp_peer	*peers;
	size_t		 n_peers;
	/* exposition server (expo.h): TLS and Basic auth, each optional */
	char		*tls_cert_file, *tls_key_file;	/* both or neither */
	char		*http_user;
	char		*http_password_file, *http_password_env;
	/* push listener (push_listen.h): BMCs POST their MetricReports to
	 * push_url (default https://<push_listen>), TLS with push_tls_*
	 * (default tls_*); NULL: no listener (mode push means SSE) */
	char		*push_listen, *push_url;
	char		*push_tls_cert_file, *push_tls_key_file;
	/* inventory: */
	struct wp_cred	*creds;
	size_t		 n_creds;
	struct wp_node	*nodes;
	size_t		 n_nodes;
	struct wp_pdu	*pdus;
	size_t		 n_pdus;
	struct wp_meter	*meters;
	size_t		 n_meters;
	/* derived targets, in config order: */
	struct wp_target_conf *targets;
	const char	**target_drivers;	/* driver name per target */
	size_t		 n_targets;
	/* report: and site:, typed (conf_report.h) */
	struct report_settings report;
	struct report_site site;
	struct drift_settings drift;	/* drift: (conf_drift.h) */
	struct wp_rack	*racks;		/* racks: (conf_rack.h) */
	size_t		 n_racks;
	const struct ynode *root;
	void		*priv;			/* parser-owned storage */
};

/* The driver called name, or NULL (the runtime's registry_find). */
typedef const struct wp_driver *(*conf_driver_fn)(const char *name);

/*
 * Loads and validates path.  Returns a new conf (caller frees with
 * conf_free), or NULL with every error appended to errs (caller frees with
 * conf_errs_fini).  drivers finds each target's driver, whose validate hook
 * checks the target's block; NULL leaves the blocks unchecked (commands
 * that only read data_dir: report, journal, graph).
 */
struct wp_conf	*conf_load(const char *path, conf_driver_fn drivers,
		    struct conf_errs *errs);
void		 conf_free(struct wp_conf *c);
void		 conf_errs_add(struct conf_errs *e, const char *file, int line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void		 conf_errs_warn(struct conf_errs *e, const char *file, int line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void		 conf_errs_fini(struct conf_errs *e);

/* Lookups (borrowed results; NULL if absent).  conf_node_index, conf_pdu
 * and conf_meter also search a config built by hand (no index: a scan). */
const struct wp_cred	*conf_cred(const struct wp_conf *c, const char *name);
const struct wp_node	*conf_node_by_name(const struct wp_conf *c,
			    const char *name);
/* The index of the node named by name[0..len) (not NUL-terminated: e.g.
 * the "<node>" of a target "<node>/bmc"), or -1. */
int			 conf_node_index(const struct wp_conf *c,
			    const char *name, size_t len);
const struct wp_pdu	*conf_pdu(const struct wp_conf *c, const char *name);
const struct wp_meter	*conf_meter(const struct wp_conf *c, const char *name);

#endif
