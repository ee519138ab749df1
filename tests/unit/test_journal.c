/* Unit tests: collector/journal.c - chain, verify, tamper, tail, expiry,
 * scan ranges, CSV export, labels written as edits; the version-2 record
 * codec (jcodec.c), old-format segments, compressed segments (jzst.c). */
#include <sys/resource.h>
#include <sys/stat.h>

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include <math.h>
#include <zstd.h>

#include "../../collector/store/journal.h"
#include "../../collector/store/jseg.h"
#include "../../collector/store/jsum.h"
#include "../../model/counter.h"

#define T0	(1764410400LL * WP_SEC)		/* 2025-11-29T10:00:00Z */
#define MIN	(60 * WP_SEC)

struct fx {
	char	 dir[256];
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "%s/wp-journal.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
	free(f);
	return 0;
}

/* Record i of a synthetic run: a BMC with an energy counter and power. */
static void
make_record(int i, wp_time t, struct journal_record *r,
    struct journal_value v[2])
{
	memset(v, 0, 2 * sizeof(*v));
	sample_init(&v[0].s, "wall/energy", WP_B_WALL, WP_Q_ENERGY,
	    WP_COUNTER);
	v[0].s.value = 1e6 + 5000.0 * i;
	v[0].s.raw_value = v[0].s.value / 3.6e6;
	sample_set_unit(&v[0].s, "kWh");
	v[0].s.resolution = 3600;
	v[0].s.t_real = t;
	v[0].s.t_mono = 1000 + t - T0;
	v[0].s.reset_time = T0 - 86400 * WP_SEC;
	sample_add_label(&v[0].s, "source", "EnvironmentMetrics.EnergyJoules");
	v[0].delta = i ? 5000 : 0;
	v[0].cum = 5000.0 * i;
	v[0].ctr_flags = i ? 0 : CTR_DISCONT;
	sample_init(&v[1].s, "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE);
	v[1].s.value = 500 + i % 7;
	v[1].s.raw_value = v[1].s.value;
	sample_set_unit(&v[1].s, "W");
	v[1].s.t_real = t + 3 * WP_MS;
	v[1].s.t_mono = 1000 + t - T0;
	*r = (struct journal_record){ .t_real = t, .t_mono = 1000 + t - T0,
	    .duration = 40 * WP_MS, .target = "gpu-001/bmc", .status = 0,
	    .error = "", .n = 2, .v = v };
}

/* Appends n records from t0 every step; returns the journal closed. */
static void
fill(const char *dir, const struct journal_opts *o, wp_time t0, wp_time step,
    int first, int n)
{
	struct journal_record r;
	struct journal_value v[2];
	struct wp_err err;
	struct journal *j;
	int i;

	j = journal_open(dir, o, &err);
	if (j == NULL)
		fail_msg("journal_open: %s", err.msg);
	for (i = first; i < first + n; i++) {
		make_record(i, t0 + (wp_time)(i - first) * step, &r, v);
		if (journal_append(j, &r, &err) != 0)
			fail_msg("append %d: %s", i, err.msg);
	}
	journal_close(j);
}

struct collect {
	int		 n;
	wp_time		 first, last;
	double		 cum_last;
	int		 stop_after;
	int		 bad;
};

static int
collect_cb(const struct journal_record *r, void *arg)
{
	struct collect *c = arg;

	if (c->n == 0)
		c->first = r->t_real;
	if (c->n && r->t_real <= c->last)
		c->bad++;
	c->last = r->t_real;
	if (r->n == 2)
		c->cum_last = r->v[0].cum;
	c->n++;
	return c->stop_after && c->n >= c->stop_after;
}

static int
verify(const char *dir, struct journal_verify_stats *st)
{
	struct wp_err err;

	return journal_verify(dir, st, &err);
}

static void
seg_path(const char *dir, int k, char *out, size_t len)
{
	/* segment k of a 60 s-segment run started at T0 */
	time_t sec = (time_t)(T0 / WP_SEC) + 60 * k;
	struct tm tm;
	char name[32];

	gmtime_r(&sec, &tm);
	strftime(name, sizeof(name), "%Y%m%dT%H%M%S.wpj", &tm);
	snprintf(out, len, "%s/%s", dir, name);
}

static long
file_size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static unsigned char *
slurp(const char *p, long *len)
{
	FILE *f = fopen(p, "rb");
	unsigned char *b;

	assert_non_null(f);
	*len = file_size(p);
	b = malloc((size_t)*len);
	assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
	fclose(f);
	return b;
}

static void
spit(const char *p, const unsigned char *b, long len)
{
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
}

/* Offsets of record frames in a segment (header 56 bytes). */
static int
frames(const unsigned char *b, long len, long off[], int max)
{
	long o = 56;
	int n = 0;

	while (o + 8 <= len && n < max) {
		long blen = b[o + 4] | b[o + 5] << 8 | b[o + 6] << 16 |
		    (long)b[o + 7] << 24;
		off[n++] = o;
		o += 8 + blen + 32;
	}
	off[n] = o;
	return n;
}

static const struct journal_opts opts60 = { .segment_len = 60 * WP_SEC };
/* closed segments left plain: tests that edit record frames */
static const struct journal_opts opts60p = { .segment_len = 60 * WP_SEC,
    .compress = -1 };
/* the version-1 record encoding: old journals */
static const struct journal_opts opts60v1 = { .segment_len = 60 * WP_SEC,
    .compress = -1, .record_version = 1 };

static void
test_roundtrip_every_field(void **state)
{
	struct fx *f = *state;
	struct journal_record r;
	struct journal_value v[2];
	struct collect c = { 0 };
	struct wp_err err;

	fill(f->dir, NULL, T0, 10 * WP_SEC, 0, 5);
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 5);
	assert_true(c.cum_last == 20000);
	/* hourly naming */
	{
		char p[300];

		snprintf(p, sizeof(p), "%s/20251129T10.wpj", f->dir);
		assert_true(file_size(p) > 56);
	}
	make_record(3, T0 + 30 * WP_SEC, &r, v);
	(void)r;
}

struct cmp {
	int	 i;		/* records seen */
	int	 mismatches;
};

/* Values of got that differ from want in any field. */
static int
value_mismatches(const struct journal_value *got,
    const struct journal_value *want, size_t n)
{
	size_t k;
	int bad = 0;

	for (k = 0; k < n; k++)
		if (memcmp(&got[k].s, &want[k].s, sizeof(want[k].s)) != 0 ||
		    got[k].delta != want[k].delta || got[k].cum != want[k].cum ||
		    got[k].ctr_flags != want[k].ctr_flags)
			bad++;
	return bad;
}

static int
cmp_cb(const struct journal_record *r, void *arg)
{
	struct cmp *c = arg;
	struct journal_record want;
	struct journal_value v[2];

	make_record(c->i, T0 + c->i * 10 * WP_SEC, &want, v);
	c->i++;
	if (r->t_real != want.t_real || r->t_mono != want.t_mono ||
	    r->duration != want.duration || strcmp(r->target, want.target) ||
	    r->status != 0 || strcmp(r->error, "") || r->n != 2) {
		c->mismatches++;
		return 0;
	}
	c->mismatches += value_mismatches(r->v, v, 2);
	return 0;
}

