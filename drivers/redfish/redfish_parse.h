/*
 * redfish_parse.h - pure decode of one Redfish resource into readings.
 *
 * rf_parse_resource() looks at a parsed JSON document (json-c) fetched at
 * uri and appends every power or energy reading it carries, in SI units
 * with the raw value and unit as the device gave them, plus provenance:
 * the Redfish property ("EnvironmentMetrics.EnergyJoules"), DataSourceUri,
 * SensorResetTime, LifetimeReading, ReadingTime, averaging window.  It
 * understands EnvironmentMetrics, Sensor (ReadingType Power, EnergyJoules,
 * EnergykWh, EnergyWh, or no ReadingType and ReadingUnits W, J, kW.h, W.h;
 * SensorCollections with members inlined), PowerSupplyMetrics, the legacy
 * Power resource (PowerControl PowerConsumedWatts and PowerMetrics
 * AverageConsumedWatts, PowerSupplies), PowerDistributionMetrics, Outlet,
 * Circuit (PDU mains), the HPE/Hp OEM power meters (PowerMeter,
 * FastPowerMeter), the Lenovo XClarity SystemInputPower history
 * (LenovoHistoryMetricValueContainer) and TelemetryService MetricReports
 * (MetricValues naming an excerpt of known unit: keyed as that excerpt,
 * uri the report; Dell's MetricId SystemInputPower with an Oem.Dell part:
 * "uri#/Oem/Dell/SystemInputPower", an OEM meter).  No I/O, no state.
 *
 * Each reading gets a role from what it is (a PSU's input, an output, a
 * component) by PhysicalContext, PhysicalSubContext and its Id/Name
 * (rf_role_of); discovery decides which chassis and node it belongs to.
 * A null or absent value is no reading; a Sensor whose Status.State is
 * Absent or Disabled is kept as a marker (absent = true, never a value) so
 * that an excerpt citing it is known to cite nothing.
 *
 * A reading's key identifies it across polls: the resource URI for a
 * Sensor, "uri#/Property" for an excerpt, "uri#/PowerControl/N" for a
 * legacy array member.  rf_readings_merge() folds an excerpt and the
 * Sensor its DataSourceUri cites into one reading.
 */
#ifndef WP_REDFISH_PARSE_H
#define WP_REDFISH_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../collector/lib/clock.h"
#include "../../collector/lib/err.h"

struct json_object;

#define RF_URI_MAX	256

/* What a reading is (its resource and property); the ranking is
 * discovery's (docs/redfish.md, "Which figure is the node's wall"). */
enum rf_src {
	RF_SRC_ENV_ENERGYJ = 0,	/* EnvironmentMetrics.EnergyJoules */
	RF_SRC_SENSOR_ENERGYJ,	/* Sensor, ReadingType EnergyJoules */
	RF_SRC_ENV_ENERGYKWH,	/* EnvironmentMetrics.EnergykWh */
	RF_SRC_SENSOR_ENERGYKWH, /* Sensor, ReadingType EnergykWh or EnergyWh */
	RF_SRC_PSU_ENERGYKWH,	/* PowerSupplyMetrics.EnergykWh */
	RF_SRC_PSU_POWER,	/* PowerSupplyMetrics.InputPowerWatts */
	RF_SRC_ENV_POWER,	/* EnvironmentMetrics.PowerWatts */
	RF_SRC_SENSOR_POWER,	/* Sensor, ReadingType Power */
	RF_SRC_POWERCONTROL,	/* Power.PowerControl[].PowerConsumedWatts */
	RF_SRC_PC_AVERAGE,	/* ...PowerMetrics.AverageConsumedWatts */
	RF_SRC_LEGACY_PSU_IN,	/* Power.PowerSupplies[].PowerInputWatts */
	RF_SRC_OEM,		/* vendor OEM meter: last resort */
	RF_SRC_PDU,		/* Outlet, Circuit, PowerDistributionMetrics */
	RF_SRC_OTHER		/* outputs: listed only */
};

/* The part of the power path a reading measures. */
enum rf_role {
	RF_ROLE_INPUT = 0,	/* a whole chassis or node, input side */
	RF_ROLE_BOARD,		/* the system board (PhysicalContext SystemBoard) */
	RF_ROLE_PSU,		/* one power supply or rectifier, input side */
	RF_ROLE_OUTPUT,		/* an output (PSU outputs, DC bus, branches) */
	RF_ROLE_COMPONENT	/* CPU, GPU, memory, rail, fan...: never wall */
};

