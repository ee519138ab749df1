/*
 * state.c - counter state table, atomic snapshot, journal replay.
 *
 * Snapshot format (<data_dir>/state/counters, text, one item a line):
 *   wattpath-counters 1
 *   stamp <ns>
 *   c <target> <series> <valid> <last> <cum> <last_t> <reset_time> <resets>
 *     <held> <hold_dips> <hold_max> <dip_fraction>
 *   end <count>
 * Strings are %-escaped (bytes outside '!'..'~' and '%'), doubles are C99
 * hex floats ("%a") so they round-trip exactly.  "end" guards truncation.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/journal.h"
#include "lib/hmap.h"
#include "lib/log.h"
#include "state.h"

#define STR_MAX	512		/* escaped key parts, bytes */

/* One allocation per counter: the names follow it ("target\0series\0"). */
struct entry {
	struct wp_counter c;
	char		 target[];	/* then the series (entry_series) */
};

struct state {
	struct hmap	 tab;		/* struct entry by (target, series) */
	wp_time		 stamp;
};

struct key {
	const char	*target, *series;
	size_t		 tlen;		/* strlen(target) */
};

static const char *
entry_series(const struct entry *e, size_t tlen)
{
	return e->target + tlen + 1;
}

/* (target, series) hashed with a separator no name holds. */
static uint64_t
key_hash(const char *target, const char *series)
{
	return hmap_hash_add(hmap_hash_add(hmap_hash_add(HMAP_SEED, target,
	    strlen(target)), "\377", 1), series, strlen(series));
}

static bool
key_eq(const void *entry, const void *key)
{
	const struct entry *e = entry;
	const struct key *k = key;

	return strcmp(e->target, k->target) == 0 &&
	    strcmp(entry_series(e, k->tlen), k->series) == 0;
}

struct state *
state_new(void)
{
	struct state *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->tab.min_cap = 64;
	s->tab.dense = true;		/* a counter of the fleet an entry */
	return s;
}

void
state_free(struct state *s)
{
	struct entry *e;
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->tab.cap; i++)
		if ((e = s->tab.slot[i].e) != NULL)
			free(e);
	hmap_fini(&s->tab);
	free(s);
}

struct wp_counter *
state_counter(struct state *s, const char *target, const char *series,
    bool hold_dips)
{
	uint64_t h = key_hash(target, series);
	struct key k = { target, series, strlen(target) };
	struct entry *e;
	size_t tl, sl;

	if ((e = hmap_get(&s->tab, h, key_eq, &k)) != NULL) {
		e->c.hold_dips = hold_dips;	/* policy is the caller's */
		return &e->c;
	}
	tl = k.tlen + 1;
	sl = strlen(series) + 1;
	if ((e = calloc(1, sizeof(*e) + tl + sl)) == NULL)
		return NULL;
	memcpy(e->target, target, tl);
	memcpy(e->target + tl, series, sl);
	if (hmap_put(&s->tab, h, e) == -1) {
		free(e);
		return NULL;
	}
	counter_init(&e->c, hold_dips);
	return &e->c;
}

wp_time
state_stamp(const struct state *s)
{
	return s->stamp;
}

void
state_set_stamp(struct state *s, wp_time t)
{
	s->stamp = t;
}

size_t
state_count(const struct state *s)
{
	return s->tab.n;
}

/* ---- snapshot ---- */

static void
put_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c > '~' || c == '%')
			fprintf(f, "%%%02x", c);
		else
			fputc(c, f);
	}
}

static int
unesc(const char *in, char *out, size_t len)
{
	size_t n = 0;
	unsigned int c;

	for (; *in; in++) {
		if (n + 1 >= len)
			return -1;
		if (*in == '%') {
			if (sscanf(in + 1, "%2x", &c) != 1 || c == 0)
				return -1;
			out[n++] = (char)c;
			in += 2;
		} else
			out[n++] = *in;
	}
	out[n] = '\0';
	return n ? 0 : -1;
}

static int
write_entries(const struct state *s, FILE *f)
{
	const struct entry *e;
	size_t i;

	fprintf(f, "wattpath-counters 1\nstamp %" PRId64 "\n", s->stamp);
	for (i = 0; i < s->tab.cap; i++) {
		if ((e = s->tab.slot[i].e) == NULL)
			continue;
		fputs("c ", f);
		put_esc(f, e->target);
		fputc(' ', f);
		put_esc(f, entry_series(e, strlen(e->target)));
		fprintf(f, " %d %a %a %" PRId64 " %" PRId64 " %" PRIu32
		    " %" PRIu32 " %d %" PRIu32 " %a\n", e->c.valid, e->c.last,
		    e->c.cum, e->c.last_t, e->c.reset_time, e->c.resets,
		    e->c.held, e->c.hold_dips, e->c.hold_max, e->c.dip_fraction);
	}
	fprintf(f, "end %zu\n", s->tab.n);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static int
mkdir_one(const char *p)
{
	return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int
state_save(const struct state *s, const char *data_dir, struct wp_err *err)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16], path[PATH_MAX + 16];
	FILE *f;
	int fd, dfd, rc;

	snprintf(dir, sizeof(dir), "%s/state", data_dir);
	snprintf(tmp, sizeof(tmp), "%s/counters.tmp", dir);
	snprintf(path, sizeof(path), "%s/counters", dir);
	if (mkdir_one(data_dir) != 0 || mkdir_one(dir) != 0)
		return err_set(err, WP_E_CONFIG, "state %s: %s", dir,
		    strerror(errno));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		return err_set(err, WP_E_TRANSIENT, "state %s: %s", tmp,
		    strerror(errno));
	}
	rc = write_entries(s, f);
	if (rc == 0 && fsync(fd) != 0)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0) {
		err_set(err, WP_E_TRANSIENT, "state %s: %s", path,
		    strerror(errno));
		unlink(tmp);
		return -1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (fsync(dfd) != 0)
			log_warn("state: fsync %s", dir);
		close(dfd);
	}
	return 0;
}

