/*
 * graph_cmd.c - `wattpath graph`: a node's power at the wall, GPU and
 * outlet boundaries from the RRD store (mean power from energy counters
 * where stored, else power gauges), drawn by librrd's graph API
 * (rrd_graph_v) as PNG, SVG or PDF (--format, else the output's
 * extension), for dashboards that embed images.  GPU and outlet lines sum
 * every GPU / mapped outlet whose RRD file exists (unknown where any of
 * them is: a part is never drawn as the whole); a boundary with no file is
 * left out.  Never partial data as real: through rrdcached the files are
 * flushed first (rrd_graph's --daemon); without it the graph ends at the
 * last update every file has (the collector holds later values up to
 * collector.rrd_write_delay), and says so.  No data in the window: exit 1
 * with a message, and no image.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rrd.h>

#include "../lib/clock.h"
#include "cmd.h"
#include "../conf/conf.h"
#include "../store/store.h"

#define MAX_ARGS	512
#define MAX_GPUS	64

struct gargs {
	char	*v[MAX_ARGS];
	int	 n;
	int	 files;		/* DEFs added */
	time_t	 last;		/* the earliest last update among them */
};

static void
add(struct gargs *a, const char *fmt, const char *s1, const char *s2)
{
	char buf[4200];

	if (a->n >= MAX_ARGS - 1)
		return;
	snprintf(buf, sizeof(buf), fmt, s1 ? s1 : "", s2 ? s2 : "");
	a->v[a->n++] = strdup(buf);
}

/* Adds DEF:<id>=file:ds:AVERAGE if the file exists; 1 added, 0 not. */
static int
def(struct gargs *a, const struct wp_conf *c, const char *target,
    const char *series, const char *ds, const char *id)
{
	char path[4096], buf[4200];

	if (store_path(c->data_dir, target, series, path, sizeof(path)) == -1 ||
	    access(path, R_OK) == -1)
		return 0;
	snprintf(buf, sizeof(buf), "DEF:%s=%s:%s:AVERAGE", id, path, ds);
	add(a, "%s%s", buf, NULL);
	if (c->rrdcached == NULL) {	/* through the daemon: flushed */
		time_t t = rrd_last_r(path);

		if (a->files == 0 || t < a->last)
			a->last = t;
	}
	a->files++;
	return 1;
}

/* CDEF:name=id0,id1,+,... over n ids "<p><i>", then the line. */
static void
sum_line(struct gargs *a, const char *name, const char *p, int n,
    const char *colour, const char *legend)
{
	char buf[4096];
	size_t off;
	int i;

	if (n == 0)
		return;
	off = (size_t)snprintf(buf, sizeof(buf), "CDEF:%s=%s0", name, p);
	for (i = 1; i < n && off < sizeof(buf) - 32; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
		    ",%s%d,+", p, i);
	add(a, "%s%s", buf, NULL);
	snprintf(buf, sizeof(buf), "LINE2:%s%s:%s", name, colour, legend);
	add(a, "%s%s", buf, NULL);
	/* how many of the line's points are known: none anywhere is "no
	 * data" (draw checks the PRINTs) */
	snprintf(buf, sizeof(buf), "CDEF:%s_k=%s,UN,0,1,IF", name, name);
	add(a, "%s%s", buf, NULL);
	snprintf(buf, sizeof(buf), "VDEF:%s_n=%s_k,TOTAL", name, name);
	add(a, "%s%s", buf, NULL);
	snprintf(buf, sizeof(buf), "PRINT:%s_n:%%.0lf", name);
	add(a, "%s%s", buf, NULL);
}

/*
 * One power line's DEF as <id>, from the pair file "<prefix>.rrd" (wall,
 * outlet) if there is one: the mean power from the energy counter where
 * it is known (energy_mj is mJ/s, so /1000 gives W), else the power
 * gauge.  Else from files of their own (GPUs; data written before pair
 * files): the energy counter's, else the power gauge's.  Returns 1 if any
 * exists.
 */
