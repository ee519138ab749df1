/*
 * expo_sites.h - the Sites view: this collector's site and the other
 * sites' collectors (collector.peers), each one row of fleet totals, and
 * their combination (/api/v1/sites, the dashboard's /sites page).
 *
 * Each peer's /api/v1/fleet is fetched by this collector once per
 * interval, on the loop (lib/http.h: libcurl, TLS verified unless the
 * peer says insecure, Basic auth when it has a username; never blocking
 * a poll), so the browser reads one origin and the peers need no CORS.
 * A row holds the site's figures as that collector's own API gave them,
 * the time of its snapshot, and whether the peer answered: a peer that
 * did not (or answered for another site) is a row marked unreachable with
 * the reason and the time of its last answer, its figures unknown, never
 * zero.  The combination sums power and energy per quantity (the wall,
 * GPU and outlet boundaries, the facility and IT meters) only where every
 * site has that quantity, else it is partial and names the sites that
 * lack it; boundaries are never mixed.  J per output token over the last
 * 15 min is the sites' summed energy over their summed tokens, of the
 * sites that have both; PUE the summed facility power over the summed IT
 * power where every site has both.  A sharded site (collector.shard) is
 * one row summed from its shards' collectors, listed as peers of the same
 * name (sites_merge_shards).
 */
#ifndef WP_EXPO_SITES_H
#define WP_EXPO_SITES_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/clock.h"
#include "../lib/err.h"
#include "expo_fleet.h"
#include "expo_history.h"

struct loop;
struct wp_conf;
struct peers;

/* The summed quantities: the three boundaries, then the site meters. */
enum { SQ_FACILITY = FB_N, SQ_IT, SQ_N };

#define SITE_NAME_MAX	64
#define SITES_MAX	17		/* this one and 16 peers */

struct site_q {
	double	 power, energy;		/* W, J (cumulative) */
	bool	 has_power, has_energy;
};

struct site_row {
	char		 name[SITE_NAME_MAX + 1];
	bool		 self;		/* this collector's own site */
	bool		 reachable;	/* self, or the peer's last answer */
	char		 error[WP_ERR_MSG];	/* why not, "" if reachable */
	wp_time		 time;		/* realtime of its snapshot, 0 none */
	wp_time		 last_ok;	/* realtime of the last answer, 0 */
	long		 nodes;
	struct site_q	 q[SQ_N];
	/* the last 15 min at each boundary: energy and output tokens of
	 * the nodes with energy there (expo_history.h) */
	double		 e15[FB_N], t15[FB_N];
	bool		 has15[FB_N];
	double		 pue15;
	bool		 has_pue15;
	double		 tokens_out;
	bool		 has_tokens;
	long		 up, down;	/* targets */
	/* collector.shard of the collector (count 0: unsharded); after
	 * sites_merge_shards, the site's count and how many it sums */
	unsigned	 shard_index, shard_count, shards;
	bool		 incomplete;	/* shards missing: figures unknown */
};

struct sites_sum {
	struct site_q	 q[SQ_N];
	/* the sites lacking each quantity's power and energy, ", "-joined */
	char		 miss_p[SQ_N][SITES_MAX * (SITE_NAME_MAX + 2)];
	char		 miss_e[SQ_N][SITES_MAX * (SITE_NAME_MAX + 2)];
	double		 e15[FB_N], t15[FB_N];	/* over jpt_sites[b] */
	size_t		 jpt_sites[FB_N];
	double		 pue;			/* NAN: unknown */
	double		 tokens_out;
	bool		 has_tokens;
	long		 up, down;		/* of the reachable sites */
	size_t		 unreachable;
};

/* This collector's row from its snapshot f and history h (NULL: none). */
void	 site_row_self(const struct fleet *f, const struct history *h,
	    struct site_row *r);
/*
 * A peer's row (named name) from its /api/v1/fleet document body: 0, or
 * -1 with err (not the document, or for another site); r's figures are
 * unknown then, its name, last_ok and time kept.
 */
int	 site_row_parse(const char *name, const char *body, wp_time now,
	    struct site_row *r, struct wp_err *err);
/*
 * Folds the rows of one site's shards (the same name, this collector's
 * own among them) into the first, in place; returns the rows left.  A
 * sharded site's row is the sum of its shards when every shard 0..N-1 of
 * one count N answered exactly once: quantities summed where any shard
 * has them (shards' targets are disjoint), its nodes the inventory's (each
 * shard lists it whole), its snapshot time the oldest, its PUE a shard's
 * only when that shard holds every site meter.
 * Else its figures are unknown: unreachable with that shard's reason when
 * a shard did not answer, else incomplete with what is missing (a shard
 * not listed, one listed twice, a collector listed twice unsharded).
 */
size_t	 sites_merge_shards(struct site_row *rows, size_t n);
/* The combination of rows[0..n). */
void	 sites_combine(const struct site_row *rows, size_t n,
	    struct sites_sum *s);
/* The /api/v1/sites document of rows[0..n) (the own first) at now:
 * a new string (caller frees), NULL out of memory. */
char	*sites_json(const struct site_row *rows, size_t n, wp_time now);

/* The fetchers of c's peers on l (none: NULL with err clear); NULL with
 * err on a failure (a password).  Caller frees with peers_free; c is not
 * kept. */
struct peers	*peers_new(struct loop *l, const struct wp_conf *c,
		    struct wp_err *err);
void		 peers_free(struct peers *p);		/* NULL-safe */
/* Whether p (NULL: none) was made from c's peers as they are. */
bool		 peers_same(const struct peers *p, const struct wp_conf *c);
/* Starts a fetch of every peer not already fetching (each interval). */
void		 peers_tick(struct peers *p);
/* Copies up to max peer rows, in config order; returns the count. */
size_t		 peers_rows(const struct peers *p, struct site_row *out,
		    size_t max);

#endif