/* Labels of a PDU poll: what outlets share, a change, none, a longest. */
static const char *const edit_labels[] = {
	"name=Outlet 1;index=1.1;profile=raritan-pdu2;vendor=Raritan;"
	    "sysdescr=Raritan PDU, MD:PX3-5190R",
	"name=Outlet 1;index=1.1;profile=raritan-pdu2;vendor=Raritan;"
	    "sysdescr=Raritan PDU, MD:PX3-5190R",
	"name=Outlet 12;index=1.12;profile=raritan-pdu2;vendor=Raritan;"
	    "sysdescr=Raritan PDU, MD:PX3-5190R",
	"",
	"x=1",
	"x=1;y=2",
	"y=2;x=1",
	"aaaa",
	"aa",
	"aaaaaa",
	NULL,	/* 191 bytes, filled in */
	NULL,	/* the same with one byte changed in the middle */
};
#define N_EDIT (sizeof(edit_labels) / sizeof(edit_labels[0]))

static void
make_edit_record(struct journal_record *r, struct journal_value v[N_EDIT])
{
	size_t i;

	memset(v, 0, N_EDIT * sizeof(*v));
	for (i = 0; i < N_EDIT; i++) {
		char series[32];

		snprintf(series, sizeof(series), "outlet/%zu/power", i);
		sample_init(&v[i].s, series, WP_B_OUTLET, WP_Q_POWER,
		    WP_GAUGE);
		v[i].s.value = 100.0 + (double)i;
		v[i].s.raw_value = v[i].s.value;
		v[i].s.t_real = T0;
		v[i].s.t_mono = 1000;
		if (edit_labels[i])
			strcpy(v[i].s.labels, edit_labels[i]);
	}
	memset(v[N_EDIT - 2].s.labels, 'k', WP_LABEL_MAX - 1);
	memcpy(v[N_EDIT - 1].s.labels, v[N_EDIT - 2].s.labels, WP_LABEL_MAX);
	v[N_EDIT - 1].s.labels[90] = 'Q';
	*r = (struct journal_record){ .t_real = T0, .t_mono = 1000,
	    .duration = WP_MS, .target = "pdu-r1-a", .error = "", .n = N_EDIT,
	    .v = v };
}

static int
edit_cmp_cb(const struct journal_record *r, void *arg)
{
	struct cmp *c = arg;
	struct journal_record want;
	struct journal_value v[N_EDIT];

	make_edit_record(&want, v);
	c->i++;
	if (r->n != N_EDIT)
		return c->mismatches++, 0;
	c->mismatches += value_mismatches(r->v, v, N_EDIT);
	return 0;
}

/*
 * Labels repeated from value to value (a PDU's sysDescr on every outlet)
 * are written as an edit of the previous value's and read back exactly;
 * an edit that reaches outside the previous labels is a malformed body.
 */
static void
test_labels_written_as_edits(void **state)
{
	struct fx *f = *state;
	struct journal_record r;
	struct journal_value v[N_EDIT];
	struct cmp c = { 0 };
	struct wp_err err;
	struct journal *j;
	unsigned char *b, *body, h[32];
	size_t k, labels_total = 0;
	unsigned int hl;
	long len, off[4], at;
	char p[300];

	make_edit_record(&r, v);
	for (k = 0; k < N_EDIT; k++)
		labels_total += strlen(v[k].s.labels);
	assert_non_null(j = journal_open(f->dir, &opts60v1, &err));
	assert_int_equal(journal_append(j, &r, &err), 0);
	journal_close(j);
	assert_int_equal(journal_scan(f->dir, 0, 0, edit_cmp_cb, &c, &err), 0);
	assert_int_equal(c.i, 1);
	assert_int_equal(c.mismatches, 0);
	seg_path(f->dir, 0, p, sizeof(p));
	b = slurp(p, &len);
	assert_int_equal(frames(b, len, off, 3), 1);
	/* the shared labels are not written twice: under 60 % of their size
	   (whole: ~56 B per value plus every label byte) */
	assert_true((size_t)(off[1] - off[0]) < 40 * N_EDIT +
	    labels_total * 6 / 10);
	/* value 1 repeats value 0: its edit is "all of the prefix, no
	   suffix, no middle"; make the prefix longer than value 0's labels
	   and re-chain the hash, so only the decoder can object */
	body = b + off[0];
	{
		const unsigned char *sr = memmem(body, (size_t)(off[1] -
		    off[0]), "outlet/1/power", 14);

		assert_non_null(sr);
		/* series, boundary/quantity/kind, presence, flags, value */
		at = (sr - body) + 14 + 3 + 2 + 4 + 8;
		assert_int_equal(body[at - 14] | body[at - 13] << 8, 0x2000);
		assert_int_equal(body[at], strlen(edit_labels[0]));
		assert_int_equal(body[at + 1] | body[at + 2], 0);
	}
	assert_true(at > 0);
	body[at]++;
	hl = 0;
	{
		EVP_MD_CTX *md = EVP_MD_CTX_new();

		assert_int_equal(EVP_DigestInit_ex(md, EVP_sha256(), NULL), 1);
		EVP_DigestUpdate(md, b + 24, 32);	/* segment's in-hash */
		EVP_DigestUpdate(md, body, (size_t)(off[1] - off[0] - 32));
		EVP_DigestFinal_ex(md, h, &hl);
		EVP_MD_CTX_free(md);
	}
	assert_int_equal(hl, 32);
	memcpy(b + off[1] - 32, h, 32);
	spit(p, b, len);
	free(b);
	assert_int_equal(journal_scan(f->dir, 0, 0, edit_cmp_cb, &c, &err),
	    -1);
	assert_non_null(strstr(err.msg, "malformed body"));
}

static void
test_decoded_equals_appended(void **state)
{
	struct fx *f = *state;
	struct cmp c = { 0 };
	struct wp_err err;

	fill(f->dir, NULL, T0, 10 * WP_SEC, 0, 20);
	assert_int_equal(journal_scan(f->dir, 0, 0, cmp_cb, &c, &err), 0);
	assert_int_equal(c.i, 20);
	assert_int_equal(c.mismatches, 0);
}

struct extremes {
	int				 i, bad;
	const struct journal_record	*want;
};

static int
extremes_cb(const struct journal_record *r, void *arg)
{
	struct extremes *x = arg;
	const struct journal_record *w = &x->want[x->i++];

	if (r->t_real != w->t_real || r->t_mono != w->t_mono || r->n != 2)
		x->bad++;
	else
		x->bad += value_mismatches(r->v, w->v, 2);
	return 0;
}

/*
 * Times are coded as differences: fields at the ends of the 64-bit range
 * (a device clock reading nonsense, a monotonic clock far from the real
 * one) wrap in the coder and still read back exactly.
 */
