/* ledger_check.c - the ledger's rebuild and verification (see ledger.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "../lib/log.h"
#include "jseg.h"
#include "jsum.h"
#include "ledger.h"

/* The block of closed segment m recomputed from its records at slot.
 * NULL with err (errno ENOENT: the raw segment is gone). */
static struct jsum *
block_from_segment(const char *jdir, const struct mentry *m, wp_time slot,
    struct seg_rd *sr, struct wp_err *err)
{
	struct jsum *js;
	int rc;

	if (jseg_open(sr, jdir, m->name, err) != 0)
		return NULL;
	if ((js = jsum_new(sr->start, sr->len, slot, sr->in)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	while ((rc = jseg_next(sr, err)) == RD_RECORD)
		if (jsum_add(js, &sr->rec) != 0) {
			err_set(err, WP_E_INTERNAL, "out of memory");
			rc = RD_ERROR;
			break;
		}
	if (rc == RD_END && (sr->count != m->count || memcmp(sr->h, m->fin,
	    HASH_LEN) != 0 || memcmp(sr->in, m->in, HASH_LEN) != 0)) {
		err_set(err, WP_E_PROTOCOL, "segment %s: does not match the "
		    "MANIFEST (run wattpath journal verify)", m->name);
		rc = RD_ERROR;
	} else if (rc != RD_END && rc != RD_ERROR) {
		err_set(err, WP_E_PROTOCOL, "segment %s: truncated", m->name);
		rc = RD_ERROR;
	}
	if (rc != RD_END) {
		jsum_free(js);
		return NULL;
	}
	return js;
}

static void
entry_from(struct ledger_entry *e, const struct mentry *m)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", m->name);
	e->start = m->start;
	e->count = m->count;
	memcpy(e->in, m->in, HASH_LEN);
	memcpy(e->fin, m->fin, HASH_LEN);
}

/* ---- catching up after a crash ---- */

int
ledger_catch_up(struct ledger *l, const char *jdir, wp_time slot,
    struct wp_err *err)
{
	wp_time last = ledger_last_start(l);
	struct manifest m;
	struct seg_rd sr;
	struct jsum *js;
	size_t i;
	int added = 0;

	if (last < 0)
		return 0;
	if (jseg_manifest_read(jdir, &m, err) != 0)
		return -1;
	if (jseg_rd_init(&sr, err) != 0) {
		jseg_manifest_fini(&m);
		return -1;
	}
	for (i = 0; i < m.n && added >= 0; i++) {
		const struct mentry *e = &m.e[i];

		if (e->state != M_CLOSED || e->start <= last)
			continue;
		if ((js = block_from_segment(jdir, e, slot > 0 ? slot :
		    LEDGER_SLOT_DEFAULT, &sr, err)) == NULL ||
		    ledger_append(l, e->name, e->start, e->count, e->in,
		    e->fin, js, e->start + sr.len, err) != 0)
			added = -1;
		else
			added++;
		jsum_free(js);
	}
	jseg_rd_fini(&sr);
	jseg_manifest_fini(&m);
	return added;
}

/* ---- rebuild ---- */

struct rebuild {
	const char	*jdir, *ldir;
	wp_time		 slot;
	struct ledger_index old, nix;
	struct seg_rd	 sr;
	struct ledger_stats *st;
};

static int
nix_push(struct ledger_index *ix, struct ledger_entry *e, EVP_MD_CTX *md)
{
	if (ledger_entry_chain(md, ix->last, e, ix->days) != 0)
		return -1;
	return ledger_index_push(ix, e);
}

/* Block s of entry e written to its file (not synced: a rebuild writes
 * its index last), e->file set, and e pushed onto ix.  0, or -1 with
 * err. */
static int
rebuild_put(const char *ldir, struct ledger_index *ix, struct ledger_entry *e,
    struct jsum *s, EVP_MD_CTX *md, struct wp_err *err)
{
	char path[PATH_MAX];

