/* ledger.c - the long-term energy ledger (see ledger.h, docs/ledger.md). */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <pthread.h>

#include "../lib/log.h"
#include "jseg.h"
#include "jsum.h"
#include "ledger.h"

#define LEDGER_INDEX	"LEDGER"
#define DAYS_INDEX	"DAYS"
#define LINE_MAX_LEN	512

struct ledger {
	char		*dir;
	wp_time		 retention;
	bool		 sync;
	struct ledger_index ix;
	struct ledger_index days;	/* DAYS */
	wp_time		 day_tried;	/* the last day written or tried */
	bool		 ix_stale;	/* LEDGER's file lacks a line: rewrite */
	bool		 days_stale;	/* DAYS's likewise */
	EVP_MD_CTX	*md;
};

static const char *
ix_file(bool days)
{
	return days ? DAYS_INDEX : LEDGER_INDEX;
}

static const char *
ix_word(bool days)
{
	return days ? "day" : "block";
}

/* ---- hashing and files ---- */

static int
sha256(const void *p, size_t n, uint8_t out[HASH_LEN])
{
	unsigned int len = 0;

	return EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) == 1 &&
	    len == HASH_LEN ? 0 : -1;
}

/* The index line of e up to FILE (what CHAIN covers), in out. */
static int
entry_line(const struct ledger_entry *e, bool days, char *out, size_t len)
{
	char inx[65], finx[65], fx[65];

	jseg_hex(e->in, inx);
	jseg_hex(e->fin, finx);
	jseg_hex(e->file, fx);
	return snprintf(out, len, "%s %s %" PRId64 " %" PRIu64 " %s %s %s",
	    ix_word(days), e->name, e->start, e->count, inx, finx, fx);
}

int
ledger_entry_chain(EVP_MD_CTX *md, const uint8_t prev[HASH_LEN],
    struct ledger_entry *e, bool days)
{
	char line[LINE_MAX_LEN];
	int n = entry_line(e, days, line, sizeof(line));

	return jseg_chain_hash(md, prev, line, (size_t)n, e->chain);
}

struct bytes {
	const void	*p;
	size_t		 n;
};

static int
fill_bytes(int fd, void *arg)
{
	const struct bytes *b = arg;

	return jseg_write_all(fd, b->p, b->n);
}

/* Writes p to path via path.tmp and rename.  0 or -1. */
static int
ledger_write_file_sync(const char *path, const void *p, size_t n, bool sync)
{
	struct bytes b = { p, n };

	return jseg_write_file(path, sync, fill_bytes, &b);
}

void
ledger_block_path(const char *ldir, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);

	if (n > 4 && strcmp(name + n - 4, ".wpd") == 0) {
		snprintf(out, len, "%s/%s", ldir, name);
		return;
	}
	if (n > 4 && strcmp(name + n - 4, ".wpj") == 0)
		n -= 4;
	snprintf(out, len, "%s/%.*s.wpl", ldir, (int)n, name);
}

/* The index that names block file name: DAYS or LEDGER. */
static const char *
index_of(const char *name)
{
	size_t n = strlen(name);

	return ix_file(n > 4 && strcmp(name + n - 4, ".wpd") == 0);
}

wp_time
ledger_day_start(wp_time t)
{
	wp_time r = t % LEDGER_DAY;

	return r < 0 ? t - r - LEDGER_DAY : t - r;
}

void
ledger_day_name(wp_time day, char out[32])
{
	time_t t = (time_t)(day / WP_SEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, 32, "%04d%02d%02d.wpd", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday);
}

/* ---- the index ---- */

static int
ix_push(struct ledger_index *ix, const struct ledger_entry *e)
{
	if (ix->n == ix->cap) {
		size_t nc = ix->cap ? ix->cap * 2 : 256;
		struct ledger_entry *ne = reallocarray(ix->e, nc, sizeof(*ne));

		if (ne == NULL)
			return -1;
		ix->e = ne;
		ix->cap = nc;
	}
	ix->e[ix->n++] = *e;
	return 0;
}

int
ledger_index_push(struct ledger_index *ix, const struct ledger_entry *e)
{
	if (ix_push(ix, e) != 0)
		return -1;
	memcpy(ix->last, e->chain, HASH_LEN);
	return 0;
}

