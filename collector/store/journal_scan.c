/*
 * journal_scan.c - reading the journal: records in a window (with the
 * closed segments' summaries where a caller takes them) and the CSV
 * export.  See journal.h.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "../../model/counter.h"
#include "journal.h"
#include "jseg.h"
#include "jsum.h"
#include "ledger.h"
#include "../lib/log.h"

/* ---- scan and export ---- */

typedef int (*scan_fn)(const struct journal_record *r,
    const uint8_t hash[HASH_LEN], void *arg);

/* Scans one segment; last: the newest listed, which the collector may be
 * writing: a header not written yet is an empty segment, a record not
 * written whole the end of it. */
static int
scan_segment(const char *dir, const char *name, bool last, wp_time from,
    wp_time to, struct seg_rd *sr, scan_fn fn, void *arg, struct wp_err *err)
{
	int rc, stop;

	if (jseg_open(sr, dir, name, err) != 0) {
		if (errno == ENOENT)	/* expired while we listed */
			return 0;
		if (errno == ENODATA && last) {
			log_debug("journal: segment %s: header not written yet",
			    name);
			err_clear(err);
			return 0;
		}
		return -1;
	}
	while ((rc = jseg_next(sr, err)) == RD_RECORD) {
		if (sr->rec.t_real < from || (to && sr->rec.t_real >= to))
			continue;
		if ((stop = fn(&sr->rec, sr->rec_hash, arg)) != 0)
			return 1;
	}
	if (rc == RD_TRUNCATED)
		log_debug("journal: segment %s: torn tail after record %"
		    PRIu64 ", stopping there", name, sr->count);
	return rc == RD_ERROR ? -1 : 0;
}

static int
scan_impl(const char *dir, wp_time from, wp_time to, scan_fn fn, void *arg,
    struct wp_err *err)
{
	struct seg_file *sf;
	struct seg_rd sr;
	size_t n, i;
	int rc = 0;

	if (jseg_list(dir, &sf, &n, err) != 0)
		return -1;
	if (jseg_rd_init(&sr, err) != 0) {
		free(sf);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		/* records of segment i are before the next one's start */
		if (i + 1 < n && sf[i + 1].start <= from)
			continue;
		if (to && sf[i].start >= to)
			break;
		rc = scan_segment(dir, sf[i].name, i + 1 == n, from, to, &sr,
		    fn, arg, err);
	}
	jseg_rd_fini(&sr);
	free(sf);
	return rc < 0 ? -1 : 0;
}

struct scan_pub {
	journal_cb	 cb;
	void		*arg;
};

static int
scan_pub_fn(const struct journal_record *r, const uint8_t hash[HASH_LEN],
    void *arg)
{
	struct scan_pub *p = arg;

	(void)hash;
	return p->cb(r, p->arg);
}

int
journal_scan(const char *dir, wp_time from, wp_time to, journal_cb cb,
    void *arg, struct wp_err *err)
{
	struct scan_pub p = { cb, arg };

	return scan_impl(dir, from, to, scan_pub_fn, &p, err);
}

/*
 * Offers segment e's summary to scb when it is valid and covers only
 * records in [from, to).  1 taken, 0 not (read the segment), -1 error.
 */
static int
scan_try_summary(const char *dir, const struct mentry *e, wp_time from,
    wp_time to, EVP_MD_CTX *md, journal_sum_cb scb, void *arg,
    struct wp_err *err)
{
	char path[PATH_MAX];
	uint8_t *file, h[HASH_LEN];
	size_t flen;
	struct jsum *js = NULL;
	struct wp_err le = { 0 };
	int rc = 0;

	if (e == NULL || e->state != M_CLOSED)
		return 0;
	snprintf(path, sizeof(path), "%s/", dir);
	jsum_name(e->name, path + strlen(path), sizeof(path) - strlen(path));
	if (jsum_slurp(path, &file, &flen, &le) != 0)
		return 0;
	if (flen < HASH_LEN || jseg_chain_hash(md, e->fin, file, flen - HASH_LEN,
	    h) != 0 || memcmp(h, file + flen - HASH_LEN, HASH_LEN) != 0 ||
	    (js = jsum_decode(file, flen - HASH_LEN, &le)) == NULL ||
	    js->count != e->count || memcmp(js->in, e->in, HASH_LEN) != 0 ||
	    memcmp(js->fin, e->fin, HASH_LEN) != 0)
		log_warnx("journal: summary %s is invalid; reading the segment "
		    "(run wattpath journal verify)", path);
	else if (js->count > 0 && (js->rec_min < from ||
	    (to && js->rec_max >= to)))
		rc = 0;
	else
		rc = scb(js, arg);
	if (rc < 0 && err != NULL && err->msg[0] == '\0')
		err_set(err, WP_E_INTERNAL, "summary %s: not applied", path);
	jsum_free(js);
	free(file);
	return rc;
}