	ledger_block_path(ldir, e->name, path, sizeof(path));
	if (jseg_write_summary(s, e->fin, e->count, path, false, e->file) != 0)
		return err_set(err, WP_E_TRANSIENT, "%s: %s", path,
		    strerror(errno));
	return nix_push(ix, e, md) == 0 ? 0 : err_set(err, WP_E_INTERNAL,
	    "out of memory");
}

/* One MANIFEST entry: a block from its raw segment, else the old block
 * kept.  0, or -1 with err. */
static int
rebuild_one(struct rebuild *rb, const struct mentry *m, struct wp_err *err)
{
	const struct ledger_entry *old = ledger_index_find(&rb->old, m->name);
	struct ledger_entry e;
	struct wp_err le = { 0 };
	struct jsum *js;
	int rc;

	entry_from(&e, m);
	js = m->state == M_CLOSED ? block_from_segment(rb->jdir, m, rb->slot,
	    &rb->sr, &le) : NULL;
	if (js == NULL) {
		if (m->state == M_CLOSED && errno != ENOENT)
			return err_set(err, le.class, "%s", le.msg);
		if (old == NULL || memcmp(old->fin, m->fin, HASH_LEN) != 0 ||
		    (js = ledger_block_load(rb->ldir, old, &le)) == NULL)
			return 0;	/* nothing to keep */
		jsum_free(js);
		memcpy(e.file, old->file, HASH_LEN);
		rb->st->kept++;
		return nix_push(&rb->nix, &e, rb->sr.md) == 0 ? 0 :
		    err_set(err, WP_E_INTERNAL, "out of memory");
	}
	rc = rebuild_put(rb->ldir, &rb->nix, &e, js, rb->sr.md, err);
	jsum_free(js);
	if (rc == 0)
		rb->st->rebuilt++;
	return rc;
}

/* Whether day d's blocks are all in ix (none dropped by retention), so
 * that its day block can be recomputed from them. */
static bool
day_whole(const struct ledger_index *ix, wp_time d)
{
	static const uint8_t zero[HASH_LEN];

	return memcmp(ix->anchor, zero, HASH_LEN) == 0 ||
	    (ix->n > 0 && ix->e[0].start <= d);
}

/* Day d into rb's new DAYS from the new index's blocks.  0, or -1. */
static int
rebuild_day(const char *ldir, const struct ledger_index *nix,
    struct ledger_index *ndays, wp_time d, EVP_MD_CTX *md,
    struct ledger_stats *st, struct wp_err *err)
{
	struct ledger_entry e;
	struct jsum_merge m;
	int rc;

	if (ledger_day_merge(ldir, nix, d, &e, &m, err) != 0)
		return -1;
	rc = rebuild_put(ldir, ndays, &e, m.s, md, err);
	jsum_merge_fini(&m);
	if (rc == 0)
		st->days_rebuilt++;
	return rc;
}

/*
 * The new DAYS: every day with blocks in the new index before the last
 * block's day, each made of its blocks; a day that lost blocks to
 * retention has none (as the collector drops it), the old anchor kept.
 */
static int
rebuild_days(const char *ldir, const struct ledger_index *nix,
    wp_time retention, EVP_MD_CTX *md, struct ledger_stats *st,
    struct wp_err *err)
{
	struct ledger_index old, ndays = { .days = true };
	struct wp_err le = { 0 };
	wp_time last, d;
	size_t k;
	int rc = -1;