static int
def_power(struct gargs *a, const struct wp_conf *c, const char *target,
    const char *prefix, const char *id)
{
	char series[160], raw[40], gauge[40], buf[160];

	snprintf(series, sizeof(series), "%.*s", (int)strlen(prefix) - 1,
	    prefix);
	snprintf(raw, sizeof(raw), "%s_mj", id);
	snprintf(gauge, sizeof(gauge), "%s_w", id);
	if (def(a, c, target, series, "energy_mj", raw)) {
		def(a, c, target, series, "power_w", gauge);
		snprintf(buf, sizeof(buf), "CDEF:%s=%s,UN,%s,%s,1000,/,IF", id,
		    raw, gauge, raw);
		add(a, "%s%s", buf, NULL);
		return 1;
	}
	snprintf(series, sizeof(series), "%senergy", prefix);
	if (def(a, c, target, series, "energy_mj", raw)) {
		snprintf(buf, sizeof(buf), "CDEF:%s=%s,1000,/", id, raw);
		add(a, "%s%s", buf, NULL);
		return 1;
	}
	snprintf(series, sizeof(series), "%spower", prefix);
	return def(a, c, target, series, "power_w", id);
}

static void
node_lines(struct gargs *a, const struct wp_conf *c, const struct wp_node *nd)
{
	char target[512], prefix[128], id[32];
	int i, n = 0;
	size_t k;

	snprintf(target, sizeof(target), "%s/bmc", nd->name);
	n = def_power(a, c, target, "wall/", "w0");
	sum_line(a, "wall", "w", n, "#d62728", "wall");
	snprintf(target, sizeof(target), "%s/gpu", nd->name);
	for (i = 0, n = 0; i < MAX_GPUS; i++) {
		snprintf(prefix, sizeof(prefix), "gpu/%d/", i);
		snprintf(id, sizeof(id), "g%d", n);
		n += def_power(a, c, target, prefix, id);
	}
	sum_line(a, "gpu", "g", n, "#2ca02c", "gpu");
	for (k = 0, n = 0; k < nd->n_outlets; k++) {
		snprintf(prefix, sizeof(prefix), "outlet/%s/",
		    nd->outlets[k].outlet);
		snprintf(id, sizeof(id), "o%d", n);
		n += def_power(a, c, nd->outlets[k].pdu, prefix, id);
	}
	sum_line(a, "outlet", "o", n, "#1f77b4", "outlet");
}

static int
usage(void)
{
	cmd_usage("graph", stderr, false);
	return 2;
}

/* The image format: fmt when given, else by out's extension.  NULL
 * (with a message) when neither says. */
static const char *
image_format(const char *fmt, const char *out)
{
	static const char *const ext[][2] = { { "png", "PNG" }, { "svg", "SVG" },
	    { "pdf", "PDF" } };
	const char *e = fmt;
	size_t i;

	if (e == NULL && (e = strrchr(out, '.')) != NULL)
		e++;
	for (i = 0; e != NULL && i < sizeof(ext) / sizeof(ext[0]); i++)
		if (strcasecmp(e, ext[i][0]) == 0)
			return ext[i][1];
	if (fmt != NULL)
		fprintf(stderr, "wattpath graph: --format %s: png, svg or pdf\n",
		    fmt);
	else
		fprintf(stderr, "wattpath graph: %s: name the format with the "
		    "extension (.png, .svg, .pdf) or --format\n", out);
	return NULL;
}

/* Whether any line's PRINT (its known points) is above 0. */
static bool
any_known(const rrd_info_t *info)
{
	for (; info != NULL; info = info->next)
		if (strncmp(info->key, "print[", 6) == 0 &&
		    info->type == RD_I_STR && atof(info->value.u_str) > 0)
			return true;
	return false;
}

static void
note_held(const struct wp_conf *c, time_t last)
{
	char ts[64];

	clock_iso8601((wp_time)last * WP_SEC, ts, sizeof(ts));
	fprintf(stderr, "wattpath graph: drawn up to %s, the last value every "
	    "file holds: a running collector writes later values within "
	    "collector.rrd_write_delay (%llds; with collector.rrdcached they "
	    "are flushed before drawing)\n", ts,
	    (long long)(c->rrd_write_delay / WP_SEC));
}

