/*
 * journal_cmd.c - `wattpath journal verify|export` (docs/journal.md).
 *
 *   wattpath journal verify (-c FILE | --dir DIR [--dir DIR ...])
 *   wattpath journal export (-c FILE | --dir DIR) [--from T] [--to T]
 * With -c the journal is <data_dir>/journal of that config; --dir names a
 * journal directory directly.  verify prints one summary line per journal
 * (several --dir: several collectors', each verified on its own) and
 * exits 0 (all intact) or 1 (each bad one named with its first bad
 * segment and record); export writes CSV to stdout.  verify also checks the ledger beside the journal
 * (<data_dir>/ledger, docs/ledger.md) when there is one.
 *
 *   wattpath ledger rebuild (-c FILE | --dir DIR)
 * recomputes the ledger from whatever raw journal exists, then verifies.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../conf/conf.h"
#include "../store/journal.h"
#include "../store/ledger.h"

static int
usage(void)
{
	cmd_usage("journal", stderr, false);
	return 2;
}

/* Finds the journal directory from -c or --dir.  0 or -1 (reported). */
static int
journal_dir(const char *conf_path, const char *dir, char *out, size_t len)
{
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	size_t i;

	if (dir) {
		snprintf(out, len, "%s", dir);
		return 0;
	}
	if ((c = conf_load(conf_path, NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		return -1;
	}
	snprintf(out, len, "%s/journal", c->data_dir);
	conf_free(c);
	conf_errs_fini(&errs);
	return 0;
}

/* The ledger beside journal directory jdir: its parent's ledger/. */
static void
ledger_dir(const char *jdir, char *out, size_t len)
{
	const char *sl;
	size_t n = strlen(jdir);

	while (n > 1 && jdir[n - 1] == '/')
		n--;
	for (sl = jdir + n; sl > jdir && sl[-1] != '/'; sl--)
		;
	if (sl == jdir)
		snprintf(out, len, "ledger");
	else
		snprintf(out, len, "%.*sledger", (int)(sl - jdir), jdir);
}

/* The ledger's part of verify: 0 intact or absent, 1 not. */
static int
verify_ledger(const char *jdir)
{
	struct ledger_stats st;
	struct wp_err err = { 0 };
	char ldir[4096], path[4200];

	ledger_dir(jdir, ldir, sizeof(ldir));
	snprintf(path, sizeof(path), "%s/LEDGER", ldir);
	if (access(path, F_OK) != 0)
		return 0;
	if (ledger_verify(jdir, ldir, &st, &err) != 0) {
		printf("ledger %s: FAILED: %s\n", ldir, st.first_bad);
		return 1;
	}
	printf("ledger %s: OK: %zu blocks, %zu checked against their raw "
	    "segments; %zu day blocks, %zu checked against their blocks\n",
	    ldir, st.blocks, st.checked_raw, st.days, st.days_checked);
	return 0;
}

static int
do_verify(const char *dir)
{
	struct journal_verify_stats st;
	struct wp_err err;

	if (journal_verify(dir, &st, &err) != 0) {
		printf("journal %s: FAILED: %s\n", dir, st.first_bad);
		printf("verified before the failure: %zu segments, %zu "
		    "records\n", st.segments, st.records);
		return 1;
	}
	printf("journal %s: OK: %zu segments, %zu records, %zu expired "
	    "segments\n", dir, st.segments, st.records, st.expired_segments);
	if (st.note[0])
		printf("note: %s\n", st.note);
	return verify_ledger(dir);
}

static int
do_rebuild(const char *jdir, const struct wp_conf *c)
{
	struct ledger_stats st;
	struct wp_err err = { 0 };
	char ldir[4096];

	ledger_dir(jdir, ldir, sizeof(ldir));
	if (ledger_rebuild(jdir, ldir, c != NULL ? c->ledger_slot : 0,
	    c != NULL ? c->ledger_retention : 0, &st, &err) != 0) {
		fprintf(stderr, "wattpath ledger rebuild: %s\n", err.msg);
		return 1;
	}
	printf("ledger %s: rebuilt %zu blocks from the raw journal, kept %zu "
	    "whose raw segments expired; %zu day blocks\n", ldir, st.rebuilt,
	    st.kept, st.days_rebuilt);
	return verify_ledger(jdir);
}

static int
do_export(const char *dir, wp_time from, wp_time to)
{
	struct wp_err err;

	if (journal_export_csv(dir, from, to, stdout, &err) != 0) {
		fprintf(stderr, "wattpath journal export: %s\n", err.msg);
		return 1;
	}
	return 0;
}

#define JOURNAL_MAX_DIRS	64	/* verify: --dir given at most */

/* verify over every --dir: 0 all intact, 1 not. */
static int
verify_all(const char *const *dirs, int n)
{
	int i, rc = 0;

	for (i = 0; i < n; i++)
		rc |= do_verify(dirs[i]);
	return rc;
}

int
cmd_journal(int argc, char **argv)
{
	const char *conf = NULL, *dir = NULL, *verb;
	const char *dirs[JOURNAL_MAX_DIRS];
	char jdir[4096];
	wp_time from = 0, to = 0;
	int i, n_dirs = 0;

	if (argc < 2)
		return usage();
	verb = argv[1];
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			return usage();
		if (strcmp(a, "-c") == 0)
			conf = v;
		else if (strcmp(a, "--dir") == 0) {
			if (n_dirs == JOURNAL_MAX_DIRS)
				return usage();
			dir = dirs[n_dirs++] = v;
		}
		else if (strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) {
			if (cmd_time_opt("journal", a, v, a[2] == 't',
			    a[2] == 'f' ? &from : &to) == -1)
				return 2;
		} else
			return usage();
		i++;
	}
	if ((conf == NULL) == (dir == NULL))
		return usage();
	if (to && from >= to) {
		fprintf(stderr, "wattpath journal: --from must be before "
		    "--to\n");
		return 2;
	}
	if (strcmp(verb, "verify") == 0) {
		if (from || to)
			return usage();
		if (n_dirs > 1)
			return verify_all(dirs, n_dirs);
		if (journal_dir(conf, dir, jdir, sizeof(jdir)) != 0)
			return 1;
		return do_verify(jdir);
	}
	if (strcmp(verb, "export") == 0) {
		if (n_dirs > 1)
			return usage();
		if (journal_dir(conf, dir, jdir, sizeof(jdir)) != 0)
			return 1;
		return do_export(jdir, from, to);
	}
	return usage();
}

int
cmd_ledger(int argc, char **argv)
{
	struct conf_errs errs = { 0 };
	struct wp_conf *c = NULL;
	char jdir[4096];
	size_t i;
	int rc;

	if (argc != 4 || strcmp(argv[1], "rebuild") != 0 ||
	    (strcmp(argv[2], "-c") != 0 && strcmp(argv[2], "--dir") != 0)) {
		fprintf(stderr, "usage: wattpath ledger rebuild (-c FILE | "
		    "--dir DIR)\n");
		return 2;
	}
	if (strcmp(argv[2], "--dir") == 0)
		snprintf(jdir, sizeof(jdir), "%s", argv[3]);
	else if ((c = conf_load(argv[3], NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		return 1;
	} else
		snprintf(jdir, sizeof(jdir), "%s/journal", c->data_dir);
	conf_errs_fini(&errs);
	rc = do_rebuild(jdir, c);
	conf_free(c);
	return rc;
}
