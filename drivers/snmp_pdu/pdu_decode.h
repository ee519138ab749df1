/*
 * pdu_decode.h - varbinds + a PDU profile -> rows and samples (pure: no
 * I/O, no state beyond what the caller passes in; no net-snmp types, so
 * unit tests feed it varbinds parsed from .snmprec recordings).
 *
 * Discovery: every varbind of the walked columns (pdu_walk_cols) goes to
 * pdu_rows_add, then pdu_rows_finish keeps the rows that pass the table's
 * match/filter and have a reading whose value is supported (not -1,
 * negative, the column's "missing" value or text such as "not-support"),
 * numbers them (per table and databus unit), sorts them, drops repeated
 * series (a second row naming the same outlet) with a message, and
 * decides which rows the collector reports: outlets, phases and circuits,
 * and of the totals the role (inlet or device) of the first total table
 * that has rows.  With several databus units behind one agent every
 * series carries the prefix "u<unit>/".
 * Polls: pdu_get_oid names the OID of a row's column; the value read
 * there (pdu_val_from_vb keeps just the number) goes through
 * pdu_decode_val to a sample: units to W, J, VA, var or VAh (scale,
 * decimal digits, a unit or scale named by the device), resolution and
 * wrap, "not supported" left out, absurd values and wrong types rejected
 * with a message naming the reading.
 * Detection: pdu_probe_oids lists the GETNEXT a profile is probed with
 * (one per reading column), pdu_probe_score counts what the answers show.
 */
#ifndef WP_PDU_DECODE_H
#define WP_PDU_DECODE_H

#include "pdu_profile.h"

enum pdu_vtype {
	PDU_V_INT,		/* INTEGER / Integer32 */
	PDU_V_UINT,		/* Gauge32 / Unsigned32 */
	PDU_V_COUNTER32,
	PDU_V_COUNTER64,
	PDU_V_TIMETICKS,
	PDU_V_STRING,
	PDU_V_OID,
	PDU_V_NOSUCHOBJECT,
	PDU_V_NOSUCHINSTANCE,
	PDU_V_ENDOFMIB,
	PDU_V_OTHER
};

struct pdu_vb {
	struct pdu_oid	 oid;
	int		 type;		/* enum pdu_vtype */
	int64_t		 i;		/* INT */
	uint64_t	 u;		/* UINT, COUNTER*, TIMETICKS */
	char		 s[128];	/* STRING (truncated, NUL-ended) */
};

/* What a poll keeps of a value read: its number, type and standing. */
struct pdu_val {
	double		 num;
	uint8_t		 type;		/* enum pdu_vtype */
	int8_t		 rc;		/* 1 a number, 0 "not supported" */
};

#define PDU_ROW_NAME_MAX	64	/* a row's name, its NUL counted */

/* A row's key and name point into its pdu_rows' text (owned there; a
 * struct copy of pdu_rows moves the rows and their text, the source then
 * cleared, not freed); a row built by hand may point anywhere, its name
 * NULL for none. */
struct pdu_row {
	const uint32_t	*key;		/* nkey components */
	const char	*name;		/* the PDU's name of it, or NULL */
	uint8_t		 table;		/* index in profile->tab */
	uint8_t		 nkey;
	uint8_t		 filter;	/* 0 not seen, 1 passes, 2 fails */
	bool		 prefixed;	/* series carry "u<unit>/" */
	uint16_t	 has;		/* bit per column seen with a supported value */
	uint16_t	 bad;		/* bit per column unusable (unit, scale) */
	int32_t		 number;	/* as the PDU numbers it, 1-based */
	uint32_t	 unit;		/* databus unit (key component), or 0 */
	int8_t		 exp10[PDU_NCOL];	/* x 10^exp10 (digits, scales) */
};

#define PDU_HAS(row, col)	(((row)->has >> (col)) & 1u)

struct pdu_text;

struct pdu_rows {
	struct pdu_row	*v;
	size_t		 n, cap;
	bool		 multi;		/* several units: series are prefixed */
	int		 total_role;	/* role of the reported totals, or -1 */
	struct pdu_text	*text;		/* the rows' keys and names: blocks
					   that stay put while rows are added,
					   compacted by pdu_rows_finish */
};

/* Options of pdu_rows_finish. */
struct pdu_finish {
	long		 only_unit;	/* keep only this databus unit; -1 all */
	bool		 multi;		/* prefix unit series (several seen
					   before: names do not change back) */
	char		 warn[200];	/* out: the first message, or "" */
	size_t		 dropped;	/* out: rows or readings left out */
};

/* The column OIDs a discovery walks; returns how many (at most max). */
size_t	 pdu_walk_cols(const struct pdu_profile *p, struct pdu_ref *out,
	    size_t max);
/* Feeds one walked varbind; ignores those of no table.  0, -1 ENOMEM or
 * too many rows. */
