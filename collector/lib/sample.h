/*
 * sample.h - one reading as a driver reports it.
 *
 * A driver fills a struct wp_sample with what the device said, in SI units
 * (W, J, tokens) plus the raw value and unit as read.  The core stamps the
 * collector times, runs counters through model/counter.c and hands the result
 * to the journal and the store.  A sample is a plain value: no pointers, so
 * it can be copied, journaled and compared freely.
 *
 * Series names are stable identifiers within a target, made of
 * [A-Za-z0-9_.:/-] only, e.g. "chassis/1U/energy", "outlet/7/power",
 * "gpu/0/energy", "tokens/output".  The same series always has the same
 * boundary, quantity and kind.
 */
#ifndef WP_SAMPLE_H
#define WP_SAMPLE_H

#include <stdint.h>

#include "clock.h"

enum wp_quantity {
	WP_Q_POWER = 0,		/* W */
	WP_Q_ENERGY,		/* J */
	WP_Q_TOKENS,		/* tokens */
	WP_Q_OTHER,		/* a value kept for context (limits, load) */
	/*
	 * AC quantities of their own (PDUs): never W or J, never integrated
	 * into energy, never summed into a boundary's power.
	 */
	WP_Q_APPARENT_POWER,	/* VA */
	WP_Q_REACTIVE_POWER,	/* var */
	WP_Q_APPARENT_ENERGY	/* VAh */
};
#define WP_Q_LAST	WP_Q_APPARENT_ENERGY

enum wp_kind {
	WP_GAUGE = 0,		/* a level read at one instant (or averaged) */
	WP_COUNTER		/* cumulative since some reset */
};

enum wp_boundary {
	WP_B_NONE = 0,		/* tokens and context values */
	WP_B_GPU,		/* per GPU board */
	WP_B_MODULE,		/* a counter covering CPU+GPU (GH200) */
	WP_B_WALL,		/* node input, PSU AC side */
	WP_B_OUTLET,		/* PDU outlet */
	WP_B_PDU,		/* PDU inlet or total */
	WP_B_FACILITY,		/* site meters */
	WP_B_COMPONENT		/* CPU, memory...: listed, never a boundary */
};

/* Flags: what the driver knows, and what the core adds at ingest. */
#define WP_F_ESTIMATED	0x0001	/* value is modelled or integrated */
#define WP_F_STALE	0x0002	/* unchanged for too long while others move */
#define WP_F_RESET	0x0004	/* device says its counter restarted */
#define WP_F_WRAPPED	0x0008	/* core: counter wrapped since last poll */
#define WP_F_AVERAGED	0x0010	/* gauge is a device-side average (window in avg_window) */
#define WP_F_OEM	0x0020	/* vendor OEM source, last resort */
#define WP_F_CROSSCHECK	0x0040	/* a second source kept for comparison only */
#define WP_F_HELD	0x0080	/* core: counter dip held as unknown */
#define WP_F_DISCONT	0x0100	/* core: delta not usable (first reading, reset) */
#define WP_F_RESETTABLE	0x0200	/* a user can reset this counter: a drop is a
				   reset (the driver gives no wrap unless the
				   device documents one) */

#define WP_SERIES_MAX	96
#define WP_UNIT_MAX	16
#define WP_LABEL_MAX	192	/* < 256: the journal stores one length byte */

struct wp_sample {
	char	 series[WP_SERIES_MAX];
	uint8_t	 boundary;	/* enum wp_boundary */
	uint8_t	 quantity;	/* enum wp_quantity */
	uint8_t	 kind;		/* enum wp_kind */
	uint32_t flags;		/* WP_F_* */
	double	 value;		/* SI: W, J or tokens */
	double	 raw_value;	/* as read from the device */
	char	 raw_unit[WP_UNIT_MAX];	/* "kWh", "mJ", "W", "0.1kWh"... */
	double	 resolution;	/* one step of the instrument, SI; 0 unknown */
	double	 wrap;		/* counter modulus in SI (2^32 steps...), 0 none */
	wp_time	 device_time;	/* realtime the device stamped, 0 none */
	wp_time	 reset_time;	/* device's counter reset epoch, 0 unknown */
	wp_time	 avg_window;	/* device-side averaging window, 0 none */
	wp_time	 t_real;	/* collector realtime; core fills if 0 */
	wp_time	 t_mono;	/* collector monotonic; core fills if 0 */
	/* Free-form context "k=v;k=v": gpu uuid, model, direction... */
	char	 labels[WP_LABEL_MAX];
};

/* Fills a sample with defaults and a series name; truncation is an error. */
int	 sample_init(struct wp_sample *s, const char *series, int boundary,
	    int quantity, int kind);
/* Sets raw_unit (truncated to fit). */
void	 sample_set_unit(struct wp_sample *s, const char *unit);
/* Appends "key=value" to labels; returns -1 if it does not fit. */
int	 sample_add_label(struct wp_sample *s, const char *key, const char *value);
/* Finds a label's value; copies it into buf.  Returns 0 or -1. */
int	 sample_get_label(const struct wp_sample *s, const char *key, char *buf,
	    unsigned long len);
/*
 * Checks a sample before it is accepted: finite value, a valid series name,
 * enum ranges, non-negative energy and power below an absurd bound (100 MW;
 * counters below 1e18 J).  Returns 0, or -1 with a reason in err.
 */
struct wp_err;
int	 sample_validate(const struct wp_sample *s, struct wp_err *err);

const char *boundary_name(int boundary);	/* "gpu", "wall"... */
int	 boundary_parse(const char *s);		/* -1 if unknown */
const char *quantity_name(int quantity);	/* "power", "energy"... */
int	 quantity_parse(const char *s);		/* -1 if unknown */
const char *kind_name(int kind);		/* "gauge", "counter" */
/* Base unit of a quantity: "W", "J", "tokens", "", "VA", "var", "VAh". */
const char *quantity_unit(int quantity);

#endif
