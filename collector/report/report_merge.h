/*
 * report_merge.h - a report's series from several collectors' data dirs
 * (`wattpath report --data-dir A --data-dir B`, `report.data_dirs`):
 * shards of one inventory, an HA pair polling the same targets, or both.
 * Each data dir's journal and ledger are verified on their own first (a
 * tampered one refuses the report, named), then each is scanned into its
 * own report_load (report_load.h).  Per target, the series of exactly one
 * data dir are kept, never added: the one whose series over the window
 * are all computed (no refused window) with the shortest longest gap
 * between readings, ties to the data dir listed first.  The choice is
 * per target and main window (its idle window and runs come with it) and
 * is returned as report_source rows (disclosure.sources).  With one data
 * dir nothing is verified here and the load is the plain one.
 */
#ifndef WP_REPORT_MERGE_H
#define WP_REPORT_MERGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../model/report.h"
#include "../lib/err.h"
#include "report_load.h"

struct wp_conf;

struct report_merge {
	/* set by the caller (borrowed): */
	const struct wp_conf *c;
	const struct report_plan *p;
	const bool	*selected;
	const atomic_bool *cancel;
	bool		 holders;	/* report_load.holders */
	const char *const *dirs;	/* the data dirs, n >= 1 */
	size_t		 n_dirs;
	/* results (borrowed from the loads; valid until report_merge_fini): */
	struct report_series **v;	/* the series kept, table order */
	size_t		 n;
	struct report_source *src;	/* per target: its data dir (n_dirs >
					   1), else NULL */
	size_t		 n_src;
	size_t		 shared;	/* targets held by several data dirs */
	size_t		 moved;		/* ...taken from other than the first
					   holding them (it had a gap) */
	char		 moved_names[256];	/* the first of them, "a, b" */
	size_t		 segments_read, summaries_used, ledger_used;
	size_t		 ledger_days;
	size_t		 ledger_forced, ledger_snapped;
	bool		 seen;
	wp_time		 first_t;
	/* private: */
	struct report_load *ld;		/* one per data dir */
	size_t		 n_ld;
	char		**names;	/* the sources' targets */
	void		*tg;		/* the per-target table */
};

/* Verifies (several dirs), scans and merges into m (caller's fields set,
 * the rest zero).  0, or -1 with err naming the data dir.  Release with
 * report_merge_fini either way. */
int	 report_merge_scan(struct report_merge *m, struct wp_err *err);
void	 report_merge_fini(struct report_merge *m);

/* Verifies the journal under data dir d and, when there is one, its
 * ledger.  0, or -1 with err naming d and the first bad record. */
int	 report_merge_verify(const char *d, struct wp_err *err);

#endif
