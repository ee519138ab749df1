/*
 * journal.c - append-only SHA-256-chained journal (format: docs/journal.md).
 *
 * Layout of a journal directory:
 *   MANIFEST            one line per segment event (open, close, expire),
 *                       each line hashed over the previous line's hash
 *   YYYYMMDDTHH.wpj     a segment (hourly); YYYYMMDDTHHMMSS.wpj when the
 *                       segment length is not a whole hour
 * A segment starts with a 56-byte header naming the chain value it starts
 * from; each record frame carries its own chain hash.  OpenSSL is used
 * only here (conventions: one library, one owner).
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
#include "jspill.h"
#include "jsum.h"
#include "ledger.h"
#include "../lib/bgsync.h"
#include "../lib/log.h"

struct journal {
	char		*dir;
	struct journal_opts o;
	int		 fd;		/* current segment, -1 none */
	int		 dirty;		/* appended, not yet fdatasync'ed (nor
					   handed to bg) */
	wp_time		 last_sync;	/* monotonic */
	struct bgsync	*bg;		/* group commit (fsync poll, a sync
					   interval): the syncs off the
					   caller's thread; else NULL */
	int		 sync_err;	/* errno of the last background sync,
					   while no later one succeeded */
	bool		 bg_said;	/* "no sync thread" logged */
	int		 spill_err;	/* errno of the last spill file that
					   could not be made (logged when it
					   changes), or 0 */
	int		 spill_werr;	/* errno of the last spill write that
					   failed (logged when it changes),
					   or 0 */
	char		 seg_name[NAME_MAX_WPJ];
	wp_time		 seg_start, seg_len;
	uint64_t	 seg_count;
	off_t		 seg_off;
	uint8_t		 h[HASH_LEN];	/* chain value after the last record */
	int		 mfd;
	struct manifest	 m;
	EVP_MD_CTX	*md;
	struct wire_buf	 b;
	struct jsum	*sum;		/* the open segment's summary at the
					   summary slot, with its ledger block
					   as its twin (jsum.h); or the ledger
					   block's alone (sum_wps false); or
					   NULL: neither */
	bool		 sum_wps;	/* sum's own column is the .wps's */
	bool		 sum_twin;	/* the ledger's is its twin column
					   (else, with sum_wps, the same
					   slot: the ledger's is sum's own) */
	size_t		 sum_nt, sum_ns;	/* the last closed segment's
					   targets and series: the next
					   summary's size */
	struct ledger	*ledger;	/* the ledger's writer, or NULL */
	struct jctx	 ctx;		/* the open segment's record context */
	size_t		 pack_from;	/* manifest entries before: not plain
					   (or tried since the open) */
};