static void
test_extreme_times_roundtrip(void **state)
{
	static const wp_time odd[] = { INT64_MAX, INT64_MIN + 1, -WP_SEC,
	    INT64_MAX - 3, 0 };
	struct fx *f = *state;
	struct journal_record r[5];
	struct journal_value v[5][2];
	struct wp_err err;
	struct journal *j;
	struct extremes x = { 0 };
	int i, k;

	j = journal_open(f->dir, &opts60, &err);
	assert_non_null(j);
	for (i = 0; i < 5; i++) {
		make_record(i, T0 + i * 10 * WP_SEC, &r[i], v[i]);
		r[i].v = v[i];
		r[i].t_mono = odd[(i + 1) % 5];
		for (k = 0; k < 2; k++) {
			v[i][k].s.device_time = odd[(i + k) % 5];
			v[i][k].s.reset_time = odd[(i + 2 + k) % 5];
			v[i][k].s.avg_window = odd[(i + 3 + k) % 5];
			v[i][k].s.t_mono = odd[(i + 4 + k) % 5];
		}
		assert_int_equal(journal_append(j, &r[i], &err), 0);
	}
	journal_close(j);
	x.want = r;
	assert_int_equal(journal_scan(f->dir, 0, 0, extremes_cb, &x, &err), 0);
	assert_int_equal(x.i, 5);
	assert_int_equal(x.bad, 0);
}

/* The open files this process has in dir that are unlinked (a spill);
 * the size of the last in *size (or -1), when size is not NULL. */
static int
unlinked_in(const char *dir, off_t *size)
{
	char link[PATH_MAX + 32], path[64];
	struct dirent *de;
	struct stat sb;
	size_t dl = strlen(dir);
	ssize_t n;
	DIR *d;
	int count = 0;

	if (size != NULL)
		*size = -1;
	assert_non_null(d = opendir("/proc/self/fd"));
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, dir, dl) == 0 && link[dl] == '/' &&
		    n > 10 && strcmp(link + n - 10, " (deleted)") == 0) {
			count++;
			if (size != NULL && stat(path, &sb) == 0)
				*size = sb.st_size;
		}
	}
	closedir(d);
	return count;
}

/* The writer's summary keeps its closed spans in one unlinked file of the
 * journal's directory (jspill.h): one at a time across segments, none
 * left open or named after the close. */
static void
test_writer_spills(void **state)
{
	struct fx *f = *state;
	struct journal_record r;
	struct journal_value v[2];
	struct wp_err err;
	struct journal *j;
	struct dirent *de;
	DIR *d;
	int i;

	assert_non_null(j = journal_open(f->dir, &opts60, &err));
	for (i = 0; i < 20; i++) {	/* 4 segments */
		make_record(i, T0 + i * 10 * WP_SEC, &r, v);
		assert_int_equal(journal_append(j, &r, &err), 0);
		assert_int_equal(unlinked_in(f->dir, NULL), 1);
	}
	journal_close(j);
	assert_int_equal(unlinked_in(f->dir, NULL), 0);
	assert_non_null(d = opendir(f->dir));
	while ((de = readdir(d)) != NULL)
		assert_true(strncmp(de->d_name, ".spill-", 7) != 0);
	closedir(d);
}

/* The file size limit as it was before test_writer_spill_full, put back
 * after it whether it passed or not. */
static struct rlimit fsize_was;

static int
teardown_fsize(void **state)
{
	(void)setrlimit(RLIMIT_FSIZE, &fsize_was);
	(void)signal(SIGXFSZ, SIG_DFL);
	return teardown(state);
}

/* A spill that cannot be written past its first blocks (a file size
 * limit standing in for a full disk): the blocks after them kept in
 * memory, the summary still written whole (journal verify recomputes it
 * from the segment and compares). */
static void
test_writer_spill_full(void **state)
{
	static const struct journal_opts o = { .segment_len = 60 * WP_SEC,
	    .summary_slot = WP_SEC };
	struct fx *f = *state;
	struct journal_verify_stats vs;
	struct journal_value v[40];
	struct journal_record r;
	struct rlimit old, lim;
	struct wp_err err;
	struct journal *j;
	char name[40][24];
	int i, k;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	fsize_was = old;
	lim = old;
	lim.rlim_cur = 40 << 10;	/* two blocks of the spill; the
					   segment stays smaller */
	assert_true(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
	assert_non_null(j = journal_open(f->dir, &o, &err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 13; i++) {	/* 12 in the first segment: 440
					   closes, 3 blocks of the spill */
		for (k = 0; k < 40; k++) {
			memset(&v[k], 0, sizeof(v[k]));
			snprintf(name[k], sizeof(name[k]), "outlet/%d/power",
			    k);
			sample_init(&v[k].s, name[k], WP_B_OUTLET, WP_Q_POWER,
			    WP_GAUGE);
			v[k].s.value = 100 + (i * 3 + k) % 17;
			v[k].s.t_real = T0 + i * 5 * WP_SEC;
		}
		r = (struct journal_record){ .t_real = T0 + i * 5 * WP_SEC,
		    .t_mono = 1000 + i * 5 * WP_SEC, .target = "pdu",
		    .error = "", .n = 40, .v = v };
		if (i == 12) {	/* the third block not written whole; the
				   close writes the summary */
			off_t blk = 136 * (off_t)(sizeof(struct jsum_span) +
			    8), sz;

			assert_int_equal(unlinked_in(f->dir, &sz), 1);
			assert_true(sz >= 2 * blk && sz <=
			    (off_t)lim.rlim_cur && sz < 3 * blk);
			assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
		}
		assert_int_equal(journal_append(j, &r, &err), 0);
	}
	journal_close(j);
	memset(&vs, 0, sizeof(vs));
	assert_int_equal(journal_verify(f->dir, &vs, &err), 0);
	assert_int_equal(vs.records, 13);
	assert_int_equal(vs.summaries, 1);
}

static void
test_verify_intact_across_segments(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 30);	/* 5 segments */
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.segments, 5);
	assert_int_equal(st.records, 30);
	assert_string_equal(st.first_bad, "");
	/* reopen and continue: chain resumes */
	fill(f->dir, &opts60, T0 + 300 * WP_SEC, 10 * WP_SEC, 30, 12);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 42);
	assert_int_equal(st.segments, 7);
}

static void
test_verify_detects_edited_byte(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p[300];
	unsigned char *b;
	long len, off[64];

	fill(f->dir, &opts60p, T0, 10 * WP_SEC, 0, 18);
	seg_path(f->dir, 1, p, sizeof(p));
	b = slurp(p, &len);
	assert_int_equal(frames(b, len, off, 63), 6);
	b[off[2] + 30] ^= 0x01;		/* a bit of t_mono... in record 3 */
	spit(p, b, len);
	free(b);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "record 3"));
	assert_non_null(strstr(st.first_bad, "hash mismatch"));
}

static void
test_verify_detects_edit_in_open_segment(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p[300];
	unsigned char *b;
	long len, off[64];

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 16);
	seg_path(f->dir, 2, p, sizeof(p));	/* still open */
	b = slurp(p, &len);
	assert_int_equal(frames(b, len, off, 63), 4);
	b[off[1] + 40] ^= 0x80;
	spit(p, b, len);
	free(b);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "record 2"));
}

static void
test_verify_detects_deleted_record(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p[300];
	unsigned char *b;
	long len, off[64], rl;

	fill(f->dir, &opts60p, T0, 10 * WP_SEC, 0, 18);
	seg_path(f->dir, 0, p, sizeof(p));
	b = slurp(p, &len);
	frames(b, len, off, 63);
	rl = off[3] - off[2];
	memmove(b + off[2], b + off[3], (size_t)(len - off[3]));
	spit(p, b, len - rl);
	free(b);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "record 3"));

	/* deleting the last record of a closed segment: count differs */
	teardown(state);
	setup(state);
	f = *state;
	fill(f->dir, &opts60p, T0, 10 * WP_SEC, 0, 18);
	seg_path(f->dir, 0, p, sizeof(p));
	b = slurp(p, &len);
	frames(b, len, off, 63);
	spit(p, b, off[5]);
	free(b);
	assert_int_equal(verify(f->dir, &st), -1);
}

