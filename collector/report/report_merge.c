/* report_merge.c - series from several data dirs (see report_merge.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../store/journal.h"
#include "../store/ledger.h"
#include "report_merge.h"

/* One data dir's series of a target, scored. */
struct score {
	bool	 present;
	size_t	 ok, refused;	/* series with a role: computed, refused */
	wp_time	 gap;		/* the longest gap among the computed */
};

/* A target and its score in each data dir. */
struct tgt {
	const char *name;	/* borrowed from a series key: up to '|' */
	size_t	 len;
	int	 best;		/* the data dir kept */
	struct score sc[];	/* n_dirs */
};

struct table {
	struct hmap	 map;
	struct tgt	**v;	/* in order of first appearance */
	size_t		 n, cap;
};

struct tkey {
	const char	*name;
	size_t		 len;
};

static bool
tgt_eq(const void *entry, const void *key)
{
	const struct tgt *t = entry;
	const struct tkey *k = key;

	return t->len == k->len && memcmp(t->name, k->name, k->len) == 0;
}

/* The target of series key "target|series", found or added.  NULL out of
 * memory. */
static struct tgt *
tgt_get(struct table *tb, const char *key, size_t n_dirs)
{
	const char *bar = strchr(key, '|');
	struct tkey k = { key, bar != NULL ? (size_t)(bar - key) :
	    strlen(key) };
	uint64_t h = hmap_hash_add(HMAP_SEED, k.name, k.len);
	struct tgt *t;

	if ((t = hmap_get(&tb->map, h, tgt_eq, &k)) != NULL)
		return t;
	if (tb->n == tb->cap) {
		size_t nc = tb->cap ? 2 * tb->cap : 64;
		struct tgt **nv = reallocarray(tb->v, nc, sizeof(*nv));

		if (nv == NULL)
			return NULL;
		tb->v = nv;
		tb->cap = nc;
	}
	if ((t = calloc(1, sizeof(*t) + n_dirs * sizeof(t->sc[0]))) == NULL)
		return NULL;
	if (hmap_put(&tb->map, h, t) == -1) {
		free(t);
		return NULL;
	}
	t->name = k.name;
	t->len = k.len;
	tb->v[tb->n++] = t;
	return t;
}

static void
table_free(struct table *tb)
{
	size_t i;

	if (tb == NULL)
		return;
	for (i = 0; i < tb->n; i++)
		free(tb->v[i]);
	free(tb->v);
	hmap_fini(&tb->map);
	free(tb);
}

int
report_merge_verify(const char *d, struct wp_err *err)
{
	struct journal_verify_stats js;
	struct ledger_stats ls;
	struct wp_err e = { 0 };
	char jdir[PATH_MAX], ldir[PATH_MAX], idx[PATH_MAX + 8];

	snprintf(jdir, sizeof(jdir), "%s/journal", d);
	snprintf(ldir, sizeof(ldir), "%s/ledger", d);
	memset(&js, 0, sizeof(js));
	memset(&ls, 0, sizeof(ls));
	if (access(jdir, R_OK | X_OK) != 0)
		return err_set(err, WP_E_CONFIG, "data dir %s: no journal: %s: %s",
		    d, jdir, strerror(errno));
	if (journal_verify(jdir, &js, &e) != 0)
		return err_set(err, WP_E_CONFIG, "data dir %s: the journal does "
		    "not verify: %s", d, js.first_bad[0] ? js.first_bad :
		    e.msg);
	snprintf(idx, sizeof(idx), "%s/LEDGER", ldir);
	if (access(idx, F_OK) == 0 && ledger_verify(jdir, ldir, &ls, &e) != 0)
		return err_set(err, WP_E_CONFIG, "data dir %s: the ledger does "
		    "not verify: %s", d, ls.first_bad[0] ? ls.first_bad :
		    e.msg);
	return 0;
}

/* Scores data dir i's series into the table.  0 or -1 out of memory. */
static int
score_dir(struct report_merge *m, struct table *tb, size_t i)
{
	const struct report_load *l = &m->ld[i];
	size_t k;

	for (k = 0; k < l->n; k++) {
		const struct report_series *s = l->v[k];
		struct tgt *t = tgt_get(tb, s->key, m->n_dirs);

		if (t == NULL)
			return -1;
		t->sc[i].present = true;
		if (s->role == RR_NONE || s->role == RR_LIMIT)
			continue;
		if (s->rc != 0) {
			t->sc[i].refused++;
			continue;
		}
		t->sc[i].ok++;
		if (s->res.max_gap > t->sc[i].gap)
			t->sc[i].gap = s->res.max_gap;
	}
	return 0;
}

/* Whether a is better than b: fewer refused series, more computed, the
 * shorter longest gap (ties: neither). */
static bool
better(const struct score *a, const struct score *b)
{
	if (a->refused != b->refused)
		return a->refused < b->refused;
	if (a->ok != b->ok)
		return a->ok > b->ok;
	return a->gap < b->gap;
}

static void
moved_name(struct report_merge *m, const struct tgt *t)
{
	size_t n = strlen(m->moved_names);

	m->moved++;
	if (m->moved > 4 || n + t->len + 3 >= sizeof(m->moved_names))
		return;
	snprintf(m->moved_names + n, sizeof(m->moved_names) - n, "%s%.*s",
	    n ? ", " : "", (int)t->len, t->name);
}

