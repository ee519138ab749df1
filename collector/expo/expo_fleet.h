/*
 * expo_fleet.h - one snapshot of the fleet, as the exposition shows it.
 *
 * Built from the collector's target views (collector_each_target) and the
 * conf, on the loop thread, for one response: per node the energy (the
 * reset-corrected cumulative of ingest, summed) and power at the wall, GPU
 * (its GPUs summed; cross-check readings left out) and outlet (its mapped
 * PDU outlets summed) boundaries, and its token counters; per target its
 * health; per meter its role and readings, with facility_total and
 * it_total summed; when asked (FLEET_PDU_READINGS), per PDU its outlet,
 * inlet, phase and circuit readings (the unit of a PDU behind a shared
 * agent, series "u<k>/...", as "<pdu>-u<k>").  Power is the latest power reading where the device
 * gives one, else the mean over the last interval from the counter
 * (delta / span).  Energy is the device's counter where the target has
 * one at that boundary, else the collector's integral of its power gauges
 * (gauge-estimated); coverage per boundary (fleet and class) is the share
 * of nodes with an energy there.  Strings are borrowed from the conf and the views: a
 * snapshot lives no longer than the request that built it.
 */
#ifndef WP_EXPO_FLEET_H
#define WP_EXPO_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../ingest.h"
#include "../lib/clock.h"
#include "../lib/push.h"
#include "../run.h"
#include "expo_process.h"

struct expo_attr;
struct wp_conf;
struct wp_node;

enum { FB_WALL, FB_GPU, FB_OUTLET, FB_N };

/* Energy methods: the device's counter, else the collector's trapezoid
 * of the power gauge (the report's gauge-estimated rule). */
enum { FM_COUNTER, FM_GAUGE, FM_N };

struct fleet_fig {
	double	 energy;	/* J, cumulative: the methods' sum */
	double	 power;		/* W */
	bool	 has_energy, has_power;
	double	 energy_m[FM_N];	/* J by method */
	bool	 has_m[FM_N];
};

/* A boundary's coverage over a set of nodes (the fleet, a class): nodes
 * with energy there, and their output tokens; sig identifies the set, so
 * that a rate over a window only compares snapshots of the same nodes. */
struct fleet_cover {
	size_t	 nodes, covered;
	double	 tokens;		/* output tokens of the covered nodes */
	uint64_t sig;			/* the covered nodes' names hashed */
};

struct fleet_class {
	const char	*name;		/* "" none */
	size_t		 nodes;
	struct fleet_fig b[FB_N];	/* summed over its nodes */
	struct fleet_cover cov[FB_N];
	/* wall and GPU power of its nodes that have both (wall/GPU) */
	double		 pair_wall, pair_gpu;
	size_t		 n_pair;
};

#define FLEET_GPUS	64	/* GPU indexes kept per node */
#define FLEET_ENGINES	8	/* engines kept per node */

/* A node's in-band GPUs and engines, for the per-model and per-tenant
 * counters (expo_models.h); the strings owned (fleet_free). */
struct fleet_inband {
	double		 gpu_e[FLEET_GPUS];	/* cumulative J */
	char		*gpu_ns[FLEET_GPUS];	/* namespace label, or NULL */
	double		 eng_out[FLEET_ENGINES];	/* cumulative tokens */
	char		*eng_model[FLEET_ENGINES];	/* model label, or NULL */
};

struct fleet_node {
	const char	*name, *class, *rack;	/* class, rack: "" if unset */
	struct fleet_fig b[FB_N];
	double		 tokens_out, tokens_in;
	bool		 has_tok_out, has_tok_in;
	unsigned	 targets, down;		/* health of its targets */
	uint64_t	 gpu_has;		/* bit g: ib->gpu_e[g] set */
	unsigned	 eng_has;		/* bit e: ib->eng_out[e] set */
	struct fleet_inband *ib;		/* owned; NULL until it has an
						   in-band GPU or engine (a
						   snapshot holds a node's
						   arrays only where used) */
	const struct wp_node *conf;		/* its config entry */
};

/* GPU g's namespace label, engine e's model label, or NULL. */
const char	*fleet_gpu_ns(const struct fleet_node *n, int g);
const char	*fleet_eng_model(const struct fleet_node *n, int e);

struct fleet_target {
	const char	*name, *protocol, *node;	/* node: "" if none */
	const char	*reason, *error;
	bool		 up;
	double		 duration_s;		/* last poll */
	wp_time		 last_poll, last_ok;	/* realtime, 0 never */
	unsigned long	 polls, failures;
	unsigned long	 resets;		/* counter resets seen */
	unsigned	 stale;			/* samples flagged stale */
	bool		 push, push_up;		/* takes pushed readings; its
						   channel delivers now */
	unsigned long	 push_reports[WP_PUSH_N];	/* by result */
	unsigned long	 push_refused[WP_PUSH_N];	/* values, by result */
	const char	*last_error_reason;	/* "" none since the start */
	wp_time		 last_error;		/* realtime, 0 never */
};