static void
test_verify_detects_reordered_records(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p[300];
	unsigned char *b, *c;
	long len, off[64], l1, l2;

	fill(f->dir, &opts60p, T0, 10 * WP_SEC, 0, 18);
	seg_path(f->dir, 1, p, sizeof(p));
	b = slurp(p, &len);
	frames(b, len, off, 63);
	l1 = off[2] - off[1];
	l2 = off[3] - off[2];
	c = malloc((size_t)len);
	memcpy(c, b, (size_t)len);
	memcpy(c + off[1], b + off[2], (size_t)l2);
	memcpy(c + off[1] + l2, b + off[1], (size_t)l1);
	spit(p, c, len);
	free(b);
	free(c);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "record 2"));
}

static void
test_verify_detects_deleted_or_swapped_segment(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p1[300], p2[300], tmp[300];

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 30);
	seg_path(f->dir, 2, p2, sizeof(p2));
	assert_int_equal(unlink(p2), 0);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "missing"));

	teardown(state);
	setup(state);
	f = *state;
	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 30);
	seg_path(f->dir, 1, p1, sizeof(p1));
	seg_path(f->dir, 2, p2, sizeof(p2));
	snprintf(tmp, sizeof(tmp), "%s.x", p1);
	assert_int_equal(rename(p1, tmp), 0);
	assert_int_equal(rename(p2, p1), 0);
	assert_int_equal(rename(tmp, p2), 0);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "does not follow"));
}

static void
test_verify_detects_manifest_edit(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	struct wp_err err;
	char p[300];
	unsigned char *b;
	long len;

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 30);
	snprintf(p, sizeof(p), "%s/MANIFEST", f->dir);
	b = slurp(p, &len);
	/* change the record count on the first "close" line */
	{
		char *c = strstr((char *)b, "close ");

		assert_non_null(c);
		c = strchr(c + 6, ' ');
		assert_int_equal(c[1], '6');
		c[1] = '5';
	}
	spit(p, b, len);
	free(b);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "MANIFEST line"));
	/* the writer refuses to append to a journal it cannot trust */
	assert_null(journal_open(f->dir, &opts60, &err));
	assert_non_null(strstr(err.msg, "MANIFEST"));
	/* deleting the manifest is detected too */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(verify(f->dir, &st), -1);
	/* one that cannot be read (here a directory) is an error, not the
	 * lines read before as the whole manifest */
	assert_int_equal(mkdir(p, 0700), 0);
	assert_null(journal_open(f->dir, &opts60, &err));
	assert_non_null(strstr(err.msg, "MANIFEST: read error"));
	assert_int_equal(rmdir(p), 0);
}

static void
test_truncated_tail_recovers(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	struct collect c = { 0 };
	struct wp_err err;
	char p[300];
	long len;

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 16);	/* seg 2: 4 recs */
	seg_path(f->dir, 2, p, sizeof(p));
	len = file_size(p);
	assert_int_equal(truncate(p, len - 17), 0);	/* torn last record */
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 15);
	assert_non_null(strstr(st.note, "torn"));
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 15);
	/* the writer resumes after the last good record */
	fill(f->dir, &opts60, T0 + 155 * WP_SEC, 10 * WP_SEC, 15, 3);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 18);
	assert_string_equal(st.note, "");
	memset(&c, 0, sizeof(c));
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 18);
	assert_int_equal(c.bad, 0);
	/* a zero-filled tail (power loss) is a torn tail too */
	{
		FILE *fp = fopen(p, "ab");
		char z[100] = { 0 };

		fwrite(z, 1, sizeof(z), fp);
		fclose(fp);
	}
	assert_int_equal(verify(f->dir, &st), 0);
	fill(f->dir, &opts60, T0 + 185 * WP_SEC, 10 * WP_SEC, 18, 1);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 19);
}

static void
test_truncated_closed_segment_fails(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p[300];

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 16);
	seg_path(f->dir, 0, p, sizeof(p));
	assert_int_equal(truncate(p, file_size(p) - 5), 0);
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "truncated"));
}

static void
test_expiry_keeps_chain_checkable(void **state)
{
	struct fx *f = *state;
	struct journal_opts o = { .segment_len = 60 * WP_SEC,
	    .retention = 180 * WP_SEC };
	struct journal_verify_stats st;
	struct collect c = { 0 };
	struct wp_err err;
	char p[300];

	fill(f->dir, &o, T0, 10 * WP_SEC, 0, 60);	/* 10 minutes */
	seg_path(f->dir, 0, p, sizeof(p));
	assert_int_equal(file_size(p), -1);	/* expired and deleted */
	seg_path(f->dir, 9, p, sizeof(p));
	assert_true(file_size(p) > 0);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_true(st.expired_segments >= 5);
	assert_int_equal(st.expired_segments + st.segments, 10);
	assert_int_equal(st.records, st.segments * 6);
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), 0);
	assert_int_equal((size_t)c.n, st.records);
	assert_true(c.cum_last == 5000.0 * 59);
	/* deleting the first kept segment is still detected */
	seg_path(f->dir, (int)st.expired_segments, p, sizeof(p));
	assert_int_equal(unlink(p), 0);
	assert_int_equal(verify(f->dir, &st), -1);
}

