/*
 * expo_rrdhist.h - /api/v1/history: power over time from the RRD store
 * (store/rrdread.h), so that the dashboard's pages show history that
 * survives restarts, over any window up to 31 days.  One of:
 *   node=N   series wall, gpu (its GPUs summed), outlet (its mapped
 *            outlets summed)
 *   rack=R   the same summed over the rack's nodes, its capacity_w
 *            (racks:, conf_rack.h) and each phase of the PDUs its nodes'
 *            outlets are on
 *   pdu=P    each phase (else each inlet) of the PDU
 *   fleet=all  every site meter, and the boundaries summed over every
 *            node (fleets of up to RRDHIST_FLEET_NODES nodes; beyond,
 *            the meters alone: a rack's page sums its own)
 * A sum is unknown (null) at a point where any of its files is: a part is
 * never shown as the whole.  Blocking (librrd): computed on the
 * exposition's report workers, never on the loop.  Schema:
 * docs/exposition.md.
 */
#ifndef WP_EXPO_RRDHIST_H
#define WP_EXPO_RRDHIST_H

#include <json-c/json.h>

#include "../lib/clock.h"
#include "../lib/err.h"

struct wp_conf;

enum { RH_NODE, RH_RACK, RH_PDU, RH_FLEET };

#define RRDHIST_FLEET_NODES	500

struct rrdhist_query {
	int		 scope;		/* RH_* */
	const char	*name;		/* the node, rack or PDU */
	wp_time		 from, to, step;	/* step 0: about 300 points */
};

/* 0 if q's node, rack or PDU is in c, else -1 with err (a 404). */
int	 rrdhist_scope(const struct wp_conf *c, const struct rrdhist_query *q,
	    struct wp_err *err);
/* The document (caller frees with json_object_put), or NULL with err
 * (WP_E_CONFIG: a bad window or step; else the store unreadable). */
json_object *rrdhist_json(const struct wp_conf *c,
	    const struct rrdhist_query *q, struct wp_err *err);

#endif
