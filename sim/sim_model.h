/*
 * sim_model.h - the simulated AI fleet as a pure function of time.
 *
 * Every node runs a periodic load profile made of phases whose lengths are
 * whole ticks (100 ms).  Within a phase every quantity is constant: GPU
 * load u gives GPU power, host power (a fixed part, CPU load, fans with the
 * cube law), a PSU efficiency curve gives wall power, tokens flow at fixed
 * rates.  Energy is therefore exactly piecewise linear in time, and
 * sim_node_cum() returns the exact integral from the epoch to t in O(log n)
 * (whole periods times the period energy, plus a prefix sum).
 *
 * The facility adds PDU overhead and rack network gear (IT load), UPS
 * losses (fixed + proportional), cooling whose coefficient depends on the
 * outdoor temperature (constant within each UTC hour) and other loads.  Each
 * is linear in IT energy within an hour, so sim_fac_energy() is exact too.
 *
 * Everything follows from (seed, fleet options): `wattpath-sim truth` in a
 * separate process computes the same numbers the server serves.  The model
 * is read-only after sim_fleet_new(), so threads share it freely.
 */
#ifndef SIM_MODEL_H
#define SIM_MODEL_H

#include <stdint.h>

#define SIM_TICK	0.1	/* s: phase granularity */
#define SIM_GPUS	8	/* GPUs per node */
#define SIM_GPU_IDLE_W	70.0
#define SIM_GPU_MAX_W	700.0
/*
 * --shared K: the last K nodes are shared by two models: engine0 serves
 * SIM_MODEL_A on GPUs 0..3, engine1 SIM_MODEL_B on GPUs 4..6, GPU 7 stays
 * idle (load 0 in every phase); engine0 counts SIM_SHARE_A of the node's
 * tokens (floored), engine1 the rest.  Other nodes serve SIM_MODEL_A.
 */
#define SIM_MODEL_A	"llama-3.1-70b"
#define SIM_MODEL_B	"mistral-7b"
#define SIM_NS_A	"search"	/* serve: their dcgm namespaces */
#define SIM_NS_B	"chat"
#define SIM_SHARE_A	0.7
#define SIM_SHARED_A_GPUS	4	/* engine0: GPUs 0..3 */
#define SIM_IDLE_GPU	(SIM_GPUS - 1)
/*
 * --pod-move T (with --shared): at T engine0's pod on GPU SIM_MOVE_FROM
 * moves to the idle GPU SIM_IDLE_GPU: from T that GPU serves SIM_MODEL_A
 * (namespace SIM_NS_A in dcgm's labels) and SIM_MOVE_FROM idles.  Energy
 * stays exact (the integral to T, then the moved layout's).
 */
#define SIM_MOVE_FROM	3

/*
 * --cap-sweep LO:HI:STEP: the GPUs' power limit steps through LO, LO+STEP,
 * .. HI, each held --cap-dwell seconds (segments start at whole multiples
 * of the dwell since the epoch, every node together), cycling.  Under a
 * limit L below the phase's uncapped GPU power g0, the dynamic part of the
 * power is cut to f = (L - idle) / (g0 - idle), tokens flow at f^SIM_CAP_EXP
 * of their rate (clocks fall, the work per clock does not), and the host's
 * fans follow the GPUs (load u f).  The dwell must be a whole number of
 * every node's load period, so each segment's energy is exact.
 */
#define SIM_CAPS_MAX	16
#define SIM_CAP_EXP	0.5

enum sim_profile { SP_SEED, SP_BURSTY, SP_STEADY, SP_IDLE, SP_N, SP_MIX };
enum sim_shape { SS_JOULES, SS_KWH, SS_WATTS, SS_LEGACY, SS_N, SS_MIX };

struct sim_phase {
	uint32_t	 ticks;		/* length */
	double		 u;		/* GPU load 0..1 */
	double		 out_rate;	/* output tokens/s */
	double		 in_rate;	/* prompt tokens/s */
};

/* What a node has consumed from the epoch to t (J, tokens). */
struct sim_cum {
	double	 gpu[SIM_GPUS];
	double	 gpu_total;
	double	 dc;		/* PSU output */
	double	 wall;		/* PSU input, AC */
	double	 out_tok, in_tok;
};

