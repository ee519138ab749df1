/*
 * store.c - RRD files through librrd, directly or through rrdcached
 * (docs/store.md).  Only the thread-safe librrd calls are used
 * (rrd_create_r2, rrd_updatex_r, rrd_last_r).  For rrdcached, Debian 12's
 * librrd 1.7.2 declares the rrd_client_* handle API in <rrd_client.h> but
 * does not export it, so the simple rrdc_* interface is used: its one
 * connection lives inside librrd behind librrd's own mutex, so one store
 * per process talks to one daemon (which is how the collector uses it).
 */
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rrd.h>
#include <rrd_client.h>

#include "../lib/decimal.h"
#include "../lib/log.h"
#include "../lib/hmap.h"
#include "store.h"

#define HEARTBEAT_STEPS	3

#define UPDATE_LEN	80	/* "time:value[:value]" */
#define NDS		2	/* data sources of a file at most */
#define SLOT_POWER	0	/* of a pair file */
#define SLOT_ENERGY	1

/* One RRD row: a value per data source, RRD-ready (energy already in
 * mJ); NaN is unknown. */
struct row {
	int64_t		 t;		/* s */
	double		 v[NDS];
};

struct rrdfile {
	char		*name;		/* first: the files map's key, its path
					   under <data_dir>/rrd/ (file_path);
					   in the same allocation, after the
					   struct */
	time_t		 last;		/* last update accepted (s) */
	int32_t		 delay;		/* write held values this old (s) */
	uint8_t		 nheld, capheld;	/* librrd: rows held (at most
					   STORE_HOLD_MAX), allocated */
	bool		 absent;	/* librrd, held: created at first write */
	bool		 pair;		/* power_w and energy_mj (pair_slot) */
	bool		 open;		/* row has this poll's values, not yet
					   committed (in store.touched) */
	uint8_t		 kind, quantity;	/* of a one-series file; a
						   counter is written as an
						   integer */
	struct row	 row;		/* the open row */
	struct row	*held;		/* librrd: rows not yet written (grown
					   as they come, freed once written:
					   a fleet's files hold half a batch
					   on average, not a whole one) */
};

_Static_assert(STORE_HOLD_MAX <= UINT8_MAX, "rrdfile.nheld is a uint8_t");
_Static_assert(STORE_DELAY_MAX / WP_SEC <= INT32_MAX,
    "rrdfile.delay is an int32_t");

struct store {
	char		*data_dir;
	char		*rrd_dir;	/* "<data_dir>/rrd/" */
	size_t		 rrd_dir_len;
	char		*rrdcached;
	unsigned long	 step;		/* s */
	char		**rras;		/* configured, or NULL: defaults */
	size_t		 nrras;
	bool		 connected;	/* we called rrdc_connect */
	time_t		 delay;		/* librrd write delay (s), 0: none */
	int		 hold_max;	/* values held per file at most */
	size_t		 name_max;	/* room for a file's name (with its
					   NUL) in a path of PATH_MAX */
	struct hmap	 files;		/* struct rrdfile by name */
	struct rrdfile	**touched;	/* files with an open row */
	size_t		 ntouched, cap_touched;
};

/* f's whole path, <data_dir>/rrd/<name>, written into buf (it fits: a
 * name is at most name_max bytes). */
static const char *
file_path(const struct store *st, const struct rrdfile *f,
    char buf[PATH_MAX])
{
	memcpy(buf, st->rrd_dir, st->rrd_dir_len);
	strcpy(buf + st->rrd_dir_len, f->name);
	return buf;
}

/* Default archives: resolution and span in seconds; MIN/MAX for power. */
static const struct {
	const char	*cf;
	long		 res, span;
	bool		 power_only;
} default_rras[] = {
	{ "AVERAGE", 60, 2 * 86400, false },
	{ "AVERAGE", 600, 30 * 86400, false },
	{ "AVERAGE", 3600, 365 * 86400, false },
	{ "AVERAGE", 86400, 3650L * 86400, false },
	{ "MIN", 3600, 365 * 86400, true },
	{ "MAX", 3600, 365 * 86400, true },
	{ "MIN", 86400, 3650L * 86400, true },
	{ "MAX", 86400, 3650L * 86400, true },
};
#define N_DEFAULT_RRAS (sizeof(default_rras) / sizeof(default_rras[0]))