static int
fsync_dir(const char *dir)
{
	int fd, rc;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Appends a manifest line for e (verb) and fsyncs it. */
static int
manifest_append(struct journal *j, const char *verb, const struct mentry *e,
    struct wp_err *err)
{
	char line[512], inx[65], finx[65], lhx[65];
	uint8_t lh[HASH_LEN];
	int n;

	jseg_hex(e->in, inx);
	jseg_hex(e->fin, finx);
	n = snprintf(line, sizeof(line), "%s %s %" PRIu64 " %s %s", verb,
	    e->name, e->count, inx, finx);
	if (jseg_chain_hash(j->md, j->m.last, line, (size_t)n, lh) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: SHA-256 failed");
	jseg_hex(lh, lhx);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " %s\n", lhx);
	if (jseg_write_all(j->mfd, line, (size_t)n) != 0 ||
	    (j->o.fsync != JOURNAL_FSYNC_NONE && fsync(j->mfd) != 0))
		return err_set(err, WP_E_TRANSIENT, "journal MANIFEST: %s",
		    strerror(errno));
	memcpy(j->m.last, lh, HASH_LEN);
	j->m.lines++;
	return 0;
}

/* ---- writer ---- */

static int
mkdir_p(const char *path)
{
	char tmp[PATH_MAX], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static struct mentry *
manifest_last_open(struct journal *j)
{
	if (j->m.n && j->m.e[j->m.n - 1].state == M_OPEN)
		return &j->m.e[j->m.n - 1];
	return NULL;
}

/*
 * Writes NAME.wps for the segment being closed (chain value and count
 * final): via a temporary file and rename, synced per the fsync policy.
 * A failure is logged, not fatal: a report then reads the segment.
 */
static void
write_summary(struct journal *j, const char *seg)
{
	char name[NAME_MAX_WPJ + 8], path[PATH_MAX];

	if (j->sum == NULL || !j->sum_wps)
		return;
	jsum_name(seg, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", j->dir, name);
	if (jseg_write_summary(j->sum, j->h, j->seg_count, path,
	    j->o.fsync != JOURNAL_FSYNC_NONE, NULL) != 0)
		log_warn("journal: cannot write summary %s", path);
	else if (j->o.fsync != JOURNAL_FSYNC_NONE)
		fsync_dir(j->dir);
}

/* The summary's closed spans in an unlinked file of the journal's directory
 * (jspill.h), not in memory; without one (logged when it starts failing)
 * they stay in memory, packed. */
static void
summary_spill(struct journal *j)
{
	int fd = jspill_tmpfile(j->dir);

	if (fd >= 0 && jsum_spill(j->sum, fd) == 0) {
		if (j->spill_err != 0)
			log_info("journal: summary spans spilled to a file "
			    "in %s again", j->dir);
		j->spill_err = 0;
		return;
	}
	if (fd >= 0)
		errno = ENOMEM;
	if (errno != j->spill_err)
		log_warn("journal: no spill file in %s; this segment's "
		    "summary spans kept in memory", j->dir);
	j->spill_err = errno;
}

/* A spill write that failed (its spans then kept in memory: nothing is
 * lost), logged when the error changes; a segment whose spill wrote
 * without one after a failure, logged too. */
static void
spill_check(struct journal *j, bool closing)
{
	int e;

	if (j->sum == NULL || j->sum->spill == NULL)
		return;
	e = jspill_failed(j->sum->spill);
	if (e != 0 && e != j->spill_werr) {
		errno = e;
		log_warn("journal: cannot write the spill file in %s; this "
		    "segment's summary spans kept in memory", j->dir);
	} else if (e == 0 && closing && j->spill_werr != 0)
		log_info("journal: the spill file in %s wrote without "
		    "error again", j->dir);
	if (e != 0 || closing)
		j->spill_werr = e;
}

/* Starts the summary of the segment now open, and its ledger block (none
 * when disabled): one summary, the ledger's its twin when both are kept. */
static void
summary_start(struct journal *j, wp_time start, wp_time len,
    const uint8_t in[HASH_LEN])
{
	wp_time lslot = j->o.ledger_slot > 0 ? j->o.ledger_slot :
	    LEDGER_SLOT_DEFAULT;

	spill_check(j, true);
	jsum_free(j->sum);
	j->sum = NULL;
	j->sum_wps = j->o.summary_slot >= 0;
	j->sum_twin = false;
	if (!j->sum_wps && j->ledger == NULL)
		return;
	if ((j->sum = jsum_new(start, len, j->sum_wps ? j->o.summary_slot :
	    lslot, in)) == NULL) {
		log_warnx("journal: out of memory; no summary or ledger block "
		    "for this segment");
		return;
	}
	if (j->sum_wps && j->ledger != NULL && j->sum->slot != lslot)
		j->sum_twin = jsum_set_twin(j->sum, lslot) == 0;	/* empty */
	summary_spill(j);
	/* sized as the last segment, with room for a few more series */
	(void)jsum_reserve(j->sum, j->sum_nt + j->sum_nt / 16,
	    j->sum_ns + j->sum_ns / 16);
}

/* Adds a record to the open segment's summary (dropped on ENOMEM). */
static void
summary_add(struct journal *j, const struct journal_record *r)
{
	errno = 0;
	if (j->sum != NULL && jsum_add(j->sum, r) != 0) {
		if (errno == 0)
			errno = ENOMEM;
		log_warn("journal: no summary or ledger block for segment %s",
		    j->seg_name);
		jsum_free(j->sum);
		j->sum = NULL;
	}
	spill_check(j, false);
}

/* The closed segment's ledger block (ledger.h).  A failure is logged:
 * `wattpath ledger rebuild` recomputes it while the segment exists. */
static void
write_ledger(struct journal *j, const struct mentry *e)
{
	struct wp_err err = { 0 };
	int rc = -1;

	if (j->ledger == NULL)
		return;
	if (j->sum == NULL)
		err_set(&err, WP_E_INTERNAL, "the segment's summary was "
		    "dropped (logged when it was)");
	else {
		if (j->sum_twin)
			jsum_twin_swap(j->sum);	/* the ledger's column */
		rc = ledger_append(j->ledger, e->name, e->start, e->count,
		    e->in, e->fin, j->sum, e->start + j->seg_len, &err);
		if (j->sum_twin)
			jsum_twin_swap(j->sum);
	}
	if (rc != 0)
		log_warnx("journal: no ledger block for segment %s: %s",
		    e->name, err.msg);
}

/* The blocks a crash at a segment's close left out (logged, not fatal). */
static void
ledger_resume(struct journal *j)
{
	struct wp_err err = { 0 };
	int n;

	if (j->ledger == NULL)
		return;
	if ((n = ledger_catch_up(j->ledger, j->dir, j->o.ledger_slot,
	    &err)) < 0)
		log_warnx("journal: ledger: %s (run wattpath ledger rebuild)",
		    err.msg);
	else if (n > 0)
		log_info("journal: ledger: %d block(s) written after a crash",
		    n);
}

/* Compresses closed segment e (jzst.c) unless the options say not; a
 * failure leaves it plain (readers take both). */
static void
pack_segment(struct journal *j, const struct mentry *e)
{
	struct wp_err err;
	int rc;

	if (j->o.compress < 0)
		return;
	rc = jzst_pack(j->dir, e->name, e->count, e->fin,
	    j->o.fsync != JOURNAL_FSYNC_NONE, &err);
	if (rc < 0)
		log_warnx("%s; the segment stays plain", err.msg);
	else if (rc > 0)
		log_warnx("journal: segment %s does not match its chain; left "
		    "plain (run wattpath journal verify)", e->name);
}

/* Whether dir/name is a plain segment (header version SEG_VERSION). */
static bool
seg_plain(const char *dir, const char *name)
{
	char path[PATH_MAX];
	uint8_t h[5];
	FILE *f;
	bool plain;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "rb")) == NULL)
		return false;
	plain = fread(h, 1, sizeof(h), f) == sizeof(h) &&
	    memcmp(h, "WPJS", 4) == 0 && h[4] == SEG_VERSION;
	fclose(f);
	return plain;
}

