/*
 * jseg.c - the journal's on-disk format: record encoding, the chain
 * hash, segment names and reading, the MANIFEST (see jseg.h and
 * docs/journal.md).  OpenSSL is used only in collector/store (one
 * library, one owner).
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
#include "jseg.h"
#include "jsum.h"

/* ---- encoding: collector/wire.h ---- */

static bool
bits_nonzero(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u != 0;
}

static bool
bits_differ(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) != 0;
}

/* ---- record body ---- */

/*
 * Common prefix and suffix of labels a (the previous value's) and b, not
 * overlapping in either; what a PDU's outlets share (sysDescr, vendor,
 * profile) is then written once per record, not once per value.
 */
static void
labels_common(const char *a, const char *b, size_t *pre, size_t *suf)
{
	size_t la = strlen(a), lb = strlen(b), m = la < lb ? la : lb, p, q;

	for (p = 0; p < m && a[p] == b[p]; p++)
		;
	for (q = 0; q < m - p && a[la - 1 - q] == b[lb - 1 - q]; q++)
		;
	*pre = p;
	*suf = q;
}

/*
 * True if b is worth writing as an edit of a (saves more than it costs),
 * with the edit's prefix and suffix lengths in *pre and *suf.
 */
bool
jseg_labels_as_edit(const char *a, const char *b, size_t *pre, size_t *suf)
{
	if (a == NULL || b[0] == '\0')
		return false;
	labels_common(a, b, pre, suf);
	return *pre + *suf > 2;
}

/* edit: the labels go in as an edit of the previous value's. */
uint16_t
jseg_value_present(const struct journal_record *r, const struct journal_value *v,
    bool edit)
{
	const struct wp_sample *s = &v->s;
	uint16_t p = 0;

	if (bits_differ(s->raw_value, s->value))
		p |= P_RAW_VALUE;
	if (s->raw_unit[0])
		p |= P_RAW_UNIT;
	if (bits_nonzero(s->resolution))
		p |= P_RESOLUTION;
	if (bits_nonzero(s->wrap))
		p |= P_WRAP;
	if (s->device_time)
		p |= P_DEVICE_TIME;
	if (s->reset_time)
		p |= P_RESET_TIME;
	if (s->avg_window)
		p |= P_AVG_WINDOW;
	if (s->t_real != r->t_real)
		p |= P_T_REAL;
	if (s->t_mono != r->t_mono)
		p |= P_T_MONO;
	if (edit)
		p |= P_LABELS_PREV;
	else if (s->labels[0])
		p |= P_LABELS;
	if (bits_nonzero(v->delta))
		p |= P_DELTA;
	if (bits_nonzero(v->cum))
		p |= P_CUM;
	if (v->ctr_flags)
		p |= P_CTR_FLAGS;
	return p;
}

/* Writes labels b as the lengths of the prefix and suffix it shares with
 * the previous value's (labels_common) plus the middle. */
void
jseg_put_labels_edit(struct wire_buf *w, const char *b, size_t pre, size_t suf)
{
	size_t lb = strlen(b);

	wire_put_le(w, pre, 1);
	wire_put_le(w, suf, 1);
	wire_put_le(w, lb - pre - suf, 1);
	wire_put(w, b + pre, lb - pre - suf);
}