static int
render(struct gargs *a, const struct wp_node *nd, const char *out)
{
	rrd_info_t *info;
	int rc = 0;

	rrd_clear_error();
	if ((info = rrd_graph_v(a->n, a->v)) == NULL) {
		fprintf(stderr, "wattpath graph: %s\n", rrd_get_error());
		return 1;
	}
	if (!any_known(info)) {
		fprintf(stderr, "wattpath graph: no data for node %s in the "
		    "window (its files hold no value there yet)\n", nd->name);
		unlink(out);
		rc = 1;
	}
	rrd_info_free(info);
	return rc;
}

static int
draw(const struct wp_conf *c, const struct wp_node *nd, wp_time from,
    wp_time to, const char *out, const char *format)
{
	struct gargs a = { 0 };
	char s[32], e[40];
	int i, rc = 0, end;

	snprintf(s, sizeof(s), "%lld", (long long)(from / WP_SEC));
	add(&a, "graph%s%s", NULL, NULL);
	add(&a, "%s%s", out, NULL);
	add(&a, "--start=%s%s", s, NULL);
	end = a.n;
	add(&a, "--end=%s%s", "", NULL);
	add(&a, "--imgformat=%s%s", format, NULL);
	add(&a, "--title=power of %s%s", nd->name, NULL);
	add(&a, "--vertical-label=W%s%s", NULL, NULL);
	add(&a, "--width=800%s%s", NULL, NULL);
	add(&a, "--height=300%s%s", NULL, NULL);
	if (c->rrdcached != NULL)
		add(&a, "--daemon=%s%s", c->rrdcached, NULL);
	node_lines(&a, c, nd);
	if (a.files == 0) {
		fprintf(stderr, "wattpath graph: no power series stored for "
		    "node %s under %s/rrd (a running collector writes a new "
		    "series' file within collector.rrd_write_delay)\n",
		    nd->name, c->data_dir);
		rc = 1;
	} else if (c->rrdcached == NULL && (wp_time)a.last * WP_SEC <= from) {
		fprintf(stderr, "wattpath graph: no data for node %s in the "
		    "window: its files are written up to before --from (a running "
		    "collector holds values up to collector.rrd_write_delay)\n",
		    nd->name);
		rc = 1;
	} else {
		if (c->rrdcached == NULL && (wp_time)a.last * WP_SEC < to) {
			to = (wp_time)a.last * WP_SEC;
			note_held(c, a.last);
		}
		snprintf(e, sizeof(e), "--end=%lld", (long long)(to / WP_SEC));
		free(a.v[end]);
		a.v[end] = strdup(e);
		rc = a.v[end] == NULL ? 1 : render(&a, nd, out);
	}
	for (i = 0; i < a.n; i++)
		free(a.v[i]);
	return rc;
}

int
cmd_graph(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cfg = NULL, *node = NULL, *out = NULL, *fmt = NULL, *img;
	wp_time to = clock_real(), from = 0;
	struct conf_errs errs = { 0 };
	const struct wp_node *nd;
	struct wp_conf *c;
	size_t i;
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:o:", lo, NULL)) != -1) {
		switch (ch) {
		case 'c': cfg = optarg; break;
		case 'n': node = optarg; break;
		case 'o': out = optarg; break;
		case 'F': fmt = optarg; break;
		case 'f': if (cmd_time_opt("graph", "--from", optarg, false,
			    &from) == -1)
				return 2;
			break;
		case 't': if (cmd_time_opt("graph", "--to", optarg, true,
			    &to) == -1)
				return 2;
			break;
		default: return usage();
		}
	}
	if (cfg == NULL || node == NULL || out == NULL || optind != argc)
		return usage();
	if ((img = image_format(fmt, out)) == NULL)
		return 2;
	if (from == 0)
		from = to - 3600 * WP_SEC;
	if (from >= to) {
		fprintf(stderr, "wattpath graph: --from must be before --to\n");
		return 2;
	}
	if ((c = conf_load(cfg, NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		return 1;
	}
	conf_errs_fini(&errs);
	if ((nd = conf_node_by_name(c, node)) == NULL) {
		fprintf(stderr, "wattpath graph: no node %s in %s\n", node, cfg);
		conf_free(c);
		return 1;
	}
	rc = draw(c, nd, from, to, out, img);
	conf_free(c);
	return rc;
}