/*
 * Compresses the oldest closed segment before the last that is still plain
 * (a crash between a close and its compression, a failed compression, a
 * journal written before compression): one a close, so that catching up
 * never holds a close long.  Each is tried once per open.
 */
static void
pack_leftover(struct journal *j)
{
	struct mentry *e;

	if (j->o.compress < 0)
		return;
	for (; j->pack_from + 1 < j->m.n; j->pack_from++) {
		e = &j->m.e[j->pack_from];
		if (e->state != M_CLOSED || !seg_plain(j->dir, e->name))
			continue;
		j->pack_from++;
		pack_segment(j, e);
		if (!seg_plain(j->dir, e->name))
			log_info("journal: segment %s, left plain before, "
			    "compressed", e->name);
		return;
	}
}

static int
close_segment(struct journal *j, struct wp_err *err)
{
	struct mentry *e = manifest_last_open(j);

	if (j->fd >= 0) {
		if (j->o.fsync != JOURNAL_FSYNC_NONE && fdatasync(j->fd) != 0)
			log_warn("journal %s: fdatasync", j->seg_name);
		close(j->fd);
		j->fd = -1;
	}
	if (e == NULL)
		return 0;
	e->count = j->seg_count;
	memcpy(e->fin, j->h, HASH_LEN);
	if (manifest_append(j, "close", e, err) != 0)
		return -1;
	e->state = M_CLOSED;
	write_summary(j, e->name);
	write_ledger(j, e);
	if (j->sum != NULL) {
		j->sum_nt = j->sum->nt;
		j->sum_ns = j->sum->ns;
	}
	spill_check(j, true);
	jsum_free(j->sum);
	j->sum = NULL;
	pack_segment(j, e);
	pack_leftover(j);
	return 0;
}

/* Deletes closed segments that ended before now - retention. */
static void
expire(struct journal *j, wp_time now)
{
	char path[PATH_MAX];
	struct wp_err err;
	size_t i;

	for (i = 0; i + 1 < j->m.n; i++) {
		struct mentry *e = &j->m.e[i];

		if (e->state != M_CLOSED ||
		    j->m.e[i + 1].start > now - j->o.retention)
			continue;
		if (manifest_append(j, "expire", e, &err) != 0) {
			log_warnx("journal: expiry: %s", err.msg);
			return;
		}
		e->state = M_EXPIRED;
		snprintf(path, sizeof(path), "%s/%s", j->dir, e->name);
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("journal: unlink %s", path);
		else
			log_info("journal: expired segment %s", e->name);
		snprintf(path, sizeof(path), "%s/", j->dir);
		jsum_name(e->name, path + strlen(path),
		    sizeof(path) - strlen(path));
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("journal: unlink %s", path);
	}
}

