/*
 * jsum.h - per-segment journal summaries (docs/journal.md "Summaries").
 *
 * When a segment closes the journal writer also writes NAME.wps next to
 * it: per target (polls, failures, largest gap between polls) and per
 * (target, series) a list of spans, one per summary slot (10 min) in
 * which the series had readings: first and last reading, count, largest
 * gap, the sum of the differences (counters) or the trapezoid integral
 * (gauges) over consecutive readings, min/max/sum of the values, the sum
 * of the journal deltas and flags for anything that would make a window
 * refuse (reset, value going down, non-finite).  Readings are taken as
 * the report's integrator takes them: counters by their reset-corrected
 * cumulative, held readings and readings at or before the previous one
 * skipped.  The file is a deterministic function of the segment's
 * records, so `journal verify` recomputes and compares it; its trailer is
 * SHA-256 over the segment's final chain hash and the file's bytes.
 * A summary is an accelerator: a report reads the segment itself when
 * the summary is missing, invalid, or not precise enough for the window.
 */
#ifndef WP_JSUM_H
#define WP_JSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/clock.h"
#include "../lib/hmap.h"
#include "../lib/err.h"
#include "../lib/sertext.h"
#include "../lib/strpool.h"
#include "record.h"
#include "../lib/sample.h"
#include "../../model/integrate.h"

struct jspill;
#define JSUM_SLOT_DEFAULT	(600 * WP_SEC)
/* The encoding written: 2 added JSUM_F_IMPLAUSIBLE (1 is still read); 3,
 * written by jsum_merge only (ledger day blocks), adds to each series a
 * column of sub-slot energies (jsum_series.sub). */
#define JSUM_VERSION		2
#define JSUM_VERSION_DAY	3
#define JSUM_SUB_MAX		48	/* sub-slot energies a series holds */
#define JSUM_HASH_LEN		32

/* span and series flags */
#define JSUM_F_RESET	 0x01	/* a reading after the first: CTR_RESET/DISCONT */
#define JSUM_F_BACK	 0x02	/* a counter went down between readings */
#define JSUM_F_HELD	 0x04	/* held counter readings skipped */
#define JSUM_F_NONFINITE 0x08	/* a non-finite reading skipped */
#define JSUM_F_KIND	 0x10	/* readings of another kind skipped */
#define JSUM_F_ORDER	 0x20	/* a reading at or before the previous skipped */
#define JSUM_F_WRAP	 0x40	/* CTR_WRAPPED on some reading */
#define JSUM_F_IMPLAUSIBLE 0x80	/* a reading after the first: CTR_IMPLAUSIBLE */
#define JSUM_F_ALL	 0xff

struct jsum_span {
	wp_time	 t0, t1;	/* first and last reading */
	double	 val0, val1;	/* their sample values */
	double	 cum0, cum1;	/* their cumulatives (counters) */
	uint32_t cf0, cf1;	/* their counter flags */
	uint32_t n;		/* readings */
	uint32_t flags;		/* JSUM_F_* */
	double	 energy;	/* counters: sum of rises; gauges: trapezoid */
	double	 dsum;		/* sum of journal deltas */
	wp_time	 max_gap;	/* largest gap between readings */
	double	 vmin, vmax, vsum;	/* model values (cum or value) */
};

/*
 * A series' name and labels: in a decoded summary, series and labels (owned
 * strings; labels the previous series' text when lab_shared); in one built
 * by jsum_add (the writer's, kept for a whole segment) or by a merge
 * (jsum_merge), the text in the summary's pool (pooled: sref, lref in their
 * place), which keeps an outlet's labels as their head only; or, in a
 * writer's, the strings of the record it first came in (texted: that
 * record's sertext, held, and its position there; sertext.h), which the
 * target's journal context and last samples hold too.
 * jsum_series_text gives any.  A writer holds one per series of the
 * fleet: what only one kind of summary uses shares its room with what only
 * another does.
 */