/*
 * One value for RRD at buf (room for 32 bytes): integers (counters, and
 * whole-valued gauges: most PDU and BMC watts) without snprintf, whose %g
 * was a tenth of a PDU poll's CPU, other gauges with ten significant
 * digits, unknown as U.  Returns the length.
 */
static size_t
put_value(char *buf, double v, bool integer)
{
	if (!isfinite(v) || (integer && (v < 0 || v > 9e18))) {
		buf[0] = 'U';
		return 1;
	}
	if (integer || (v == nearbyint(v) && fabs(v) < 1e15))
		return decimal_put(buf, llround(v));
	return (size_t)snprintf(buf, 32, "%.10g", v);
}

/* "T:V[:V]" for RRD (len >= UPDATE_LEN): a pair file's row is power then
 * energy (an integer), a one-series file's its value. */
static void
format_row(char *buf, const struct rrdfile *f, const struct row *r)
{
	size_t n = decimal_put(buf, (long long)r->t);

	buf[n++] = ':';
	if (f->pair) {
		n += put_value(buf + n, r->v[SLOT_POWER], false);
		buf[n++] = ':';
		n += put_value(buf + n, r->v[SLOT_ENERGY], true);
	} else
		n += put_value(buf + n, r->v[0], f->kind == WP_COUNTER);
	buf[n] = '\0';
}

/* librrd's message, else the system's reason (librrd says nothing for
 * ENOSPC and the like), else that there is none.  Call it right after the
 * failed call: errno must still be that call's. */
static const char *
rrd_msg(void)
{
	const char *m = rrd_get_error();

	if (m != NULL && *m != '\0')
		return m;
	return errno != 0 ? strerror(errno) : "librrd gave no reason";
}

static int	create_file(struct store *, const struct rrdfile *, time_t,
		    struct wp_err *);

/* Empties f's held rows, freeing their room unless a batch is one row
 * (no write delay: the room is used again at every poll). */
static void
release_held(const struct store *st, struct rrdfile *f)
{
	f->nheld = 0;
	if (st->hold_max > 1) {
		free(f->held);
		f->held = NULL;
		f->capheld = 0;
	}
}

/*
 * Writes f's held values with one librrd call (one open, one map),
 * creating the file first if it is new: creating a file takes a few ms,
 * so a fleet's first samples (a 200-PDU fleet has 20,000 series) must not
 * create all its files at once, on the loop, but spread as the writes are.
 * A file that cannot be created is tried again at its next batch.
 */
static int
write_held(struct store *st, struct rrdfile *f, struct wp_err *err)
{
	char vals[STORE_HOLD_MAX][UPDATE_LEN], path[PATH_MAX];
	const char *argv[STORE_HOLD_MAX];
	struct stat sb;
	int i, n = f->nheld;

	if (n == 0)
		return 0;
	file_path(st, f, path);
	if (f->absent) {
		/* one that appeared meanwhile (restored, say) is taken as it
		 * is: values at or before its last update are skipped */
		if (stat(path, &sb) != 0 &&
		    create_file(st, f, f->held[0].t, err) != 0) {
			release_held(st, f);	/* as a failed update: the
						   journal has them */
			return -1;
		}
		f->absent = false;
	}
	for (i = 0; i < n; i++) {
		format_row(vals[i], f, &f->held[i]);
		argv[i] = vals[i];
	}
	release_held(st, f);
	rrd_clear_error();
	errno = 0;
	if (rrd_updatex_r(path, NULL, RRD_SKIP_PAST_UPDATES, n, argv) != 0)
		return err_set(err, WP_E_TRANSIENT, "store %s: update: %s",
		    path, rrd_msg());
	return 0;
}