static int
parse_entry(struct state *s, const char *line)
{
	char t[STR_MAX], se[STR_MAX], target[STR_MAX], series[STR_MAX];
	struct wp_counter c, *dst;
	int valid, hold, used = 0;

	memset(&c, 0, sizeof(c));
	if (sscanf(line, "c %511s %511s %d %la %la %" SCNd64 " %" SCNd64
	    " %" SCNu32 " %" SCNu32 " %d %" SCNu32 " %la%n", t, se, &valid,
	    &c.last, &c.cum, &c.last_t, &c.reset_time, &c.resets, &c.held,
	    &hold, &c.hold_max, &c.dip_fraction, &used) != 12 ||
	    line[used] != '\0')
		return -1;
	if (unesc(t, target, sizeof(target)) != 0 ||
	    unesc(se, series, sizeof(series)) != 0)
		return -1;
	if ((dst = state_counter(s, target, series, hold != 0)) == NULL)
		return -1;
	c.valid = valid != 0;
	c.hold_dips = hold != 0;
	*dst = c;
	return 0;
}

static int
load_snapshot(struct state *s, const char *path, struct wp_err *err)
{
	char *line = NULL;
	size_t cap = 0, n = 0, want = 0;
	ssize_t len;
	int lineno = 0, ended = 0;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, WP_E_TRANSIENT, "state %s: %s", path,
		    strerror(errno));
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (lineno == 1 && strcmp(line, "wattpath-counters 1") == 0)
			continue;
		if (lineno == 2 && sscanf(line, "stamp %" SCNd64, &s->stamp)
		    == 1)
			continue;
		if (lineno > 2 && !ended && line[0] == 'c' &&
		    parse_entry(s, line) == 0) {
			n++;
			continue;
		}
		if (lineno > 2 && !ended && sscanf(line, "end %zu", &want) ==
		    1) {
			ended = 1;
			continue;
		}
		break;
	}
	free(line);
	fclose(f);
	if (len > 0 || !ended || want != n)
		return err_set(err, WP_E_CONFIG, "state %s: malformed or "
		    "truncated at line %d", path, lineno);
	return 0;
}

/*
 * Sets one counter as the collector left it after this journal value:
 * the journal holds the counter's verdict (ctr_flags) and cumulative.
 */
static void
replay_value(struct state *s, const char *target,
    const struct journal_value *v)
{
	struct wp_counter *c;
	uint32_t fl = v->ctr_flags;

	if (v->s.kind != WP_COUNTER)
		return;
	if ((c = state_counter(s, target, v->s.series, false)) == NULL)
		return;
	if (!c->hold_dips && (fl & CTR_HELD))
		c->hold_dips = true;
	if (fl & CTR_HELD)
		c->held++;
	else if (c->valid && ((fl & CTR_BACKSTEP) || (fl == 0 &&
	    v->s.value < c->last)))
		c->last_t = v->s.t_real;	/* jitter, step back: last kept */
	else {
		c->valid = true;
		c->last = v->s.value;
		c->last_t = v->s.t_real;
		c->held = 0;
		if (v->s.reset_time != 0)
			c->reset_time = v->s.reset_time;
		if (fl & CTR_RESET)
			c->resets++;
		if (fl & CTR_IMPLAUSIBLE)
			c->implausible++;
	}
	c->cum = v->cum;
}

struct replay {
	struct state	*s;
	size_t		 records;
};

static int
replay_cb(const struct journal_record *r, void *arg)
{
	struct replay *rp = arg;
	size_t i;

	for (i = 0; i < r->n; i++)
		replay_value(rp->s, r->target, &r->v[i]);
	if (r->t_real > rp->s->stamp)
		rp->s->stamp = r->t_real;
	rp->records++;
	return 0;
}

int
state_load(struct state *s, const char *data_dir, struct wp_err *err)
{
	char path[PATH_MAX];
	struct replay rp = { s, 0 };
	struct stat sb;
	wp_time from;

	snprintf(path, sizeof(path), "%s/state/counters", data_dir);
	if (load_snapshot(s, path, err) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/journal", data_dir);
	if (stat(path, &sb) != 0)
		return 0;		/* no journal yet */
	from = s->stamp + 1;
	if (journal_scan(path, from, 0, replay_cb, &rp, err) != 0) {
		err_prefix(err, "state: journal replay");
		return -1;
	}
	if (rp.records)
		log_info("state: replayed %zu journal records after the "
		    "snapshot", rp.records);
	return 0;
}