struct rf_reading {
	char	 key[RF_URI_MAX + 48];
	char	 uri[RF_URI_MAX];	/* resource the reading came from */
	char	 ds_uri[RF_URI_MAX];	/* DataSourceUri, or "" */
	char	 source[64];		/* "EnvironmentMetrics.EnergyJoules" */
	char	 id[64];		/* Sensor / outlet / member Id */
	char	 name[64];		/* its Name, or "" */
	char	 related[RF_URI_MAX];	/* first RelatedItem, or "" */
	int	 src;			/* enum rf_src */
	int	 role;			/* enum rf_role */
	int	 quantity;		/* WP_Q_POWER or WP_Q_ENERGY */
	int	 kind;			/* WP_GAUGE or WP_COUNTER */
	double	 value;			/* SI: W or J */
	double	 raw_value;
	char	 raw_unit[16];
	double	 resolution;		/* SI, 0 unknown */
	double	 lifetime;		/* LifetimeReading in SI, NAN absent */
	wp_time	 reset_time;		/* SensorResetTime, 0 none */
	wp_time	 device_time;		/* ReadingTime, 0 none */
	wp_time	 avg_window;		/* PowerMetrics.IntervalInMin... */
	uint32_t flags;			/* WP_F_OEM, WP_F_AVERAGED */
	bool	 ds_found;		/* merged with the cited Sensor */
	bool	 absent;		/* Status.State Absent/Disabled: no value */
	bool	 ds_disagree;		/* the excerpt and its Sensor differed
					   by more than 10 %: the Sensor's kept */
	double	 ds_value;		/* the excerpt's own value, then */
	int	 coll_n;		/* read inlined in a collection of this
					   many members (uri is the collection),
					   0 when read from its own resource */
	int	 owner;			/* set by the caller (discovery) */
};

struct rf_readings {
	struct rf_reading *v;		/* owned; rf_readings_fini frees */
	size_t		 n, cap;
	size_t		 dropped;	/* absurd values left out */
	char		 dropped_why[160];	/* the first one's */
	/* Members of an inlined collection that could not be read (the
	 * others still are): how many, and the last one's error. */
	int		 n_problem;
	char		 problem[WP_ERR_MSG];
};

void	 rf_readings_init(struct rf_readings *r);
void	 rf_readings_fini(struct rf_readings *r);
/* Empties r (and its problems) but keeps its array for the next poll. */
void	 rf_readings_clear(struct rf_readings *r);
int	 rf_readings_add(struct rf_readings *r, const struct rf_reading *x);
/* Finds a reading by key (borrowed), or NULL. */
const struct rf_reading *rf_readings_find(const struct rf_readings *r,
	    const char *key);

/*
 * Appends the readings of doc (fetched at uri) to out.  Readings whose value
 * is null or absent are skipped; a value of the wrong type or an absurd one
 * is an error (WP_E_PROTOCOL) naming the property.  Returns the number of
 * readings added (absent markers count), or -1.
 */
int	 rf_parse_resource(const char *uri, struct json_object *doc,
	    struct rf_readings *out, struct wp_err *err);

/*
 * Parses text into a JSON object (caller frees with json_object_put).
 * Refuses empty, truncated, non-object and HTML bodies with a clear
 * message.  NULL on error.
 */
struct json_object *rf_json_parse(const char *body, size_t len,
	    struct wp_err *err);

/* "#Sensor.v1_2_0.Sensor" -> "Sensor" into buf; "" if absent. */
void	 rf_odata_type(struct json_object *doc, char *buf, size_t len);
/* The "@odata.id" of an object member key (or of doc if key is NULL). */
const char *rf_link(struct json_object *doc, const char *key);

/*
 * Folds each excerpt whose DataSourceUri names a Sensor also in r into one
 * reading: the excerpt keeps its source name and gains the Sensor's reset
 * time, lifetime and reading time; the Sensor entry is removed.  The
 * Sensor is the source of the excerpt's data: where the two differ by more
 * than 10 % (and 1 W or 1 J) the Sensor is kept instead, marked
 * ds_disagree with the excerpt's value in ds_value; an excerpt citing an
 * absent Sensor becomes absent.
 */
void	 rf_readings_merge(struct rf_readings *r);


/* Name of a source for labels: "EnvironmentMetrics.EnergyJoules"... */
const char *rf_src_name(int src);

#endif
