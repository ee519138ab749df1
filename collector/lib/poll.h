/*
 * poll.h - one poll of one target: the sink a driver pushes readings into
 * and ends with poll_done, and the core's side that owns it.
 *
 * The core (collector/run.c, or anyone driving a driver) embeds a struct
 * wp_poll, sets it up with poll_init and learns of its end through
 * ops->finish, called exactly once: from poll_done (possibly inside the
 * driver's poll_start) or, after the core's own deadline, from
 * poll_expire.  A driver sees only the functions below its line.
 */
#ifndef WP_POLL_H
#define WP_POLL_H

#include <stdbool.h>
#include <stddef.h>

#include "clock.h"
#include "err.h"
#include "sample.h"

struct wp_poll;

struct wp_poll_ops {
	/* The poll ended (p->status 0 ok, -1 failed with p->err). */
	void	(*finish)(struct wp_poll *p);
};

struct wp_poll {
	const struct wp_poll_ops *ops;
	void		*owner;		/* the core's, for finish */
	const char	*name;		/* the target, for the log (borrowed) */
	wp_time		 t_real, t_mono, deadline;
	struct wp_sample *v;		/* readings kept; freed by poll_fini */
	size_t		 n, cap;
	bool		 done;
	int		 status;
	struct wp_err	 err;
};

/* --- the core's side --- */

/* Starts p now (realtime and monotonic), with its deadline timeout on. */
void	 poll_init(struct wp_poll *p, const struct wp_poll_ops *ops,
	    void *owner, const char *name, wp_time timeout);
/* The core's deadline passed: ends p as failed (transient, "no answer
 * within X s") unless it has ended already.  The driver's poll_cancel must
 * have run first. */
void	 poll_expire(struct wp_poll *p, wp_time timeout);
/* Frees the readings; p may be reused after poll_init. */
void	 poll_fini(struct wp_poll *p);

/* --- the driver's side --- */

/* Copies s into the poll; fills t_real/t_mono when zero and drops (with a
 * debug log line) a reading that fails sample_validate.  0 kept, -1
 * dropped (or the poll already ended). */
int	 poll_add(struct wp_poll *p, const struct wp_sample *s);
/* Ends the poll: status 0 success, -1 failed with err (may be NULL on
 * success).  A second call is ignored. */
void	 poll_done(struct wp_poll *p, int status, const struct wp_err *err);
/* When the poll began (realtime) and when the core gives up (monotonic). */
wp_time	 poll_started_real(const struct wp_poll *p);
wp_time	 poll_deadline_mono(const struct wp_poll *p);

#endif