/* One "block" (or "day") line into e (chain checked against prev).  0 or
 * -1. */
static int
parse_block(EVP_MD_CTX *md, char *line, bool days,
    const uint8_t prev[HASH_LEN], struct ledger_entry *e)
{
	char word[8], name[64], inx[80], finx[80], fx[80], cx[80];
	uint8_t want[HASH_LEN];

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%7s %63s %" SCNd64 " %" SCNu64 " %79s %79s %79s "
	    "%79s", word, name, &e->start, &e->count, inx, finx, fx,
	    cx) != 8 || strcmp(word, ix_word(days)) != 0 ||
	    strlen(name) >= sizeof(e->name) || jseg_unhex(inx, e->in) ||
	    jseg_unhex(finx, e->fin) || jseg_unhex(fx, e->file) ||
	    jseg_unhex(cx, want))
		return -1;
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (ledger_entry_chain(md, prev, e, days) != 0)
		return -1;
	return memcmp(e->chain, want, HASH_LEN) == 0 ? 0 : -1;
}

static int
index_lines(FILE *f, EVP_MD_CTX *md, struct ledger_index *ix,
    struct wp_err *err)
{
	const char *fn = ix_file(ix->days), *w = ix_word(ix->days);
	char line[LINE_MAX_LEN], cx[80];
	struct ledger_entry e;
	size_t no = 0;

	while (fgets(line, sizeof(line), f) != NULL) {
		no++;
		if (no == 1 && sscanf(line, "anchor %79s", cx) == 1) {
			if (jseg_unhex(cx, ix->anchor) != 0)
				return err_set(err, WP_E_PROTOCOL, "%s:%zu: "
				    "malformed anchor", fn, no);
			memcpy(ix->last, ix->anchor, HASH_LEN);
			continue;
		}
		if (parse_block(md, line, ix->days, ix->last, &e) != 0)
			return err_set(err, WP_E_PROTOCOL, "%s:%zu: %s "
			    "does not chain from the previous line (edited, "
			    "removed or reordered)", fn, no, w);
		if (ix->n > 0 && e.start <= ix->e[ix->n - 1].start)
			return err_set(err, WP_E_PROTOCOL, "%s:%zu: %s "
			    "%s out of order", fn, no, w, e.name);
		if (ix->days && (e.start % LEDGER_DAY != 0 ||
		    strlen(e.name) != 12 || strcmp(e.name + 8, ".wpd") != 0))
			return err_set(err, WP_E_PROTOCOL, "%s:%zu: day %s "
			    "is not a whole UTC day", fn, no, e.name);
		if (ix_push(ix, &e) != 0)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		memcpy(ix->last, e.chain, HASH_LEN);
	}
	return 0;
}

static int
index_read(const char *ldir, bool days, struct ledger_index *ix,
    struct wp_err *err)
{
	char path[PATH_MAX];
	EVP_MD_CTX *md;
	FILE *f;
	int rc;