/* prev_labels: the previous value's labels in this record, or NULL. */
static void
encode_value(struct wire_buf *b, const struct journal_record *r,
    const struct journal_value *v, const char *prev_labels)
{
	const struct wp_sample *s = &v->s;
	size_t pre = 0, suf = 0;
	uint16_t p = jseg_value_present(r, v,
	    jseg_labels_as_edit(prev_labels, s->labels, &pre, &suf));

	wire_put_str(b, s->series, WP_SERIES_MAX - 1, 1);
	wire_put_le(b, s->boundary, 1);
	wire_put_le(b, s->quantity, 1);
	wire_put_le(b, s->kind, 1);
	wire_put_le(b, p, 2);
	wire_put_le(b, s->flags, 4);
	wire_put_f64(b, s->value);
	if (p & P_RAW_VALUE)
		wire_put_f64(b, s->raw_value);
	if (p & P_RAW_UNIT)
		wire_put_str(b, s->raw_unit, WP_UNIT_MAX - 1, 1);
	if (p & P_RESOLUTION)
		wire_put_f64(b, s->resolution);
	if (p & P_WRAP)
		wire_put_f64(b, s->wrap);
	if (p & P_DEVICE_TIME)
		wire_put_le(b, (uint64_t)s->device_time, 8);
	if (p & P_RESET_TIME)
		wire_put_le(b, (uint64_t)s->reset_time, 8);
	if (p & P_AVG_WINDOW)
		wire_put_le(b, (uint64_t)s->avg_window, 8);
	if (p & P_T_REAL)
		wire_put_le(b, (uint64_t)s->t_real, 8);
	if (p & P_T_MONO)
		wire_put_le(b, (uint64_t)s->t_mono, 8);
	if (p & P_LABELS)
		wire_put_str(b, s->labels, WP_LABEL_MAX - 1, 1);
	if (p & P_LABELS_PREV)
		jseg_put_labels_edit(b, s->labels, pre, suf);
	if (p & P_DELTA)
		wire_put_f64(b, v->delta);
	if (p & P_CUM)
		wire_put_f64(b, v->cum);
	if (p & P_CTR_FLAGS)
		wire_put_le(b, v->ctr_flags, 4);
}

int
jseg_check_record(const struct journal_record *r, struct wp_err *err)
{
	size_t tl = r->target ? strlen(r->target) : 0;

	if (tl == 0 || tl > TARGET_MAX)
		return err_set(err, WP_E_INTERNAL,
		    "journal: target name empty or over %d bytes", TARGET_MAX);
	if (r->n > VALUES_MAX || (r->n && r->v == NULL))
		return err_set(err, WP_E_INTERNAL,
		    "journal: %zu values in one record (max %d)", r->n,
		    VALUES_MAX);
	return 0;
}

/* Encodes the frame header and body (no hash) into b. */
int
jseg_encode_record(struct wire_buf *b, const struct journal_record *r,
    struct wp_err *err)
{
	size_t i;

	if (jseg_check_record(r, err) != 0)
		return -1;
	b->len = 0;
	b->oom = false;
	wire_put_le(b, 'W', 1);
	wire_put_le(b, 'J', 1);
	wire_put_le(b, FRAME_VERSION, 1);
	wire_put_le(b, FRAME_RECORD, 1);
	wire_put_le(b, 0, 4);		/* body length, patched below */
	wire_put_le(b, (uint64_t)r->t_real, 8);
	wire_put_le(b, (uint64_t)r->t_mono, 8);
	wire_put_le(b, (uint64_t)r->duration, 8);
	wire_put_le(b, (uint8_t)r->status, 1);
	wire_put_str(b, r->target, TARGET_MAX, 1);
	wire_put_str(b, r->error ? r->error : "", ERROR_MAX, 2);
	wire_put_le(b, r->n, 2);
	for (i = 0; i < r->n; i++)
		encode_value(b, r, &r->v[i], i ? r->v[i - 1].s.labels : NULL);
	return jseg_frame_finish(b, err);
}

int
jseg_frame_finish(struct wire_buf *b, struct wp_err *err)
{
	int i;

	if (b->oom)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	if (b->len - FRAME_HDR_LEN > BODY_MAX)
		return err_set(err, WP_E_INTERNAL, "journal: record too large");
	for (i = 0; i < 4; i++)
		b->p[4 + i] = (uint8_t)((b->len - FRAME_HDR_LEN) >> (8 * i));
	return 0;
}

/* Reads labels written by put_labels_edit against prev into out. */
void
jseg_rd_labels_edit(struct wire_rd *d, const char *prev, char out[WP_LABEL_MAX])
{
	size_t lp = strlen(prev), pre, suf, mid;

	pre = (size_t)wire_rd_le(d, 1);
	suf = (size_t)wire_rd_le(d, 1);
	mid = (size_t)wire_rd_le(d, 1);
	if (d->bad || pre + suf > lp || pre + mid + suf >= WP_LABEL_MAX ||
	    d->len - d->off < mid) {
		d->bad = true;
		return;
	}
	memcpy(out, prev, pre);
	memcpy(out + pre, d->p + d->off, mid);
	memcpy(out + pre + mid, prev + lp - suf, suf);
	out[pre + mid + suf] = '\0';
	if (strlen(out) != pre + mid + suf)	/* embedded NUL */
		d->bad = true;
	d->off += mid;
}

