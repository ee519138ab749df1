/*
 * mb_link.h - one Modbus connection (TCP or RTU) driven by libmodbus, used
 * from a worker thread by one job at a time (the worker key serialises
 * jobs of a gateway or line).  Runs a read plan (regmap.h) with a response
 * timeout below the poll deadline, reconnects with backoff, and recovers a
 * desynchronised stream (late reply, bad CRC) by closing the connection
 * and retrying the read once.
 */
#ifndef WP_MB_LINK_H
#define WP_MB_LINK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../collector/lib/clock.h"
#include "../../collector/lib/err.h"
#include "regmap.h"

struct mb_link_conf {
	bool		 rtu;
	char		 host[256];	/* TCP */
	int		 port;
	char		 device[256];	/* RTU */
	int		 baud;
	char		 parity;	/* 'N', 'E', 'O' */
	int		 data_bits;
	int		 stop_bits;
	int		 unit;		/* slave / unit id */
	wp_time		 timeout;	/* response timeout */
};

struct mb_link;

/* Returns a new, unconnected link (caller frees with mb_link_free). */
struct mb_link	*mb_link_new(const struct mb_link_conf *c, struct wp_err *err);
void		 mb_link_free(struct mb_link *l);	/* NULL-safe */

/* The worker key: "tcp:host:port" or "rtu:/dev/tty..". */
void	 mb_link_key(const struct mb_link_conf *c, char *buf, size_t len);

/*
 * Runs the n reads of plan r (blocking).  regs receives the registers of
 * each read back to back; status[i] is 0 or the Modbus exception code the
 * device answered read i with.  Returns 0 if the device answered every
 * read (possibly with exceptions), or -1 with err set (timeout, connection
 * refused or dropped, bad data after one retry, deadline passed, abort).
 */
int	 mb_link_read_plan(struct mb_link *l, const struct rm_read *r,
	    size_t n, uint16_t *regs, int *status, wp_time deadline,
	    atomic_bool *abort, struct wp_err *err);

/* Closes an RTU line (each poll opens it); TCP stays open. */
void	 mb_link_end_poll(struct mb_link *l);

#endif