static int
scan_sum_impl(const char *dir, wp_time from, wp_time to, journal_cb cb,
    journal_sum_cb scb, void *arg, struct journal_scan_stats *st,
    struct wp_err *err)
{
	struct seg_file *sf;
	struct seg_rd sr;
	struct manifest m;
	struct scan_pub p = { cb, arg };
	size_t n, i;
	int rc = 0;

	if (jseg_manifest_read(dir, &m, err) != 0)
		memset(&m, 0, sizeof(m));	/* no summaries, records only */
	if (jseg_list(dir, &sf, &n, err) != 0) {
		jseg_manifest_fini(&m);
		return -1;
	}
	if (jseg_rd_init(&sr, err) != 0) {
		free(sf);
		jseg_manifest_fini(&m);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (i + 1 < n && sf[i + 1].start <= from)
			continue;
		if (to && sf[i].start >= to)
			break;
		rc = scb == NULL ? 0 : scan_try_summary(dir,
		    jseg_manifest_find(&m, sf[i].name), from, to, sr.md, scb, arg,
		    err);
		if (rc == 1) {
			rc = 0;
			if (st != NULL)
				st->summaries_used++;
			continue;
		}
		if (rc < 0)
			break;
		if (st != NULL)
			st->segments_read++;
		rc = scan_segment(dir, sf[i].name, i + 1 == n, from, to, &sr,
		    scan_pub_fn, &p, err);
	}
	jseg_rd_fini(&sr);
	free(sf);
	jseg_manifest_fini(&m);
	return rc < 0 ? -1 : 0;
}

int
journal_scan_sum(const char *dir, wp_time from, wp_time to, journal_cb cb,
    journal_sum_cb scb, void *arg, struct journal_scan_stats *st,
    struct wp_err *err)
{
	if (st != NULL)
		memset(st, 0, sizeof(*st));
	return scan_sum_impl(dir, from, to, cb, scb, arg, st, err);
}

/* ---- with the ledger ---- */

struct lscan {
	const char	*dir, *ldir;
	wp_time		 from, to;
	journal_cb	 cb;
	journal_sum_cb	 scb, fcb;
	void		*arg;
	struct journal_scan_stats *st;
	struct manifest	 m;
	struct ledger_index ix;
	struct seg_file *sf;
	size_t		 nsf;
	struct seg_rd	 sr;
	struct ledger_rd *lr;	/* the blocks, read ahead */
	struct ledger_index days;	/* DAYS */
	size_t		 kd;		/* the next day to try */
};

/* One segment (raw file i of sf or -1, ledger entry le or NULL; ln: the
 * ledger entry the scan will take next, or NULL). */
static int
lscan_one(struct lscan *ls, ssize_t i, bool last,
    const struct ledger_entry *le, const struct ledger_entry *ln,
    struct wp_err *err)
{
	struct scan_pub p = { ls->cb, ls->arg };
	struct wp_err lerr = { 0 };
	const struct jsum *js = NULL;
	int rc = 0;

	if (le != NULL && (js = ledger_rd_block(ls->lr, le, ln, &lerr)) == NULL)
		log_warnx("ledger: %s (run wattpath journal verify)", lerr.msg);
	if (js != NULL && (rc = ls->scb(js, ls->arg)) != 0) {
		if (rc == 1)
			ls->st->ledger_used++;
		return rc == 1 ? 0 : -1;
	}
	if (i >= 0) {
		rc = scan_try_summary(ls->dir, jseg_manifest_find(&ls->m,
		    ls->sf[i].name), ls->from, ls->to, ls->sr.md, ls->scb,
		    ls->arg, err);
		if (rc == 1) {
			ls->st->summaries_used++;
			rc = 0;
		} else if (rc == 0) {
			ls->st->segments_read++;
			rc = scan_segment(ls->dir, ls->sf[i].name, last,
			    ls->from, ls->to, &ls->sr, scan_pub_fn, &p, err);
		}
	} else if (js != NULL && (rc = ls->fcb(js, ls->arg)) > 0) {
		ls->st->ledger_forced++;
		rc = 0;
	}
	return rc;
}