static void
test_scan_ranges(void **state)
{
	struct fx *f = *state;
	struct collect c = { 0 };
	struct wp_err err;

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 60);
	/* [T0+95s, T0+305s): records at 100..300 s: 21 */
	assert_int_equal(journal_scan(f->dir, T0 + 95 * WP_SEC,
	    T0 + 305 * WP_SEC, collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 21);
	assert_true(c.first == T0 + 100 * WP_SEC);
	assert_true(c.last == T0 + 300 * WP_SEC);
	/* exact edges: from inclusive, to exclusive */
	memset(&c, 0, sizeof(c));
	assert_int_equal(journal_scan(f->dir, T0 + 120 * WP_SEC,
	    T0 + 180 * WP_SEC, collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 6);
	assert_true(c.first == T0 + 120 * WP_SEC);
	/* empty ranges */
	memset(&c, 0, sizeof(c));
	assert_int_equal(journal_scan(f->dir, T0 - 3600 * WP_SEC, T0,
	    collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(journal_scan(f->dir, T0 + 3600 * WP_SEC, 0,
	    collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 0);
	/* open end, and the callback stops the scan */
	c = (struct collect){ .stop_after = 4 };
	assert_int_equal(journal_scan(f->dir, T0 + 500 * WP_SEC, 0,
	    collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 4);
	/* a missing directory is an error, not a crash */
	assert_int_equal(journal_scan("/nonexistent/wp", 0, 0, collect_cb,
	    &c, &err), -1);
}

static void
test_scan_rejects_corrupt_segment(void **state)
{
	struct fx *f = *state;
	struct collect c = { 0 };
	struct wp_err err;
	char p[300];
	unsigned char *b;
	long len, off[64];

	fill(f->dir, &opts60p, T0, 10 * WP_SEC, 0, 12);
	seg_path(f->dir, 0, p, sizeof(p));
	b = slurp(p, &len);
	frames(b, len, off, 63);
	b[off[1] + 4] = 0xff;		/* absurd body length */
	b[off[1] + 7] = 0x7f;
	spit(p, b, len);
	free(b);
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), -1);
	assert_non_null(strstr(err.msg, "bad frame header"));
	/* garbage instead of a header */
	spit(p, (const unsigned char *)"hello", 5);
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), -1);
}

static void
test_append_rejects_bad_records(void **state)
{
	struct fx *f = *state;
	struct journal_record r;
	struct journal_value v[2];
	struct wp_err err;
	struct journal *j;
	char big[300];

	j = journal_open(f->dir, NULL, &err);
	assert_non_null(j);
	make_record(0, T0, &r, v);
	r.target = "";
	assert_int_equal(journal_append(j, &r, &err), -1);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	r.target = big;
	assert_int_equal(journal_append(j, &r, &err), -1);
	r.target = "ok";
	r.n = 100000;
	assert_int_equal(journal_append(j, &r, &err), -1);
	r.n = 0;
	r.v = NULL;
	r.status = WP_E_TRANSIENT;
	r.error = "timeout after 8 s";
	assert_int_equal(journal_append(j, &r, &err), 0);
	journal_close(j);
	assert_int_equal(journal_verify(f->dir, NULL, &err), 0);
}

/* fsync poll with a sync interval: the syncs run on the journal's
 * thread; where none can start (no descriptor left to hand it: the
 * soft RLIMIT_NOFILE lowered to the lowest free one), journal_sync syncs
 * on the caller's thread instead and succeeds.  Every record is kept. */
static void
test_group_commit(void **state)
{
	struct fx *f = *state;
	struct journal_opts o = { .segment_len = 60 * WP_SEC,
	    .fsync = JOURNAL_FSYNC_POLL, .sync_interval = 3600 * WP_SEC };
	struct journal_record r;
	struct journal_value v[2];
	struct collect c = { 0 };
	struct rlimit was, low;
	struct wp_err err;
	struct journal *j;
	int i, lowest;

	j = journal_open(f->dir, &o, &err);
	assert_non_null(j);
	for (i = 0; i < 3; i++) {
		make_record(i, T0 + i * WP_SEC, &r, v);
		assert_int_equal(journal_append(j, &r, &err), 0);
		assert_int_equal(journal_sync(j, &err), 0);
	}
	assert_int_equal(journal_flush(j, &err), 0);
	make_record(3, T0 + 3 * WP_SEC, &r, v);
	assert_int_equal(journal_append(j, &r, &err), 0);
	assert_true((lowest = dup(0)) >= 0);
	close(lowest);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = was;
	low.rlim_cur = (rlim_t)lowest;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	i = journal_sync(j, &err);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	if (i != 0)
		fail_msg("journal_sync without a descriptor to spare: %s",
		    err.msg);
	journal_close(j);
	assert_int_equal(journal_verify(f->dir, NULL, &err), 0);
	assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c, &err), 0);
	assert_int_equal(c.n, 4);
}

static void
test_orphan_segment_after_crash_is_adopted(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	char p[300], line[600];
	FILE *m;
	long keep = 0;

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 14);
	/* drop the manifest's last line: the "open" of segment 2, as if we
	 * crashed between creating the segment and recording it */
	snprintf(p, sizeof(p), "%s/MANIFEST", f->dir);
	m = fopen(p, "r");
	assert_non_null(m);
	while (fgets(line, sizeof(line), m))
		if (strncmp(line, "open ", 5) != 0 || !strstr(line, "1002"))
			keep = ftell(m);
	fclose(m);
	assert_int_equal(truncate(p, keep), 0);
	assert_int_equal(verify(f->dir, &st), 0);
	fill(f->dir, &opts60, T0 + 140 * WP_SEC, 10 * WP_SEC, 14, 2);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 16);
}

static void
test_export_csv_quoting(void **state)
{
	struct fx *f = *state;
	struct journal_record r;
	struct journal_value v[2];
	struct wp_err err;
	struct journal *j;
	char *out = NULL;
	size_t outlen = 0;
	FILE *mf;

	j = journal_open(f->dir, NULL, &err);
	make_record(1, T0 + 123456789, &r, v);
	r.target = "pdu,\"a\"";
	sample_add_label(&v[1].s, "name", "Outlet 7, left");
	assert_int_equal(journal_append(j, &r, &err), 0);
	r.n = 0;
	r.status = WP_E_AUTH;
	r.error = "401\nUnauthorized";
	r.t_real += WP_SEC;
	assert_int_equal(journal_append(j, &r, &err), 0);
	journal_close(j);
	mf = open_memstream(&out, &outlen);
	assert_int_equal(journal_export_csv(f->dir, 0, 0, mf, &err), 0);
	fclose(mf);
	assert_true(strncmp(out, "t_real,t_real_ns,target,status,error,series,"
	    "boundary,quantity,kind,value,unit,raw_value,raw_unit,resolution,"
	    "flags,delta,cum,ctr_flags,labels,record_hash\r\n", 139) == 0);
	assert_non_null(strstr(out, "2025-11-29T10:00:00.123456789Z,"
	    "1764410400123456789,\"pdu,\"\"a\"\"\",ok,,wall/energy,wall,energy,"
	    "counter,1005000,J,0.27916666666666667,kWh,3600,,5000,5000,,"
	    "source=EnvironmentMetrics.EnergyJoules,"));
	assert_non_null(strstr(out, ",wall/power,wall,power,gauge,501,W,501,"
	    "W,0,,,,,\"name=Outlet 7, left\","));
	assert_non_null(strstr(out, ",auth,\"401\nUnauthorized\",,,,,,,,,,,"
	    ",,,,"));
	/* 1 header + 2 values + 1 failed poll */
	{
		int rows = 0;
		char *p;

		for (p = out; (p = strstr(p, "\r\n")) != NULL; p += 2)
			rows++;
		assert_int_equal(rows, 4);
	}
	free(out);
}

/*
 * With WP_JOURNAL_FIXTURE=DIR, writes a journal of 30 polls (10 s apart,
 * 60 s segments: 5 segments) into DIR and exits; tests/integration/
 * 021-journal-tamper.sh uses it to get a journal without a running
 * collector.  WP_JOURNAL_FIXTURE_FORMAT: "plain" (closed segments not
 * compressed: 022) or "v1" (the version-1 records of old journals, plain:
 * 023); unset: as the collector writes (compressed, version 2).
 */
static int
write_fixture(const char *dir)
{
	const char *fmt = getenv("WP_JOURNAL_FIXTURE_FORMAT");

	fill(dir, fmt == NULL ? &opts60 : strcmp(fmt, "v1") == 0 ? &opts60v1 :
	    &opts60p, T0, 10 * WP_SEC, 0, 30);
	printf("wrote 30 records from %lld\n", (long long)(T0 / WP_SEC));
	return 0;
}

/* ---- version-2 records (jcodec.c) ---- */

