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
#include "../lib/wire.h"
#include "jsum.h"
#include "../lib/log.h"

#define HASH_LEN	32
#define SEG_HDR_LEN	56
#define FRAME_HDR_LEN	8
#define FRAME_VERSION	1
#define FRAME_RECORD	1
#define SEG_VERSION	1
#define BODY_MAX	(4u << 20)	/* bytes */
#define VALUES_MAX	8192
#define TARGET_MAX	255
#define ERROR_MAX	1023
#define NAME_MAX_WPJ	32
#define DEFAULT_RETENTION (14LL * 86400 * WP_SEC)
#define DEFAULT_SEGMENT	(3600LL * WP_SEC)

/* Presence bits of a value's optional fields (docs/journal.md). */
#define P_RAW_VALUE	0x0001
#define P_RAW_UNIT	0x0002
#define P_RESOLUTION	0x0004
#define P_WRAP		0x0008
#define P_DEVICE_TIME	0x0010
#define P_RESET_TIME	0x0020
#define P_AVG_WINDOW	0x0040
#define P_T_REAL	0x0080
#define P_T_MONO	0x0100
#define P_LABELS	0x0200
#define P_DELTA		0x0400
#define P_CUM		0x0800
#define P_CTR_FLAGS	0x1000
#define P_LABELS_PREV	0x2000	/* labels as an edit of the previous value's */
#define P_ALL		0x3fff

enum mstate { M_OPEN, M_CLOSED, M_EXPIRED };

struct mentry {
	char		 name[NAME_MAX_WPJ];
	wp_time		 start;
	int		 state;		/* enum mstate */
	uint64_t	 count;
	uint8_t		 in[HASH_LEN], fin[HASH_LEN];
};

struct manifest {
	struct mentry	*e;
	size_t		 n, cap;
	uint8_t		 last[HASH_LEN];	/* hash of the last full line */
	size_t		 lines;
	off_t		 good_len;		/* bytes up to the last full line */
	bool		 partial;		/* a partial last line follows */
	bool		 exists;		/* the file exists */
};

struct journal {
	char		*dir;
	struct journal_opts o;
	int		 fd;		/* current segment, -1 none */
	int		 dirty;		/* appended, not yet fdatasync'ed */
	wp_time		 last_sync;	/* monotonic */
	char		 seg_name[NAME_MAX_WPJ];
	wp_time		 seg_start, seg_len;
	uint64_t	 seg_count;
	off_t		 seg_off;
	uint8_t		 h[HASH_LEN];	/* chain value after the last record */
	int		 mfd;
	struct manifest	 m;
	EVP_MD_CTX	*md;
	struct wire_buf	 b;
	struct jsum	*sum;		/* summary of the open segment, or NULL */
};

/* A segment being read, record by record. */
struct seg_rd {
	FILE		*f;
	char		 name[NAME_MAX_WPJ];
	wp_time		 start, len;
	uint8_t		 in[HASH_LEN], h[HASH_LEN];
	uint8_t		*body;
	size_t		 cap;
	struct journal_value *v;
	size_t		 vcap;
	char		 target[TARGET_MAX + 1], error[ERROR_MAX + 1];
	struct journal_record rec;
	uint8_t		 rec_hash[HASH_LEN];
	uint64_t	 count;
	off_t		 good_end;
	EVP_MD_CTX	*md;
};

enum { RD_RECORD = 1, RD_END = 0, RD_ERROR = -1, RD_TRUNCATED = 2 };

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
static bool
labels_as_edit(const char *a, const char *b, size_t *pre, size_t *suf)
{
	if (a == NULL || b[0] == '\0')
		return false;
	labels_common(a, b, pre, suf);
	return *pre + *suf > 2;
}