struct jsum_series {
	uint32_t target;	/* index into targets */
	uint32_t flags;		/* OR of the spans' */
	union {
		struct {
			char	*series;	/* owned */
			char	*labels;	/* of the first reading; owned
						   unless lab_shared (the
						   previous series' text) */
		};
		struct {		/* pooled: references into the pool */
			uint32_t sref, lref;
		};
		struct {		/* texted (and pooled): in a record's
					   strings */
			struct sertext *text;
			uint32_t ti;
		};
	};
	double	 resolution;	/* of the first reading */
	uint32_t n, cap;	/* spans (fields kept small: a writer holds
				   one per series of the fleet); cap: spans
				   allocated, or when packed the bytes in pk,
				   or when spilled (jsum_spill) the reference
				   of the last closed span in the spill */
	struct jsum_span *span;	/* all n, or when packed the last (open) one,
				   in the summary's slab */
	union {
		uint8_t	*pk;	/* packed: the n - 1 closed spans, each coded
				   against the one before it (jsum_closed.c);
				   NULL when spilled */
		double	*sub;	/* not packed, version 3 (a day block): the
				   energy of its one span in each sub-slot
				   (the summary's slot, from one slot before
				   seg_start: jsum_sub_origin), nsub of them;
				   or NULL */
	};
	uint8_t	 boundary, quantity, kind;	/* of the first reading */
	uint8_t	 nsub, subcap;	/* sub: energies, allocated */
	bool	 lab_shared;
	bool	 pooled;	/* series and labels in the pool, or texted */
	bool	 texted;	/* series and labels in text */
	bool	 packed;	/* built by jsum_add: closed spans in pk */
	bool	 same;		/* jsum_rd: the previous summary's series at
				   this position (see there) */
};

/* A twin's column of a series (jsum_set_twin): the fields of jsum_series
 * that depend on the slot.  When the twin's slot is a multiple of the
 * summary's (twin_sums), its open span is not kept (span NULL): it is the
 * main column's spans of the same twin slot, merged, and the three sums
 * whose bits depend on the order they were added in, kept here. */
struct jsum_col {
	uint32_t flags, n, cap;	/* cap and pk: as jsum_series' (packed) */
	struct jsum_span *span;
	uint8_t	*pk;
	double	 energy, dsum, vsum;	/* twin_sums: of its open span (they
					   stay here when jsum_twin_swap
					   exchanges the other fields) */
};

struct jsum_target {
	char	*name;
	uint32_t polls, failures;
	wp_time	 first, last, max_gap;	/* record t_real */
	/* a writer's: the record strings its series were last texted in,
	 * and how many changes of them (JSUM_TEXTS_MAX: the pool after) */
	const struct sertext *last_text;
	uint32_t ntexts;
};

struct jsum {
	wp_time	 seg_start, seg_len, slot;
	uint8_t	 in[JSUM_HASH_LEN], fin[JSUM_HASH_LEN];
	uint64_t count;		/* records */
	wp_time	 rec_min, rec_max;	/* record t_real range */
	size_t	 nt, tcap, ns, scap;
	struct jsum_target *t;
	struct jsum_series *s;
	struct hmap thash;	/* positions in t (hmap_ix) */
	struct hidx shash;	/* positions in s */
	struct strpool pool;	/* pooled series' names and labels */
	struct jsum_span **slab;	/* a writer's open spans, SPAN_SLAB
				   each: one allocation per slab, not
				   per series */
	size_t	 nslab, slab_used;	/* slabs; spans of the last used */
	struct jspill *spill;	/* a writer's closed spans, or NULL: in pk */
	wp_time	 twin_slot;	/* the twin column's slot (the main one's
				   while swapped), or 0: no twin */
	struct jsum_col *twin;	/* with twin_slot: ns, one per series */
	bool	 twin_sums;	/* twin_slot a multiple of slot: the twin
				   keeps sums, not open spans (jsum_col) */
	bool	 swapped;	/* jsum_twin_swap: the twin's column is in */
	size_t	 twcap;
	int	 last_t;	/* lookup cache */
	int	 version;	/* encoding: JSUM_VERSION when new, a decoded
				   one's own; set it to encode as an older
				   one (a block checked against its segment) */
	uint64_t seq;		/* jsum_rd: this decode's number (1, 2, ...);
				   0 in any other summary */
};

/* New empty summary (slot 0: default).  Caller frees with jsum_free. */
struct jsum	*jsum_new(wp_time seg_start, wp_time seg_len, wp_time slot,
		    const uint8_t in[JSUM_HASH_LEN]);
void		 jsum_free(struct jsum *s);	/* NULL-safe */
/* The index of target name in s, added (its counts zero) when new.  -1
 * out of memory. */
int		 jsum_target_idx(struct jsum *s, const char *name);
/*
 * A twin: a second column of spans at slot (a writer's summary, before its
 * first jsum_add), so that a segment's summary and its ledger block, the
 * same records at two slots, keep one table of series, targets and
 * strings.  jsum_twin_swap exchanges the two columns and slots: s then
 * encodes as the twin, byte for byte what a summary of that slot alone
 * would; swap again to go back.  A twin whose slot is a multiple of s's
 * (the ledger's hour, and its 20 and 30 minutes, of 10-minute summaries)
 * keeps three sums a series instead of an open span (struct jsum_col).
 * jsum_set_twin: 0, or -1 (s has series, or slot is not positive).
 */