/* Record k of an irregular stream of three targets: values that change
 * shape, non-finite and signed-zero numbers, labels that change, failed
 * polls, times that step back. */
static void
codec_record(int k, struct journal_record *r, struct journal_value v[4])
{
	static const char *const tg[] = { "gpu-001/bmc", "pdu-r1-a",
	    "gpu-002/gpu" };
	static const char *const err[] = { "", "timeout after 2 s", "" };
	int i, n = k % 11 == 5 ? 0 : 1 + (k % 4 == 3 ? 3 : k % 2);

	memset(v, 0, 4 * sizeof(*v));
	for (i = 0; i < n; i++) {
		char series[32];

		snprintf(series, sizeof(series), "%s/%d/%s", i % 2 ? "outlet" :
		    "wall", k % 13 == 7 ? 9 : i, i % 2 ? "power" : "energy");
		sample_init(&v[i].s, series, i % 2 ? WP_B_OUTLET : WP_B_WALL,
		    i % 2 ? WP_Q_POWER : WP_Q_ENERGY, i % 2 ? WP_GAUGE :
		    WP_COUNTER);
		v[i].s.value = k % 9 == 4 ? NAN : k % 17 == 3 ? -0.0 :
		    k % 19 == 2 ? INFINITY : 1e9 + 3.7 * k * k - i;
		v[i].s.raw_value = k % 5 ? v[i].s.value / 3.6e6 : v[i].s.value;
		if (k % 5)
			sample_set_unit(&v[i].s, k % 7 ? "kWh" : "0.1kWh");
		v[i].s.resolution = k % 3 ? 3600 : 0;
		v[i].s.wrap = k % 23 == 1 ? 4294967296.0 : 0;
		v[i].s.device_time = k % 4 ? T0 + k * 10 * WP_SEC - 7 : 0;
		v[i].s.reset_time = k % 6 ? T0 - 86400 * WP_SEC + (k / 10) : 0;
		v[i].s.avg_window = k % 8 == 1 ? 30 * WP_SEC : 0;
		v[i].s.t_real = T0 + k * 10 * WP_SEC + (k % 3) * WP_MS + i;
		v[i].s.t_mono = k % 10 == 9 ? 12345 : 1000 + k * 10 * WP_SEC;
		v[i].s.flags = k % 29 == 11 ? WP_F_STALE : 0;
		if (k % 3 != 2)
			snprintf(v[i].s.labels, WP_LABEL_MAX, "name=Outlet %d;"
			    "index=1.%d;vendor=Raritan;profile=raritan-pdu2",
			    i + (k % 31 == 30), i);	/* a long common tail:
							   strpool.h shares it */
		v[i].delta = i % 2 ? 0 : k % 15 == 14 ? -0.0 : 3.7 * (2 * k - 1);
		v[i].cum = i % 2 ? 0 : 3.7 * k * k;
		v[i].ctr_flags = k % 12 == 0 ? CTR_DISCONT | CTR_RESET : 0;
	}
	*r = (struct journal_record){
	    .t_real = T0 + k * 10 * WP_SEC - (k % 16 == 15 ? 100 * WP_SEC : 0),
	    .t_mono = 1000 + k * 10 * WP_SEC + (k % 14 == 13 ? WP_SEC : 0),
	    .duration = 40 * WP_MS + k * 1001, .target = tg[k % 3],
	    .status = n ? 0 : 1, .error = n ? "" : err[k % 3], .n = (size_t)n,
	    .v = v };
}

static int
record_mismatch(const struct journal_record *got,
    const struct journal_record *want)
{
	if (got->t_real != want->t_real || got->t_mono != want->t_mono ||
	    got->duration != want->duration ||
	    strcmp(got->target, want->target) || got->status != want->status ||
	    strcmp(got->error, want->error) || got->n != want->n)
		return 1;
	return value_mismatches(got->v, want->v, want->n);
}

/* A writer's context and a reader's, side by side: each record encoded by
 * the one and decoded by the other. */
struct codec_pair {
	struct jctx	 we, rd;
	struct wire_buf	 b;
	struct journal_value *dv;
	size_t		 dvcap;
};

static void
pair_init(struct codec_pair *c)
{
	memset(c, 0, sizeof(*c));
	jctx_init(&c->we, T0);
	assert_int_equal(jctx_compact(&c->we), 0);
	jctx_init(&c->rd, T0);
}

/* r encoded, decoded back and kept by both: 1 if it came back otherwise. */
static int
pair_roundtrip(struct codec_pair *c, const struct journal_record *r)
{
	char target[TARGET_MAX + 1], error[ERROR_MAX + 1];
	struct journal_record got;
	struct wp_err err;
	int bad;

	assert_int_equal(jctx_encode(&c->we, &c->b, r, &err), 0);
	assert_int_equal(jctx_decode(&c->rd, c->b.p + FRAME_HDR_LEN,
	    c->b.len - FRAME_HDR_LEN, &got, target, error, &c->dv, &c->dvcap),
	    0);
	bad = record_mismatch(&got, r);
	assert_int_equal(jctx_commit(&c->we, r), 0);
	assert_int_equal(jctx_commit(&c->rd, &got), 0);
	return bad;
}

static void
pair_fini(struct codec_pair *c)
{
	jctx_fini(&c->we);
	jctx_fini(&c->rd);
	free(c->dv);
	free(c->b.p);
}

/* A row's power and energy with the same labels (the writer compares the
 * second's within the record): what changes is decoded back, never taken
 * for unchanged. */
static void
test_codec_shared_labels(void **state)
{
	struct codec_pair c;
	struct journal_record r;
	struct journal_value v[4];
	int k, i, bad = 0;

	(void)state;
	pair_init(&c);
	for (k = 0; k < 60; k++) {
		memset(v, 0, sizeof(v));
		for (i = 0; i < 4; i++) {
			char series[32];

			snprintf(series, sizeof(series), "outlet/%d/%s", i / 2,
			    i % 2 ? "energy" : "power");
			sample_init(&v[i].s, series, WP_B_OUTLET, WP_Q_POWER,
			    WP_GAUGE);
			v[i].s.value = 100 + k + i;
			/* pairs share labels; now and then one of a pair,
			 * or both, change */
			snprintf(v[i].s.labels, WP_LABEL_MAX, "name=Outlet %d;"
			    "index=1.%d;vendor=Raritan;profile=raritan-pdu2",
			    i / 2 + (k % 5 == 3 && i == 1) + (k % 7 == 2 &&
			    i >= 2) * 10, i / 2);
		}
		r = (struct journal_record){ .t_real = T0 + k * WP_SEC,
		    .t_mono = 1000 + k * WP_SEC, .target = "pdu-1",
		    .error = "", .n = 4, .v = v };
		bad += pair_roundtrip(&c, &r);
	}
	assert_int_equal(bad, 0);
	pair_fini(&c);
}

/* The numbers a writer keeps once for each run of values (resolution,
 * wrap, reset time, averaging window): records of 20 values whose numbers
 * repeat in runs, alternate, or are each their own (more than the writer
 * looks back through), changing from record to record, all come back bit
 * for bit. */
