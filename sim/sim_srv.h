/*
 * sim_srv.h - the serving side of wattpath-sim: addresses, counters, and
 * the protocol front ends (Redfish/HTTPS, dcgm-exporter and vLLM /metrics,
 * Modbus TCP meters, SNMP PDUs) over one read-only fleet model.
 *
 * Address plan (addr_base 127.B.0.0): BMC i at 127.B.x.y, the node's host
 * (dcgm-exporter, vLLM) at 127.(B+1).x.y, PDU p at 127.(B+2).x.y, meter m
 * at 127.(B+3).x.y, with x.y = i / 254, i % 254 + 1.  Ports: Redfish
 * port_base, dcgm port_base+1, vLLM port_base+2, Modbus port_base+3, SNMP
 * (UDP) port_base+4.
 *
 * Counters are what a device that was reset some days before the server
 * started would show: energy from its reset epoch to now, computed exactly
 * from the model at request time.  Power gauges are 1 s averages.
 */
#ifndef SIM_SRV_H
#define SIM_SRV_H

#include <pthread.h>
#include <stdint.h>

#include "sim_model.h"

enum sim_kind { SK_BMC, SK_HOST, SK_PDU, SK_METER };

enum sim_port { SP_REDFISH, SP_DCGM, SP_VLLM, SP_MODBUS, SP_SNMP };

#define SIM_SESS_PER_BMC	16
#define SIM_SESS_TIMEOUT	600	/* s of inactivity */

struct sim_nstate {
	double		 t_bmc, t_gpu, t_eng, t_pdu;	/* reset epochs */
	struct sim_cum	 at_bmc, at_gpu, at_eng, at_pdu;
	uint32_t	 sessions;	/* open Redfish sessions */
};

struct sim_session;

struct sim_srv {
	const struct sim_fleet	*f;
	double		 start;		/* s since epoch */
	uint32_t	 addr_base;	/* host order, 127.B.0.0 */
	int		 port_base;
	char		 user[64], pass[128], community[64];
	double		 kwh_step;	/* EnergykWh resolution, kWh */
	int		 snmp_max_get;	/* > 0: GETs of more varbinds: tooBig */
	struct sim_nstate *ns;
	double		 t_meter;	/* meters' reset epoch */
	struct sim_fac	 meter_base;	/* energy from t_meter to start */
	double		*pdu_base;	/* inlet energy from t_meter to start */
	/* faults (issue 23): from fault_at, node drift_bmc's BMC reads high,
	 * ramping to +SIM_DRIFT over SIM_DRIFT_RAMP s (energy and power), and
	 * node dead_outlet's outlet on its first PDU stops metering (counter
	 * frozen, power 0) while the PDU's inlet still counts it; -1 none */
	int		 drift_bmc, dead_outlet;
	double		 fault_at;
	double		 drift_gain, drift_ramp;	/* SIM_DRIFT, _RAMP */
	int		 dead_pdu;	/* its SNMP address unbound; -1 none */
	pthread_mutex_t	 lock;		/* sessions */
	struct sim_session *sess;
	uint32_t	 next_sess;
};

uint32_t	 sim_addr(const struct sim_srv *s, int kind, int idx);
/* Index of a device from its address (host order), or -1. */
int		 sim_addr_index(const struct sim_srv *s, int kind, uint32_t a);
void		 sim_addr_str(uint32_t a, char *buf, unsigned long len);
int		 sim_port(const struct sim_srv *s, int which);
double		 sim_now(void);

/* Names used in the generated config and by truth. */
void		 sim_node_name(int i, char *buf, unsigned long len);
void		 sim_pdu_name(const struct sim_fleet *f, int p, char *buf,
		    unsigned long len);
/* Meter m's name: incomer-1, it-ups-1, cooling-1, then submeter-01... */
void		 sim_meter_name(int m, char *buf, unsigned long len);
const char	*sim_meter_role(int m);
/* Meter m's energy over [a, b] (J). */
double		 sim_meter_energy(const struct sim_fleet *f, int m, double a,
		    double b);

/* Sets up counter bases; returns 0 or -1 (out of memory). */
int		 sim_srv_init(struct sim_srv *s, const struct sim_fleet *f,
		    double start);
void		 sim_srv_fini(struct sim_srv *s);

/* Cumulative meter energy at t (J, from its reset). */
double		 sim_srv_meter_counter(const struct sim_srv *s, int m, double t);
/* Average meter power over [t - 1, t]. */
double		 sim_srv_meter_power(const struct sim_srv *s, int m, double t);
#define SIM_DRIFT	0.05
#define SIM_DRIFT_RAMP	3600.0
/* True when node n's outlet on pdu p no longer meters at t. */
int		 sim_srv_outlet_dead(const struct sim_srv *s, int n, int p,
		    double t);
/* Outlet counter (J) of node n on pdu p at t. */
double		 sim_srv_outlet_counter(const struct sim_srv *s, int n, int p,
		    double t);
double		 sim_srv_pdu_counter(const struct sim_srv *s, int p, double t);

/* What a BMC shows at t (wall side). */
struct sim_bmc_vals {
	double	 watts;		/* 1 s average, 0.1 W */
	double	 joules;	/* whole J since t_bmc */
	double	 kwh;		/* since t_bmc, floored to kwh_step */
	double	 avg60;		/* 60 s average, 0.1 W */
};
void		 sim_srv_bmc_vals(const struct sim_srv *s, int i, double t,
		    struct sim_bmc_vals *v);
/* GPU g's energy counter in whole mJ since t_gpu. */
double		 sim_srv_gpu_mj(const struct sim_srv *s, int i, int g, double t);
/* "GPU-xxxxxxxx-..." for GPU g of node i. */
void		 sim_gpu_uuid(const struct sim_srv *s, int i, int g, char *buf,
		    unsigned long len);
/* Whole tokens since t_eng. */
void		 sim_srv_tokens(const struct sim_srv *s, int i, double t,
		    double *out, double *in);

/* Engine e's share of them (--shared: engine0 SIM_SHARE_A floored,
 * engine1 the rest; else all on engine0). */
void		 sim_srv_engine_tokens(const struct sim_srv *s, int i, int e,
		    double t, double *out, double *in);
/* Front ends; each returns 0 or -1 with a message in err. */
struct sim_http;
struct sim_http	*sim_http_start(struct sim_srv *s, const char *ca_path,
		    char *err, unsigned long errlen);	/* sim_http_stop */
void		 sim_http_stop(struct sim_http *h);
struct sim_modbus;
struct sim_modbus *sim_modbus_start(struct sim_srv *s, char *err,
		    unsigned long errlen);		/* sim_modbus_stop */
void		 sim_modbus_stop(struct sim_modbus *m);

#endif