int		 jsum_set_twin(struct jsum *s, wp_time slot);
/*
 * A writer's summary (before its first jsum_add) keeps the spans whose slot
 * has passed in a spill over fd (jspill.h: an unlinked file) instead of
 * packed in memory; it owns fd from then on, closed by jsum_free (or here,
 * when this fails).  It encodes the same bytes either way.  0, or -1 (s
 * has series, or out of memory).
 */
int		 jsum_spill(struct jsum *s, int fd);
/* Room for nt targets and ns series (a writer's, sized as the segment
 * before, so its tables are neither grown nor larger than they need).
 * 0, or -1 out of memory (s unchanged but for what it could size). */
int		 jsum_reserve(struct jsum *s, size_t nt, size_t ns);
void		 jsum_twin_swap(struct jsum *s);
/* Adds one record (as appended or read back).  0, or -1: out of memory,
 * a spill error (errno: EFBIG, or the spill could not be read back), or
 * the twin swapped in (swap back first). */
int		 jsum_add(struct jsum *s, const struct journal_record *r);
/* Encodes with fin and count as the closed segment's; *out malloc'd,
 * caller frees with free().  0 or -1 (out of memory, or the spill could
 * not be read back: errno). */
int		 jsum_encode(struct jsum *s, const uint8_t fin[JSUM_HASH_LEN],
		    uint64_t count, uint8_t **out, size_t *len);
/* Where jsum_write puts an encoding: put(arg, bytes, n), in order, in
 * pieces of JSUM_PIECE bytes or a little more (the first holds the header
 * and the targets whole; the last is shorter); put returns 0, or -1 to
 * stop. */
struct jsum_sink {
	int	(*put)(void *arg, const void *p, size_t n);
	void	*arg;
};
#define JSUM_PIECE	(64u << 10)
/* jsum_encode's bytes handed to k a piece at a time, so that a fleet's
 * summary is never held encoded whole.  0, or -1 (out of memory, the spill
 * could not be read back, or put failed). */
int		 jsum_write(struct jsum *s, const uint8_t fin[JSUM_HASH_LEN],
		    uint64_t count, const struct jsum_sink *k);
/*
 * Decodes a summary of len bytes at p a series at a time, holding one
 * series, not the summary: head(arg, h, ns) with its header and targets
 * (h: a summary with no series; ns, the series that follow), then
 * series(arg, h, se) for each (se, its text and spans valid during the
 * call).  A callback returns 0, or -1 to stop.  0, or -1 with err
 * (malformed, out of memory, or a callback stopped it: what it was given
 * before stays given).
 */
struct jsum_each {
	int	(*head)(void *arg, const struct jsum *h, size_t ns);
	int	(*series)(void *arg, const struct jsum *h,
		    const struct jsum_series *se);
	void	*arg;
};
int		 jsum_decode_each(const uint8_t *p, size_t len,
		    const struct jsum_each *e, struct wp_err *err);
/* Decodes and checks (trailer hash) a summary, for reading only (no
 * jsum_add: its lookup maps are not built).  Caller frees with jsum_free.
 * NULL with err when malformed. */
struct jsum	*jsum_decode(const uint8_t *p, size_t len, struct wp_err *err);
/*
 * A decoder of consecutive summaries (a scan over the ledger's blocks):
 * the checks and the figures of jsum_decode, into one summary reused from
 * decode to decode.  A target whose name, or a series whose header
 * (target, name, boundary, quantity, kind, resolution, labels), is byte
 * for byte the one at the same position in the bytes decoded last keeps
 * its decoded text; the rest (counts, flags, spans) is decoded each time.
 * A series is marked `same` when its header and every target's name are
 * the last summary's: it is the series at its position there.  A span
 * array keeps its size between decodes (cap: spans allocated).  Zeroed
 * is empty; release with jsum_rd_fini.
 */
struct jsum_hdr {
	uint32_t off, len;	/* a name or series header in the bytes */
};

struct jsum_rd {
	struct jsum	*s;	/* the last summary decoded, or NULL */
	uint64_t	 seq;	/* summaries decoded */
	uint8_t		*prev;	/* its bytes (owned) */
	size_t		 prev_cap;
	struct jsum_hdr	*th, *sh;	/* its targets' names, series' headers */
	size_t		 thcap, shcap;
};

/* Decodes the len bytes of *buf (malloc'd, *cap allocated) and keeps the
 * buffer; hands back in *buf and *cap the one it kept before (NULL and 0
 * the first time), for the caller to reuse or free.  The summary is r's
 * until the next decode or jsum_rd_fini.  NULL with err when malformed
 * (the next decode then reuses nothing). */
const struct jsum *jsum_rd_decode(struct jsum_rd *r, uint8_t **buf,
		    size_t *cap, size_t len, struct wp_err *err);
