/*
 * redfish_model.h - what discovery learns about a Redfish service, shared
 * by the walker (redfish_discover.c), the choice of sources
 * (redfish_choose.c) and the poll plan (redfish_plan.c).  Pure data and
 * small helpers on it; no I/O.
 *
 * The walker fills a struct rf_disc: the service's chassis, systems and
 * managers as records (links kept as URIs, trailing '/' removed), every
 * power or energy reading with its owner (a chassis index, or one of the
 * OWN_* tags), and notes: what could not be read or was skipped, and why.
 * The chooser adds the series and marks what it chose.  Everything lives
 * as long as the walker; strings handed out are borrowed from it.
 */
#ifndef WP_REDFISH_MODEL_H
#define WP_REDFISH_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/err.h"
#include "redfish_discover.h"
#include "redfish_parse.h"

struct json_object;

#define MAX_FETCH	4096	/* requests in one walk */
#define MAX_CHASSIS	256
#define MAX_SYSTEMS	64
#define MAX_MANAGERS	16
#define MAX_GPUS	64
#define MAX_REPORTS	16
#define MAX_NOTES	64
#define RF_LINKS	8	/* links kept per kind (PoweredBy...) */
#define CHAIN_MAX	8	/* hops outward from a system's chassis */
#define OWN_GPU		10000	/* owner tags beyond chassis indices */
#define OWN_OUTLET	20000
#define OWN_MAIN	30000
#define OWN_PDM		40000
#define OWN_REPORT	50000	/* a MetricReport's reading, not yet placed */
#define OWN_PROC	60000	/* a processor or memory's own: component */
#define OWN_NONE	-1
#define OWN_DROP	-2	/* folded into another reading */

enum role {
	R_ROOT, R_CHASSIS_COLL, R_CHASSIS, R_SYS_COLL, R_SYSTEM, R_MGR_COLL,
	R_MGR, R_ENV, R_SENSORS, R_SENSOR, R_PSUBSYS, R_PSU_COLL, R_PSU,
	R_PSU_METRICS, R_POWER, R_OEM_METER, R_PROC_COLL, R_PROC, R_PEQ,
	R_RACKPDUS, R_RACKPDU, R_OUTLETS, R_OUTLET, R_MAINS, R_MAIN, R_PDM,
	R_GPU_CHASSIS_ENV, R_TELEMETRY, R_REPORTS, R_REPORT, R_OEM_COLL
};

struct item {
	char	*uri;		/* owned by the queue */
	char	*alt;		/* retried when uri is dangling, or NULL */
	int	 role;
	int	 owner;
	bool	 expanded;	/* asked with $expand: members are resources */
};

struct gpu {
	char	 id[64];		/* label name= of gpu/<i> */
	char	 base[RF_URI_MAX];	/* its resource */
};

/* Memory that lives as long as the walker (series names, pick arrays). */
struct blk {
	struct blk *next;
	max_align_t data[];
};

struct chassis {
	char	 uri[RF_URI_MAX];
	char	 id[64], name[64], type[32], power_state[16];
	char	 vendor[64], model[128];
	char	 parent[RF_URI_MAX];		/* ContainedBy */
	char	 fed_by[RF_LINKS][RF_URI_MAX];	/* PoweredBy's chassis */
	char	 contains[2 * RF_LINKS][RF_URI_MAX];	/* Links.Contains */
	char	 systems[RF_LINKS][RF_URI_MAX];	/* Links.ComputerSystems */
	char	 manager[RF_URI_MAX];		/* Links.ManagedBy[0] */
	char	 pdu[RF_URI_MAX];	/* Links.PowerDistribution: a PDU's */
	char	 env[RF_URI_MAX], sensors[RF_URI_MAX], psub[RF_URI_MAX];
	char	 power[RF_URI_MAX];
	int	 n_fed_by, n_systems, n_contains;
	bool	 contains_more;	/* Links.Contains listed more than kept */
	bool	 gpu;		/* stands for one GPU (HGX_GPU_SXM_1) */
	bool	 component;	/* a part (GPU, CPLD, module, cooling...) */
	bool	 part_name;	/* named as a part (rf_names_part) */
	bool	 walked;	/* its power resources were asked for */
	int	 psu_listed;	/* supplies in PowerSubsystem */
	int	 psu_absent;	/* ...whose Status.State is Absent/Disabled */
	int	 legacy_listed;	/* supplies in the legacy Power */
	int	 legacy_absent;
};

