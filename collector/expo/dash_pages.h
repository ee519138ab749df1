/*
 * dash_pages.h - the dashboard's pages beside the fleet page (dashboard.h):
 *   /node/NAME   a node: its power by boundary over time (history from the
 *                RRD store, /api/v1/history), its live figures, J per
 *                output token, its recent wall-to-GPU points against its
 *                class's, its targets and their last errors
 *   /rack/NAME   a rack: its power over time against its capacity
 *                (racks:), per PDU and phase, its nodes
 *   /pdu/NAME    a PDU: its phases (else inlets) over time, its readings
 *   /targets     every target, the failing first, with their reasons
 *   /history     the fleet over time: its site meters and its nodes'
 *                boundaries summed (expo_rrdhist.h)
 *   /sites       this site and collector.peers' sites, one row each, and
 *                their combination (expo_sites.h; dash_sites_write)
 * The live parts are rendered here from the snapshot; the history is
 * drawn in the page by one inline script from /api/v1/history (the RRD
 * files, so it survives restarts), with a time-range picker (1 h, 6 h,
 * 24 h, 7 d, 30 d, custom; kept in the URL's #fragment) and human axes
 * (clock times, W/kW/MW).  No external resource.
 */
#ifndef WP_DASH_PAGES_H
#define WP_DASH_PAGES_H

#include <stdbool.h>
#include <stdio.h>

#include "expo_fleet.h"
#include "expo_history.h"

/* Whether url is one of these pages. */
bool	 dash_page_is(const char *url);
/* Writes url's page: 0, 1 when its node, rack or PDU is unknown (a 404,
 * nothing written), -1 on a write error. */
int	 dash_page_write(FILE *f, const char *url, const struct fleet *fl,
	    const struct history *h);

struct site_row;

/* The /sites page of rows[0..n) (this site's first): 0, or -1 on a write
 * error or out of memory. */
int	 dash_sites_write(FILE *f, const struct fleet *fl,
	    const struct site_row *rows, size_t n);

#endif