static int
open_segment(struct journal *j, wp_time t, struct wp_err *err)
{
	char path[PATH_MAX];
	struct mentry e = { 0 };
	struct wire_buf hb = { 0 };
	wp_time start, len = j->o.segment_len;
	int fd;

	start = t - (((t % len) + len) % len);
	/* never before the end of the previous segment (clock stepped back) */
	if (j->m.n && start < j->seg_start + j->seg_len)
		start = j->seg_start + j->seg_len;
	if (j->m.n && start <= j->m.e[j->m.n - 1].start)
		start = j->m.e[j->m.n - 1].start + WP_SEC;
	jseg_name(start, len, e.name);
	snprintf(path, sizeof(path), "%s/%s", j->dir, e.name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644))
	    < 0)
		return err_set(err, WP_E_TRANSIENT, "journal %s: %s", path,
		    strerror(errno));
	wire_put(&hb, "WPJS", 4);
	wire_put_le(&hb, SEG_VERSION, 1);
	wire_put_le(&hb, 0, 3);
	wire_put_le(&hb, (uint64_t)start, 8);
	wire_put_le(&hb, (uint64_t)len, 8);
	wire_put(&hb, j->h, HASH_LEN);
	if (hb.oom || jseg_write_all(fd, hb.p, hb.len) != 0 ||
	    (j->o.fsync != JOURNAL_FSYNC_NONE && (fsync(fd) != 0 ||
	    fsync_dir(j->dir) != 0))) {
		free(hb.p);
		close(fd);
		unlink(path);
		return err_set(err, WP_E_TRANSIENT, "journal %s: %s", path,
		    strerror(errno));
	}
	free(hb.p);
	memcpy(e.in, j->h, HASH_LEN);
	memcpy(e.fin, j->h, HASH_LEN);
	e.start = start;
	if (jseg_manifest_apply(&j->m, "open", e.name, 0, e.in, e.fin) != 0) {
		close(fd);
		unlink(path);
		return err_set(err, WP_E_INTERNAL,
		    "journal: cannot record segment %s", e.name);
	}
	if (manifest_append(j, "open", &e, err) != 0) {
		j->m.n--;
		close(fd);
		unlink(path);
		return -1;
	}
	j->fd = fd;
	snprintf(j->seg_name, sizeof(j->seg_name), "%s", e.name);
	j->seg_start = start;
	j->seg_len = len;
	j->seg_count = 0;
	j->seg_off = SEG_HDR_LEN;
	jctx_reset(&j->ctx, start);
	summary_start(j, start, len, e.in);
	return 0;
}

/*
 * Resumes the open segment: re-reads it to find the chain value and the
 * end of the last good record, cuts off a torn tail, and closes it
 * (preserving the evidence) if it is corrupt inside.
 */
static int
resume_segment(struct journal *j, struct mentry *e, struct wp_err *err)
{
	struct seg_rd sr;
	char path[PATH_MAX];
	int rc;

	if (jseg_rd_init(&sr, err) != 0)
		return -1;
	memcpy(j->h, e->in, HASH_LEN);
	j->seg_count = 0;
	if (jseg_open(&sr, j->dir, e->name, err) != 0) {
		log_error("journal: open segment %s unreadable (%s); "
		    "starting a new one", e->name, err->msg);
		jseg_rd_fini(&sr);
		return close_segment(j, err);
	}
	snprintf(j->seg_name, sizeof(j->seg_name), "%s", e->name);
	summary_start(j, sr.start, sr.len, sr.in);
	while ((rc = jseg_next(&sr, err)) == RD_RECORD)
		summary_add(j, &sr.rec);	/* a failure names the segment */
	memcpy(j->h, sr.h, HASH_LEN);
	j->seg_count = sr.count;
	j->seg_start = sr.start;
	j->seg_len = sr.len;
	if (rc == RD_ERROR || memcmp(sr.in, e->in, HASH_LEN) != 0) {
		log_error("journal: segment %s is damaged (%s); closing it "
		    "at record %" PRIu64 " and starting a new one", e->name,
		    rc == RD_ERROR ? err->msg : "chain start differs",
		    sr.count);
		jseg_rd_fini(&sr);
		return close_segment(j, err);
	}
	snprintf(path, sizeof(path), "%s/%s", j->dir, e->name);
	j->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (j->fd < 0 || (rc == RD_TRUNCATED &&
	    ftruncate(j->fd, sr.good_end) != 0)) {
		jseg_rd_fini(&sr);
		return err_set(err, WP_E_TRANSIENT, "journal %s: %s", path,
		    strerror(errno));
	}
	if (rc == RD_TRUNCATED)
		log_warnx("journal: segment %s: cut a torn record after "
		    "record %" PRIu64, e->name, sr.count);
	j->seg_off = sr.good_end;
	lseek(j->fd, j->seg_off, SEEK_SET);
	/* appending goes on against what the reader has seen, kept
	 * compact from now on */
	jctx_fini(&j->ctx);
	j->ctx = sr.ctx;
	jctx_init(&sr.ctx, 0);
	jseg_rd_fini(&sr);
	if (jctx_compact(&j->ctx) != 0) {
		log_warnx("journal: out of memory; closing segment %s",
		    j->seg_name);
		return close_segment(j, err);
	}
	return 0;
}