/* prev_labels: the previous value's decoded labels, or NULL (the first). */
static void
decode_value(struct wire_rd *d, const struct journal_record *r,
    struct journal_value *v, const char *prev_labels)
{
	struct wp_sample *s = &v->s;
	uint16_t p;

	memset(v, 0, sizeof(*v));
	wire_rd_str(d, 1, s->series, sizeof(s->series));
	s->boundary = (uint8_t)wire_rd_le(d, 1);
	s->quantity = (uint8_t)wire_rd_le(d, 1);
	s->kind = (uint8_t)wire_rd_le(d, 1);
	p = (uint16_t)wire_rd_le(d, 2);
	if ((p & ~P_ALL) || ((p & P_LABELS_PREV) &&
	    ((p & P_LABELS) || prev_labels == NULL)))
		d->bad = true;
	s->flags = (uint32_t)wire_rd_le(d, 4);
	s->value = wire_rd_f64(d);
	s->raw_value = (p & P_RAW_VALUE) ? wire_rd_f64(d) : s->value;
	if (p & P_RAW_UNIT)
		wire_rd_str(d, 1, s->raw_unit, sizeof(s->raw_unit));
	s->resolution = (p & P_RESOLUTION) ? wire_rd_f64(d) : 0;
	s->wrap = (p & P_WRAP) ? wire_rd_f64(d) : 0;
	s->device_time = (p & P_DEVICE_TIME) ? (wp_time)wire_rd_le(d, 8) : 0;
	s->reset_time = (p & P_RESET_TIME) ? (wp_time)wire_rd_le(d, 8) : 0;
	s->avg_window = (p & P_AVG_WINDOW) ? (wp_time)wire_rd_le(d, 8) : 0;
	s->t_real = (p & P_T_REAL) ? (wp_time)wire_rd_le(d, 8) : r->t_real;
	s->t_mono = (p & P_T_MONO) ? (wp_time)wire_rd_le(d, 8) : r->t_mono;
	if (p & P_LABELS)
		wire_rd_str(d, 1, s->labels, sizeof(s->labels));
	if ((p & P_LABELS_PREV) && !d->bad)
		jseg_rd_labels_edit(d, prev_labels, s->labels);
	v->delta = (p & P_DELTA) ? wire_rd_f64(d) : 0;
	v->cum = (p & P_CUM) ? wire_rd_f64(d) : 0;
	v->ctr_flags = (p & P_CTR_FLAGS) ? (uint32_t)wire_rd_le(d, 4) : 0;
}

/* Decodes sr->body (len bytes) into sr->rec.  0 or -1. */
static int
decode_record(struct seg_rd *sr, size_t len)
{
	struct wire_rd d = { sr->body, len, 0, false };
	struct journal_record *r = &sr->rec;
	struct journal_value *nv;
	size_t i, n;

	memset(r, 0, sizeof(*r));
	r->t_real = (wp_time)wire_rd_le(&d, 8);
	r->t_mono = (wp_time)wire_rd_le(&d, 8);
	r->duration = (wp_time)wire_rd_le(&d, 8);
	r->status = (int)wire_rd_le(&d, 1);
	wire_rd_str(&d, 1, sr->target, sizeof(sr->target));
	wire_rd_str(&d, 2, sr->error, sizeof(sr->error));
	n = (size_t)wire_rd_le(&d, 2);
	if (d.bad || n > VALUES_MAX)
		return -1;
	if (n > sr->vcap) {
		if ((nv = reallocarray(sr->v, n, sizeof(*nv))) == NULL)
			return -1;
		sr->v = nv;
		sr->vcap = n;
	}
	for (i = 0; i < n && !d.bad; i++)
		decode_value(&d, r, &sr->v[i], i ? sr->v[i - 1].s.labels : NULL);
	if (d.bad || d.off != len)
		return -1;
	r->target = sr->target;
	r->error = sr->error;
	r->n = n;
	r->v = sr->v;
	return 0;
}

/* ---- writing ---- */

int
jseg_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, c, n)) <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			if (w == 0)	/* no progress: not a loop */
				errno = EIO;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int