static void
test_codec_shared_numbers(void **state)
{
	struct codec_pair c;
	struct journal_record r;
	struct journal_value v[20];
	int k, i, g, bad = 0;

	(void)state;
	pair_init(&c);
	for (k = 0; k < 40; k++) {
		memset(v, 0, sizeof(v));
		for (i = 0; i < 20; i++) {
			char series[32];

			/* k % 4: one group, power/energy alternating, runs
			 * of three, every value its own */
			g = k % 4 == 0 ? 0 : k % 4 == 1 ? i % 2 : k % 4 == 2 ?
			    i / 3 : i;
			snprintf(series, sizeof(series), "outlet/%d/power", i);
			sample_init(&v[i].s, series, WP_B_OUTLET, WP_Q_POWER,
			    WP_GAUGE);
			v[i].s.value = 100 + k + i;
			v[i].s.resolution = 1 + g + k % 3;
			v[i].s.wrap = g % 2 ? 65536.0 * g : 0;
			v[i].s.reset_time = g ? T0 - g * WP_SEC : 0;
			v[i].s.avg_window = g % 3 ? (g + k) * WP_SEC : 0;
		}
		r = (struct journal_record){ .t_real = T0 + k * WP_SEC,
		    .t_mono = 1000 + k * WP_SEC, .target = "pdu-1",
		    .error = "", .n = 20, .v = v };
		bad += pair_roundtrip(&c, &r);
	}
	assert_int_equal(bad, 0);
	pair_fini(&c);
}

/* The index of target name in writer context c, or -1. */
static long
jctx_find_test(const struct jctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->t[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* FNV-1a 64 of p[0..n), folded into h. */
static uint64_t
fnv64_add(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

/* The version-2 frames of codec_record(0..399), hashed: what main's
 * encoder (the previous record kept whole) wrote, before the writer kept
 * it compact (issue 17). */
#define CODEC_GOLDEN_FNV	0x567fa4b749a916a4ULL

/* Every record comes back bit for bit, against the context both sides
 * build; a cut or edited body is malformed, never a wrong record.  A
 * writer given each record's strings as the collector keeps them (a
 * sertext per target, the last one's when unchanged) writes the same
 * bytes, and holds those texts instead of its own. */
static void
test_codec_roundtrip(void **state)
{
	struct jctx we, rd, rs, wt;
	struct sertext *text[3] = { NULL, NULL, NULL };
	struct wire_buf b = { 0 }, b2 = { 0 }, b3 = { 0 };
	struct journal_record r, got;
	struct journal_value v[4], *dv = NULL;
	size_t dvcap = 0;
	char target[TARGET_MAX + 1], error[ERROR_MAX + 1];
	struct wp_err err;
	size_t v2_total = 0, v1_total = 0;
	uint64_t fh = 1469598103934665603ULL;
	int k, bad = 0;

	(void)state;
	jctx_init(&we, T0);
	assert_int_equal(jctx_compact(&we), 0);
	jctx_init(&rd, T0);
	jctx_init(&rs, T0);
	jctx_init(&wt, T0);
	assert_int_equal(jctx_compact(&wt), 0);
	for (k = 0; k < 400; k++) {
		codec_record(k, &r, v);
		{
			struct journal_record rt = r;
			long ti;

			if (r.n > 0) {	/* as the collector keeps it */
				struct sertext *nt = sertext_for(text[k % 3],
				    &v[0].s, r.n, sizeof(v[0]));

				assert_non_null(nt);
				sertext_drop(text[k % 3]);
				rt.text = text[k % 3] = nt;
			}
			assert_int_equal(jctx_encode(&wt, &b3, &rt, &err), 0);
			assert_int_equal(jctx_commit(&wt, &rt), 0);
			ti = jctx_find_test(&wt, r.target);
			assert_true(ti >= 0);
			/* the record's text held; none for a failed poll */
			assert_ptr_equal(wt.t[ti].text, r.n ? text[k % 3] :
			    NULL);
		}
		assert_int_equal(jseg_encode_record(&b, &r, &err), 0);
		v1_total += b.len;
		if (k >= 200) {
			/* rs, a reader's context made the writer's at 200 (a
			 * resumed segment), writes the same bytes */
			if (k == 200)
				assert_int_equal(jctx_compact(&rs), 0);
			assert_int_equal(jctx_encode(&rs, &b2, &r, &err), 0);
			assert_int_equal(jctx_commit(&rs, &r), 0);
		}
		assert_int_equal(jctx_encode(&we, &b, &r, &err), 0);
		v2_total += b.len;
		fh = fnv64_add(fh, b.p, b.len);
		assert_int_equal(b.p[2], FRAME_VERSION2);
		assert_int_equal(b3.len, b.len);
		assert_memory_equal(b3.p, b.p, b.len);
		if (k >= 200) {
			assert_int_equal(b2.len, b.len);
			assert_memory_equal(b2.p, b.p, b.len);
		}
		/* a body cut short is refused */
		if (k % 37 == 0)
			assert_int_equal(jctx_decode(&rd, b.p + FRAME_HDR_LEN,
			    b.len - FRAME_HDR_LEN - 1, &got, target, error, &dv,
			    &dvcap), -1);
		assert_int_equal(jctx_decode(&rd, b.p + FRAME_HDR_LEN,
		    b.len - FRAME_HDR_LEN, &got, target, error, &dv, &dvcap), 0);
		bad += record_mismatch(&got, &r);
		assert_int_equal(jctx_commit(&we, &r), 0);
		assert_int_equal(jctx_commit(&rd, &got), 0);
		if (k < 200)
			assert_int_equal(jctx_commit(&rs, &got), 0);
	}
	assert_int_equal(bad, 0);
	assert_true(v2_total < v1_total);
	assert_true(fh == CODEC_GOLDEN_FNV);
	/* a target index the segment has not seen */
	{
		const uint8_t body[] = { 0x00, 0x7f, 0, 0, 0, 0 };

		assert_int_equal(jctx_decode(&rd, body, sizeof(body), &got,
		    target, error, &dv, &dvcap), -1);
	}
	/* a writer's context does not decode, a reader's does not encode */
	assert_int_equal(jctx_decode(&we, b.p + FRAME_HDR_LEN, b.len -
	    FRAME_HDR_LEN, &got, target, error, &dv, &dvcap), -1);
	assert_int_equal(jctx_encode(&rd, &b2, &r, &err), -1);
	jctx_fini(&we);
	jctx_fini(&rd);
	jctx_fini(&rs);
	jctx_fini(&wt);
	for (k = 0; k < 3; k++) {
		assert_int_equal(text[k]->refs, 1);	/* the writer's gone */
		sertext_drop(text[k]);
	}
	free(dv);
	free(b.p);
	free(b2.p);
	free(b3.p);
}

/* Old segments (version-1 records) still read and verify, and a writer
 * that resumes one appends version-2 records after them. */
static void
test_old_format_segments_read(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	struct cmp c = { 0 };
	struct wp_err err;
	char p[300];
	unsigned char *b;
	long len;

	fill(f->dir, &opts60v1, T0, 10 * WP_SEC, 0, 16);	/* 2 closed, 1 open */
	seg_path(f->dir, 0, p, sizeof(p));
	b = slurp(p, &len);
	assert_int_equal(b[4], 1);		/* plain */
	assert_int_equal(b[56 + 2], 1);		/* a version-1 frame */
	free(b);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 16);
	/* resumed by today's writer: v2 after v1 in the open segment, which
	   then closes compressed */
	fill(f->dir, &opts60, T0 + 160 * WP_SEC, 10 * WP_SEC, 16, 14);
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 30);
	assert_int_equal(st.segments, 5);
	seg_path(f->dir, 2, p, sizeof(p));
	b = slurp(p, &len);
	assert_int_equal(b[4], SEG_VERSION_Z);
	free(b);
	seg_path(f->dir, 1, p, sizeof(p));
	b = slurp(p, &len);
	/* closed plain before: compressed at the next close */
	assert_int_equal(b[4], SEG_VERSION_Z);
	free(b);
	assert_int_equal(journal_scan(f->dir, 0, 0, cmp_cb, &c, &err), 0);
	assert_int_equal(c.i, 30);
	assert_int_equal(c.mismatches, 0);
}

/* Closed segments are compressed, read back exactly and verify with the
 * same chain; the open one stays plain. */
static void
test_compressed_segments_verify(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st, st_plain;
	struct cmp c = { 0 };
	struct wp_err err;
	char p[300], q[300];
	unsigned char *b;
	long len;
	int k;

	fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 30);	/* 5 segments */
	for (k = 0; k < 5; k++) {
		seg_path(f->dir, k, p, sizeof(p));
		b = slurp(p, &len);
		assert_int_equal(b[4], k < 4 ? SEG_VERSION_Z : SEG_VERSION);
		free(b);
	}
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 30);
	assert_int_equal(journal_scan(f->dir, 0, 0, cmp_cb, &c, &err), 0);
	assert_int_equal(c.i, 30);
	assert_int_equal(c.mismatches, 0);
	/* the same records plain: the same chain (MANIFEST byte for byte) */
	snprintf(q, sizeof(q), "%s/plain", f->dir);
	fill(q, &opts60p, T0, 10 * WP_SEC, 0, 30);
	assert_int_equal(verify(q, &st_plain), 0);
	snprintf(p, sizeof(p), "%s/MANIFEST", f->dir);
	snprintf(q, sizeof(q), "%s/plain/MANIFEST", f->dir);
	{
		long l1, l2;
		unsigned char *m1 = slurp(p, &l1), *m2 = slurp(q, &l2);

		assert_int_equal(l1, l2);
		assert_memory_equal(m1, m2, (size_t)l1);
		free(m1);
		free(m2);
	}
}