/* Records a trailing segment file created just before a crash. */
static int
adopt_orphan(struct journal *j, struct wp_err *err)
{
	struct seg_file *sf;
	struct seg_rd sr;
	struct mentry e = { 0 };
	size_t n, i;
	int rc = 0;

	if (jseg_list(j->dir, &sf, &n, err) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (jseg_manifest_find(&j->m, sf[i].name) != NULL)
			continue;
		if (i + 1 != n || (j->m.n &&
		    sf[i].start <= j->m.e[j->m.n - 1].start) ||
		    manifest_last_open(j) != NULL) {
			rc = err_set(err, WP_E_CONFIG, "journal %s: segment "
			    "%s is not in MANIFEST; run wattpath journal "
			    "verify", j->dir, sf[i].name);
			break;
		}
		if (jseg_rd_init(&sr, err) != 0 ||
		    jseg_open(&sr, j->dir, sf[i].name, err) != 0) {
			jseg_rd_fini(&sr);
			rc = -1;
			break;
		}
		snprintf(e.name, sizeof(e.name), "%s", sf[i].name);
		memcpy(e.in, sr.in, HASH_LEN);
		memcpy(e.fin, sr.in, HASH_LEN);
		jseg_rd_fini(&sr);
		if (jseg_manifest_apply(&j->m, "open", e.name, 0, e.in, e.fin) ||
		    manifest_append(j, "open", &e, err)) {
			rc = err_set(err, WP_E_CONFIG, "journal: cannot adopt "
			    "segment %s", e.name);
			break;
		}
		log_warnx("journal: adopted segment %s", e.name);
	}
	free(sf);
	return rc;
}

static int
open_manifest(struct journal *j, struct wp_err *err)
{
	char path[PATH_MAX];

	if (jseg_manifest_read(j->dir, &j->m, err) != 0) {
		err_prefix(err, "journal %s", j->dir);
		err->class = WP_E_CONFIG;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/MANIFEST", j->dir);
	j->mfd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (j->mfd < 0)
		return err_set(err, WP_E_TRANSIENT, "%s: %s", path,
		    strerror(errno));
	if (j->m.partial) {
		log_warnx("journal: MANIFEST: cut a torn last line");
		if (ftruncate(j->mfd, j->m.good_len) != 0)
			return err_set(err, WP_E_TRANSIENT, "%s: %s", path,
			    strerror(errno));
	}
	return 0;
}

/* Start and length of the last (closed) segment, for the next start. */
static void
last_span(struct journal *j)
{
	const struct mentry *e = &j->m.e[j->m.n - 1];
	struct seg_rd sr;
	struct wp_err err;

	j->seg_start = e->start;
	j->seg_len = WP_SEC;
	if (e->state == M_EXPIRED || jseg_rd_init(&sr, &err) != 0)
		return;
	if (jseg_open(&sr, j->dir, e->name, &err) == 0 && sr.len > 0)
		j->seg_len = sr.len;
	jseg_rd_fini(&sr);
}

struct journal *
journal_open(const char *dir, const struct journal_opts *o,
    struct wp_err *err)
{
	struct journal *j;
	struct mentry *e;

	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (j->dir = strdup(dir)) == NULL ||
	    (j->md = EVP_MD_CTX_new()) == NULL) {
		err_set(err, WP_E_INTERNAL, "journal: out of memory");
		goto fail;
	}
	j->fd = j->mfd = -1;
	jctx_init(&j->ctx, 0);
	jctx_compact(&j->ctx);		/* empty: cannot fail */
	if (o)
		j->o = *o;
	if (j->o.fsync == JOURNAL_FSYNC_POLL && j->o.sync_interval > 0 &&
	    (j->bg = bgsync_new()) == NULL) {
		err_set(err, WP_E_INTERNAL, "journal: out of memory");
		goto fail;
	}
	if (j->o.retention <= 0)
		j->o.retention = DEFAULT_RETENTION;
	if (j->o.segment_len <= 0)
		j->o.segment_len = DEFAULT_SEGMENT;
	if (j->o.segment_len < WP_SEC || j->o.segment_len % WP_SEC) {
		err_set(err, WP_E_CONFIG, "journal: segment length must be "
		    "whole seconds");
		goto fail;
	}
	if (mkdir_p(dir) != 0) {
		err_set(err, WP_E_CONFIG, "journal %s: %s", dir,
		    strerror(errno));
		goto fail;
	}
	/* the ledger is derived: without it the journal still runs (and
	 * `wattpath ledger rebuild` recomputes it while segments exist) */
	if (j->o.ledger_dir != NULL && (j->ledger = ledger_open(
	    j->o.ledger_dir, j->o.ledger_retention,
	    j->o.fsync != JOURNAL_FSYNC_NONE, err)) == NULL) {
		log_warnx("journal: no ledger: %s", err->msg);
		err_clear(err);
	}
	if (open_manifest(j, err) != 0 || adopt_orphan(j, err) != 0)
		goto fail;
	ledger_resume(j);
	if (j->m.n)
		memcpy(j->h, j->m.e[j->m.n - 1].fin, HASH_LEN);
	if ((e = manifest_last_open(j)) != NULL &&
	    resume_segment(j, e, err) != 0)
		goto fail;
	if (j->m.n && j->fd < 0)
		last_span(j);
	return j;
fail:
	journal_close(j);
	return NULL;
}

