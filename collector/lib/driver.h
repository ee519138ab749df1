/*
 * driver.h - the one contract every protocol driver implements.
 *
 * The core owns time, scheduling, storage and configuration; a driver only
 * talks to its devices.  Each driver exports one const struct wp_driver
 * (redfish_driver, snmp_pdu_driver, modbus_driver, inband_driver), listed in
 * collector/registry.c.
 *
 * Life of a target:
 *   target_new()    validate the target's config block and allocate state;
 *                   no network I/O.  check-config calls it too.
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
 *
 * All callbacks run on the loop thread.  A driver never sees another target,
 * the scheduler, the store or the journal.
 */
#ifndef WP_DRIVER_H
#define WP_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "sample.h"

struct loop;
struct http;
struct workers;
struct wp_conf;
struct ynode;
struct wp_poll;

/* Core services a driver may use; borrowed, valid for the target's life. */
struct wp_services {
	struct loop	*loop;
	struct http	*http;		/* shared curl multi (Redfish, inband) */
	struct workers	*workers;	/* pool for blocking libraries */
	const char	*state_dir;	/* private persistent state, or NULL */
};

/* One configured target, as the core hands it to a driver (borrowed). */
struct wp_target_conf {
	const char		*name;	/* unique: "gpu-001/bmc", "pdu-r1-a" */
	const char		*node;	/* owning node, or NULL (PDU, meter) */
	const char		*kind;	/* "bmc", "gpu", "engine", "pdu", "meter" */
	const struct ynode	*block;	/* the YAML mapping of this target */
	const struct wp_conf	*conf;	/* whole config: credentials, maps */
	wp_time			 interval;
	wp_time			 timeout;
};

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
	struct wp_probe_source *src;	/* owned; freed by probe_result_fini */
	size_t		 n, cap;
};

struct wp_driver {
	const char	*name;
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
};

/*
 * Poll sink (implemented by the core).  poll_add copies the sample; it fills
 * t_real/t_mono when zero and drops (with a logged reason) a sample that
 * fails sample_validate.  Returns 0 if kept, -1 if dropped.
 */
int	 poll_add(struct wp_poll *poll, const struct wp_sample *s);
/* status 0: success; -1: failed, err says why (may be NULL on success). */
void	 poll_done(struct wp_poll *poll, int status, const struct wp_err *err);
/* The time the poll began, realtime and monotonic. */
wp_time	 poll_started_real(const struct wp_poll *poll);
wp_time	 poll_deadline_mono(const struct wp_poll *poll);

/* Adds a source to a probe result (copies).  Returns 0 or -1 (ENOMEM). */
int	 probe_result_add(struct wp_probe_result *r, const struct wp_sample *s,
	    const char *path, bool chosen);
void	 probe_result_fini(struct wp_probe_result *r);

#endif