struct system {
	char	 uri[RF_URI_MAX];
	char	 id[64], name[64], power_state[16];
	char	 vendor[64], model[128];
	char	 chassis[RF_LINKS][RF_URI_MAX];	/* Links.Chassis */
	char	 manager[RF_URI_MAX];		/* Links.ManagedBy[0] */
	char	 processors[RF_URI_MAX];
	int	 n_chassis;
	bool	 in_node;	/* one of the systems this node stands for */
};

struct manager {
	char	 uri[RF_URI_MAX];
	char	 type[32], vendor[64], model[128], firmware[64];
};

struct rf_disc {
	int		 mode;
	int		 phase;
	char		 want_system[64];	/* bmc: system:, or "" */
	struct item	*q;
	size_t		 head, n, cap;
	struct chassis	*ch;		/* grown as found, up to MAX_CHASSIS */
	size_t		 n_ch, cap_ch;
	struct system	*sys;
	size_t		 n_sys, cap_sys;
	struct manager	 mgr[MAX_MANAGERS];
	size_t		 n_mgr;
	int		 n_gpu_proc, n_gpu, cap_gpu;
	struct gpu	*gpu;
	struct blk	*pool;
	bool		 have_pdu, have_pdu_coll;
	char		 expand[32];	/* "$expand=..." the service takes, or "" */
	int		 requests;	/* GETs asked for (rf_disc_next) */
	int		 skipped_names;	/* Sensors not fetched: not power by Id */
	int		 skipped_parts;	/* ...a component by Id (node mode) */
	int		 dropped;	/* links over a bound, never fetched */
	struct rf_readings rd;
	struct rf_plan	 plan;
	struct rf_series *series;
	size_t		 n_series, cap_series;
	struct rf_found	*found;
	size_t		 n_found;
	const char	*notes[MAX_NOTES];	/* pool strings */
	size_t		 n_notes;
	int		 notes_dropped;	/* beyond MAX_NOTES (or ENOMEM) */
	int		 quiet;		/* > 0: rf_note says nothing (trials) */
	char		 problem[WP_ERR_MSG];
	char		 pdu_vendor[64], pdu_model[128], pdu_firmware[64];
	bool		 planned;
	int		 plan_rc;
	struct wp_err	 plan_err;
};

/* Zeroed memory freed with the walker; NULL on ENOMEM. */
void	*rf_pool_alloc(struct rf_disc *d, size_t size);
/* Grows *v (n used, *cap slots of size each) by doubling from first; 0, or
 * -1 on ENOMEM. */
int	 rf_grow(void **v, size_t n, size_t *cap, size_t size, size_t first);
/* Adds a note (printf-like, shortened to WP_ERR_MSG) to d once; the
 * first MAX_NOTES are kept, the others counted in notes_dropped. */
void	 rf_note(struct rf_disc *d, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* src into dst (len bytes), "" for NULL, a trailing '/' removed. */
void	 rf_copy_uri(char *dst, size_t len, const char *src);
void	 rf_copy(char *dst, size_t len, const char *src);
/* A string member of o, or NULL (o may be NULL). */
const char *rf_str(struct json_object *o, const char *key);
/* The i-th "@odata.id" of Links.<key> (array or object), or NULL. */
const char *rf_link_in(struct json_object *doc, const char *key, size_t i);
/* Are two URIs the same resource (trailing '/' and case of nothing
 * else ignored)? */
bool	 rf_same_uri(const char *a, const char *b);

struct chassis *rf_chassis_by_uri(struct rf_disc *d, const char *uri);
struct system *rf_system_by_uri(struct rf_disc *d, const char *uri);
const struct manager *rf_manager_by_uri(const struct rf_disc *d,
	    const char *uri);
/* Index of chassis c in d. */
int	 rf_chassis_index(const struct rf_disc *d, const struct chassis *c);
/* Does system s have chassis c as its own (linked either way, or the
 * same Id)? */
bool	 rf_system_has(const struct system *s, const struct chassis *c);

#endif