/* edit: the labels go in as an edit of the previous value's. */
static uint16_t
value_present(const struct journal_record *r, const struct journal_value *v,
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
static void
put_labels_edit(struct wire_buf *w, const char *b, size_t pre, size_t suf)
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
	uint16_t p = value_present(r, v,
	    labels_as_edit(prev_labels, s->labels, &pre, &suf));

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
		put_labels_edit(b, s->labels, pre, suf);
	if (p & P_DELTA)
		wire_put_f64(b, v->delta);
	if (p & P_CUM)
		wire_put_f64(b, v->cum);
	if (p & P_CTR_FLAGS)
		wire_put_le(b, v->ctr_flags, 4);
}

/* Encodes the frame header and body (no hash) into b. */
static int
encode_record(struct wire_buf *b, const struct journal_record *r,
    struct wp_err *err)
{
	size_t i, tl;

	b->len = 0;
	b->oom = false;
	tl = r->target ? strlen(r->target) : 0;
	if (tl == 0 || tl > TARGET_MAX)
		return err_set(err, WP_E_INTERNAL,
		    "journal: target name empty or over %d bytes", TARGET_MAX);
	if (r->n > VALUES_MAX || (r->n && r->v == NULL))
		return err_set(err, WP_E_INTERNAL,
		    "journal: %zu values in one record (max %d)", r->n,
		    VALUES_MAX);
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
	if (b->oom)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	if (b->len - FRAME_HDR_LEN > BODY_MAX)
		return err_set(err, WP_E_INTERNAL, "journal: record too large");
	for (i = 0; i < 4; i++)
		b->p[4 + i] = (uint8_t)((b->len - FRAME_HDR_LEN) >> (8 * i));
	return 0;
}

/* Reads labels written by put_labels_edit against prev into out. */
static void
rd_labels_edit(struct wire_rd *d, const char *prev, char out[WP_LABEL_MAX])
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
		rd_labels_edit(d, prev_labels, s->labels);
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

/* ---- hashing ---- */

