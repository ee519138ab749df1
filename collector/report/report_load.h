/*
 * report_load.h - the series of a report, loaded from the journal under
 * c->data_dir: streams it once over the plan's windows (plus a margin for
 * the edge readings), takes closed segments from the ledger's blocks
 * (docs/ledger.md) or their summaries when that is exact (a block whose
 * raw segment expired is applied anyway, its edges snapped), maps each journal value to a node and a role by the series
 * naming of docs/series.md (only a series seen for the first time is
 * classified), and feeds the model's integrators: the main window with
 * hourly and curve-step bins, the idle window, each run.  Reads the
 * journal while the collector appends to it (a torn last record ends the
 * scan there).
 */
#ifndef WP_REPORT_LOAD_H
#define WP_REPORT_LOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../model/report.h"
#include "../lib/err.h"
#include "../lib/hmap.h"

struct jsum;
struct wp_conf;

/* The main windows' bins of one bin set, every series', bin-major in
 * chunks of cols series: bin k of a chunk's column c at chunk[k * cols +
 * c].  Series get columns in the order they are first seen, which is a
 * block's order, so applying a block adds to neighbouring doubles instead
 * of touching a cache line per series.  cols is REPORT_BIN_COLS, fewer
 * when the bins are many (a chunk at most REPORT_BIN_CHUNK bytes, so that
 * a report of few series over many bins stays small). */
#define REPORT_BIN_COLS		256
#define REPORT_BIN_CHUNK	(8u << 20)
struct report_bin_cols {
	double	**chunk;	/* owned, each nbins * cols */
	size_t	  nchunk;
	size_t	  used;		/* columns handed out */
	size_t	  nbins;	/* bins per column (0: not sized yet) */
	size_t	  cols;		/* columns per chunk */
};

struct report_load {
	/* set by the caller (borrowed): */
	const struct wp_conf *c;
	const char	*data_dir;	/* the journal's data dir, or NULL:
					   c->data_dir */
	const struct report_plan *p;
	const bool	*selected;	/* curve: nodes in scope, else NULL */
	const atomic_bool *cancel;	/* stops the scan when set, or NULL */
	bool		 inlets;	/* PDU inlet energy as RR_INLET (idx:
					   the PDU's index), for drift_load */
	bool		 holders;	/* track who held each in-band GPU
					   (its namespace label, attr_holds)
					   over the main window; their
					   segments are then read raw, as a
					   summary keeps one reading's labels */
	/* results: */
	struct report_series **v;	/* the series in table order */
	size_t		 n;
	size_t		 segments_read, summaries_used;
	size_t		 ledger_used;	/* ledger blocks taken whole */
	size_t		 ledger_days;	/* ledger day blocks taken whole */
	size_t		 ledger_forced;	/* blocks whose raw segment expired */
	size_t		 ledger_snapped;	/* their spans not applied exactly */
	bool		 seen;		/* a good record scanned, any target */
	wp_time		 first_t;	/* the earliest one's time, with seen */
	/* private: */
	struct hmap	 ser;		/* by "target|series" */
	struct report_series **sum_ser;	/* per summary series */
	size_t		 sum_cap;
	size_t		 sum_n;		/* sum_ser entries set: the last
					   block's series, by position */
	struct report_bin_cols cols[INTEG_BINSETS];
	const struct jsum *pos_sm;	/* the summary they were matched to */
	uint64_t	 pos_seq;	/* its jsum_rd decode number */
	uint64_t	 sum_mark;	/* summaries offered (sum_follows) */
	size_t		 pos_n;		/* its first pos_n are in sum_ser */
	bool		 oom;
};

/* Scans the journal into l (c, p and the options set, the rest zero).
 * 0, or -1 with err (unreadable journal, cancelled, out of memory).
 * Release with report_load_fini either way. */
int	 report_load_scan(struct report_load *l, struct wp_err *err);
void	 report_load_fini(struct report_load *l);

#endif
