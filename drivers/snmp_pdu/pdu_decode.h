/*
 * pdu_decode.h - varbinds + a PDU profile -> rows and samples (pure: no I/O,
 * no state beyond what the caller passes in; no net-snmp types, so unit
 * tests feed it varbinds parsed from .snmprec recordings).
 *
 * Discovery: every varbind of the walked columns (pdu_walk_bases) goes to
 * pdu_rows_add, then pdu_rows_finish keeps the rows that pass the table's
 * match/filter and have a power or energy value that is supported (not -1 /
 * negative / "not supported" text), numbers them and sorts them.
 * Polls: pdu_get_oid names the OID of a row's column; pdu_decode_value turns
 * the varbind read there into a sample: units to W and J (scale, decimal
 * digits, ENTITY-SENSOR scale), resolution and wrap set (Counter32 or the
 * profile's wrap x scale), negative / unsupported left out, absurd values
 * and wrong types rejected with a message.
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

struct pdu_row {
	size_t		 table;		/* index in profile->tab */
	uint32_t	 key[PDU_KEY_MAX];
	size_t		 nkey;
	int		 number;	/* as the PDU numbers it, 1-based */
	char		 name[64];
	bool		 has[PDU_NCOL];	/* column seen with a supported value */
	int		 digits[PDU_NCOL];	/* decimal digits */
	int		 escale[PDU_NCOL];	/* x 1000^escale (ENTITY-SENSOR) */
	long		 filter;	/* filter column value */
	bool		 filter_seen;
};

struct pdu_rows {
	struct pdu_row	*v;
	size_t		 n, cap;
};

/* The column OIDs a discovery walks (max PDU_TABLES_MAX * 8); returns n. */
size_t	 pdu_walk_bases(const struct pdu_profile *p, struct pdu_oid *out,
	    size_t max);
/* Feeds one walked varbind; ignores those of no table.  0, -1 ENOMEM. */
int	 pdu_rows_add(const struct pdu_profile *p, struct pdu_rows *r,
	    const struct pdu_vb *vb, struct wp_err *err);
/* Filters, numbers and sorts the rows (table order, then number). */
void	 pdu_rows_finish(const struct pdu_profile *p, struct pdu_rows *r);
void	 pdu_rows_fini(struct pdu_rows *r);
/* First total table (inlet/device/phase order in the profile) with rows. */
int	 pdu_rows_total_table(const struct pdu_profile *p,
	    const struct pdu_rows *r);

/* OID of column col of row; 0 or -1 (too long). */
int	 pdu_get_oid(const struct pdu_profile *p, const struct pdu_row *row,
	    int col, struct pdu_oid *out);
/* Series prefix "outlet/7" or "inlet/2" for the collector. */
void	 pdu_row_series(const struct pdu_profile *p, const struct pdu_row *row,
	    char *buf, size_t len);
/* Probe path "outlet/7", "inlet/1", "device/1", "phase/3". */
void	 pdu_row_path(const struct pdu_profile *p, const struct pdu_row *row,
	    char *buf, size_t len);

/*
 * Decodes the value of column col (POWER or ENERGY) of row.  Returns 1 with
 * *s filled, 0 when the PDU says "not supported" (negative, -1, text), or
 * -1 with err (PROTOCOL: wrong type, noSuch*, absurd value).
 */
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
 * Adds the device identity labels profile=, vendor= and sysdescr=
 * (sysdescr: pdu_label_text's output, which the caller makes once per
 * device; shortened to what still fits, left out if empty or nothing
 * fits).  Returns 0, or -1 if profile/vendor did not fit.
 */
int	 pdu_identity_labels(struct wp_sample *s, const struct pdu_profile *p,
	    const char *sysdescr);
/* Reset-time column (UNIX seconds) to wp_time; 0 if absent or unusable. */
wp_time	 pdu_decode_reset_time(const struct pdu_vb *vb);
const char *pdu_vtype_name(int type);

#endif