/* Takes the outcome of a background sync that finished (waiting for a
 * running one if wait): a failure makes what it covered dirty again, and
 * the journal failing until a sync succeeds. */
static void
bg_look(struct journal *j, bool wait)
{
	int e;

	if (!(wait ? bgsync_wait(j->bg, &e) : bgsync_finished(j->bg, &e)))
		return;
	j->sync_err = e;
	if (e != 0)
		j->dirty = 1;
}

/* 0, or -1 with err while background syncs fail. */
static int
sync_failing(const struct journal *j, struct wp_err *err)
{
	if (j->sync_err == 0)
		return 0;
	return err_set(err, WP_E_TRANSIENT, "journal: fdatasync: %s",
	    strerror(j->sync_err));
}

/* Starts a background sync of what is appended, if any and none runs;
 * where the thread cannot start, syncs here, as without one.  0, or -1
 * with err. */
static int
bg_start(struct journal *j, struct wp_err *err)
{
	int started;

	if (!j->dirty || j->fd < 0)
		return 0;
	if ((started = bgsync_start(j->bg, j->fd)) < 0) {
		if (!j->bg_said)
			log_warn("journal: no sync thread, syncing in line");
		j->bg_said = true;
		return journal_flush(j, err);
	}
	if (started) {
		j->dirty = 0;
		j->last_sync = clock_mono();
	}
	return 0;
}

/* fsync: poll, after a record's write: fdatasync at once (no sync
 * interval), else at most once per sync_interval, off this thread (group
 * commit).  0, or -1 with err: this sync failed, or background syncs do
 * (the data stays dirty: a later sync tries again). */
static int
sync_poll(struct journal *j, struct wp_err *err)
{
	if (j->o.fsync != JOURNAL_FSYNC_POLL)
		return 0;
	j->dirty = 1;
	if (j->bg == NULL)
		return journal_flush(j, err);
	bg_look(j, false);
	if (clock_mono() - j->last_sync >= j->o.sync_interval &&
	    bg_start(j, err) != 0)
		return -1;
	return sync_failing(j, err);
}

int
journal_sync(struct journal *j, struct wp_err *err)
{
	if (j->bg == NULL)
		return j->dirty ? journal_flush(j, err) : 0;
	bg_look(j, false);
	return bg_start(j, err);
}

int
journal_append(struct journal *j, const struct journal_record *r,
    struct wp_err *err)
{
	uint8_t h[HASH_LEN];
	int sync_rc;

