/*
 * conf_rack.h - the racks: block (top level): each rack's power capacity,
 * which the dashboard's rack page draws the rack's power against and
 * /metrics exports (wattpath_rack_capacity_watts):
 *   racks: [{name, capacity_w}]
 * A name once, and a rack some node names (nodes[].rack); capacity_w a
 * number of watts above 0 (at most 10 MW).  Meaning: docs/config.md.
 */
#ifndef WP_CONF_RACK_H
#define WP_CONF_RACK_H

struct diag;
struct wp_conf;
struct ynode;

struct wp_rack {
	const char	*name;		/* borrowed from the YAML tree */
	double		 capacity_w;	/* > 0 */
};

#define RACK_CAPACITY_MAX	10e6	/* W */

/* Fills c->racks from seq (NULL: none; nodes already loaded); problems to
 * d.  0, or -1 out of memory.  c->racks is freed by conf_racks_free. */
int	 conf_racks_load(struct wp_conf *c, const struct ynode *seq,
	    struct diag *d);
void	 conf_racks_free(struct wp_conf *c);
/* The rack entry named name, or NULL. */
const struct wp_rack *conf_rack(const struct wp_conf *c, const char *name);

#endif