	memset(ix, 0, sizeof(*ix));
	ix->days = days;
	snprintf(path, sizeof(path), "%s/%s", ldir, ix_file(days));
	if ((f = fopen(path, "r")) == NULL)
		return errno == ENOENT ? 0 : err_set(err, WP_E_TRANSIENT,
		    "%s: %s", path, strerror(errno));
	ix->exists = true;
	if ((md = EVP_MD_CTX_new()) == NULL) {
		fclose(f);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	rc = index_lines(f, md, ix, err);
	if (rc == 0 && ferror(f))	/* not its end: not the whole index */
		rc = err_set(err, WP_E_TRANSIENT, "%s: read error", path);
	EVP_MD_CTX_free(md);
	fclose(f);
	return rc;
}

int
ledger_index_read(const char *ldir, struct ledger_index *ix,
    struct wp_err *err)
{
	return index_read(ldir, false, ix, err);
}

int
ledger_days_read(const char *ldir, struct ledger_index *ix,
    struct wp_err *err)
{
	return index_read(ldir, true, ix, err);
}

void
ledger_index_fini(struct ledger_index *ix)
{
	bool days = ix->days;

	free(ix->e);
	memset(ix, 0, sizeof(*ix));
	ix->days = days;
}

size_t
ledger_index_lower(const struct ledger_index *ix, wp_time t)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {		/* starts strictly increase */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->e[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct ledger_entry *
ledger_index_find(const struct ledger_index *ix, const char *name)
{
	wp_time start;
	size_t lo;

	if (jseg_parse_name(name, &start) != 0)
		return NULL;
	lo = ledger_index_lower(ix, start);
	return lo < ix->n && strcmp(ix->e[lo].name, name) == 0 ?
	    &ix->e[lo] : NULL;
}

/* Writes the whole index (anchor first when not zero). */
int
ledger_index_write_sync(const char *ldir, const struct ledger_index *ix,
    bool sync)
{
	static const uint8_t zero[HASH_LEN];
	char path[PATH_MAX], line[LINE_MAX_LEN], cx[65];
	struct wire_buf b = { 0 };
	size_t i;
	int n, rc;

	if (memcmp(ix->anchor, zero, HASH_LEN) != 0) {
		jseg_hex(ix->anchor, cx);
		n = snprintf(line, sizeof(line), "anchor %s\n", cx);
		wire_put(&b, line, (size_t)n);
	}
	for (i = 0; i < ix->n; i++) {
		n = entry_line(&ix->e[i], ix->days, line, sizeof(line));
		jseg_hex(ix->e[i].chain, cx);
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %s\n", cx);
		wire_put(&b, line, (size_t)n);
	}
	if (b.oom)
		return free(b.p), -1;
	snprintf(path, sizeof(path), "%s/%s", ldir, ix_file(ix->days));
	rc = ledger_write_file_sync(path, b.p != NULL ? (const void *)b.p : "", b.len,
	    sync);
	free(b.p);
	return rc;
}

/* ---- blocks ---- */

static struct jsum *block_read(const char *ldir, const struct ledger_entry *e,
		    bool trailer, struct wp_err *err);

/* Whether the block's trailer is not SHA-256(fin || bytes). */
static bool
trailer_bad(const struct ledger_entry *e, const uint8_t *file, size_t flen)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t h[HASH_LEN];
	bool bad;

	bad = md == NULL || jseg_chain_hash(md, e->fin, file, flen - HASH_LEN,
	    h) != 0 || memcmp(h, file + flen - HASH_LEN, HASH_LEN) != 0;
	EVP_MD_CTX_free(md);
	return bad;
}

struct jsum *
ledger_block_load(const char *ldir, const struct ledger_entry *e,
    struct wp_err *err)
{
	return block_read(ldir, e, true, err);
}

/* The bytes of e's block file (*file malloc'd, *flen of them, its
 * trailer last), checked against e's line (and its trailer, when asked).
 * 0, or -1 with err. */
static int
block_bytes(const char *ldir, const struct ledger_entry *e, bool trailer,
    uint8_t **file, size_t *flen, struct wp_err *err)
{
	char path[PATH_MAX];
	uint8_t h[HASH_LEN];

	ledger_block_path(ldir, e->name, path, sizeof(path));
	if (jsum_slurp(path, file, flen, err) != 0)
		return -1;
	if (*flen < HASH_LEN || sha256(*file, *flen, h) != 0 ||
	    memcmp(h, e->file, HASH_LEN) != 0 ||
	    (trailer && trailer_bad(e, *file, *flen))) {
		free(*file);
		return err_set(err, WP_E_PROTOCOL, "ledger block %s: does not "
		    "match its %s line (edited or replaced)", e->name,
		    index_of(e->name));
	}
	return 0;
}

/* Whether a block's chain values and count are not those of e's line. */
static bool
chain_differs(const struct ledger_entry *e, uint64_t count,
    const uint8_t in[HASH_LEN], const uint8_t fin[HASH_LEN],
    struct wp_err *err)
{
	if (count == e->count && memcmp(in, e->in, HASH_LEN) == 0 &&
	    memcmp(fin, e->fin, HASH_LEN) == 0)
		return false;
	err_set(err, WP_E_PROTOCOL, "ledger block %s: chain values differ "
	    "from its %s line", e->name, index_of(e->name));
	return true;
}

static struct jsum *
block_read(const char *ldir, const struct ledger_entry *e, bool trailer,
    struct wp_err *err)
{
	uint8_t *file;
	size_t flen;
	struct jsum *js;

	if (block_bytes(ldir, e, trailer, &file, &flen, err) != 0)
		return NULL;
	js = jsum_decode(file, flen - HASH_LEN, err);
	free(file);
	if (js != NULL && chain_differs(e, js->count, js->in, js->fin, err)) {
		jsum_free(js);
		return NULL;
	}
	return js;
}

/* ---- reading blocks one after another (ledger_rd) ---- */

struct rd_job {		/* one block file read and hashed */
	char	 path[PATH_MAX];
	char	 name[32];
	wp_time	 start;
	uint8_t	 want[HASH_LEN];	/* the hash its line names */
	uint8_t	*buf;
	size_t	 cap, len;
	int	 rc;
	struct wp_err err;
};

struct ledger_rd {
	char		*ldir;
	struct jsum_rd	 dec;
	struct rd_job	 job;
	pthread_t	 thr;
	bool		 running;	/* thr reads job */
	bool		 ahead;		/* job holds a block read ahead */
};

static void
job_set(struct rd_job *j, const char *ldir, const struct ledger_entry *e)
{
	ledger_block_path(ldir, e->name, j->path, sizeof(j->path));
	snprintf(j->name, sizeof(j->name), "%s", e->name);
	j->start = e->start;
	memcpy(j->want, e->file, HASH_LEN);
}


static void *
job_run(void *arg)
{
	struct rd_job *j = arg;
	uint8_t h[HASH_LEN];

	err_clear(&j->err);
	if ((j->rc = jsum_slurp_into(j->path, &j->buf, &j->cap, &j->len,
	    &j->err)) == 0 && (j->len < HASH_LEN ||
	    sha256(j->buf, j->len, h) != 0 || memcmp(h, j->want,
	    HASH_LEN) != 0))
		j->rc = err_set(&j->err, WP_E_PROTOCOL, "ledger block %s: does "
		    "not match its %s line (edited or replaced)", j->name,
		    index_of(j->name));
	return NULL;
}

struct ledger_rd *
ledger_rd_new(const char *ldir)
{
	struct ledger_rd *r = calloc(1, sizeof(*r));

	if (r != NULL && (r->ldir = strdup(ldir)) == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

static void
rd_join(struct ledger_rd *r)
{
	if (r->running)
		pthread_join(r->thr, NULL);
	r->running = false;
}

/* The block in r->job (read and hashed) decoded and checked against e. */
static const struct jsum *
rd_decode(struct ledger_rd *r, const struct ledger_entry *e,
    struct wp_err *err)
{
	const struct jsum *js;

	if (r->job.rc != 0) {
		*err = r->job.err;
		return NULL;
	}
	js = jsum_rd_decode(&r->dec, &r->job.buf, &r->job.cap, r->job.len -
	    HASH_LEN, err);
	if (js != NULL && (js->count != e->count || memcmp(js->in, e->in,
	    HASH_LEN) != 0 || memcmp(js->fin, e->fin, HASH_LEN) != 0)) {
		err_set(err, WP_E_PROTOCOL, "ledger block %s: chain values "
		    "differ from its %s line", e->name, index_of(e->name));
		return NULL;
	}
	return js;
}

const struct jsum *
ledger_rd_block(struct ledger_rd *r, const struct ledger_entry *e,
    const struct ledger_entry *next, struct wp_err *err)
{
	const struct jsum *js;

	rd_join(r);
	if (!r->ahead || r->job.start != e->start ||
	    strcmp(r->job.name, e->name) != 0 ||
	    memcmp(r->job.want, e->file, HASH_LEN) != 0) {
		job_set(&r->job, r->ldir, e);
		job_run(&r->job);
	}
	r->ahead = false;
	js = rd_decode(r, e, err);
	if (next != NULL) {	/* into the buffer the decoder handed back */
		job_set(&r->job, r->ldir, next);
		r->running = r->ahead = pthread_create(&r->thr, NULL, job_run,
		    &r->job) == 0;
	}
	return js;
}

void
ledger_rd_free(struct ledger_rd *r)
{
	if (r == NULL)
		return;
	rd_join(r);
	jsum_rd_fini(&r->dec);
	free(r->job.buf);
	free(r->ldir);
	free(r);
}

/* ---- the writer ---- */

int
ledger_mkdir(const char *ldir, struct wp_err *err)
{
	if (mkdir(ldir, 0750) != 0 && errno != EEXIST)
		return err_set(err, WP_E_CONFIG, "mkdir %s: %s", ldir,
		    strerror(errno));
	return 0;
}

/* An unreadable DAYS kept as DAYS.bad-SECONDS (evidence) and a fresh
 * one started: day blocks are derived, `ledger rebuild` rewrites them. */
static void
days_set_aside(struct ledger *l, const char *why)
{
	char from[PATH_MAX], to[PATH_MAX + 32];

	snprintf(from, sizeof(from), "%s/%s", l->dir, DAYS_INDEX);
	snprintf(to, sizeof(to), "%s.bad-%lld", from,
	    (long long)(clock_real() / WP_SEC));
	if (rename(from, to) != 0)
		log_warn("ledger: rename %s", from);
	log_warnx("ledger %s: %s; kept as %s, new days start a fresh index "
	    "(run wattpath ledger rebuild)", l->dir, why, to);
}

struct ledger *
ledger_open(const char *ldir, wp_time retention, bool sync,
    struct wp_err *err)
{
	struct ledger *l = calloc(1, sizeof(*l));

	if (l == NULL || (l->dir = strdup(ldir)) == NULL ||
	    (l->md = EVP_MD_CTX_new()) == NULL) {
		ledger_close(l);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	l->retention = retention > 0 ? retention : LEDGER_RETENTION_DEFAULT;
	l->sync = sync;
	l->day_tried = INT64_MIN;
	if (ledger_mkdir(ldir, err) != 0) {
		ledger_close(l);
		return NULL;
	}
	if (ledger_index_read(ldir, &l->ix, err) != 0) {
		log_warnx("ledger %s: %s; new blocks start a fresh index "
		    "(run wattpath ledger rebuild)", ldir, err->msg);
		ledger_index_fini(&l->ix);
		err_clear(err);
	}
	if (ledger_days_read(ldir, &l->days, err) != 0) {
		/* a file opened, then bad or unreadable: kept aside, not
		 * rewritten from the lines after */
		if (l->days.exists)
			days_set_aside(l, err->msg);
		else
			log_warnx("ledger %s: %s; new days start a fresh index",
			    ldir, err->msg);
		ledger_index_fini(&l->days);
		l->days_stale = true;
		err_clear(err);
	}
	return l;
}

wp_time
ledger_last_start(const struct ledger *l)
{
	return l->ix.n > 0 ? l->ix.e[l->ix.n - 1].start : -1;
}

void
ledger_close(struct ledger *l)
{
	if (l == NULL)
		return;
	ledger_index_fini(&l->ix);
	ledger_index_fini(&l->days);
	EVP_MD_CTX_free(l->md);
	free(l->dir);
	free(l);
}

/* Drops ix's first k entries and their files; the anchor takes the last
 * dropped chain value. */
static void
index_drop(const char *ldir, struct ledger_index *ix, size_t k)
{
	char path[PATH_MAX];
	size_t i;

	memcpy(ix->anchor, ix->e[k - 1].chain, HASH_LEN);
	for (i = 0; i < k; i++) {
		ledger_block_path(ldir, ix->e[i].name, path, sizeof(path));
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("ledger: unlink %s", path);
	}
	memmove(ix->e, ix->e + k, (ix->n - k) * sizeof(*ix->e));
	ix->n -= k;
}

/* Drops blocks whose successor starts before cut;
 * the anchor takes the last dropped chain value.  Returns how many were
 * dropped. */
size_t
ledger_index_expire(const char *ldir, struct ledger_index *ix, wp_time cut)
{
	size_t k = 0;

	while (k + 1 < ix->n && ix->e[k + 1].start <= cut)
		k++;
	if (k > 0)
		index_drop(ldir, ix, k);
	return k;
}

/* After blocks expired: the days that lost one (those starting before the
 * first block left) go too, so that every day kept is made of blocks that
 * are all there.  Returns how many. */
static size_t
days_expire(struct ledger *l)
{
	static const uint8_t zero[HASH_LEN];
	size_t k;

	if (l->ix.n == 0 || memcmp(l->ix.anchor, zero, HASH_LEN) == 0)
		return 0;		/* no block dropped */
	k = ledger_index_lower(&l->days, l->ix.e[0].start);
	if (k > 0)
		index_drop(l->dir, &l->days, k);
	return k;
}

/* Appends line e to ix's file (or rewrites it when expired). */
static int
index_append(struct ledger *l, const struct ledger_index *ix,
    const struct ledger_entry *e, bool rewrite)
{
	char path[PATH_MAX], line[LINE_MAX_LEN], cx[65];
	struct stat st;
	int fd, n, ok;

	if (rewrite)
		return ledger_index_write_sync(l->dir, ix, l->sync);
	n = entry_line(e, ix->days, line, sizeof(line));
	jseg_hex(e->chain, cx);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " %s\n", cx);
	snprintf(path, sizeof(path), "%s/%s", l->dir, ix_file(ix->days));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644)) < 0)
		return -1;
	ok = fstat(fd, &st) == 0;
	if (ok && !(ok = write(fd, line, (size_t)n) == n))
		(void)ftruncate(fd, st.st_size);	/* no torn line */
	ok = ok && (!l->sync || fsync(fd) == 0);
	close(fd);
	return ok ? 0 : -1;
}

/* ---- day blocks ---- */

int
ledger_day_merge(const char *ldir, const struct ledger_index *ix,
    wp_time day, struct ledger_entry *e, struct jsum_merge *m,
    struct wp_err *err)
{
	size_t i = ledger_index_lower(ix, day), k;
	size_t j = ledger_index_lower(ix, day + LEDGER_DAY);
	uint8_t *file;
	size_t flen;
	int rc;