static void
free_rras(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nrras; i++)
		free(st->rras[i]);
	free(st->rras);
}

struct store *
store_new(const struct store_opts *o, struct wp_err *err)
{
	struct store *st;
	size_t i, n = 0;

	if (o == NULL || o->data_dir == NULL || o->data_dir[0] == '\0') {
		err_set(err, WP_E_CONFIG, "store: no data_dir");
		return NULL;
	}
	if (o->step < WP_SEC || o->step % WP_SEC != 0) {
		err_set(err, WP_E_CONFIG, "store: step must be whole seconds "
		    ">= 1 s");
		return NULL;
	}
	if (o->write_delay < 0 || o->write_delay > STORE_DELAY_MAX) {
		err_set(err, WP_E_CONFIG, "store: write delay out of range");
		return NULL;
	}
	if ((st = calloc(1, sizeof(*st))) == NULL)
		goto oom;
	st->step = (unsigned long)(o->step / WP_SEC);
	st->delay = (time_t)(o->write_delay / WP_SEC);
	st->hold_max = (int)(st->delay / (time_t)st->step) + 1;
	if (st->hold_max > STORE_HOLD_MAX)
		st->hold_max = STORE_HOLD_MAX;
	st->files.min_cap = 128;	/* grows with the fleet */
	st->files.dense = true;
	if ((st->data_dir = strdup(o->data_dir)) == NULL)
		goto oom;
	/* "<data_dir>/rrd/" before each name: a name that would not fit
	 * is refused as too long, as a whole path was */
	if (asprintf(&st->rrd_dir, "%s/rrd/", st->data_dir) < 0) {
		st->rrd_dir = NULL;
		goto oom;
	}
	st->rrd_dir_len = strlen(st->rrd_dir);
	st->name_max = st->rrd_dir_len < PATH_MAX ? PATH_MAX -
	    st->rrd_dir_len : 0;
	if (o->rrdcached && o->rrdcached[0] &&
	    (st->rrdcached = strdup(o->rrdcached)) == NULL)
		goto oom;
	while (o->rras && o->rras[n])
		n++;
	if (n) {
		if ((st->rras = calloc(n, sizeof(*st->rras))) == NULL)
			goto oom;
		for (i = 0; i < n; i++, st->nrras++)
			if (strncmp(o->rras[i], "RRA:", 4) != 0) {
				err_set(err, WP_E_CONFIG, "store: RRA "
				    "definition '%s' must start with RRA:",
				    o->rras[i]);
				store_free(st);
				return NULL;
			} else if ((st->rras[i] = strdup(o->rras[i])) == NULL)
				goto oom;
	}
	return st;
oom:
	err_set(err, WP_E_INTERNAL, "store: out of memory");
	store_free(st);
	return NULL;
}

void
store_free(struct store *st)
{
	struct rrdfile *f;
	struct wp_err err;
	size_t i;

	if (st == NULL)
		return;
	if ((st->connected || st->delay > 0) && store_flush(st, &err) != 0)
		log_warnx("store: %s", err.msg);
	if (st->connected)
		rrdc_disconnect();
	for (i = 0; i < st->files.cap; i++)
		if ((f = st->files.slot[i].e) != NULL) {
			free(f->held);
			free(f);
		}
	hmap_fini(&st->files);
	free(st->touched);
	free_rras(st);
	free(st->rrdcached);
	free(st->data_dir);
	free(st->rrd_dir);
	free(st);
}

/* ---- names ---- */

/* Appends name to buf with '/' and anything unsafe mapped to '_'. */
static int
put_name(char *buf, size_t len, size_t *off, const char *name)
{
	size_t i;

	if (name == NULL || name[0] == '\0')
		return -1;
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (*off + 1 >= len)
			return -1;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    (c == '.' && i > 0)))
			c = '_';
		buf[(*off)++] = c;
	}
	buf[*off] = '\0';
	return 0;
}