static int
src_cmp(const void *a, const void *b)
{
	return strcmp(((const struct report_source *)a)->target,
	    ((const struct report_source *)b)->target);
}

/* Each target's data dir, and the sources (by target name).  0 or -1 out of memory. */
static int
choose(struct report_merge *m, struct table *tb)
{
	size_t i, d, first, cand;

	if ((m->src = calloc(tb->n + 1, sizeof(*m->src))) == NULL ||
	    (m->names = calloc(tb->n + 1, sizeof(*m->names))) == NULL)
		return -1;
	for (i = 0; i < tb->n; i++) {
		struct tgt *t = tb->v[i];
		bool role = false;

		t->best = -1;
		first = m->n_dirs;
		for (d = cand = 0; d < m->n_dirs; d++) {
			if (!t->sc[d].present)
				continue;
			cand++;
			role |= t->sc[d].ok + t->sc[d].refused > 0;
			if (first == m->n_dirs)
				first = d;
			if (t->best < 0 || better(&t->sc[d], &t->sc[t->best]))
				t->best = (int)d;
		}
		if (!role)
			continue;
		if (cand > 1)
			m->shared++;
		if (cand > 1 && (size_t)t->best != first)
			moved_name(m, t);
		if ((m->names[m->n_src] = strndup(t->name, t->len)) == NULL)
			return -1;
		m->src[m->n_src] = (struct report_source){ .target =
		    m->names[m->n_src], .data_dir = m->dirs[t->best],
		    .candidates = (int)cand };
		m->n_src++;
	}
	qsort(m->src, m->n_src, sizeof(*m->src), src_cmp);
	return 0;
}

/* The kept series, in table order.  0 or -1 out of memory. */
static int
keep(struct report_merge *m, struct table *tb)
{
	size_t i, k, n = 0;
	struct tkey key;

	for (i = 0; i < m->n_ld; i++)
		n += m->ld[i].n;
	if ((m->v = calloc(n + 1, sizeof(*m->v))) == NULL)
		return -1;
	for (i = 0; i < m->n_ld; i++)
		for (k = 0; k < m->ld[i].n; k++) {
			struct report_series *s = m->ld[i].v[k];
			const char *bar = strchr(s->key, '|');
			struct tgt *t;

			key.name = s->key;
			key.len = bar ? (size_t)(bar - s->key) : strlen(s->key);
			t = hmap_get(&tb->map, hmap_hash_add(HMAP_SEED,
			    key.name, key.len), tgt_eq, &key);
			if (t != NULL && t->best == (int)i)
				m->v[m->n++] = s;
		}
	return 0;
}

static void
add_stats(struct report_merge *m, const struct report_load *l)
{
	m->segments_read += l->segments_read;
	m->summaries_used += l->summaries_used;
	m->ledger_used += l->ledger_used;
	m->ledger_days += l->ledger_days;
	m->ledger_forced += l->ledger_forced;
	m->ledger_snapped += l->ledger_snapped;
	if (l->seen && (!m->seen || l->first_t < m->first_t))
		m->first_t = l->first_t;
	m->seen |= l->seen;
}

/* Scans each data dir into its own load. */
static int
scan_all(struct report_merge *m, struct wp_err *err)
{
	size_t i;

	if ((m->ld = calloc(m->n_dirs, sizeof(*m->ld))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	for (i = 0; i < m->n_dirs; i++) {
		m->ld[i] = (struct report_load){ .c = m->c, .p = m->p,
		    .data_dir = m->dirs[i], .selected = m->selected,
		    .cancel = m->cancel, .holders = m->holders };
		m->n_ld++;
		if (m->n_dirs > 1 && report_merge_verify(m->dirs[i], err) == -1)
			return -1;
		if (report_load_scan(&m->ld[i], err) == -1) {
			if (m->n_dirs > 1)
				err_prefix(err, "data dir %s", m->dirs[i]);
			return -1;
		}
		add_stats(m, &m->ld[i]);
	}
	return 0;
}

int
report_merge_scan(struct report_merge *m, struct wp_err *err)
{
	struct table *tb;
	size_t i;

	if (scan_all(m, err) == -1)
		return -1;
	if (m->n_dirs == 1) {
		m->v = m->ld[0].v;
		m->n = m->ld[0].n;
		return 0;
	}
	if ((tb = calloc(1, sizeof(*tb))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	m->tg = tb;
	for (i = 0; i < m->n_dirs; i++)
		if (score_dir(m, tb, i) == -1)
			return err_set(err, WP_E_INTERNAL, "out of memory");
	if (choose(m, tb) == -1 || keep(m, tb) == -1)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	return 0;
}

void
report_merge_fini(struct report_merge *m)
{
	struct table *tb = m->tg;
	size_t i;

	for (i = 0; m->names != NULL && i < m->n_src; i++)
		free(m->names[i]);
	free(m->names);
	free(m->src);
	if (m->n_dirs > 1)
		free(m->v);
	for (i = 0; i < m->n_ld; i++)
		report_load_fini(&m->ld[i]);
	free(m->ld);
	table_free(tb);
	memset(m, 0, sizeof(*m));
}