struct fleet_meter {
	const char	*name, *role;
	double		 energy, power;
	bool		 has_energy, has_power;
};

/* The exposition server's connections: open now, and those it closed for
 * want of room or past a deadline, or answered 429, since the start. */
struct http_stats {
	unsigned	open;
	unsigned long	refused;	/* closed at accept: no room */
	unsigned long	evicted;	/* idle, gave way to a new one */
	unsigned long	timed_out;	/* past a deadline */
	unsigned long	auth_limited;	/* answered 429 */
};

/* /metrics renders by this server so far: their time (snapshot, text,
 * compression) summed, the last one's, and their count; the last text's
 * size (the next one's first guess). */
struct expo_stats {
	double		 sum_s, last_s;
	unsigned long	 count;
	size_t		 last_bytes;
};

/* One PDU reading (outlet, inlet, phase, circuit) for /metrics, 48 bytes:
 * a snapshot holds one per PDU reading of the fleet.  The PDU a reading
 * names is its target, or "<target>-u<unit>" for a unit behind a shared
 * agent (fleet_pdu_name). */
struct fleet_pdu_reading {
	const char	*target;	/* the PDU target (borrowed) */
	const char	*role;		/* "outlet", "inlet", "phase", "circuit" */
	double		 value;		/* gauge, or reset-corrected cumulative */
	uint32_t	 unit;		/* with has_unit: the series' "u<unit>/" */
	char		 index[12];	/* the number in the series */
	uint8_t		 quantity;	/* WP_Q_* */
	bool		 has_unit;
};

#define FLEET_PDU_NAME_LEN	96	/* room for fleet_pdu_name */

struct fleet {
	wp_time		 now;			/* realtime of the snapshot */
	const struct wp_conf *conf;		/* borrowed: tenants, engines */
	const struct expo_attr *attr;		/* borrowed: the attribution
						   counters' state, or NULL */
	const char	*site;			/* "" if unset */
	unsigned	 shard_index, shard_count; /* count 0: unsharded */
	struct fleet_node *nodes;
	size_t		 n_nodes;
	struct fleet_target *targets;
	size_t		 n_targets, cap_targets;
	struct fleet_meter *meters;
	size_t		 n_meters;
	/* totals over nodes (n_*: nodes contributing) and meters */
	struct fleet_fig total[FB_N];
	size_t		 n_total[FB_N];
	struct fleet_cover cov[FB_N];	/* coverage of the fleet */
	struct fleet_class *classes;	/* in node order */
	size_t		 n_classes;
	double		 tokens_out, tokens_in;
	double		 fac_energy, it_energy, fac_power, it_power;
	bool		 has_fac_e, has_it_e, has_fac_p, has_it_p;
	size_t		 targets_up, targets_down;
	struct fleet_pdu_reading *pdu;	/* every PDU target's readings, with
					   FLEET_PDU_READINGS */
	size_t		 n_pdu, cap_pdu;
	/* the collector's storage, when the snapshot's source has one */
	struct ingest_health storage;
	bool		 has_storage;
	/* the exposition server's own connections, when it serves this */
	struct http_stats http;
	bool		 has_http;
	/* the collector process itself, its reloads, its /metrics renders,
	 * when the snapshot's source is a running collector */
	struct proc_stats proc;
	bool		 has_proc;
	struct collector_reloads reloads;
	bool		 has_reloads;
	/* the push listener's refusals of POSTs naming no target */
	unsigned long	 push_listen_refused[WP_PUSH_N];
	bool		 has_push_listen;
	struct expo_stats expo;
	bool		 has_expo;
};

/* Visits target views, like collector_each_target. */
typedef int (*fleet_each_fn)(const void *src,
    int (*fn)(const struct target_view *, void *), void *arg);

/* What a snapshot holds beyond nodes, meters, targets and totals. */
#define FLEET_PDU_READINGS	0x1	/* every PDU reading (f->pdu) */

/*
 * Builds a snapshot of conf's nodes and meters from the views each(src)
 * visits, with what (FLEET_*) asks for besides.  Returns a new fleet
 * (caller frees with fleet_free), NULL when out of memory.
 */
struct fleet	*fleet_build(const struct wp_conf *c, fleet_each_fn each,
		    const void *src, wp_time now, unsigned what);
/* The PDU r names: its target's name, or "<target>-u<unit>" written into
 * buf (room for len: FLEET_PDU_NAME_LEN; the target's name cut to fit,
 * "" when len cannot hold "-u<unit>"). */
const char	*fleet_pdu_name(const struct fleet_pdu_reading *r, char *buf,
		    size_t len);
void		 fleet_free(struct fleet *f);
/* The node named name, or NULL (linear: for one lookup). */
const struct fleet_node *fleet_node(const struct fleet *f, const char *name);
const char	*fleet_boundary_name(int b);	/* "wall", "gpu", "outlet" */
const char	*fleet_method_name(int m);	/* "counter", "gauge-estimated" */
/* covered / nodes, NAN with no nodes. */
double		 fleet_coverage(const struct fleet_cover *c);

#endif