	if (jseg_check_record(r, err) != 0)
		return -1;
	if (j->fd >= 0 && r->t_real >= j->seg_start + j->seg_len &&
	    close_segment(j, err) != 0)
		return -1;
	if (j->fd < 0) {
		if (open_segment(j, r->t_real, err) != 0)
			return -1;
		expire(j, r->t_real);
	}
	if ((j->o.record_version == 1 ? jseg_encode_record(&j->b, r, err) :
	    jctx_encode(&j->ctx, &j->b, r, err)) != 0)
		return -1;
	if (jseg_chain_hash(j->md, j->h, j->b.p, j->b.len, h) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: SHA-256 failed");
	wire_put(&j->b, h, HASH_LEN);
	if (j->b.oom)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	if (jseg_write_all(j->fd, j->b.p, j->b.len) != 0) {
		err_set(err, WP_E_TRANSIENT, "journal %s: write: %s",
		    j->seg_name, strerror(errno));
		if (ftruncate(j->fd, j->seg_off) != 0 ||
		    lseek(j->fd, j->seg_off, SEEK_SET) < 0)
			log_warn("journal %s: cannot undo a partial write",
			    j->seg_name);
		return -1;
	}
	/* written: the chain, the count and the context take the record
	 * whatever the sync says (the next record follows it in the file) */
	sync_rc = sync_poll(j, err) == 0 ? 0 : 1;
	memcpy(j->h, h, HASH_LEN);
	j->seg_count++;
	j->seg_off += (off_t)j->b.len;
	summary_add(j, r);	/* before a close below writes the summary */
	if (jctx_commit(&j->ctx, r) != 0) {
		/* the next record cannot be encoded against this one: start
		 * a new segment (with a new context) for it */
		log_warnx("journal: out of memory; closing segment %s",
		    j->seg_name);
		if (close_segment(j, err) != 0)
			return 1;	/* the record is written */
	}
	return sync_rc;
}

int
journal_flush(struct journal *j, struct wp_err *err)
{
	int rc;

	if (j->bg != NULL)
		bg_look(j, true);
	if (j->fd >= 0 && fdatasync(j->fd) != 0) {
		j->sync_err = errno;
		return err_set(err, WP_E_TRANSIENT, "journal %s: fdatasync: "
		    "%s", j->seg_name, strerror(j->sync_err));
	}
	/* background syncs' failure is still reported: this sync's success
	 * does not cover the pages the kernel may have dropped after it */
	rc = j->bg != NULL ? sync_failing(j, err) : 0;
	j->sync_err = 0;
	j->dirty = 0;
	j->last_sync = clock_mono();
	return rc;
}

void
journal_close(struct journal *j)
{
	int e;

	if (j == NULL)
		return;
	if (j->bg != NULL) {
		if (bgsync_wait(j->bg, &e) && e != 0)
			log_warnx("journal: fdatasync: %s", strerror(e));
		bgsync_free(j->bg);
	}
	if (j->fd >= 0) {
		if (j->o.fsync != JOURNAL_FSYNC_NONE && fdatasync(j->fd) != 0)
			log_warn("journal %s: fdatasync", j->seg_name);
		close(j->fd);
	}
	if (j->mfd >= 0)
		close(j->mfd);
	jseg_manifest_fini(&j->m);
	jsum_free(j->sum);
	ledger_close(j->ledger);
	jctx_fini(&j->ctx);
	EVP_MD_CTX_free(j->md);
	free(j->b.p);
	free(j->dir);
	free(j);
}

/* ---- verify ---- */

static bool
seg_listed(const struct seg_file *sf, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(sf[i].name, name) == 0)
			return true;
	return false;
}

/* Reads every record of a segment from chain value in. */
static int
verify_segment(const char *dir, const char *name, const uint8_t in[HASH_LEN],
    struct seg_rd *sr, bool open, struct jsum *js,
    struct journal_verify_stats *st, struct wp_err *err)
{
	int rc;

