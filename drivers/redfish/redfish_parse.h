/*
 * redfish_parse.h - pure decode of one Redfish resource into readings.
 *
 * rf_parse_resource() looks at a parsed JSON document (json-c) fetched at
 * uri and appends every power or energy reading it carries, in SI units
 * with the raw value and unit as the device gave them, plus provenance:
 * the Redfish property ("EnvironmentMetrics.EnergyJoules"), DataSourceUri,
 * SensorResetTime, LifetimeReading, ReadingTime, averaging window.  It
 * understands EnvironmentMetrics, Sensor (and SensorCollections with
 * members inlined), PowerSupplyMetrics, the legacy Power resource
 * (PowerControl, PowerSupplies), PowerDistributionMetrics, Outlet, Circuit
 * (PDU mains), the HPE/Hp OEM PowerMeter and TelemetryService MetricReports
 * (MetricValues naming an EnvironmentMetrics EnergyJoules or PowerWatts:
 * keyed as that excerpt, uri the report).  No I/O, no state.
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

/* Where a reading comes from, in the order of preference. */
enum rf_src {
	RF_SRC_ENV_ENERGYJ = 0,	/* EnvironmentMetrics.EnergyJoules */
	RF_SRC_SENSOR_ENERGYJ,	/* Sensor, ReadingType EnergyJoules */
	RF_SRC_ENV_ENERGYKWH,	/* EnvironmentMetrics.EnergykWh */
	RF_SRC_SENSOR_ENERGYKWH, /* Sensor, ReadingType EnergykWh */
	RF_SRC_PSU_ENERGYKWH,	/* PowerSupplyMetrics.EnergykWh */
	RF_SRC_PSU_POWER,	/* PowerSupplyMetrics.InputPowerWatts */
	RF_SRC_ENV_POWER,	/* EnvironmentMetrics.PowerWatts */
	RF_SRC_SENSOR_POWER,	/* Sensor, ReadingType Power */
	RF_SRC_POWERCONTROL,	/* Power.PowerControl[].PowerConsumedWatts */
	RF_SRC_LEGACY_PSU_IN,	/* Power.PowerSupplies[].PowerInputWatts */
	RF_SRC_OEM,		/* vendor OEM meter: last resort */
	RF_SRC_PDU,		/* Outlet, Circuit, PowerDistributionMetrics */
	RF_SRC_OTHER		/* outputs, components: listed only */
};

/* Where the reading sits, from PhysicalContext and the resource. */
enum rf_scope {
	RF_SCOPE_CHASSIS = 0,	/* the whole chassis (or no context given) */
	RF_SCOPE_PSU,		/* one power supply, input side */
	RF_SCOPE_OUTPUT,	/* an output side (PSU output, rails) */
	RF_SCOPE_COMPONENT	/* CPU, memory, fans...: never a boundary */
};

struct rf_reading {
	char	 key[RF_URI_MAX + 48];
	char	 uri[RF_URI_MAX];	/* resource the reading came from */
	char	 ds_uri[RF_URI_MAX];	/* DataSourceUri, or "" */
	char	 source[48];		/* "EnvironmentMetrics.EnergyJoules" */
	char	 id[64];		/* Sensor / outlet / member Id */
	int	 src;			/* enum rf_src */
	int	 scope;			/* enum rf_scope */
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
	int	 owner;			/* set by the caller (discovery) */
};

struct rf_readings {
	struct rf_reading *v;		/* owned; rf_readings_fini frees */
	size_t		 n, cap;
	size_t		 dropped;	/* absurd values left out */
	char		 dropped_why[160];	/* the first one's */
};

void	 rf_readings_init(struct rf_readings *r);
void	 rf_readings_fini(struct rf_readings *r);
/* Empties r but keeps its array for the next poll (no reallocation). */
void	 rf_readings_clear(struct rf_readings *r);
int	 rf_readings_add(struct rf_readings *r, const struct rf_reading *x);
/* Finds a reading by key (borrowed), or NULL. */
const struct rf_reading *rf_readings_find(const struct rf_readings *r,
	    const char *key);

/*
 * Appends the readings of doc (fetched at uri) to out.  Readings whose value
 * is null or absent are skipped; a value of the wrong type or an absurd one
 * is an error (WP_E_PROTOCOL) naming the property.  Returns the number of
 * readings added, or -1.
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
 * time, lifetime and reading time; the Sensor entry is removed.
 */
void	 rf_readings_merge(struct rf_readings *r);

/* Name of a source for labels: "EnvironmentMetrics.EnergyJoules"... */
const char *rf_src_name(int src);

#endif
