/*
 * pdu_profile.h - vendor PDU profiles: which SNMP columns hold outlet,
 * inlet, phase and circuit power and energy, in which unit and scale
 * (etc/pdu-profiles/NAME.yaml; the format is docs/pdu-profiles.md).
 *
 * A profile names its MIB and revision, the sysObjectID prefixes that
 * select it under `profile: auto`, GETBULK/GET sizes, and up to
 * PDU_TABLES_MAX tables.  A table is one SNMP table (or a slice of a
 * sensor table): rows are named by the first key_len index components
 * after a column's OID; a column may add a fixed suffix after the key
 * (Raritan's sensorType).  Roles: outlet; the totals inlet and device (the
 * first of them that has rows is the PDU's inlet series); phase; circuit
 * (branch circuits, breakers, groups).  A key component may be the
 * databus / daisy-chain unit (unit_pos).  Everything vendor-specific is
 * data: unit and scale, decimal digits or a scale exponent from another
 * column, ENTITY-SENSOR scale, values served as strings, wrap modulus,
 * resettable counters, index base, row filters.
 *
 * A profile is compact (its OIDs in one arena), and the PDU targets that
 * load the same one share one copy (pdu_profile_share).
 * pdu_profile_parse/load/find return a new profile (caller frees with
 * pdu_profile_free); pdu_profile_all a new list (pdu_profiles_free).
 * No I/O besides reading profile files and listing profile directories.
 */
#ifndef WP_PDU_PROFILE_H
#define WP_PDU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../collector/lib/err.h"
#include "../../collector/lib/sample.h"

struct wp_shared;

#define PDU_OID_MAX	48	/* a full row OID: column, key, suffix */
#define PDU_KEY_MAX	16
#define PDU_SUFFIX_MAX	4
#define PDU_TABLES_MAX	12
#define PDU_SYSOIDS_MAX	16
#define PDU_MATCH_MAX	4
#define PDU_SYSOID_MIN	7	/* a profile's prefix: 1.3.6.1.4.1.<enterprise>
				   at least */
/* An agent's sysObjectID that names no product: shorter than
 * 1.3.6.1.4.1.<enterprise>.<product>, or enterprise 0. */
#define PDU_SYSOID_GENERIC(o)	((o)->n < 8 || (o)->v[6] == 0)

struct pdu_oid {
	uint32_t v[PDU_OID_MAX];
	size_t	 n;
};

/* An OID kept in a profile's arena: n components from off; n 0: none. */
struct pdu_ref {
	uint16_t off, n;
};

enum pdu_role { PDU_ROLE_OUTLET, PDU_ROLE_INLET, PDU_ROLE_DEVICE,
	PDU_ROLE_PHASE, PDU_ROLE_CIRCUIT, PDU_ROLE_LAST = PDU_ROLE_CIRCUIT };

/* Columns: the name, the readings (POWER..AENERGY), the reset time. */
enum pdu_colid { PDU_COL_NAME, PDU_COL_POWER, PDU_COL_ENERGY,
	PDU_COL_APOWER, PDU_COL_RPOWER, PDU_COL_AENERGY, PDU_COL_RESET,
	PDU_NCOL };
#define PDU_COL_READ_FIRST	PDU_COL_POWER
#define PDU_COL_READ_LAST	PDU_COL_AENERGY

struct pdu_col {
	bool		 present;
	bool		 string;	/* value served as an OCTET STRING */
	bool		 resettable;	/* energy: users can reset it */
	bool		 is_signed;	/* reactive power may be negative */
	uint8_t		 nsuffix;
	uint32_t	 suffix[PDU_SUFFIX_MAX];
	struct pdu_ref	 oid;		/* column OID (before the row key) */
	struct pdu_ref	 digits;	/* column of decimal digits (Raritan) */
	struct pdu_ref	 escale;	/* ENTITY-SENSOR scale column */
	struct pdu_ref	 exp;		/* column of a signed power of ten */
	struct pdu_ref	 mult;		/* column: +n multiply, -n divide by n */
	struct pdu_ref	 unit_col;	/* column naming the unit ("kWh") */
	char		 unit[WP_UNIT_MAX];	/* raw unit as documented */
	char		 bunit[8];	/* the unit without the scale: "kWh" */
	double		 factor;	/* value's unit per raw step */
	double		 max_raw;	/* above this the value is absurd; 0 none */
	double		 wrap;		/* modulus in raw steps; 0: from type */
	int		 missing;	/* raw value meaning "not available"; 0 none
					   (negative values always mean it) */
	bool		 has_missing;
};