/* The first raw segment starting at or after t (ls->nsf: none). */
static size_t
seg_lower(const struct lscan *ls, wp_time t)
{
	size_t lo = 0, hi = ls->nsf;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ls->sf[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether day d lies in the scan's window, is the one its blocks in
 * LEDGER make (chain values and count: not a stale DAYS), and holds every
 * raw segment of the day there is (each has its block). */
static bool
lscan_day_fits(const struct lscan *ls, const struct ledger_entry *d)
{
	wp_time end = d->start + LEDGER_DAY;
	size_t i, j, k;
	uint64_t count = 0;

	if (d->start < ls->from || (ls->to && end > ls->to))
		return false;
	i = ledger_index_lower(&ls->ix, d->start);
	j = ledger_index_lower(&ls->ix, end);
	if (i == j || memcmp(ls->ix.e[i].in, d->in, JSUM_HASH_LEN) != 0 ||
	    memcmp(ls->ix.e[j - 1].fin, d->fin, JSUM_HASH_LEN) != 0)
		return false;
	for (k = i; k < j; k++)
		count += ls->ix.e[k].count;
	if (count != d->count)
		return false;
	for (k = seg_lower(ls, d->start); k < ls->nsf &&
	    ls->sf[k].start < end; k++)
		if (ledger_index_find(&ls->ix, ls->sf[k].name) == NULL)
			return false;
	return true;
}

/* What the scan will read after ledger entry k - 1: entry k, or the day
 * block of its day when that is the next day to try and fits; NULL past
 * the end.  For reading ahead. */
static const struct ledger_entry *
lscan_next(const struct lscan *ls, size_t k)
{
	const struct ledger_entry *d;

	if (k >= ls->ix.n || (ls->to && ls->ix.e[k].start >= ls->to))
		return NULL;
	if (ls->kd < ls->days.n) {
		d = &ls->days.e[ls->kd];
		if (d->start <= ls->ix.e[k].start && ls->ix.e[k].start <
		    d->start + LEDGER_DAY && lscan_day_fits(ls, d))
			return d;
	}
	return &ls->ix.e[k];
}

/*
 * At the scan's first segment or block of a day (t): the day's block
 * offered to scb when DAYS has it and it fits; taken, *i and *k skip the
 * day's segments and blocks.  1 taken, 0 not, -1 scb's error.
 */
static int
lscan_day(struct lscan *ls, wp_time t, size_t *i, size_t *k)
{
	const struct ledger_entry *d, *dn = NULL;
	struct wp_err lerr = { 0 };
	const struct jsum *js;
	wp_time end;
	int rc;

	while (ls->kd < ls->days.n && ls->days.e[ls->kd].start +
	    LEDGER_DAY <= t)
		ls->kd++;
	if (ls->kd >= ls->days.n || ls->days.e[ls->kd].start > t)
		return 0;
	d = &ls->days.e[ls->kd++];	/* tried once */
	if (!lscan_day_fits(ls, d))
		return 0;
	if (ls->kd < ls->days.n && lscan_day_fits(ls, &ls->days.e[ls->kd]))
		dn = &ls->days.e[ls->kd];	/* read ahead */
	if ((js = ledger_rd_block(ls->lr, d, dn, &lerr)) == NULL) {
		log_warnx("ledger: %s (run wattpath journal verify)", lerr.msg);
		return 0;
	}
	if ((rc = ls->scb(js, ls->arg)) != 1)
		return rc < 0 ? -1 : 0;
	ls->st->ledger_days++;
	end = d->start + LEDGER_DAY;
	*i = seg_lower(ls, end);
	*k = ledger_index_lower(&ls->ix, end);
	return 1;
}

/* Merges the raw segments and the ledger's blocks in time order, a whole
 * day from its day block where it can. */
static int
lscan_run(struct lscan *ls, struct wp_err *err)
{
	size_t i = 0, k = 0;
	int rc = 0;

	while (rc == 0 && (i < ls->nsf || k < ls->ix.n)) {
		wp_time ti = i < ls->nsf ? ls->sf[i].start : INT64_MAX;
		wp_time tk = k < ls->ix.n ? ls->ix.e[k].start : INT64_MAX;
		wp_time t = ti < tk ? ti : tk, next;
		bool raw = ti == t, led = tk == t;
		size_t ni = i + raw, nk = k + led;

		if (ls->to && t >= ls->to)
			break;
		if ((rc = lscan_day(ls, t, &i, &k)) != 0) {
			rc = rc < 0 ? -1 : 0;
			continue;
		}
		next = ni < ls->nsf ? ls->sf[ni].start : INT64_MAX;
		if (nk < ls->ix.n && ls->ix.e[nk].start < next)
			next = ls->ix.e[nk].start;
		if (next > ls->from)
			rc = lscan_one(ls, raw ? (ssize_t)i : -1, raw &&
			    i + 1 == ls->nsf, led ? &ls->ix.e[k] : NULL,
			    led ? lscan_next(ls, nk) : NULL, err);
		i = ni;
		k = nk;
	}
	return rc;
}

int
journal_scan_ledger(const char *dir, const char *ldir, bool days,
    wp_time from, wp_time to, journal_cb cb, journal_sum_cb scb,
    journal_sum_cb fcb, void *arg, struct journal_scan_stats *st,
    struct wp_err *err)
{
	struct journal_scan_stats dummy;
	struct lscan ls;
	struct wp_err lerr = { 0 };
	int rc = -1;

	memset(&ls, 0, sizeof(ls));
	ls.dir = dir;
	ls.ldir = ldir;
	ls.from = from;
	ls.to = to;
	ls.cb = cb;
	ls.scb = scb;
	ls.fcb = fcb;
	ls.arg = arg;
	ls.st = st != NULL ? st : &dummy;
	memset(ls.st, 0, sizeof(*ls.st));
	if (jseg_manifest_read(dir, &ls.m, err) != 0)
		memset(&ls.m, 0, sizeof(ls.m));
	err_clear(err);
	if (ledger_index_read(ldir, &ls.ix, &lerr) != 0) {
		log_warnx("ledger: %s; reading the journal alone (run wattpath "
		    "journal verify)", lerr.msg);
		ledger_index_fini(&ls.ix);
	}
	if (days && ledger_days_read(ldir, &ls.days, &lerr) != 0) {
		log_warnx("ledger: %s; reading its hourly blocks (run wattpath "
		    "journal verify)", lerr.msg);
		ledger_index_fini(&ls.days);
	}
	if (jseg_list(dir, &ls.sf, &ls.nsf, err) != 0) {
		if (ls.ix.n == 0)
			goto out;
		err_clear(err);
		ls.sf = NULL;
		ls.nsf = 0;
	}
	if ((ls.lr = ledger_rd_new(ldir)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto out;
	}
	if (jseg_rd_init(&ls.sr, err) != 0)
		goto out;
	rc = lscan_run(&ls, err);
	jseg_rd_fini(&ls.sr);
out:
	ledger_rd_free(ls.lr);
	free(ls.sf);
	ledger_index_fini(&ls.ix);
	ledger_index_fini(&ls.days);
	jseg_manifest_fini(&ls.m);
	return rc < 0 ? -1 : 0;
}

static void
csv_str(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' &&
	    (s[0] == '\0' || s[strlen(s) - 1] != ' ')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
csv_num(FILE *f, double d)
{
	if (isfinite(d))
		fprintf(f, "%.17g", d);
	else
		fputs(isnan(d) ? "nan" : d > 0 ? "inf" : "-inf", f);
}

static const struct {
	uint32_t	 bit;
	const char	*name;
} flag_names[] = {
	{ WP_F_ESTIMATED, "estimated" }, { WP_F_STALE, "stale" },
	{ WP_F_RESET, "reset" }, { WP_F_WRAPPED, "wrapped" },
	{ WP_F_AVERAGED, "averaged" }, { WP_F_OEM, "oem" },
	{ WP_F_CROSSCHECK, "crosscheck" }, { WP_F_HELD, "held" },
	{ WP_F_DISCONT, "discont" },
}, ctr_names[] = {
	{ CTR_DISCONT, "discont" }, { CTR_RESET, "reset" },
	{ CTR_WRAPPED, "wrapped" }, { CTR_HELD, "held" },
	{ CTR_RESUMED, "resumed" }, { CTR_BACKSTEP, "backstep" },
	{ CTR_IMPLAUSIBLE, "implausible" },
};

static void
csv_flags(FILE *f, uint32_t flags, bool ctr)
{
	size_t i, n = ctr ? sizeof(ctr_names) / sizeof(ctr_names[0]) :
	    sizeof(flag_names) / sizeof(flag_names[0]);
	bool first = true;

	for (i = 0; i < n; i++) {
		uint32_t bit = ctr ? ctr_names[i].bit : flag_names[i].bit;

		if (!(flags & bit))
			continue;
		fprintf(f, "%s%s", first ? "" : "|",
		    ctr ? ctr_names[i].name : flag_names[i].name);
		first = false;
		flags &= ~bit;
	}
	if (flags)
		fprintf(f, "%s0x%" PRIx32, first ? "" : "|", flags);
}

static void
csv_time(FILE *f, wp_time t)
{
	time_t sec = (time_t)(t / WP_SEC);
	long ns = (long)(t % WP_SEC);
	struct tm tm;
	char b[40];

	if (ns < 0) {
		ns += WP_SEC;
		sec--;
	}
	gmtime_r(&sec, &tm);
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "%s.%09ldZ,%" PRId64, b, ns, t);
}

static void
csv_row(FILE *f, const struct journal_record *r, const struct journal_value *v,
    const char *hx)
{
	const struct wp_sample *s = &v->s;

	csv_time(f, r->t_real);
	fputc(',', f);
	csv_str(f, r->target);
	fprintf(f, ",%s,", err_class_name(r->status));
	csv_str(f, r->error);
	fputc(',', f);
	csv_str(f, s->series);
	fprintf(f, ",%s,%s,%s,", boundary_name(s->boundary),
	    quantity_name(s->quantity), kind_name(s->kind));
	csv_num(f, s->value);
	fprintf(f, ",%s,", quantity_unit(s->quantity));
	csv_num(f, s->raw_value);
	fputc(',', f);
	csv_str(f, s->raw_unit);
	fputc(',', f);
	csv_num(f, s->resolution);
	fputc(',', f);
	csv_flags(f, s->flags, false);
	fputc(',', f);
	if (s->kind == WP_COUNTER) {
		csv_num(f, v->delta);
		fputc(',', f);
		csv_num(f, v->cum);
		fputc(',', f);
		csv_flags(f, v->ctr_flags, true);
	} else
		fputs(",,", f);
	fputc(',', f);
	csv_str(f, s->labels);
	fprintf(f, ",%s\r\n", hx);
}

static int
export_fn(const struct journal_record *r, const uint8_t hash[HASH_LEN],
    void *arg)
{
	FILE *f = arg;
	char hx[2 * HASH_LEN + 1];
	size_t i;

	jseg_hex(hash, hx);
	if (r->n == 0) {	/* a failed poll: one row, no value */
		csv_time(f, r->t_real);
		fputc(',', f);
		csv_str(f, r->target);
		fprintf(f, ",%s,", err_class_name(r->status));
		csv_str(f, r->error);
		fprintf(f, ",,,,,,,,,,,,,,,%s\r\n", hx);
	}
	for (i = 0; i < r->n; i++)
		csv_row(f, r, &r->v[i], hx);
	return ferror(f) ? 1 : 0;
}

int
journal_export_csv(const char *dir, wp_time from, wp_time to, FILE *out,
    struct wp_err *err)
{
	fputs("t_real,t_real_ns,target,status,error,series,boundary,quantity,"
	    "kind,value,unit,raw_value,raw_unit,resolution,flags,delta,cum,"
	    "ctr_flags,labels,record_hash\r\n", out);
	if (scan_impl(dir, from, to, export_fn, out, err) != 0)
		return -1;
	if (fflush(out) != 0 || ferror(out))
		return err_set(err, WP_E_TRANSIENT, "export: write error");
	return 0;
}