void		 jsum_rd_fini(struct jsum_rd *r);	/* NULL-safe */
/*
 * Consecutive summaries merged into one (a ledger day block, ledger.h):
 * targets by name, their counts added and the gaps between summaries
 * counted; series by (target, name, boundary, quantity, kind) in the order
 * they first appear, with the labels and resolution of their first and
 * flags OR'ed; each series' spans made one as they come (version 3,
 * JSUM_VERSION_DAY) with the energy of each sub-slot of sub_len beside
 * it, over [start - sub_len, start + len + sub_len] (a day's blocks hold
 * readings a little outside it: a sample stamped after its poll began,
 * one pushed late; one further out is flagged), by the report's
 * integrator (model/integrate.h) adding the spans one by one in the order
 * of the summaries, as a report would: energy, largest gap (those between
 * the spans too), readings, range and sums; the first and last readings
 * kept.  A span the integrator would not take, or a refusal between spans
 * (a reset, a step back, readings that do not follow, a step refused as
 * implausible), is flagged on the one span (JSUM_F_RESET,
 * JSUM_F_IMPLAUSIBLE), so that a report takes the summaries one by one
 * there.  A series holds one span and an integrator while merging, not
 * every summary's spans: a day of a fleet's hourly blocks is merged in
 * about a tenth of their size.  Inputs are decoded summaries (jsum_decode,
 * jsum_rd), or a summary's bytes decoded a series at a time as they are
 * merged (jsum_merge_add_bytes: the ledger's day blocks).
 */
struct jsum_merge {
	struct jsum	*s;	/* the merged summary (seg_start, seg_len,
				   in: init's; count, rec_min/max: the
				   inputs'); owned: take it (set NULL), or
				   jsum_merge_fini frees it */
	uint32_t	*tmap;		/* an input's targets in s */
	size_t		 tmcap;
	size_t		 blocks;	/* summaries added */
	wp_time		 sub_len, from, to;	/* sub-slots, over */
	size_t		 nsub;
	struct integ	*g;		/* a series' integrator (s->ns of
					   them, gcap allocated), until
					   jsum_merge_finish */
	size_t		 gcap;
	/* the last summary added: its chain values and counts */
	uint8_t		 b_in[JSUM_HASH_LEN], b_fin[JSUM_HASH_LEN];
	uint64_t	 b_count;
	wp_time		 b_rec_min, b_rec_max;
};

/* 0, or -1 (out of memory, sub_len not positive, or more than
 * JSUM_SUB_MAX sub-slots). */
int		 jsum_merge_init(struct jsum_merge *m, wp_time start,
		    wp_time len, wp_time sub_len,
		    const uint8_t in[JSUM_HASH_LEN]);
/* Adds summary b after the ones added before.  0, or -1 (out of memory,
 * or b not a decoded summary): m is then only fit for jsum_merge_fini. */
int		 jsum_merge_add(struct jsum_merge *m, const struct jsum *b);
/* The same for a summary's len bytes at p (without its trailer), decoded a
 * series at a time (jsum_decode_each): the summary is never held decoded.
 * 0, or -1 with err (malformed, out of memory): m as above. */
int		 jsum_merge_add_bytes(struct jsum_merge *m, const uint8_t *p,
		    size_t len, struct wp_err *err);
/* After the last jsum_merge_add: the integrators' energies, gaps and
 * refusals into the spans; m->s is then a summary of slot sub_len to
 * encode. */
void		 jsum_merge_finish(struct jsum_merge *m);
/* The start of a version-3 series' first sub-slot. */
wp_time		 jsum_sub_origin(const struct jsum *s);
void		 jsum_merge_fini(struct jsum_merge *m);

/* Reads a whole file (at most 1 GiB).  *out malloc'd, caller frees. */
int		 jsum_slurp(const char *path, uint8_t **out, size_t *len,
		    struct wp_err *err);
/* As jsum_slurp into *buf of *cap bytes, the caller's (grown when the
 * file needs more; kept on error): for reading files one after another,
 * on any thread.  0, or -1 with err. */
int		 jsum_slurp_into(const char *path, uint8_t **buf, size_t *cap,
		    size_t *len, struct wp_err *err);
/* dir/NAME.wpj -> NAME.wps in out. */
void		 jsum_name(const char *seg, char *out, size_t len);
/* Series se's name and labels, written into series and labels (or, when
 * not pooled, its own strings); pointers to them. */
void		 jsum_series_text(const struct jsum *s,
		    const struct jsum_series *se, char series[WP_SERIES_MAX],
		    char labels[WP_LABEL_MAX], const char **sp,
		    const char **lp);
/* The model value of a reading: cum for counters, value for gauges. */
double		 jsum_x(int kind, double val, double cum);
/* Span sp of series e as the integrator takes it (model/integrate.h). */
void		 jsum_ispan(const struct jsum_series *e,
		    const struct jsum_span *sp, struct integ_span *is);

#endif