/* "TARGET/SERIES.rrd" (put_name's), at buf + off.  0 or -1 (too long,
 * or a name empty). */
static int
put_file_name(char *buf, size_t len, size_t off, const char *target,
    const char *series)
{
	if (put_name(buf, len, &off, target) != 0 || off + 2 >= len)
		return -1;
	buf[off++] = '/';
	if (put_name(buf, len, &off, series) != 0 || off + 5 >= len)
		return -1;
	memcpy(buf + off, ".rrd", 5);	/* per value: no snprintf */
	return 0;
}

int
store_path(const char *data_dir, const char *target, const char *series,
    char *buf, size_t len)
{
	size_t off = strlen(data_dir);

	if (off + 5 >= len)
		return -1;
	memcpy(buf, data_dir, off);
	memcpy(buf + off, "/rrd/", 6);
	return put_file_name(buf, len, off + 5, target, series);
}

static int
mkdirs_for(const char *path)
{
	char tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* ---- rrdcached ---- */

static int
daemon_connect(struct store *st, struct wp_err *err)
{
	if (st->connected && rrdc_is_connected(st->rrdcached))
		return 0;
	rrd_clear_error();
	errno = 0;
	st->connected = true;
	if (rrdc_connect(st->rrdcached) != 0 ||
	    !rrdc_is_connected(st->rrdcached))
		return err_set(err, WP_E_TRANSIENT, "rrdcached %s: %s",
		    st->rrdcached, rrd_msg());
	return 0;
}

enum dop { D_CREATE, D_UPDATE, D_LAST, D_FLUSH };

struct dcall {
	int		 op;		/* enum dop */
	const char	*path;
	time_t		 start;
	int		 argc;
	const char	**argv;
	time_t		 last;		/* D_LAST result */
};

static int
daemon_once(struct store *st, struct dcall *c)
{
	rrd_clear_error();
	errno = 0;
	switch (c->op) {
	case D_CREATE:
		return rrdc_create_r2(c->path, st->step, c->start, 1, NULL,
		    NULL, c->argc, c->argv);
	case D_UPDATE:
		return rrdc_update(c->path, c->argc, c->argv);
	case D_LAST:
		c->last = rrdc_last(c->path);
		return c->last == (time_t)-1 ? -1 : 0;
	default:
		return rrdc_flush(c->path);
	}
}

/* Runs one rrdcached command; on failure reconnects once and retries. */
static int
daemon_call(struct store *st, struct dcall *c, struct wp_err *err)
{
	if (daemon_connect(st, err) != 0)
		return -1;
	if (daemon_once(st, c) == 0)
		return 0;
	log_debug("store: rrdcached: %s; reconnecting", rrd_msg());
	rrdc_disconnect();
	if (daemon_connect(st, err) != 0)
		return -1;
	if (daemon_once(st, c) == 0)
		return 0;
	return err_set(err, WP_E_TRANSIENT, "rrdcached %s: %s: %s",
	    st->rrdcached, c->path, rrd_msg());
}

/* ---- files ---- */

static const char *
ds_name(uint8_t kind, uint8_t quantity)
{
	if (quantity == WP_Q_ENERGY && kind == WP_COUNTER)
		return "energy_mj";
	if (quantity == WP_Q_TOKENS && kind == WP_COUNTER)
		return "tokens";
	if (quantity == WP_Q_POWER && kind == WP_GAUGE)
		return "power_w";
	return "value";
}

/* "DS:name:type:heartbeat:min:U" of one series' kind and quantity. */
static int
ds_def(char **out, unsigned long hb, uint8_t kind, uint8_t quantity)
{
	return asprintf(out, "DS:%s:%s:%lu:%s:U", ds_name(kind, quantity),
	    kind == WP_COUNTER ? "DERIVE" : "GAUGE", hb,
	    kind == WP_COUNTER || quantity == WP_Q_POWER ? "0" : "U") > 0;
}

/* Builds the create arguments of f; caller frees each and the array. */
static char **
create_args(const struct store *st, const struct rrdfile *f, int *argc)
{
	bool power = f->pair ||
	    (f->quantity == WP_Q_POWER && f->kind == WP_GAUGE);
	char **v;
	size_t i, n = 0, max = NDS + (st->nrras ? st->nrras : N_DEFAULT_RRAS);
	unsigned long hb = st->step * HEARTBEAT_STEPS;
	long pdp, rows;
	int ok = 1;

	if ((v = calloc(max, sizeof(*v))) == NULL)
		return NULL;
	if (f->pair) {
		ok &= ds_def(&v[n++], hb, WP_GAUGE, WP_Q_POWER);
		ok &= ds_def(&v[n++], hb, WP_COUNTER, WP_Q_ENERGY);
	} else
		ok &= ds_def(&v[n++], hb, f->kind, f->quantity);
	for (i = 0; i < st->nrras; i++)
		ok &= (v[n++] = strdup(st->rras[i])) != NULL;
	for (i = 0; !st->nrras && i < N_DEFAULT_RRAS; i++) {
		if (default_rras[i].power_only && !power)
			continue;
		pdp = lround((double)default_rras[i].res / (double)st->step);
		if (pdp < 1)
			pdp = 1;
		rows = (default_rras[i].span + pdp * (long)st->step - 1) /
		    (pdp * (long)st->step);
		ok &= asprintf(&v[n++], "RRA:%s:0.5:%ld:%ld",
		    default_rras[i].cf, pdp, rows) > 0;
	}
	*argc = (int)n;
	if (!ok) {
		for (i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return NULL;
	}
	return v;
}

/* Creates f's file, whose first value is at t. */
static int
create_file(struct store *st, const struct rrdfile *f, time_t t,
    struct wp_err *err)
{
	char path[PATH_MAX];
	struct dcall c = { D_CREATE, file_path(st, f, path), t - 1, 0, NULL,
	    0 };
	char **argv;
	int argc, i, rc = 0;

	if (mkdirs_for(path) != 0)
		return err_set(err, WP_E_CONFIG, "store %s: %s", path,
		    strerror(errno));
	if ((argv = create_args(st, f, &argc)) == NULL)
		return err_set(err, WP_E_INTERNAL, "store: out of memory");
	c.argc = argc;
	c.argv = (const char **)argv;
	if (st->rrdcached)
		rc = daemon_call(st, &c, err);
	else {
		rrd_clear_error();
		errno = 0;
		if (rrd_create_r2(path, st->step, t - 1, 1, NULL, NULL,
		    argc, (const char **)argv) != 0)
			rc = err_set(err, WP_E_CONFIG, "store %s: create: %s",
			    path, rrd_msg());
	}
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	if (rc == 0)
		log_debug("store: created %s", path);
	return rc;
}

/*
 * The data source of a series in a pair file, or -1 for a file of its
 * own: "<x>/power" (a power gauge) and "<x>/energy" (an energy counter)
 * at the wall, outlet or PDU boundary share "<x>.rrd", one row per poll,
 * as most devices give both (half the files to open).  *plen is the
 * length of "<x>".
 */
static int
pair_slot(const struct wp_sample *s, size_t *plen)
{
	const char *slash = strrchr(s->series, '/');

	if (slash == NULL || slash == s->series ||
	    (s->boundary != WP_B_WALL && s->boundary != WP_B_OUTLET &&
	    s->boundary != WP_B_PDU))
		return -1;
	*plen = (size_t)(slash - s->series);
	if (s->kind == WP_GAUGE && s->quantity == WP_Q_POWER &&
	    strcmp(slash, "/power") == 0)
		return SLOT_POWER;
	if (s->kind == WP_COUNTER && s->quantity == WP_Q_ENERGY &&
	    strcmp(slash, "/energy") == 0)
		return SLOT_ENERGY;
	return -1;
}

/* The name of s's file (its path under <data_dir>/rrd/); *slot is its
 * data source in a pair file, -1 for a file of its own. */
static int
series_file(const char *target, const struct wp_sample *s, char *fname,
    size_t len, int *slot)
{
	char name[256];
	size_t plen;

	if ((*slot = pair_slot(s, &plen)) < 0)
		return put_file_name(fname, len, 0, target, s->series);
	if (plen >= sizeof(name))
		return -1;
	memcpy(name, s->series, plen);
	name[plen] = '\0';
	return put_file_name(fname, len, 0, target, name);
}

/* Finds or opens the file called name for s; a new one is created now, or
 * with a write delay at its first write.  NULL on error. */
static struct rrdfile *
get_file(struct store *st, const char *name, const struct wp_sample *s,
    bool pair, time_t t, struct wp_err *err)
{
	uint64_t h = hmap_hash(name);
	char path[PATH_MAX];
	struct rrdfile *f;
	struct dcall c = { D_LAST, path, 0, 0, NULL, 0 };
	struct stat sb;

	if ((f = hmap_get(&st->files, h, hmap_str_eq, name)) != NULL)
		return f;
	if ((f = calloc(1, sizeof(*f) + strlen(name) + 1)) == NULL) {
		err_set(err, WP_E_INTERNAL, "store: out of memory");
		return NULL;
	}
	f->name = strcpy((char *)(f + 1), name);
	file_path(st, f, path);
	f->pair = pair;
	f->kind = s->kind;
	f->quantity = s->quantity;
	f->last = t - 1;
	if (stat(path, &sb) != 0) {
		f->absent = st->rrdcached == NULL && st->delay > 0;
		if (!f->absent && create_file(st, f, t, err) != 0)
			goto fail;
	} else if (st->rrdcached) {
		if (daemon_call(st, &c, err) != 0)
			goto fail;
		f->last = c.last;
	} else {
		rrd_clear_error();
		errno = 0;
		if ((f->last = rrd_last_r(path)) == (time_t)-1) {
			err_set(err, WP_E_CONFIG, "store %s: %s", path,
			    rrd_msg());
			goto fail;
		}
	}
	/* The first batch is shorter by a share of the delay fixed by the
	 * name, so that files opened together are written spread out; it
	 * is never empty (1 s .. delay), so the file is created at a write,
	 * not at its first value. */
	f->delay = st->delay > 0 ?
	    (int32_t)(st->delay - (time_t)(h % (uint64_t)st->delay)) : 0;
	if (hmap_put(&st->files, h, f) == -1) {
		err_set(err, WP_E_INTERNAL, "store: out of memory");
		goto fail;
	}
	return f;
fail:
	free(f);
	return NULL;
}

/* The value RRD takes: the cumulative for counters (energy in mJ). */
static double
rrd_value(const struct wp_sample *s, double cum)
{
	if (s->kind != WP_COUNTER)
		return s->value;
	return s->quantity == WP_Q_ENERGY ? cum * 1000.0 : cum;
}

/* Holds f's row; writes the file's batch once it is due or full. */
static int
hold(struct store *st, struct rrdfile *f, struct wp_err *err)
{
	struct row *h;
	int cap;

	if (f->nheld == f->capheld) {
		cap = f->capheld ? 2 * f->capheld : 2;
		if (cap > st->hold_max)
			cap = st->hold_max;
		if ((h = reallocarray(f->held, (size_t)cap, sizeof(*h))) ==
		    NULL)
			return err_set(err, WP_E_INTERNAL, "store: out of "
			    "memory");
		f->held = h;
		f->capheld = (uint8_t)cap;
	}
	f->held[f->nheld++] = f->row;
	if (f->nheld < st->hold_max && f->row.t - f->held[0].t < f->delay)
		return 0;
	f->delay = (int32_t)st->delay;
	return write_held(st, f, err);
}

/* Writes (or holds) f's open row: librrd through hold, which without a
 * write delay (hold_max 1) writes it at once. */
static int
commit_row(struct store *st, struct rrdfile *f, struct wp_err *err)
{
	char val[UPDATE_LEN], path[PATH_MAX];
	const char *argv[1] = { val };
	struct dcall c = { D_UPDATE, path, 0, 1, argv, 0 };

	f->open = false;
	f->last = f->row.t;
	if (st->rrdcached == NULL)
		return hold(st, f, err);
	file_path(st, f, path);
	format_row(val, f, &f->row);
	return daemon_call(st, &c, err);
}

/* Puts v in f's open row at slot, opening one at sec if none is. */
static int
put_row(struct store *st, struct rrdfile *f, int slot, time_t sec, double v,
    struct wp_err *err)
{
	struct rrdfile **t;
	size_t cap;
	int i;

	if (f->open) {
		f->row.v[slot] = v;	/* the pair's other half, same poll */
		return 0;
	}
	if (sec <= f->last)
		return 0;		/* at or before the last update */
	if (st->ntouched == st->cap_touched) {
		cap = st->cap_touched ? 2 * st->cap_touched : 64;
		if ((t = reallocarray(st->touched, cap, sizeof(*t))) == NULL)
			return err_set(err, WP_E_INTERNAL,
			    "store: out of memory");
		st->touched = t;
		st->cap_touched = cap;
	}
	st->touched[st->ntouched++] = f;
	f->open = true;
	f->row.t = sec;
	for (i = 0; i < NDS; i++)
		f->row.v[i] = NAN;
	f->row.v[slot] = v;
	return 0;
}

int
store_update(struct store *st, const char *target, const struct wp_sample *s,
    double cum, wp_time t, struct wp_err *err)
{
	char name[PATH_MAX];
	struct rrdfile *f;
	time_t sec = (time_t)(t / WP_SEC);
	int slot;

	if (series_file(target, s, name, st->name_max, &slot) != 0)
		return err_set(err, WP_E_CONFIG, "store: bad or too long name "
		    "%s/%s", target ? target : "", s->series);
	if ((f = get_file(st, name, s, slot >= 0, sec, err)) == NULL)
		return -1;
	return put_row(st, f, slot >= 0 ? slot : 0, sec, rrd_value(s, cum),
	    err);
}

int
store_commit(struct store *st, struct wp_err *err)
{
	struct wp_err e;
	size_t i, failed = 0;

	for (i = 0; i < st->ntouched; i++)
		if (commit_row(st, st->touched[i], &e) != 0 && failed++ == 0)
			*err = e;
	st->ntouched = 0;
	if (failed > 1)
		err_prefix(err, "%zu files failed, the first", failed);
	return failed ? -1 : 0;
}

int
store_write_due(struct store *st, wp_time now, struct wp_err *err)
{
	time_t sec = (time_t)(now / WP_SEC);
	struct rrdfile *f;
	size_t i;
	int rc = 0;

	if (st->rrdcached != NULL || st->delay == 0)
		return 0;
	for (i = 0; i < st->files.cap; i++)
		if ((f = st->files.slot[i].e) != NULL && f->nheld > 0 &&
		    sec - f->held[0].t >= 2 * st->delay &&
		    write_held(st, f, err) != 0)
			rc = -1;
	return rc;
}

int
store_flush(struct store *st, struct wp_err *err)
{
	struct rrdfile *f;
	struct dcall c = { D_FLUSH, NULL, 0, 0, NULL, 0 };
	char path[PATH_MAX];
	size_t i;
	int rc = store_commit(st, err);

	if (st->rrdcached == NULL) {
		for (i = 0; i < st->files.cap; i++)
			if ((f = st->files.slot[i].e) != NULL &&
			    write_held(st, f, err) != 0)
				rc = -1;
		return rc;
	}
	for (i = 0; i < st->files.cap; i++) {
		if ((f = st->files.slot[i].e) == NULL)
			continue;
		c.path = file_path(st, f, path);
		if (daemon_call(st, &c, err) != 0)
			rc = -1;
	}
	return rc;
}