struct sim_node {
	int		 profile;	/* enum sim_profile */
	int		 shape;		/* enum sim_shape: how the BMC reports */
	int		 rack, pdu_a, pdu_b, outlet;	/* pdu -1: none */
	double		 share_a;	/* fraction of wall power on pdu_a */
	double		 gpu_k[SIM_GPUS];	/* per-GPU power scale */
	double		 shift;		/* phase shift, s */
	struct sim_phase *ph;
	uint32_t	 n_ph;
	double		*t0;		/* phase start within the period, s */
	struct sim_cum	*pre;		/* integral from period start to t0[i] */
	double		 period;	/* s */
	struct sim_cum	 per;		/* integral over one period */
	double		 reset;		/* counters' reset epoch (s) */
	int		 shared;	/* two models, an idle GPU (--shared) */
	/* --cap-sweep: the schedule (borrowed from the fleet's options) and
	 * per limit the integral over one period and the prefix sums */
	const double	*caps;
	int		 n_caps;
	double		 dwell;
	struct sim_cum	*cper;		/* n_caps */
	struct sim_cum	*cpre;		/* n_caps x n_ph */
	/* --pod-move: from move_t (INFINITY: never) the moved layout, its
	 * integral over one period and prefix sums */
	double		 move_t;
	struct sim_cum	 mper;
	struct sim_cum	*mpre;		/* n_ph, or NULL */
};

/* Meters: the facility incomer, the UPS output (IT) and cooling, then
 * sub-meters of role other (row boards after the UPS: the IT energy
 * split evenly), up to SIM_MAX_METERS in all. */
#define SIM_MAX_METERS	64

struct sim_opts {
	int		 nodes, racks, pdus, meters;
	uint64_t	 seed;
	int		 profile;	/* enum sim_profile, SP_MIX default */
	int		 shape;		/* enum sim_shape, SS_MIX default */
	int		 shared;	/* the last nodes shared by two models */
	int		 n_caps;	/* --cap-sweep: 0 none */
	double		 caps[SIM_CAPS_MAX];	/* W per GPU, ascending */
	double		 cap_dwell;	/* s each limit is held */
	double		 pod_move;	/* --pod-move T; NAN none */
};

struct sim_fleet {
	struct sim_opts	 o;
	struct sim_node	*node;
	double		 pdu_idle_w;	/* per PDU, on its inlet */
	double		 rack_net_w;	/* per rack: switches (IT, not on PDUs) */
};

/* Facility energy over a window (J). */
struct sim_fac {
	double	 wall;		/* sum of node wall energy */
	double	 it;		/* wall + PDU overhead + rack network */
	double	 ups_loss;
	double	 ups_in;	/* it + ups_loss */
	double	 cooling;
	double	 other;
	double	 total;		/* ups_in + cooling + other */
};

/* Builds the fleet; returns NULL with a message in err (size errlen). */
struct sim_fleet *sim_fleet_new(const struct sim_opts *o, char *err,
		    unsigned long errlen);	/* caller frees: sim_fleet_free */
void		 sim_fleet_free(struct sim_fleet *f);	/* NULL-safe */

/* Per-node instantaneous model (for one phase's load u). */
double		 sim_gpu_power(double u);	/* per GPU, W */
double		 sim_host_power(double u);	/* W, DC side */
double		 sim_psu_eff(double dc_w);	/* 0..1 */

/* Exact integral from the epoch to t (seconds since 1970). */
void		 sim_node_cum(const struct sim_node *n, double t,
		    struct sim_cum *c);
/* Exact integral over [a, b] (c = cum(b) - cum(a)). */
void		 sim_node_energy(const struct sim_node *n, double a, double b,
		    struct sim_cum *c);
/* Average power over [t - w, t] (what a sensor with window w shows). */
void		 sim_node_power(const struct sim_node *n, double t, double w,
		    struct sim_cum *p);
/* Instantaneous values at t (the phase in force). */
void		 sim_node_inst(const struct sim_node *n, double t,
		    struct sim_cum *p);

double		 sim_outdoor_temp(uint64_t seed, double t);	/* deg C */
void		 sim_fac_energy(const struct sim_fleet *f, double a, double b,
		    struct sim_fac *out);
/* PDU inlet energy over [a, b] (outlets + the PDU's own draw). */
double		 sim_pdu_energy(const struct sim_fleet *f, int pdu, double a,
		    double b);
/* Outlet energy of node n on pdu (0 if not fed by it). */
double		 sim_outlet_share(const struct sim_node *n, int pdu);

/* The GPU power limit in force at t (W per GPU; SIM_GPU_MAX_W without a
 * sweep), and its index in o->caps (-1 without). */
double		 sim_cap_at(const struct sim_opts *o, double t);
int		 sim_cap_index(const struct sim_opts *o, double t);

/* The model of GPU g of node n (-1: idle): 0 SIM_MODEL_A, 1 SIM_MODEL_B;
 * before any --pod-move, and at t. */
int		 sim_gpu_model(const struct sim_node *n, int g);
int		 sim_gpu_model_at(const struct sim_node *n, int g, double t);

const char	*sim_profile_name(int p);
int		 sim_profile_parse(const char *s);	/* -1 unknown */
const char	*sim_shape_name(int s);
int		 sim_shape_parse(const char *s);

/* Deterministic hashing for everything random. */
uint64_t	 sim_hash(uint64_t seed, uint64_t a, uint64_t b);
double		 sim_unif(uint64_t seed, uint64_t a, uint64_t b);	/* [0,1) */

#endif