struct pdu_table {
	uint8_t		 role;		/* enum pdu_role */
	uint8_t		 key_len;	/* index components naming a row */
	int8_t		 number_pos;	/* 1-based key component; 0: ordinal */
	int8_t		 unit_pos;	/* 1-based: the databus unit; 0: none */
	int8_t		 index_base;	/* 0 or 1 */
	uint16_t	 first;		/* ordinal numbers start here (1) */
	uint8_t		 nmatch;
	int8_t		 match_pos[PDU_MATCH_MAX];	/* 1-based */
	uint32_t	 match_val[PDU_MATCH_MAX];
	struct pdu_ref	 filter;	/* keep rows whose filter column is */
	long		 filter_value[PDU_MATCH_MAX];	/* one of these numbers */
	uint8_t		 nfilter;	/* (none of them: filter_except), */
	char		 filter_text[48];	/* or matches this ('*': any) */
	bool		 filter_is_text;
	bool		 filter_except;
	double		 max_power;	/* W (VA, var); above is absurd */
	struct pdu_col	 col[PDU_NCOL];
};

enum pdu_detect { PDU_DETECT_PROBE, PDU_DETECT_FALLBACK, PDU_DETECT_NEVER };

struct pdu_profile {
	char		 name[48];
	char		 vendor[48];
	char		 mib[48];
	char		 revision[24];
	uint8_t		 detect;	/* enum pdu_detect */
	uint8_t		 nsysoid;
	uint8_t		 ntab;
	uint8_t		 max_repetitions;	/* GETBULK */
	uint8_t		 max_get;		/* varbinds per GET */
	struct pdu_ref	 sysoid[PDU_SYSOIDS_MAX];
	struct pdu_table *tab;		/* ntab tables */
	uint32_t	*arena;		/* every OID of the profile */
	size_t		 narena;
	unsigned	 users;		/* shared: its holders (1 or more) */
	struct wp_shared *sh;		/* the table sharing it, or NULL */
};

/* A list of profiles (profile: auto). */
struct pdu_profiles {
	struct pdu_profile **v;
	size_t		 n;
};

/* Parses a profile from YAML text; file names the source in messages. */
struct pdu_profile *pdu_profile_parse(const char *text, size_t len,
		    const char *file, struct wp_err *err);
/* Loads a file (caller frees with pdu_profile_free). */
struct pdu_profile *pdu_profile_load(const char *path, struct wp_err *err);
/* Finds "<name>.yaml" like datafile_find and loads it. */
struct pdu_profile *pdu_profile_find(const char *maps_dir,
		    const char *conf_dir, const char *name,
		    struct wp_err *err);
/* Drops one holder of p (NULL-safe); the last one frees it. */
void		 pdu_profile_free(struct pdu_profile *p);
/*
 * One copy of a profile for every target that loads it: the profile equal
 * to p (every field and OID) that sh, the driver's shared table
 * (lib/shared.h), already holds, with one more holder, p freed; else p,
 * now held in sh under its name (replacing an older, different profile of
 * that name, which its holders keep).  sh NULL, or out of memory: p as it
 * is.  Loop thread only.  Each holder frees its reference with
 * pdu_profile_free.
 */
struct pdu_profile *pdu_profile_share(struct wp_shared *sh,
		    struct pdu_profile *p);
/*
 * Every profile of the data-file search (datafile.h: maps_dir, the
 * config's directory, the source tree's etc/, the share directory, each
 * its pdu-profiles/; a name found earlier
 * hides the later ones), in name order.  A file that does not load is
 * skipped with a warning naming it.  0, or -1 (out of memory); the caller
 * frees with pdu_profiles_free.
 */
int		 pdu_profile_all(const char *maps_dir, const char *conf_dir,
		    struct pdu_profiles *out,
		    struct wp_err *err);
void		 pdu_profiles_free(struct pdu_profiles *l);
/* The longest sys_object_ids prefix of p matching sysoid; 0 if none. */
size_t		 pdu_profile_sysoid_match(const struct pdu_profile *p,
		    const struct pdu_oid *sysoid);

/* The OID r of p. */
void		 pdu_ref_oid(const struct pdu_profile *p, struct pdu_ref r,
		    struct pdu_oid *out);
/* True if vb lies under r (a prefix, not equal). */
bool		 pdu_ref_under(const struct pdu_profile *p, struct pdu_ref r,
		    const struct pdu_oid *o);

/* "1.3.6.1..." (leading dot allowed) to an OID; 0 or -1. */
int		 pdu_oid_parse(const char *s, struct pdu_oid *o);
void		 pdu_oid_format(const struct pdu_oid *o, char *buf, size_t len);
/* True if prefix is a prefix of o (or equal). */
bool		 pdu_oid_has_prefix(const struct pdu_oid *o,
		    const struct pdu_oid *prefix);
int		 pdu_oid_cmp(const struct pdu_oid *a, const struct pdu_oid *b);
const char	*pdu_role_name(int role);
/* The column's name in profiles and messages: "power", "apparent_power". */
const char	*pdu_col_name(int col);
/* The quantity a reading column reports (WP_Q_*). */
int		 pdu_col_quantity(int col);

#endif