	memset(e, 0, sizeof(*e));
	ledger_day_name(day, e->name);
	e->start = day;
	if (i == j)
		return err_set(err, WP_E_INTERNAL, "ledger: no block on day %s",
		    e->name);
	if (jsum_merge_init(m, day, LEDGER_DAY, LEDGER_SLOT_DEFAULT,
	    ix->e[i].in) != 0)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	memcpy(e->in, ix->e[i].in, HASH_LEN);
	memcpy(e->fin, ix->e[j - 1].fin, HASH_LEN);
	for (k = i; k < j; k++) {	/* each decoded as it is merged */
		if (block_bytes(ldir, &ix->e[k], true, &file, &flen, err) != 0)
			goto fail;
		e->count += ix->e[k].count;
		rc = jsum_merge_add_bytes(m, file, flen - HASH_LEN, err);
		free(file);
		if (rc != 0) {
			err_set(err, WP_E_PROTOCOL, "ledger block %s: cannot be "
			    "merged (out of memory or malformed)",
			    ix->e[k].name);
			goto fail;
		}
		if (chain_differs(&ix->e[k], m->b_count, m->b_in, m->b_fin,
		    err))
			goto fail;
	}
	jsum_merge_finish(m);
	return 0;
fail:
	jsum_merge_fini(m);
	return -1;
}

int
ledger_day_hash(const char *ldir, const struct ledger_index *ix, wp_time day,
    struct ledger_entry *e, struct wp_err *err)
{
	struct jsum_merge m;
	int rc = 0;