jseg_write_file(const char *path, bool sync, int (*fill)(int, void *),
    void *arg)
{
	char tmp[PATH_MAX + 8];
	int fd, ok, e;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))
	    < 0)
		return -1;
	errno = 0;
	ok = fill(fd, arg) == 0 && (!sync || fdatasync(fd) == 0);
	e = errno;
	if (close(fd) != 0 && ok) {
		e = errno;
		ok = 0;
	}
	if (ok && rename(tmp, path) != 0) {
		e = errno;
		ok = 0;
	}
	if (ok)
		return 0;
	unlink(tmp);
	errno = e != 0 ? e : EIO;
	return -1;
}

/* A summary's file as it is written or hashed: a struct jsum_sink's arg.
 * fd -1: hashed only. */
struct sum_out {
	int		 fd;
	EVP_MD_CTX	*chain, *whole;	/* whole: NULL unless asked */
	struct jsum	*s;
	uint64_t	 count;
	const uint8_t	*fin;
	uint8_t		*file;		/* out: SHA-256 of the file, or NULL */
};

static int
sum_put(void *arg, const void *p, size_t n)
{
	struct sum_out *o = arg;

	if ((o->fd >= 0 && jseg_write_all(o->fd, p, n) != 0) ||
	    EVP_DigestUpdate(o->chain, p, n) != 1 ||
	    (o->whole != NULL && EVP_DigestUpdate(o->whole, p, n) != 1))
		return -1;
	return 0;
}

/* The summary's bytes, then the trailer SHA-256(fin || bytes); o->file
 * (when asked) the SHA-256 of both.  0, or -1 (errno ENOMEM when OpenSSL
 * or memory failed). */