int	 pdu_rows_add(const struct pdu_profile *p, struct pdu_rows *r,
	    const struct pdu_vb *vb, struct wp_err *err);
/* Filters, numbers, sorts and checks the rows (see above); the kept rows'
 * keys and names are copied into one block of their size (kept as they
 * are if it cannot be allocated). */
void	 pdu_rows_finish(const struct pdu_profile *p, struct pdu_rows *r,
	    struct pdu_finish *o);
/* Frees the rows and their text; r is empty after, and may be reused. */
void	 pdu_rows_fini(struct pdu_rows *r);
/* Whether the collector polls row (a probe shows every row). */
bool	 pdu_row_reported(const struct pdu_profile *p,
	    const struct pdu_rows *r, const struct pdu_row *row);
/* Rows the collector reports, readings they carry. */
size_t	 pdu_rows_readings(const struct pdu_profile *p,
	    const struct pdu_rows *r);

/* OID of column col of row; 0 or -1 (too long). */
int	 pdu_get_oid(const struct pdu_profile *p, const struct pdu_row *row,
	    int col, struct pdu_oid *out);
/* Series prefix of a row: "outlet/7", "inlet/2", "u2/phase/3". */
void	 pdu_row_series(const struct pdu_profile *p, const struct pdu_row *row,
	    char *buf, size_t len);
/* Probe path: the table's role: "outlet/7", "device/1", "u2/circuit/3". */
void	 pdu_row_path(const struct pdu_profile *p, const struct pdu_row *row,
	    char *buf, size_t len);

/* The number in vb (as_string: the column is served as text). */
void	 pdu_val_from_vb(const struct pdu_vb *vb, bool as_string,
	    struct pdu_val *out);
/*
 * Decodes the value of reading column col (POWER..AENERGY) of row.
 * Returns 1 with *s filled, 0 when the PDU says "not supported" (negative,
 * -1, the column's missing value, text), or -1 with err (PROTOCOL: wrong
 * type, noSuch*, absurd value, or a sample sample_validate refuses, such
 * as an energy counter past 10^18 J: what the core would refuse).
 */
int	 pdu_decode_val(const struct pdu_profile *p, const struct pdu_row *row,
	    int col, const struct pdu_val *v, struct wp_sample *s,
	    struct wp_err *err);
/* pdu_val_from_vb, then pdu_decode_val. */
int	 pdu_decode_value(const struct pdu_profile *p,
	    const struct pdu_row *row, int col, const struct pdu_vb *vb,
	    struct wp_sample *s, struct wp_err *err);
/*
 * Device text (sysDescr) made fit for a label: ';' and '=' become '_',
 * control characters and runs of blanks one space, trimmed, at most
 * PDU_DESCR_LABEL_MAX characters (cut at a character boundary of UTF-8).
 */
#define PDU_DESCR_LABEL_MAX	60
void	 pdu_label_text(char *dst, size_t len, const char *src);
/*
 * Adds the device identity labels profile=, profile_reason= (when
 * reason is not NULL), vendor= and sysdescr= (sysdescr: pdu_label_text's
 * output, which the caller makes once per device; shortened to what still
 * fits, left out if empty or nothing fits).  Returns 0, or -1 if
 * profile/vendor did not fit.
 */
int	 pdu_identity_labels(struct wp_sample *s, const struct pdu_profile *p,
	    const char *reason, const char *sysdescr);
/* Reset-time column (UNIX seconds) to wp_time; 0 if absent or unusable. */
wp_time	 pdu_decode_reset_time(const struct pdu_val *v);
const char *pdu_vtype_name(int type);

/* --- detection ---------------------------------------------------------- */

/* The OIDs p is probed at (one GETNEXT each: its reading columns). */
size_t	 pdu_probe_oids(const struct pdu_profile *p, struct pdu_oid *out,
	    size_t max);
/* What a GETNEXT at asked brought back, kept small (pdu_probe_answer). */
struct pdu_probe_ans {
	uint8_t		 state;		/* PDU_ANS_* */
	struct pdu_val	 num, str;	/* the value read as a number, as text */
};

enum { PDU_ANS_NONE, PDU_ANS_UNDER, PDU_ANS_OUTSIDE, PDU_ANS_LOOP };

/* Classifies the answer vb to GETNEXT(asked): a row under asked, past it,
 * or not greater than asked (a GETNEXT loop). */
void	 pdu_probe_answer(const struct pdu_oid *asked, const struct pdu_vb *vb,
	    struct pdu_probe_ans *out);
/*
 * What the answer a to GETNEXT(asked) says for p: 1 when it is a row of
 * one of p's reading columns at asked with a supported value (a column
 * with a suffix: any row of the column), else 0.
 */
int	 pdu_probe_hit(const struct pdu_profile *p, const struct pdu_oid *asked,
	    const struct pdu_probe_ans *a);

#endif
