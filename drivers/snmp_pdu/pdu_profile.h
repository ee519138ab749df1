/*
 * pdu_profile.h - vendor PDU profiles: which SNMP columns hold outlet and
 * inlet power and energy, in which unit and scale (etc/pdu-profiles/NAME.yaml).
 *
 * A profile names its MIB and revision, the sysObjectID prefixes that select
 * it under `profile: auto`, GETBULK/GET sizes, and up to PDU_TABLES_MAX
 * tables.  A table is one SNMP table (or sensor table slice): rows are named
 * by the first key_len index components after a column's OID; a column may
 * add a fixed suffix after the key (Raritan's sensorType).  Roles: outlet,
 * then the totals inlet, device, phase (the first total table that has rows
 * is the one the collector reports).  Everything vendor-specific is data:
 * unit and scale, decimal digits from another column, ENTITY-SENSOR scale,
 * values served as strings, wrap modulus, index base, row filters.
 *
 * pdu_profile_parse/load return a new profile (caller frees with
 * pdu_profile_free).  No I/O besides reading the one file (load) or the
 * profile directories (pdu_profile_auto).
 */
#ifndef WP_PDU_PROFILE_H
#define WP_PDU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../collector/lib/err.h"
#include "../../collector/lib/sample.h"

#define PDU_OID_MAX	48
#define PDU_KEY_MAX	16
#define PDU_SUFFIX_MAX	4
#define PDU_TABLES_MAX	8
#define PDU_SYSOIDS_MAX	8
#define PDU_MATCH_MAX	4

struct pdu_oid {
	uint32_t v[PDU_OID_MAX];
	size_t	 n;
};

enum pdu_role { PDU_ROLE_OUTLET, PDU_ROLE_INLET, PDU_ROLE_DEVICE,
	PDU_ROLE_PHASE };

enum pdu_colid { PDU_COL_NAME, PDU_COL_POWER, PDU_COL_ENERGY,
	PDU_COL_RESET, PDU_NCOL };

struct pdu_col {
	bool		 present;
	struct pdu_oid	 oid;		/* column OID (before the row key) */
	uint32_t	 suffix[PDU_SUFFIX_MAX];
	size_t		 nsuffix;
	char		 unit[WP_UNIT_MAX];	/* raw unit as documented: "0.1kWh" */
	double		 factor;	/* SI (W or J) per raw step */
	bool		 string;	/* value served as an OCTET STRING */
	double		 max_raw;	/* above this the value is absurd; 0 none */
	double		 wrap;		/* modulus in raw steps; 0: from type */
	bool		 cumulative;	/* energy: a running total (default) */
	bool		 has_digits;	/* decimal digits column (Raritan) */
	struct pdu_oid	 digits;
	bool		 has_escale;	/* ENTITY-SENSOR scale column */
	struct pdu_oid	 escale;
};

struct pdu_table {
	int		 role;		/* enum pdu_role */
	size_t		 key_len;	/* index components naming a row */
	int		 number_pos;	/* 1-based key component; 0: ordinal */
	int		 index_base;	/* 0 or 1 */
	int		 match_pos[PDU_MATCH_MAX];	/* 1-based */
	uint32_t	 match_val[PDU_MATCH_MAX];
	size_t		 nmatch;
	bool		 has_filter;	/* keep rows whose filter column == */
	struct pdu_oid	 filter;
	long		 filter_value;
	double		 max_power;	/* W; above is absurd */
	struct pdu_col	 col[PDU_NCOL];
};

struct pdu_profile {
	char		 name[64];
	char		 vendor[64];
	char		 mib[64];
	char		 revision[32];
	struct pdu_oid	 sysoid[PDU_SYSOIDS_MAX];
	size_t		 nsysoid;
	int		 max_repetitions;	/* GETBULK */
	int		 max_get;		/* varbinds per GET */
	struct pdu_table tab[PDU_TABLES_MAX];
	size_t		 ntab;
};

/* Parses a profile from YAML text; file names the source in messages. */
struct pdu_profile *pdu_profile_parse(const char *text, size_t len,
		    const char *file, struct wp_err *err);
/* Loads a file (caller frees with pdu_profile_free). */
struct pdu_profile *pdu_profile_load(const char *path, struct wp_err *err);
/* Finds "<name>.yaml" like datafile_find and loads it. */
struct pdu_profile *pdu_profile_find(const char *maps_dir, const char *name,
		    struct wp_err *err);
/*
 * profile: auto.  Loads every profile in the search path and returns the one
 * with the longest sysObjectID prefix matching sysoid (caller frees).
 */
struct pdu_profile *pdu_profile_auto(const char *maps_dir,
		    const struct pdu_oid *sysoid, struct wp_err *err);
void		 pdu_profile_free(struct pdu_profile *p);

/* "1.3.6.1..." (leading dot allowed) to an OID; 0 or -1. */
int		 pdu_oid_parse(const char *s, struct pdu_oid *o);
void		 pdu_oid_format(const struct pdu_oid *o, char *buf, size_t len);
/* True if prefix is a prefix of o (or equal). */
bool		 pdu_oid_has_prefix(const struct pdu_oid *o,
		    const struct pdu_oid *prefix);
int		 pdu_oid_cmp(const struct pdu_oid *a, const struct pdu_oid *b);
const char	*pdu_role_name(int role);

#endif