static int
chain_hash(EVP_MD_CTX *md, const uint8_t prev[HASH_LEN], const void *p,
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

static void
hex(const uint8_t *h, char out[2 * HASH_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < HASH_LEN; i++) {
		out[2 * i] = digits[h[i] >> 4];
		out[2 * i + 1] = digits[h[i] & 15];
	}
	out[2 * HASH_LEN] = '\0';
}

static int
unhex(const char *s, uint8_t out[HASH_LEN])
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

static void
seg_name(wp_time start, wp_time len, char out[NAME_MAX_WPJ])
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
static int
seg_parse_name(const char *name, wp_time *start)
{
	struct tm tm = { 0 };
	const char *p;
	size_t n = strlen(name);

	if (n == 15 || n == 19) {
		if (strcmp(name + n - 4, ".wpj") != 0)
			return -1;
	} else
		return -1;
	p = strptime(name, n == 15 ? "%Y%m%dT%H" : "%Y%m%dT%H%M%S", &tm);
	if (p == NULL || strcmp(p, ".wpj") != 0)
		return -1;
	*start = (wp_time)timegm(&tm) * WP_SEC;
	return 0;
}

struct seg_file {
	char	 name[NAME_MAX_WPJ];
	wp_time	 start;
};

static int
seg_file_cmp(const void *a, const void *b)
{
	const struct seg_file *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Lists segment files sorted by start.  Caller frees *out with free(). */
static int
seg_list(const char *dir, struct seg_file **out, size_t *n,
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
		if (seg_parse_name(de->d_name, &start) != 0)
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
		fclose(sr->f);
	sr->f = NULL;
}

static void
seg_rd_fini(struct seg_rd *sr)
{
	seg_rd_close(sr);
	free(sr->body);
	free(sr->v);
	EVP_MD_CTX_free(sr->md);
	memset(sr, 0, sizeof(*sr));
}

static int
seg_rd_init(struct seg_rd *sr, struct wp_err *err)
{
	memset(sr, 0, sizeof(*sr));
	if ((sr->md = EVP_MD_CTX_new()) == NULL)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	return 0;
}

/* Opens dir/name and reads its header.  0, or -1 (missing: errno ENOENT). */
static int
seg_open(struct seg_rd *sr, const char *dir, const char *name,
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
	    h[4] != SEG_VERSION) {
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
	memcpy(sr->in, h + 24, HASH_LEN);
	memcpy(sr->h, sr->in, HASH_LEN);
	sr->count = 0;
	sr->good_end = SEG_HDR_LEN;
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

/*
 * Reads the next record: RD_RECORD, RD_END (clean end of file),
 * RD_TRUNCATED (an incomplete or zero-filled frame at the end: a crash
 * mid-write), or RD_ERROR with err (bad frame, hash mismatch).
 */
static int
seg_next(struct seg_rd *sr, struct wp_err *err)
{
	uint8_t fh[FRAME_HDR_LEN], stored[HASH_LEN], calc[HASH_LEN];
	size_t got, len;
	uint8_t *nb;

	got = fread(fh, 1, FRAME_HDR_LEN, sr->f);
	if (got == 0 && feof(sr->f))
		return RD_END;
	if (got < FRAME_HDR_LEN)
		return ferror(sr->f) ? err_set(err, WP_E_TRANSIENT,
		    "segment %s: read error", sr->name) : RD_TRUNCATED;
	if (all_zero(fh, FRAME_HDR_LEN))
		return RD_TRUNCATED;
	len = (size_t)wire_get_le(fh + 4, 4);
	if (fh[0] != 'W' || fh[1] != 'J' || fh[2] != FRAME_VERSION ||
	    fh[3] != FRAME_RECORD || len > BODY_MAX)
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
	    fread(stored, 1, HASH_LEN, sr->f) != HASH_LEN)
		return ferror(sr->f) ? err_set(err, WP_E_TRANSIENT,
		    "segment %s: read error", sr->name) : RD_TRUNCATED;
	if (chain_hash(sr->md, sr->h, sr->body, len + FRAME_HDR_LEN,
	    calc) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: SHA-256 failed");
	if (memcmp(calc, stored, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL,
		    "segment %s record %" PRIu64 ": hash mismatch (edited, "
		    "removed or reordered)", sr->name, sr->count + 1);
	/* decode_record reads the body after the frame header */
	memmove(sr->body, sr->body + FRAME_HDR_LEN, len);
	if (decode_record(sr, len) != 0)
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

static void
manifest_fini(struct manifest *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

static struct mentry *
manifest_find(struct manifest *m, const char *name)
{
	size_t i;

	for (i = m->n; i-- > 0;)
		if (strcmp(m->e[i].name, name) == 0)
			return &m->e[i];
	return NULL;
}

/* Applies one parsed line.  0 or -1 (inconsistent). */
static int
manifest_apply(struct manifest *m, const char *verb, const char *name,
    uint64_t count, const uint8_t in[HASH_LEN], const uint8_t fin[HASH_LEN])
{
	struct mentry *e, *ne;
	wp_time start;

	if (seg_parse_name(name, &start) != 0)
		return -1;
	e = manifest_find(m, name);
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
	if (unhex(inx, in) || unhex(finx, fin) || unhex(lhx, lh))
		return -1;
	if ((sp = strrchr(line, ' ')) == NULL)
		return -1;
	if (chain_hash(md, m->last, line, (size_t)(sp - line), calc) != 0 ||
	    memcmp(calc, lh, HASH_LEN) != 0)
		return -1;
	if (manifest_apply(m, verb, name, count, in, fin) != 0)
		return -1;
	memcpy(m->last, lh, HASH_LEN);
	m->lines++;
	return 0;
}

/*
 * Reads dir/MANIFEST (absent: empty).  A partial last line (a crash
 * mid-write) is noted, not an error.  -1 with err naming the bad line.
 */
static int
manifest_read(const char *dir, struct manifest *m, struct wp_err *err)
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
	free(line);
	EVP_MD_CTX_free(md);
	fclose(f);
	if (rc)
		manifest_fini(m);
	return rc;
}

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

static int
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *q = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, q, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Appends a manifest line for e (verb) and fsyncs it. */
static int
manifest_append(struct journal *j, const char *verb, const struct mentry *e,
    struct wp_err *err)
{
	char line[512], inx[65], finx[65], lhx[65];
	uint8_t lh[HASH_LEN];
	int n;

	hex(e->in, inx);
	hex(e->fin, finx);
	n = snprintf(line, sizeof(line), "%s %s %" PRIu64 " %s %s", verb,
	    e->name, e->count, inx, finx);
	if (chain_hash(j->md, j->m.last, line, (size_t)n, lh) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: SHA-256 failed");
	hex(lh, lhx);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " %s\n", lhx);
	if (write_all(j->mfd, line, (size_t)n) != 0 ||
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
	char name[NAME_MAX_WPJ + 8], path[PATH_MAX], tmp[PATH_MAX + 8];
	uint8_t *body = NULL, h[HASH_LEN];
	size_t len;
	int fd = -1, ok = 0;

	if (j->sum == NULL)
		return;
	jsum_name(seg, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", j->dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (jsum_encode(j->sum, j->h, j->seg_count, &body, &len) == 0 &&
	    chain_hash(j->md, j->h, body, len, h) == 0 &&
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))
	    >= 0 && write_all(fd, body, len) == 0 &&
	    write_all(fd, h, HASH_LEN) == 0 &&
	    (j->o.fsync == JOURNAL_FSYNC_NONE || fdatasync(fd) == 0))
		ok = 1;
	if (fd >= 0)
		close(fd);
	if (ok && rename(tmp, path) == 0) {
		if (j->o.fsync != JOURNAL_FSYNC_NONE)
			fsync_dir(j->dir);
	} else {
		log_warn("journal: cannot write summary %s", path);
		unlink(tmp);
	}
	free(body);
	jsum_free(j->sum);
	j->sum = NULL;
}

/* Starts the summary of the segment now open (none when disabled). */
static void
summary_start(struct journal *j, wp_time start, wp_time len,
    const uint8_t in[HASH_LEN])
{
	jsum_free(j->sum);
	j->sum = NULL;
	if (j->o.summary_slot >= 0 &&
	    (j->sum = jsum_new(start, len, j->o.summary_slot, in)) == NULL)
		log_warnx("journal: out of memory; no summary for this "
		    "segment");
}

/* Adds a record to the open segment's summary (dropped on ENOMEM). */
static void
summary_add(struct journal *j, const struct journal_record *r)
{
	if (j->sum != NULL && jsum_add(j->sum, r) != 0) {
		log_warnx("journal: out of memory; no summary for segment %s",
		    j->seg_name);
		jsum_free(j->sum);
		j->sum = NULL;
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
	seg_name(start, len, e.name);
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
	if (hb.oom || write_all(fd, hb.p, hb.len) != 0 ||
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
	if (manifest_apply(&j->m, "open", e.name, 0, e.in, e.fin) != 0) {
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

	if (seg_rd_init(&sr, err) != 0)
		return -1;
	memcpy(j->h, e->in, HASH_LEN);
	j->seg_count = 0;
	if (seg_open(&sr, j->dir, e->name, err) != 0) {
		log_error("journal: open segment %s unreadable (%s); "
		    "starting a new one", e->name, err->msg);
		seg_rd_fini(&sr);
		return close_segment(j, err);
	}
	summary_start(j, sr.start, sr.len, sr.in);
	while ((rc = seg_next(&sr, err)) == RD_RECORD)
		summary_add(j, &sr.rec);
	memcpy(j->h, sr.h, HASH_LEN);
	j->seg_count = sr.count;
	j->seg_start = sr.start;
	j->seg_len = sr.len;
	snprintf(j->seg_name, sizeof(j->seg_name), "%s", e->name);
	if (rc == RD_ERROR || memcmp(sr.in, e->in, HASH_LEN) != 0) {
		log_error("journal: segment %s is damaged (%s); closing it "
		    "at record %" PRIu64 " and starting a new one", e->name,
		    rc == RD_ERROR ? err->msg : "chain start differs",
		    sr.count);
		seg_rd_fini(&sr);
		return close_segment(j, err);
	}
	snprintf(path, sizeof(path), "%s/%s", j->dir, e->name);
	j->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (j->fd < 0 || (rc == RD_TRUNCATED &&
	    ftruncate(j->fd, sr.good_end) != 0)) {
		seg_rd_fini(&sr);
		return err_set(err, WP_E_TRANSIENT, "journal %s: %s", path,
		    strerror(errno));
	}
	if (rc == RD_TRUNCATED)
		log_warnx("journal: segment %s: cut a torn record after "
		    "record %" PRIu64, e->name, sr.count);
	j->seg_off = sr.good_end;
	lseek(j->fd, j->seg_off, SEEK_SET);
	seg_rd_fini(&sr);
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

	if (seg_list(j->dir, &sf, &n, err) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (manifest_find(&j->m, sf[i].name) != NULL)
			continue;
		if (i + 1 != n || (j->m.n &&
		    sf[i].start <= j->m.e[j->m.n - 1].start) ||
		    manifest_last_open(j) != NULL) {
			rc = err_set(err, WP_E_CONFIG, "journal %s: segment "
			    "%s is not in MANIFEST; run wattpath journal "
			    "verify", j->dir, sf[i].name);
			break;
		}
		if (seg_rd_init(&sr, err) != 0 ||
		    seg_open(&sr, j->dir, sf[i].name, err) != 0) {
			seg_rd_fini(&sr);
			rc = -1;
			break;
		}
		snprintf(e.name, sizeof(e.name), "%s", sf[i].name);
		memcpy(e.in, sr.in, HASH_LEN);
		memcpy(e.fin, sr.in, HASH_LEN);
		seg_rd_fini(&sr);
		if (manifest_apply(&j->m, "open", e.name, 0, e.in, e.fin) ||
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

	if (manifest_read(j->dir, &j->m, err) != 0) {
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
	if (e->state == M_EXPIRED || seg_rd_init(&sr, &err) != 0)
		return;
	if (seg_open(&sr, j->dir, e->name, &err) == 0 && sr.len > 0)
		j->seg_len = sr.len;
	seg_rd_fini(&sr);
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
	if (o)
		j->o = *o;
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
	if (open_manifest(j, err) != 0 || adopt_orphan(j, err) != 0)
		goto fail;
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

int
journal_append(struct journal *j, const struct journal_record *r,
    struct wp_err *err)
{
	uint8_t h[HASH_LEN];

	if (encode_record(&j->b, r, err) != 0)
		return -1;
	if (j->fd >= 0 && r->t_real >= j->seg_start + j->seg_len &&
	    close_segment(j, err) != 0)
		return -1;
	if (j->fd < 0) {
		if (open_segment(j, r->t_real, err) != 0)
			return -1;
		expire(j, r->t_real);
	}
	if (chain_hash(j->md, j->h, j->b.p, j->b.len, h) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: SHA-256 failed");
	wire_put(&j->b, h, HASH_LEN);
	if (j->b.oom)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	if (write_all(j->fd, j->b.p, j->b.len) != 0) {
		err_set(err, WP_E_TRANSIENT, "journal %s: write: %s",
		    j->seg_name, strerror(errno));
		if (ftruncate(j->fd, j->seg_off) != 0 ||
		    lseek(j->fd, j->seg_off, SEEK_SET) < 0)
			log_warn("journal %s: cannot undo a partial write",
			    j->seg_name);
		return -1;
	}
	if (j->o.fsync == JOURNAL_FSYNC_POLL) {
		if (j->o.sync_interval <= 0 ||
		    clock_mono() - j->last_sync >= j->o.sync_interval) {
			if (fdatasync(j->fd) != 0)
				return err_set(err, WP_E_TRANSIENT, "journal %s: "
				    "fdatasync: %s", j->seg_name, strerror(errno));
			j->last_sync = clock_mono();
			j->dirty = 0;
		} else
			j->dirty = 1;
	}
	memcpy(j->h, h, HASH_LEN);
	j->seg_count++;
	j->seg_off += (off_t)j->b.len;
	summary_add(j, r);
	return 0;
}

int
journal_flush(struct journal *j, struct wp_err *err)
{
	if (j->fd >= 0 && fdatasync(j->fd) != 0)
		return err_set(err, WP_E_TRANSIENT, "journal %s: fdatasync: "
		    "%s", j->seg_name, strerror(errno));
	j->dirty = 0;
	j->last_sync = clock_mono();
	return 0;
}

int
journal_dirty(const struct journal *j)
{
	return j->dirty;
}

void
journal_close(struct journal *j)
{
	if (j == NULL)
		return;
	if (j->fd >= 0) {
		if (j->o.fsync != JOURNAL_FSYNC_NONE && fdatasync(j->fd) != 0)
			log_warn("journal %s: fdatasync", j->seg_name);
		close(j->fd);
	}
	if (j->mfd >= 0)
		close(j->mfd);
	manifest_fini(&j->m);
	jsum_free(j->sum);
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

	if (seg_open(sr, dir, name, err) != 0) {
		if (errno == ENOENT)
			err_set(err, WP_E_PROTOCOL, "segment %s: missing "
			    "(deleted?)", name);
		return -1;
	}
	if (memcmp(sr->in, in, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL, "segment %s: does not "
		    "follow the previous segment (removed or reordered)",
		    name);
	while ((rc = seg_next(sr, err)) == RD_RECORD) {
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
 * Checks dir/NAME.wps (if any) of a closed segment: its trailer, and its
 * bytes against the summary js recomputed from the segment's records.
 */
static int
verify_summary(const char *dir, const struct mentry *e, struct jsum *js,
    const uint8_t *file, size_t flen, EVP_MD_CTX *md, struct wp_err *err)
{
	uint8_t *body = NULL, h[HASH_LEN];
	size_t len;
	int rc;

	(void)dir;
	if (jsum_encode(js, e->fin, e->count, &body, &len) != 0)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	rc = flen != len + HASH_LEN || memcmp(body, file, len) != 0 ||
	    chain_hash(md, e->fin, file, len, h) != 0 ||
	    memcmp(h, file + len, HASH_LEN) != 0;
	free(body);
	if (rc)
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
		if (verify_summary(dir, e, js, file, flen, sr->md, err) != 0)
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
		struct mentry *e = manifest_find((struct manifest *)m,
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
	if (seg_rd_init(&sr, err) != 0)
		return -1;
	if (manifest_read(dir, &m, err) != 0)
		goto out;
	if (m.partial)
		snprintf(st->note, sizeof(st->note), "MANIFEST: torn last "
		    "line (crash mid-write)");
	if (seg_list(dir, &sf, &nsf, err) != 0)
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
	manifest_fini(&m);
	seg_rd_fini(&sr);
	return rc;
}

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

	if (seg_open(sr, dir, name, err) != 0) {
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
	while ((rc = seg_next(sr, err)) == RD_RECORD) {
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

	if (seg_list(dir, &sf, &n, err) != 0)
		return -1;
	if (seg_rd_init(&sr, err) != 0) {
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
	seg_rd_fini(&sr);
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
	if (flen < HASH_LEN || chain_hash(md, e->fin, file, flen - HASH_LEN,
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

	if (manifest_read(dir, &m, err) != 0)
		memset(&m, 0, sizeof(m));	/* no summaries, records only */
	if (seg_list(dir, &sf, &n, err) != 0) {
		manifest_fini(&m);
		return -1;
	}
	if (seg_rd_init(&sr, err) != 0) {
		free(sf);
		manifest_fini(&m);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (i + 1 < n && sf[i + 1].start <= from)
			continue;
		if (to && sf[i].start >= to)
			break;
		rc = scb == NULL ? 0 : scan_try_summary(dir,
		    manifest_find(&m, sf[i].name), from, to, sr.md, scb, arg,
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
	seg_rd_fini(&sr);
	free(sf);
	manifest_fini(&m);
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
	{ CTR_RESUMED, "resumed" },
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

	hex(hash, hx);
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