	if (jseg_open(sr, dir, name, err) != 0) {
		if (errno == ENOENT)
			err_set(err, WP_E_PROTOCOL, "segment %s: missing "
			    "(deleted?)", name);
		return -1;
	}
	if (memcmp(sr->in, in, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL, "segment %s: does not "
		    "follow the previous segment (removed or reordered)",
		    name);
	while ((rc = jseg_next(sr, err)) == RD_RECORD) {
		st->records++;
		if (js != NULL && jsum_add(js, &sr->rec) != 0)
			return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	if (rc == RD_ERROR)
		return -1;
	if (rc == RD_TRUNCATED) {
		if (!open)
			return err_set(err, WP_E_PROTOCOL, "segment %s: "
			    "truncated after record %" PRIu64, name,
			    sr->count);
		snprintf(st->note, sizeof(st->note), "segment %s: torn last "
		    "record after record %" PRIu64 " (crash mid-write)", name,
		    sr->count);
	}
	st->segments++;
	return 0;
}

/*
 * Checks NAME.wps (its bytes, file) of a closed segment: it is the file
 * the summary js recomputed from the segment's records makes, trailer
 * included (hashed, not encoded: jseg_hash_summary).
 */
static int
verify_summary(const struct mentry *e, struct jsum *js, const uint8_t *file,
    size_t flen, struct wp_err *err)
{
	uint8_t want[HASH_LEN], got[HASH_LEN];

	if (jseg_hash_summary(js, e->fin, e->count, want) != 0)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (EVP_Digest(file, flen, got, NULL, EVP_sha256(), NULL) != 1 ||
	    memcmp(want, got, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL, "segment %s: its summary "
		    "does not match the segment (edited, replaced or "
		    "corrupt)", e->name);
	return 0;
}

/* One listed, non-expired segment (and its summary when closed). */
static int
verify_one(const char *dir, const struct mentry *e, const uint8_t h[HASH_LEN],
    struct seg_rd *sr, struct journal_verify_stats *st, struct wp_err *err)
{
	char path[PATH_MAX];
	struct jsum *js = NULL, *hdr;
	uint8_t *file = NULL;
	size_t flen = 0;
	struct wp_err le = { 0 };
	int rc = -1;

	snprintf(path, sizeof(path), "%s/", dir);
	jsum_name(e->name, path + strlen(path), sizeof(path) - strlen(path));
	if (e->state == M_CLOSED && jsum_slurp(path, &file, &flen, &le) != 0 &&
	    le.class != WP_E_CONFIG) {
		err_set(err, WP_E_PROTOCOL, "segment %s: %s", e->name, le.msg);
		goto out;
	}
	if (file != NULL) {
		if (flen < HASH_LEN || (hdr = jsum_decode(file, flen -
		    HASH_LEN, err)) == NULL) {
			err_set(err, WP_E_PROTOCOL, "segment %s: its summary "
			    "is malformed", e->name);
			goto out;
		}
		js = jsum_new(hdr->seg_start, hdr->seg_len, hdr->slot, h);
		if (js != NULL)		/* rebuilt as it was written */
			js->version = hdr->version;
		jsum_free(hdr);
		if (js == NULL) {
			err_set(err, WP_E_INTERNAL, "out of memory");
			goto out;
		}
	}
	if (verify_segment(dir, e->name, h, sr, e->state == M_OPEN, js, st,
	    err) != 0)
		goto out;
	if (e->state == M_CLOSED && (sr->count != e->count ||
	    memcmp(sr->h, e->fin, HASH_LEN) != 0)) {
		err_set(err, WP_E_PROTOCOL, "segment %s: %" PRIu64 " records, "
		    "MANIFEST says %" PRIu64 " (or final hash differs)",
		    e->name, sr->count, e->count);
		goto out;
	}
	if (js != NULL) {
		js->seg_start = sr->start;
		js->seg_len = sr->len;
		if (verify_summary(e, js, file, flen, err) != 0)
			goto out;
		st->summaries++;
	}
	rc = 0;
out:
	jsum_free(js);
	free(file);
	return rc;
}

static int
verify_entries(const char *dir, const struct manifest *m,
    const struct seg_file *sf, size_t nsf, struct seg_rd *sr,
    struct journal_verify_stats *st, struct wp_err *err)
{
	uint8_t h[HASH_LEN] = { 0 };
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct mentry *e = &m->e[i];

		if (memcmp(e->in, h, HASH_LEN) != 0)
			return err_set(err, WP_E_PROTOCOL, "MANIFEST: segment "
			    "%s does not chain from the previous one", e->name);
		if (e->state == M_EXPIRED) {
			st->expired_segments++;
			memcpy(h, e->fin, HASH_LEN);
			continue;
		}
		if (e->state == M_OPEN && i + 1 != m->n)
			return err_set(err, WP_E_PROTOCOL, "MANIFEST: segment "
			    "%s open but not last", e->name);
		if (!seg_listed(sf, nsf, e->name))
			return err_set(err, WP_E_PROTOCOL, "segment %s: "
			    "missing (deleted?)", e->name);
		if (verify_one(dir, e, h, sr, st, err) != 0)
			return -1;
		memcpy(h, sr->h, HASH_LEN);
	}
	/* A trailing segment created just before a crash may be unlisted. */
	for (i = 0; i < nsf; i++) {
		struct mentry *e = jseg_manifest_find((struct manifest *)m,
		    sf[i].name);

		if (e != NULL)
			continue;
		if (i + 1 != nsf || (m->n && (m->e[m->n - 1].state == M_OPEN ||
		    m->e[m->n - 1].start >= sf[i].start)))
			return err_set(err, WP_E_PROTOCOL, "segment %s: not in "
			    "MANIFEST", sf[i].name);
		if (verify_segment(dir, sf[i].name, h, sr, true, NULL, st,
		    err))
			return -1;
	}
	return 0;
}

int
journal_verify(const char *dir, struct journal_verify_stats *st,
    struct wp_err *err)
{
	struct journal_verify_stats dummy;
	struct manifest m;
	struct seg_file *sf = NULL;
	struct seg_rd sr;
	size_t nsf;
	int rc = -1;

	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (jseg_rd_init(&sr, err) != 0)
		return -1;
	if (jseg_manifest_read(dir, &m, err) != 0)
		goto out;
	if (m.partial)
		snprintf(st->note, sizeof(st->note), "MANIFEST: torn last "
		    "line (crash mid-write)");
	if (jseg_list(dir, &sf, &nsf, err) != 0)
		goto out;
	if (!m.exists && nsf > 0) {
		err_set(err, WP_E_PROTOCOL, "journal %s: MANIFEST missing or "
		    "empty", dir);
		goto out;
	}
	rc = verify_entries(dir, &m, sf, nsf, &sr, st, err);
out:
	if (rc != 0)
		snprintf(st->first_bad, sizeof(st->first_bad), "%s", err->msg);
	free(sf);
	jseg_manifest_fini(&m);
	jseg_rd_fini(&sr);
	return rc;
}