static int
sum_fill(int fd, void *arg)
{
	struct sum_out *o = arg;
	struct jsum_sink k = { sum_put, o };
	uint8_t h[HASH_LEN];
	unsigned int hl = 0, wl = 0;
	int rc = -1;

	o->fd = fd;
	if ((o->chain = EVP_MD_CTX_new()) == NULL ||
	    (o->file != NULL && (o->whole = EVP_MD_CTX_new()) == NULL) ||
	    EVP_DigestInit_ex(o->chain, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(o->chain, o->fin, HASH_LEN) != 1 ||
	    (o->whole != NULL &&
	    EVP_DigestInit_ex(o->whole, EVP_sha256(), NULL) != 1)) {
		errno = ENOMEM;
		goto out;
	}
	errno = 0;
	if (jsum_write(o->s, o->fin, o->count, &k) != 0 ||
	    EVP_DigestFinal_ex(o->chain, h, &hl) != 1 || hl != HASH_LEN ||
	    (fd >= 0 && jseg_write_all(fd, h, HASH_LEN) != 0) ||
	    (o->whole != NULL && (EVP_DigestUpdate(o->whole, h, HASH_LEN) != 1
	    || EVP_DigestFinal_ex(o->whole, o->file, &wl) != 1 ||
	    wl != HASH_LEN))) {
		if (errno == 0)
			errno = ENOMEM;
		goto out;
	}
	rc = 0;
out:
	EVP_MD_CTX_free(o->chain);
	EVP_MD_CTX_free(o->whole);
	o->chain = o->whole = NULL;
	return rc;
}

int
jseg_write_summary(struct jsum *s, const uint8_t fin[HASH_LEN],
    uint64_t count, const char *path, bool sync, uint8_t file[HASH_LEN])
{
	struct sum_out o = { .s = s, .count = count, .fin = fin,
	    .file = file };

	return jseg_write_file(path, sync, sum_fill, &o);
}

int
jseg_hash_summary(struct jsum *s, const uint8_t fin[HASH_LEN],
    uint64_t count, uint8_t file[HASH_LEN])
{
	struct sum_out o = { .s = s, .count = count, .fin = fin,
	    .file = file };

	return sum_fill(-1, &o);
}

/* ---- hashing ---- */

int
jseg_chain_hash(EVP_MD_CTX *md, const uint8_t prev[HASH_LEN], const void *p,
    size_t n, uint8_t out[HASH_LEN])
{
	unsigned int olen = 0;

	/* Once md holds SHA-256, reuse it: OpenSSL 3 fetches the algorithm
	 * from its provider on every init naming it. */
	if (EVP_DigestInit_ex(md, EVP_MD_CTX_get0_md(md) ? NULL : EVP_sha256(),
	    NULL) != 1 ||
	    EVP_DigestUpdate(md, prev, HASH_LEN) != 1 ||
	    EVP_DigestUpdate(md, p, n) != 1 ||
	    EVP_DigestFinal_ex(md, out, &olen) != 1 || olen != HASH_LEN)
		return -1;
	return 0;
}

void
jseg_hex(const uint8_t *h, char out[2 * HASH_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < HASH_LEN; i++) {
		out[2 * i] = digits[h[i] >> 4];
		out[2 * i + 1] = digits[h[i] & 15];
	}
	out[2 * HASH_LEN] = '\0';
}

int
jseg_unhex(const char *s, uint8_t out[HASH_LEN])
{
	int i, hi, lo;

	if (strlen(s) != 2 * HASH_LEN)
		return -1;
	for (i = 0; i < HASH_LEN; i++) {
		hi = s[2 * i] >= 'a' ? s[2 * i] - 'a' + 10 : s[2 * i] - '0';
		lo = s[2 * i + 1] >= 'a' ? s[2 * i + 1] - 'a' + 10 :
		    s[2 * i + 1] - '0';
		if (hi < 0 || hi > 15 || lo < 0 || lo > 15)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* ---- segment names ---- */

void
jseg_name(wp_time start, wp_time len, char out[NAME_MAX_WPJ])
{
	time_t sec = (time_t)(start / WP_SEC);
	struct tm tm;

	gmtime_r(&sec, &tm);
	if (len % (3600 * WP_SEC) == 0 && sec % 3600 == 0)
		strftime(out, NAME_MAX_WPJ, "%Y%m%dT%H.wpj", &tm);
	else
		strftime(out, NAME_MAX_WPJ, "%Y%m%dT%H%M%S.wpj", &tm);
}

/* Parses a segment name into its start time.  0 or -1. */
int
jseg_parse_name(const char *name, wp_time *start)
{
	struct tm tm = { 0 };
	const char *p;
	time_t s;
	size_t n = strlen(name);

	if (n == 15 || n == 19) {
		if (strcmp(name + n - 4, ".wpj") != 0)
			return -1;
	} else
		return -1;
	p = strptime(name, n == 15 ? "%Y%m%dT%H" : "%Y%m%dT%H%M%S", &tm);
	if (p == NULL || strcmp(p, ".wpj") != 0)
		return -1;
	s = timegm(&tm);
	if (s < 0 || s > INT64_MAX / WP_SEC)	/* before 1970, after 2262 */
		return -1;
	*start = (wp_time)s * WP_SEC;
	return 0;
}


static int
seg_file_cmp(const void *a, const void *b)
{
	const struct seg_file *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Lists segment files sorted by start.  Caller frees *out with free(). */
int
jseg_list(const char *dir, struct seg_file **out, size_t *n,
    struct wp_err *err)
{
	DIR *d;
	struct dirent *de;
	struct seg_file *v = NULL, *nv;
	size_t cap = 0, len = 0;
	wp_time start;

	*out = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return err_set(err, errno == ENOENT ? WP_E_CONFIG :
		    WP_E_TRANSIENT, "journal %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (jseg_parse_name(de->d_name, &start) != 0)
			continue;
		if (len == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
				free(v);
				closedir(d);
				return err_set(err, WP_E_INTERNAL,
				    "journal: out of memory");
			}
			v = nv;
		}
		snprintf(v[len].name, sizeof(v[len].name), "%s", de->d_name);
		v[len++].start = start;
	}
	closedir(d);
	if (len)
		qsort(v, len, sizeof(*v), seg_file_cmp);
	*out = v;
	*n = len;
	return 0;
}

/* ---- segment reading ---- */

static void
seg_rd_close(struct seg_rd *sr)
{
	if (sr->f)
		fclose(sr->f);	/* a compressed one frees its state */
	sr->f = NULL;
	sr->z = NULL;
}

void
jseg_rd_fini(struct seg_rd *sr)
{
	seg_rd_close(sr);
	free(sr->body);
	free(sr->v);
	jctx_fini(&sr->ctx);
	EVP_MD_CTX_free(sr->md);
	memset(sr, 0, sizeof(*sr));
}

int
jseg_rd_init(struct seg_rd *sr, struct wp_err *err)
{
	memset(sr, 0, sizeof(*sr));
	if ((sr->md = EVP_MD_CTX_new()) == NULL)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	jctx_init(&sr->ctx, 0);
	return 0;
}

/* After a SEG_VERSION_Z header: count and final hash, then the
 * compressed frames (jzst.c) in place of the file. */
static int
open_packed(struct seg_rd *sr)
{
	uint8_t x[8 + HASH_LEN];

	if (fread(x, 1, sizeof(x), sr->f) != sizeof(x))
		return -1;
	sr->z_count = wire_get_le(x, 8);
	memcpy(sr->z_fin, x + 8, HASH_LEN);
	sr->f = jzst_reader(sr->f, &sr->z);
	return sr->f ? 0 : -1;
}

/* Opens dir/name and reads its header.  0, or -1 (missing: errno ENOENT;
 * a header not written whole yet: ENODATA). */
int
jseg_open(struct seg_rd *sr, const char *dir, const char *name,
    struct wp_err *err)
{
	char path[PATH_MAX];
	uint8_t h[SEG_HDR_LEN];
	size_t got;
	int e;

	seg_rd_close(sr);
	snprintf(sr->name, sizeof(sr->name), "%s", name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((sr->f = fopen(path, "rb")) == NULL) {
		e = errno;
		err_set(err, WP_E_TRANSIENT, "segment %s: %s", name,
		    strerror(e));
		errno = e;
		return -1;
	}
	got = fread(h, 1, SEG_HDR_LEN, sr->f);
	if (got != SEG_HDR_LEN || memcmp(h, "WPJS", 4) != 0 ||
	    (h[4] != SEG_VERSION && h[4] != SEG_VERSION_Z)) {
		/* short, no read error and what is there is right: still
		 * being written (ENODATA) */
		e = got < SEG_HDR_LEN && !ferror(sr->f) && memcmp(h, "WPJS",
		    got < 4 ? got : 4) == 0 ? ENODATA : EINVAL;
		seg_rd_close(sr);
		errno = e;
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s: bad or truncated header", name);
	}
	sr->start = (wp_time)wire_get_le(h + 8, 8);
	sr->len = (wp_time)wire_get_le(h + 16, 8);
	if (sr->start < 0 || sr->start > INT64_MAX / 2 || sr->len <= 0 ||
	    sr->len > INT64_MAX / 4) {	/* start + len cannot overflow */
		seg_rd_close(sr);
		errno = EINVAL;
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s: start or length out of range", name);
	}
	memcpy(sr->in, h + 24, HASH_LEN);
	memcpy(sr->h, sr->in, HASH_LEN);
	sr->count = 0;
	sr->good_end = SEG_HDR_LEN;
	jctx_reset(&sr->ctx, sr->start);
	sr->packed = h[4] == SEG_VERSION_Z;
	if (sr->packed && open_packed(sr) != 0) {
		seg_rd_close(sr);
		errno = EINVAL;
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s: bad compressed header", name);
	}
	return 0;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* A read that failed: the decompressor's error (a damaged compressed
 * segment) or the file's. */
static int
read_failed(struct seg_rd *sr, struct wp_err *err)
{
	const char *ze = sr->z ? jzst_error(sr->z) : NULL;

	if (ze != NULL)
		return err_set(err, WP_E_PROTOCOL, "segment %s record %" PRIu64
		    ": compressed data damaged (%s)", sr->name, sr->count + 1,
		    ze);
	return err_set(err, WP_E_TRANSIENT, "segment %s: read error",
	    sr->name);
}

/* The end of a compressed segment: its count and final hash must be the
 * ones its header names (the hashes are not stored per record). */
static int
packed_end(struct seg_rd *sr, struct wp_err *err)
{
	if (sr->count != sr->z_count || memcmp(sr->h, sr->z_fin, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL, "segment %s record %" PRIu64
		    ": chain differs from the segment's final hash (edited, "
		    "removed or reordered)", sr->name, sr->count);
	return RD_END;
}

/* Decodes the body (after the frame header) of a frame of version ver. */
static int
decode_body(struct seg_rd *sr, int ver, size_t len)
{
	if (ver == FRAME_VERSION)
		return decode_record(sr, len);
	return jctx_decode(&sr->ctx, sr->body, len, &sr->rec, sr->target,
	    sr->error, &sr->v, &sr->vcap);
}


/*
 * Whether a decoded record's times lie in 1970 .. 2262 (well inside
 * int64 nanoseconds): a damaged segment can decode to any 64-bit time,
 * and what reads records (summaries, reports) takes differences of them.
 */
static bool
times_sane(const struct journal_record *r)
{
	size_t i;

	if (r->t_real < 0 || r->t_real > INT64_MAX / 2)
		return false;
	for (i = 0; i < r->n; i++)
		if (r->v[i].s.t_real < 0 || r->v[i].s.t_real > INT64_MAX / 2)
			return false;
	return true;
}

/*
 * Reads the next record: RD_RECORD, RD_END (clean end of file),
 * RD_TRUNCATED (an incomplete or zero-filled frame at the end: a crash
 * mid-write), or RD_ERROR with err (bad frame, hash mismatch).  Either
 * frame version, in a plain or a compressed segment.
 */
int
jseg_next(struct seg_rd *sr, struct wp_err *err)
{
	uint8_t fh[FRAME_HDR_LEN], stored[HASH_LEN], calc[HASH_LEN];
	size_t got, len;
	uint8_t *nb;

	got = fread(fh, 1, FRAME_HDR_LEN, sr->f);
	if (got == 0 && feof(sr->f))
		return sr->packed ? packed_end(sr, err) : RD_END;
	if (got < FRAME_HDR_LEN)
		return ferror(sr->f) ? read_failed(sr, err) : sr->packed ?
		    packed_end(sr, err) : RD_TRUNCATED;
	if (all_zero(fh, FRAME_HDR_LEN) && !sr->packed)
		return RD_TRUNCATED;
	len = (size_t)wire_get_le(fh + 4, 4);
	if (fh[0] != 'W' || fh[1] != 'J' || (fh[2] != FRAME_VERSION &&
	    fh[2] != FRAME_VERSION2) || fh[3] != FRAME_RECORD ||
	    len > BODY_MAX)
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s record %" PRIu64 ": bad frame header",
		    sr->name, sr->count + 1);
	if (len + FRAME_HDR_LEN > sr->cap) {
		if ((nb = realloc(sr->body, len + FRAME_HDR_LEN)) == NULL)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		sr->body = nb;
		sr->cap = len + FRAME_HDR_LEN;
	}
	memcpy(sr->body, fh, FRAME_HDR_LEN);
	if (fread(sr->body + FRAME_HDR_LEN, 1, len, sr->f) != len ||
	    (!sr->packed && fread(stored, 1, HASH_LEN, sr->f) != HASH_LEN))
		return ferror(sr->f) ? read_failed(sr, err) : sr->packed ?
		    packed_end(sr, err) : RD_TRUNCATED;
	if (jseg_chain_hash(sr->md, sr->h, sr->body, len + FRAME_HDR_LEN,
	    calc) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: SHA-256 failed");
	if (!sr->packed && memcmp(calc, stored, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s record %" PRIu64 ": hash mismatch (edited, "
		    "removed or reordered)", sr->name, sr->count + 1);
	/* the decoders read the body after the frame header */
	memmove(sr->body, sr->body + FRAME_HDR_LEN, len);
	if (decode_body(sr, fh[2], len) != 0 || !times_sane(&sr->rec) ||
	    jctx_commit(&sr->ctx, &sr->rec) != 0)
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s record %" PRIu64 ": malformed body",
		    sr->name, sr->count + 1);
	memcpy(sr->h, calc, HASH_LEN);
	memcpy(sr->rec_hash, calc, HASH_LEN);
	sr->count++;
	sr->good_end += (off_t)(FRAME_HDR_LEN + len + HASH_LEN);
	return RD_RECORD;
}

/* ---- manifest ---- */

void
jseg_manifest_fini(struct manifest *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

struct mentry *
jseg_manifest_find(struct manifest *m, const char *name)
{
	size_t i;

	for (i = m->n; i-- > 0;)
		if (strcmp(m->e[i].name, name) == 0)
			return &m->e[i];
	return NULL;
}

/* Applies one parsed line.  0 or -1 (inconsistent). */
int
jseg_manifest_apply(struct manifest *m, const char *verb, const char *name,
    uint64_t count, const uint8_t in[HASH_LEN], const uint8_t fin[HASH_LEN])
{
	struct mentry *e, *ne;
	wp_time start;

	if (jseg_parse_name(name, &start) != 0)
		return -1;
	e = jseg_manifest_find(m, name);
	if (strcmp(verb, "open") == 0) {
		if (e != NULL || (m->n && m->e[m->n - 1].start >= start))
			return -1;
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 64;
			if ((ne = reallocarray(m->e, m->cap, sizeof(*ne))) ==
			    NULL)
				return -1;
			m->e = ne;
		}
		e = &m->e[m->n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->start = start;
		e->state = M_OPEN;
	} else if (strcmp(verb, "close") == 0) {
		if (e == NULL || e->state != M_OPEN)
			return -1;
		e->state = M_CLOSED;
	} else if (strcmp(verb, "expire") == 0) {
		if (e == NULL || e->state != M_CLOSED)
			return -1;
		e->state = M_EXPIRED;
	} else
		return -1;
	if (e->state != M_OPEN && memcmp(e->in, in, HASH_LEN) != 0)
		return -1;
	if (e->state == M_EXPIRED && (e->count != count ||
	    memcmp(e->fin, fin, HASH_LEN) != 0))
		return -1;
	e->count = count;
	memcpy(e->in, in, HASH_LEN);
	memcpy(e->fin, fin, HASH_LEN);
	return 0;
}

/* Parses and checks one line (without newline). 0 or -1. */
static int
manifest_line(struct manifest *m, EVP_MD_CTX *md, char *line)
{
	char verb[16], name[NAME_MAX_WPJ], inx[80], finx[80], lhx[80];
	uint8_t in[HASH_LEN], fin[HASH_LEN], lh[HASH_LEN], calc[HASH_LEN];
	unsigned long long count;
	char *sp;
	int used = 0;

	if (sscanf(line, "%15s %31s %llu %79s %79s %79s%n", verb, name,
	    &count, inx, finx, lhx, &used) != 6 || line[used] != '\0')
		return -1;
	if (jseg_unhex(inx, in) || jseg_unhex(finx, fin) || jseg_unhex(lhx, lh))
		return -1;
	if ((sp = strrchr(line, ' ')) == NULL)
		return -1;
	if (jseg_chain_hash(md, m->last, line, (size_t)(sp - line), calc) != 0 ||
	    memcmp(calc, lh, HASH_LEN) != 0)
		return -1;
	if (jseg_manifest_apply(m, verb, name, count, in, fin) != 0)
		return -1;
	memcpy(m->last, lh, HASH_LEN);
	m->lines++;
	return 0;
}

/*
 * Reads dir/MANIFEST (absent: empty).  A partial last line (a crash
 * mid-write) is noted, not an error.  -1 with err naming the bad line.
 */
int
jseg_manifest_read(const char *dir, struct manifest *m, struct wp_err *err)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	EVP_MD_CTX *md;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/MANIFEST", dir);
	if ((f = fopen(path, "r")) == NULL) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, WP_E_TRANSIENT, "%s: %s", path,
		    strerror(errno));
	}
	m->exists = true;
	if ((md = EVP_MD_CTX_new()) == NULL) {
		fclose(f);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] != '\n') {
			m->partial = true;
			break;
		}
		line[n - 1] = '\0';
		if (manifest_line(m, md, line) != 0) {
			rc = err_set(err, WP_E_PROTOCOL,
			    "MANIFEST line %zu: malformed, inconsistent or "
			    "hash chain broken", m->lines + 1);
			break;
		}
		m->good_len += n;
	}
	if (rc == 0 && ferror(f))	/* not its end: the lines after lost */
		rc = err_set(err, WP_E_TRANSIENT, "%s: read error", path);
	free(line);
	EVP_MD_CTX_free(md);
	fclose(f);
	if (rc)
		jseg_manifest_fini(m);
	return rc;
}
