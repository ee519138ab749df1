/*
 * fuzz_journal.c - libFuzzer harness for the journal readers
 * (collector/store/jseg.c, journal_scan.c, journal.c's verify): the input
 * is one segment file (the corpus: segments of test_journal's fixture
 * journal).  Byte 5 (reserved, 0 in real files) even: the harness reseals
 * it - the header's start, length and chain value are set to the
 * segment's name and every frame's hash is recomputed, so the fuzzer
 * reaches the record decoder rather than the hash check; odd: the file is
 * written as given.  It is written as the only segment of a scratch
 * directory, then verified, scanned whole and over a part, and exported
 * as CSV.
 * Invariants: every record scanned has NUL-terminated strings within the
 * format's limits and at most VALUES_MAX values; a scan is repeatable; a
 * part holds no more records than the whole, each inside the part's
 * window; a journal that verifies scans without error, as many records as
 * verify counted.  Built and run by tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../collector/store/journal.h"
#include "../../collector/store/jseg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define T0	(1764410400LL * WP_SEC)		/* 2025-11-29T10:00:00Z */
#define SEGLEN	(60LL * WP_SEC)

static char dir[256];
static char seg[NAME_MAX_WPJ];
static EVP_MD_CTX *md;

struct count {
	size_t	 n;
	wp_time	 from, to;
};

static int
on_record(const struct journal_record *r, void *arg)
{
	struct count *c = arg;
	size_t i;
	const struct wp_sample *s;

	c->n++;
	if (r->target == NULL || r->error == NULL ||
	    strlen(r->target) > TARGET_MAX || strlen(r->error) > ERROR_MAX ||
	    r->n > VALUES_MAX || (r->n > 0 && r->v == NULL))
		abort();
	if (r->t_real < c->from || (c->to != 0 && r->t_real >= c->to))
		abort();
	for (i = 0; i < r->n; i++) {
		s = &r->v[i].s;
		if (strnlen(s->series, WP_SERIES_MAX) == WP_SERIES_MAX ||
		    strnlen(s->raw_unit, WP_UNIT_MAX) == WP_UNIT_MAX ||
		    strnlen(s->labels, WP_LABEL_MAX) == WP_LABEL_MAX)
			abort();
	}
	return 0;
}

static void
put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes the header and the frames' hashes of buf (size n). */
static void
reseal(uint8_t *buf, size_t n)
{
	uint8_t h[HASH_LEN] = { 0 };
	size_t off = SEG_HDR_LEN, len;

	memcpy(buf, "WPJS", 4);
	buf[4] = SEG_VERSION;
	put_le(buf + 8, (uint64_t)T0, 8);
	put_le(buf + 16, (uint64_t)SEGLEN, 8);
	memset(buf + 24, 0, HASH_LEN);
	while (off + FRAME_HDR_LEN <= n) {
		len = (size_t)buf[off + 4] | (size_t)buf[off + 5] << 8 |
		    (size_t)buf[off + 6] << 16 | (size_t)buf[off + 7] << 24;
		if (len > n - off - FRAME_HDR_LEN ||
		    n - off - FRAME_HDR_LEN - len < HASH_LEN)
			break;
		if (jseg_chain_hash(md, h, buf + off, FRAME_HDR_LEN + len,
		    h) != 0)
			abort();
		memcpy(buf + off + FRAME_HDR_LEN + len, h, HASH_LEN);
		off += FRAME_HDR_LEN + len + HASH_LEN;
	}
}

static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/wp-fuzz-journal.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL || (md = EVP_MD_CTX_new()) == NULL)
		abort();
	jseg_name(T0, SEGLEN, seg);
}

static void
write_seg(const uint8_t *data, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, seg);
	if ((f = fopen(path, "wb")) == NULL ||
	    (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_verify_stats st;
	struct count all = { 0 }, again = { 0 }, part = { 0 };
	struct wp_err err;
	uint8_t *buf;
	int vrc, src;
	FILE *out;

	if (md == NULL)
		setup();
	if ((buf = malloc(size + 1)) == NULL)
		abort();
	memcpy(buf, data, size);
	if (size >= SEG_HDR_LEN && (buf[5] & 1) == 0)
		reseal(buf, size);
	write_seg(buf, size);
	free(buf);
	memset(&st, 0, sizeof(st));
	vrc = journal_verify(dir, &st, &err);
	src = journal_scan(dir, 0, 0, on_record, &all, &err);
	if (journal_scan(dir, 0, 0, on_record, &again, &err) != src ||
	    again.n != all.n)
		abort();
	part.from = T0 + 10 * WP_SEC;
	part.to = T0 + 30 * WP_SEC;
	if (journal_scan(dir, part.from, part.to, on_record, &part, &err) == 0 &&
	    part.n > all.n)
		abort();
	if (vrc == 0 && (src != 0 || all.n != st.records))
		abort();
	if ((out = fopen("/dev/null", "w")) != NULL) {
		(void)journal_export_csv(dir, 0, 0, out, &err);
		fclose(out);
	}
	return 0;
}