	if (ledger_days_read(ldir, &old, &le) != 0) {
		log_warnx("ledger %s: %s: its day blocks are rebuilt", ldir,
		    le.msg);
		ledger_index_fini(&old);
	}
	memcpy(ndays.anchor, old.anchor, HASH_LEN);
	memcpy(ndays.last, old.anchor, HASH_LEN);
	last = nix->n > 0 ? ledger_day_start(nix->e[nix->n - 1].start) :
	    INT64_MIN;
	for (k = 0; k < nix->n; k = ledger_index_lower(nix, d + LEDGER_DAY)) {
		d = ledger_day_start(nix->e[k].start);
		if (d >= last)
			break;		/* the last block's day is open */
		if (!day_whole(nix, d))
			continue;
		if (rebuild_day(ldir, nix, &ndays, d, md, st, err) != 0)
			goto out;
	}
	ledger_index_expire(ldir, &ndays, clock_real() - (retention > 0 ?
	    retention : LEDGER_RETENTION_DEFAULT));
	if (ledger_index_write_sync(ldir, &ndays, false) != 0) {
		err_set(err, WP_E_TRANSIENT, "%s/DAYS: %s", ldir,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	ledger_index_fini(&old);
	ledger_index_fini(&ndays);
	return rc;
}

int
ledger_rebuild(const char *jdir, const char *ldir, wp_time slot,
    wp_time retention, struct ledger_stats *st, struct wp_err *err)
{
	struct rebuild rb = { jdir, ldir, slot > 0 ? slot :
	    LEDGER_SLOT_DEFAULT, { 0 }, { 0 }, { 0 }, st };
	struct manifest m;
	size_t i;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (jseg_manifest_read(jdir, &m, err) != 0)
		return -1;
	if (jseg_rd_init(&rb.sr, err) != 0)
		goto out;
	if (ledger_mkdir(ldir, err) != 0)
		goto out;
	if (ledger_index_read(ldir, &rb.old, err) != 0) {
		if (err->class != WP_E_PROTOCOL)	/* cannot read it: its */
			goto out;	/* blocks older than the journal kept */
		log_warnx("ledger %s: %s: its blocks are not kept", ldir,
		    err->msg);
		ledger_index_fini(&rb.old);
		err_clear(err);
	}
	memcpy(rb.nix.anchor, rb.old.anchor, HASH_LEN);
	memcpy(rb.nix.last, rb.old.anchor, HASH_LEN);
	for (i = 0; i < m.n; i++)
		if (m.e[i].state != M_OPEN && rebuild_one(&rb, &m.e[i], err))
			goto out;
	ledger_index_expire(ldir, &rb.nix, clock_real() -
	    (retention > 0 ? retention : LEDGER_RETENTION_DEFAULT));
	if (ledger_index_write_sync(ldir, &rb.nix, false) != 0) {
		err_set(err, WP_E_TRANSIENT, "%s/LEDGER: %s", ldir,
		    strerror(errno));
		goto out;
	}
	if (rebuild_days(ldir, &rb.nix, retention, rb.sr.md, st, err) != 0)
		goto out;
	rc = 0;
out:
	jseg_manifest_fini(&m);
	jseg_rd_fini(&rb.sr);
	ledger_index_fini(&rb.old);
	ledger_index_fini(&rb.nix);
	return rc;
}

/* ---- verify ---- */

/* Block e against the raw segment m when it still exists. */
static int
verify_raw(const char *jdir, const struct mentry *m, const struct jsum *blk,
    const struct ledger_entry *e, struct seg_rd *sr,
    struct ledger_stats *st, struct wp_err *err)
{
	struct ledger_entry want = *e;
	struct wp_err le = { 0 };
	struct jsum *js;
	int rc;

	if (m->state != M_CLOSED)
		return 0;
	if ((js = block_from_segment(jdir, m, blk->slot, sr, &le)) == NULL)
		return errno == ENOENT ? 0 : err_set(err, le.class, "%s",
		    le.msg);
	js->version = blk->version;	/* as the block was written */
	rc = jseg_hash_summary(js, want.fin, want.count, want.file);
	jsum_free(js);
	if (rc != 0)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	st->checked_raw++;
	if (memcmp(want.file, e->file, HASH_LEN) != 0)
		return err_set(err, WP_E_PROTOCOL, "ledger block %s: does not "
		    "match its journal segment (edited or replaced)", e->name);
	return 0;
}

static int
verify_blocks(const char *jdir, const char *ldir, struct manifest *m,
    const struct ledger_index *ix, struct ledger_stats *st,
    struct wp_err *err)
{
	struct seg_rd sr;
	size_t i;
	int rc = 0;

	if (jseg_rd_init(&sr, err) != 0)
		return -1;
	for (i = 0; i < ix->n && rc == 0; i++) {
		const struct ledger_entry *e = &ix->e[i];
		struct mentry *me = jseg_manifest_find(m, e->name);
		struct jsum *blk;

		if ((blk = ledger_block_load(ldir, e, err)) == NULL) {
			rc = -1;
			break;
		}
		if (m->exists && (me == NULL || me->count != e->count ||
		    memcmp(me->in, e->in, HASH_LEN) != 0 ||
		    memcmp(me->fin, e->fin, HASH_LEN) != 0))
			rc = err_set(err, WP_E_PROTOCOL, "ledger block %s: not "
			    "the journal MANIFEST's segment", e->name);
		else if (me != NULL)
			rc = verify_raw(jdir, me, blk, e, &sr, st, err);
		jsum_free(blk);
		st->blocks++;
	}
	jseg_rd_fini(&sr);
	return rc;
}

/* Every closed or expired MANIFEST segment since the first block has
 * its block. */
static int
verify_complete(const struct manifest *m, const struct ledger_index *ix,
    struct wp_err *err)
{
	size_t i;

	for (i = 0; ix->n > 0 && i < m->n; i++) {
		const struct mentry *me = &m->e[i];

		if (me->state == M_OPEN || me->start < ix->e[0].start)
			continue;
		if (ledger_index_find(ix, me->name) == NULL)
			return err_set(err, WP_E_PROTOCOL, "ledger: no block "
			    "for journal segment %s (deleted?)", me->name);
	}
	return 0;
}

/* Day entry e against ix: its block checks, and is the one
 * its day's blocks give when they are all there. */
static int
verify_day(const char *ldir, const struct ledger_index *ix,
    const struct ledger_entry *e, struct ledger_stats *st,
    struct wp_err *err)
{
	struct ledger_entry want;
	struct wp_err le = { 0 };
	struct jsum *js;

	if ((js = ledger_block_load(ldir, e, err)) == NULL)
		return -1;
	jsum_free(js);
	st->days++;
	if (!day_whole(ix, e->start))
		return 0;
	if (ledger_day_hash(ldir, ix, e->start, &want, &le) != 0)
		return err_set(err, WP_E_PROTOCOL, "ledger day %s: not made "
		    "of the LEDGER's blocks (%s)", e->name, le.msg);
	if (memcmp(want.file, e->file, HASH_LEN) != 0 ||
	    want.count != e->count)
		return err_set(err, WP_E_PROTOCOL, "ledger day %s: does not "
		    "match its blocks (edited or replaced)", e->name);
	st->days_checked++;
	return 0;
}

/* DAYS: every line's day block (verify_day), and every day from the
 * first day line up to the last block's day that has blocks has its
 * line (a deleted last day). */
static int
verify_days(const char *ldir, const struct ledger_index *ix,
    struct ledger_stats *st, struct wp_err *err)
{
	struct ledger_index days;
	wp_time last, d;
	size_t k, i;
	int rc = -1;

	if (ledger_days_read(ldir, &days, err) != 0)
		goto out;
	for (i = 0; i < days.n; i++)
		if (verify_day(ldir, ix, &days.e[i], st, err) != 0)
			goto out;
	last = ix->n > 0 ? ledger_day_start(ix->e[ix->n - 1].start) :
	    INT64_MIN;
	for (k = days.n > 0 ? ledger_index_lower(ix, days.e[0].start) : ix->n;
	    k < ix->n; k = ledger_index_lower(ix, d + LEDGER_DAY)) {
		d = ledger_day_start(ix->e[k].start);
		if (d >= last)
			break;
		i = ledger_index_lower(&days, d);
		if (i >= days.n || days.e[i].start != d) {
			char name[32];

			ledger_day_name(d, name);
			err_set(err, WP_E_PROTOCOL, "ledger: no day block %s "
			    "in DAYS (deleted?)", name);
			goto out;
		}
	}
	rc = 0;
out:
	ledger_index_fini(&days);
	return rc;
}

int
ledger_verify(const char *jdir, const char *ldir, struct ledger_stats *st,
    struct wp_err *err)
{
	struct ledger_index ix;
	struct manifest m;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (jseg_manifest_read(jdir, &m, err) != 0)
		memset(&m, 0, sizeof(m));
	if (ledger_index_read(ldir, &ix, err) == 0 &&
	    verify_blocks(jdir, ldir, &m, &ix, st, err) == 0 &&
	    verify_complete(&m, &ix, err) == 0 &&
	    verify_days(ldir, &ix, st, err) == 0)
		rc = 0;
	if (rc != 0)
		snprintf(st->first_bad, sizeof(st->first_bad), "%s", err->msg);
	ledger_index_fini(&ix);
	jseg_manifest_fini(&m);
	return rc;
}