	if (ledger_day_merge(ldir, ix, day, e, &m, err) != 0)
		return -1;
	if (jseg_hash_summary(m.s, e->fin, e->count, e->file) != 0)
		rc = err_set(err, WP_E_INTERNAL, "out of memory");
	jsum_merge_fini(&m);
	return rc;
}

/*
 * Entry e (all but its chain and file hash) committed to index ix with
 * its block s: the file written (its hash into e), chained, the entry
 * pushed, what retention drops dropped and its line appended (the whole
 * index rewritten when something was dropped or, *stale, a line went
 * missing before).  0, or -1 with err.
 */
static int
entry_commit(struct ledger *l, struct ledger_index *ix, bool *stale,
    struct ledger_entry *e, struct jsum *s, wp_time now, struct wp_err *err)
{
	char path[PATH_MAX];
	bool rw;

	ledger_block_path(l->dir, e->name, path, sizeof(path));
	if (jseg_write_summary(s, e->fin, e->count, path, l->sync, e->file)
	    != 0)
		return err_set(err, WP_E_TRANSIENT, "ledger: %s: %s", path,
		    strerror(errno));
	if (ledger_entry_chain(l->md, ix->last, e, ix->days) != 0)
		return err_set(err, WP_E_INTERNAL, "ledger: out of memory");
	if (ledger_index_push(ix, e) != 0)
		return err_set(err, WP_E_INTERNAL, "ledger: out of memory");
	rw = ledger_index_expire(l->dir, ix, now - l->retention) > 0;
	if (index_append(l, ix, e, rw || *stale) != 0) {
		*stale = true;	/* the next one rewrites it */
		return err_set(err, WP_E_TRANSIENT, "ledger: %s/%s: %s",
		    l->dir, ix_file(ix->days), strerror(errno));
	}
	*stale = false;
	return 0;
}

/* Writes the day block of day (its blocks are all in l->ix) and appends
 * its DAYS line.  0, or -1 with err. */
static int
day_write(struct ledger *l, wp_time day, wp_time now, struct wp_err *err)
{
	struct ledger_entry e;
	struct jsum_merge m;
	int rc;

	if (ledger_day_merge(l->dir, &l->ix, day, &e, &m, err) != 0)
		return -1;
	rc = entry_commit(l, &l->days, &l->days_stale, &e, m.s, now, err);
	jsum_merge_fini(&m);
	return rc;
}

/*
 * The day blocks of the days a block starting at start closed: every day
 * before start's with blocks and after the last day line; with no day
 * line yet, only the day of the block before (a ledger from before day
 * blocks starts them now; `ledger rebuild` writes the older ones).  Each
 * day is tried once by a process: one that fails is logged and left to
 * `ledger rebuild` (verify names it), and the days after it are written.
 */
static void
days_close(struct ledger *l, wp_time start, wp_time now)
{
	wp_time today = ledger_day_start(start), d;
	struct wp_err err = { 0 };
	size_t k;

	if (l->ix.n < 2)
		return;
	if (l->days.n > 0)
		d = l->days.e[l->days.n - 1].start + LEDGER_DAY;
	else
		d = ledger_day_start(l->ix.e[l->ix.n - 2].start);
	if (d <= l->day_tried)
		d = l->day_tried + LEDGER_DAY;
	for (; d < today; d += LEDGER_DAY) {
		k = ledger_index_lower(&l->ix, d);
		if (k >= l->ix.n || l->ix.e[k].start >= today)
			break;		/* no block before today from d */
		d = ledger_day_start(l->ix.e[k].start);
		l->day_tried = d;
		if (day_write(l, d, now, &err) != 0)
			log_warnx("ledger: no day block for the day from %s: %s "
			    "(run wattpath ledger rebuild)", l->ix.e[k].name,
			    err.msg);
	}
}

int
ledger_append(struct ledger *l, const char *name, wp_time start,
    uint64_t count, const uint8_t in[32], const uint8_t fin[32],
    struct jsum *s, wp_time now, struct wp_err *err)
{
	struct ledger_entry e = { .start = start, .count = count };

	if (l->ix.n > 0 && start <= l->ix.e[l->ix.n - 1].start)
		return err_set(err, WP_E_INTERNAL, "ledger: block %s is not "
		    "after the last one", name);
	snprintf(e.name, sizeof(e.name), "%s", name);
	memcpy(e.in, in, HASH_LEN);
	memcpy(e.fin, fin, HASH_LEN);
	if (entry_commit(l, &l->ix, &l->ix_stale, &e, s, now, err) != 0)
		return -1;
	if (days_expire(l) > 0 || l->days_stale)
		l->days_stale = ledger_index_write_sync(l->dir, &l->days,
		    l->sync) != 0;
	days_close(l, start, now);
	return 0;
}