/* Segments closed plain (a crash before their compression, a failed one,
 * an old journal) are compressed later, the oldest first, one at each
 * close; the records and the chain stay the same. */
static void
test_plain_leftovers_compressed(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	struct cmp c = { 0 };
	struct wp_err err;
	char p[300];
	unsigned char *b;
	long len;
	int k;

	fill(f->dir, &opts60p, T0, 10 * WP_SEC, 0, 30);	/* 5, plain */
	/* resumed compressing: three closes (segments 4, 5, 6; 7 open) */
	fill(f->dir, &opts60, T0 + 300 * WP_SEC, 10 * WP_SEC, 30, 14);
	for (k = 0; k < 8; k++) {
		seg_path(f->dir, k, p, sizeof(p));
		b = slurp(p, &len);
		/* 4-6 at their close, 0-2 the leftovers of those closes */
		assert_int_equal(b[4], k == 3 || k == 7 ? SEG_VERSION :
		    SEG_VERSION_Z);
		free(b);
	}
	assert_int_equal(verify(f->dir, &st), 0);
	assert_int_equal(st.records, 44);
	assert_int_equal(journal_scan(f->dir, 0, 0, cmp_cb, &c, &err), 0);
	assert_int_equal(c.i, 44);
	assert_int_equal(c.mismatches, 0);
}

/* A flipped byte anywhere in a compressed segment fails verify and scan
 * naming the segment; so does an edit recompressed with a valid zstd
 * frame (the chain, not the compression, is the evidence). */
static void
test_compressed_segment_tamper_detected(void **state)
{
	struct fx *f = *state;
	struct journal_verify_stats st;
	struct collect c = { 0 };
	struct wp_err err;
	char p[300];
	unsigned char *b, *plain, *z;
	long len, at;
	size_t pn, zn;

	for (at = SEG_HDR_LEN; ; at += 29) {
		teardown(state);
		setup(state);
		f = *state;
		fill(f->dir, &opts60, T0, 10 * WP_SEC, 0, 18);
		seg_path(f->dir, 1, p, sizeof(p));
		b = slurp(p, &len);
		if (at >= len) {
			free(b);
			break;
		}
		b[at] ^= 0x10;
		spit(p, b, len);
		free(b);
		if (verify(f->dir, &st) != -1)
			fail_msg("flip at %ld of %ld not detected", at, len);
		assert_non_null(strstr(st.first_bad, "20251129T100100.wpj"));
		assert_int_equal(journal_scan(f->dir, 0, 0, collect_cb, &c,
		    &err), -1);
	}
	/* decompress, edit a record, recompress validly */
	seg_path(f->dir, 1, p, sizeof(p));
	b = slurp(p, &len);
	plain = malloc(1 << 20);
	pn = ZSTD_decompress(plain, 1 << 20, b + SEG_ZHDR_LEN,
	    (size_t)len - SEG_ZHDR_LEN);
	assert_false(ZSTD_isError(pn));
	plain[pn - 3] ^= 0x01;		/* the last record's last bytes */
	z = malloc(ZSTD_compressBound(pn) + SEG_ZHDR_LEN);
	memcpy(z, b, SEG_ZHDR_LEN);
	zn = ZSTD_compress(z + SEG_ZHDR_LEN, ZSTD_compressBound(pn), plain, pn,
	    3);
	assert_false(ZSTD_isError(zn));
	spit(p, z, (long)(zn + SEG_ZHDR_LEN));
	assert_int_equal(verify(f->dir, &st), -1);
	assert_non_null(strstr(st.first_bad, "20251129T100100.wpj record"));
	free(b);
	free(z);
	free(plain);
}

int
main(void)
{
	if (getenv("WP_JOURNAL_FIXTURE"))
		return write_fixture(getenv("WP_JOURNAL_FIXTURE"));
	{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writer_spills, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_writer_spill_full, setup,
		    teardown_fsize),
		cmocka_unit_test_setup_teardown(test_roundtrip_every_field,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_decoded_equals_appended,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_labels_written_as_edits,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_extreme_times_roundtrip,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_verify_intact_across_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_detects_edited_byte,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_verify_detects_edit_in_open_segment, setup, teardown),
		cmocka_unit_test(test_codec_roundtrip),
		cmocka_unit_test(test_codec_shared_labels),
		cmocka_unit_test(test_codec_shared_numbers),
		cmocka_unit_test_setup_teardown(test_old_format_segments_read,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_compressed_segments_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_plain_leftovers_compressed, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_compressed_segment_tamper_detected, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_verify_detects_deleted_record, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_verify_detects_reordered_records, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_verify_detects_deleted_or_swapped_segment, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_verify_detects_manifest_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_tail_recovers,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_truncated_closed_segment_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_expiry_keeps_chain_checkable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_ranges, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_scan_rejects_corrupt_segment, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_append_rejects_bad_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_commit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_orphan_segment_after_crash_is_adopted, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_export_csv_quoting, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
	}
}
