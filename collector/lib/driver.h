/*
 * driver.h - the one contract every protocol driver implements.
 *
 * The core owns time, scheduling, storage and configuration; a driver only
 * talks to its devices.  Each driver exports one const struct wp_driver
 * (redfish_driver, snmp_pdu_driver, modbus_driver, inband_driver), listed in
 * collector/registry.c.
 *
 * Life of a driver and of its targets:
 *   init()          once per process before anything else of the driver
 *                   (library set-up); optional.
 *   validate()      check one target's block offline: no I/O beyond
 *                   reading the driver's own data files (PDU profiles,
 *                   meter maps), no secret read; every problem to the
 *                   diagnostics at its line, each message starting with
 *                   tc->where.  The config reader calls it for every
 *                   target (check-config, run, reload); nothing else checks
 *                   a driver's block.
 *   target_new()    allocate a target's state from a block validate
 *                   accepted; no network I/O.
 *   poll_start()    begin one poll without blocking: register I/O on the
 *                   loop (svc->loop, svc->http) or hand a job to svc->workers.
 *                   Push readings with poll_add(), then call poll_done()
 *                   exactly once (it may be called from inside poll_start).
 *   poll_cancel()   the core's deadline fired: abort in-flight I/O; the
 *                   driver must not touch the poll after this returns, and
 *                   must not call poll_done() for it.
 *   target_free()   release everything (log out sessions...); NULL-safe.
 *   describe()      one-line identity for logs, never with secrets.
 *   probe()         optional: what a device offers, for `wattpath probe`;
 *                   may run svc->loop itself until done.
 *   push_attach()   optional: the target may receive pushed readings
 *                   (lib/push.h); the core calls it once after
 *                   target_new with a sink valid until target_free.
 *   push_post()     optional: a body POSTed to the target's sink->post_url
 *                   (the core checked the URL's token), from the numeric
 *                   address peer; the driver checks the sender, reads the
 *                   body and reports through the sink.
 *   fini()          once at the end; optional.
 *
 * All callbacks run on the loop thread.  A driver gets its own block, the
 * credentials and where the data files are: never the whole config,
 * another target, the scheduler, the store or the journal.
 */
#ifndef WP_DRIVER_H
#define WP_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "poll.h"
#include "push.h"
#include "sample.h"

struct loop;
struct http;
struct workers;
struct ynode;
struct diag;
struct wp_shared;

/* Core services a driver may use; borrowed, valid for the target's life. */
struct wp_services {
	struct loop	*loop;
	struct http	*http;		/* shared curl multi (Redfish, inband) */
	struct workers	*workers;	/* pool for blocking libraries */
	const char	*state_dir;	/* private persistent state, or NULL */
	struct wp_shared *shared;	/* objects targets of a driver share
					   (lib/shared.h), or NULL: nothing is */
};

/* One entry of the config's credentials: list (borrowed). */
struct wp_cred {
	const char	*name;
	const char	*username;	/* may be NULL (SNMP community) */
	const char	*password_file;	/* exactly one of file/env, or neither */
	const char	*password_env;
	const struct ynode *block;	/* for other fields (auth_protocol...) */
	int		 line;
};

/* One configured target, as the core hands it to a driver (borrowed). */
struct wp_target_conf {
	const char		*name;	/* unique: "gpu-001/bmc", "pdu-r1-a" */
	const char		*node;	/* owning node, or NULL (PDU, meter) */
	const char		*kind;	/* "bmc", "gpu", "engine", "pdu", "meter" */
	const char		*where;	/* the block in messages: "node gpu-001:
					   bmc", "pdu pdu-r1-a" */
	const struct ynode	*block;	/* the YAML mapping of this target */
	const char *const	*core_keys;	/* keys of block the core reads
					   (name, interval...): NULL-ended */
	const struct wp_cred	*creds;	/* the config's credentials */
	size_t			 n_creds;
	const char		*maps_dir;	/* collector.maps_dir (absolute),
					   or NULL */
	const char		*conf_dir;	/* the config file's directory
					   (absolute), or NULL */
	bool			 node_gpu_inband;	/* the node has gpu: */
	wp_time			 interval;
	wp_time			 timeout;
};

/* The credentials named name in tc, or NULL. */
const struct wp_cred *driver_cred(const struct wp_target_conf *tc,
		    const char *name);
/* Reports every key of map (tc's block or one inside it) that is neither
 * in the driver's NULL-ended allowed list nor, for the block itself, one
 * of tc->core_keys; as "WHERE: unknown key 'k'" at its line. */
void	 driver_check_keys(const struct wp_target_conf *tc,
	    const struct ynode *map, const char *where,
	    const char *const *allowed, struct diag *d);

/* What `wattpath probe` asks for. */
struct wp_probe_req {
	const char	*url;		/* as given on the command line */
	const char	*user;
	const char	*password_file;
	const char	*community_file;
	const char	*ca_file;
	bool		 insecure;
	const char	*profile;	/* PDU profile / meter map name */
	const char	*maps_dir;	/* where profiles and maps are looked up */
	const char	*const *extra;	/* "key=value" protocol options, NULL-ended */
	wp_time		 timeout;
};

struct wp_probe_source {
	struct wp_sample s;
	char		 path[256];	/* Redfish path, OID, register, metric */
	char		 source[128];	/* where it was read (an OID), or "" */
	char		 direction[8];	/* tokens: "output" / "input", else "" */
	bool		 chosen;	/* the collector would use this one */
};

/* Filled by a driver's probe(); the core prints it. */
struct wp_probe_result {
	char		 protocol[16];	/* "redfish", "snmp", "modbus", "prometheus" */
	char		 vendor[64];
	char		 model[128];
	char		 firmware[64];
	char		 extra[256];	/* e.g. "profile=raritan-px2 sysObjectID=..." */
	char		 profile[64];	/* profile or map used, or "" */
	char		 profile_reason[400];	/* why that one, or "" */
	struct wp_probe_source *src;	/* owned; freed by probe_result_fini */
	size_t		 n, cap;
};

struct wp_driver {
	const char	*name;
	int	(*init)(const struct wp_services *svc, struct wp_err *err);
	void	(*fini)(void);
	/* Returns the number of errors it added to d (warnings do not count). */
	int	(*validate)(const struct wp_target_conf *tc, struct diag *d);
	int	(*target_new)(const struct wp_target_conf *tc,
		    const struct wp_services *svc, void **state,
		    struct wp_err *err);
	int	(*poll_start)(void *state, struct wp_poll *poll);
	void	(*poll_cancel)(void *state, struct wp_poll *poll);
	void	(*target_free)(void *state);
	void	(*describe)(void *state, char *buf, size_t len);
	int	(*probe)(const struct wp_probe_req *req,
		    const struct wp_services *svc, struct wp_probe_result *out,
		    struct wp_err *err);
	void	(*push_attach)(void *state, const struct wp_push_sink *sink);
	void	(*push_post)(void *state, const char *body, size_t len,
		    const char *peer);
};

/* Adds a source to a probe result (copies).  Returns 0 or -1 (ENOMEM). */
int	 probe_result_add(struct wp_probe_result *r, const struct wp_sample *s,
	    const char *path, bool chosen);
void	 probe_result_fini(struct wp_probe_result *r);

#endif
