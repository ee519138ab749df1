/* expo_metrics.c - Prometheus text for a fleet snapshot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/conf.h"
#include "../conf/conf_rack.h"
#include "expo_metrics.h"
#include "expo_models.h"
#include "expo_out.h"

void
expo_label_escape(FILE *f, const char *s)
{
	struct expo_out o;

	eo_init(&o, f);
	eo_esc(&o, s);
	eo_flush(&o);
}

void
expo_fmt_value(char *buf, size_t len, double v)
{
	eo_fmt(buf, len, v);
}

static void
family(struct expo_out *f, const char *name, const char *type,
    const char *help)
{
	eo_str(f, "# HELP ");
	eo_str(f, name);
	eo_chr(f, ' ');
	eo_str(f, help);
	eo_str(f, "\n# TYPE ");
	eo_str(f, name);
	eo_chr(f, ' ');
	eo_str(f, type);
	eo_chr(f, '\n');
}

static void
value(struct expo_out *f, double v)
{
	eo_chr(f, ' ');
	eo_num(f, v);
	eo_chr(f, '\n');
}

/* name{site="s",k1="v1",k2="v2",...} with n label pairs from kv, the
 * site first (site.name; none when unset). */
static void
series(struct expo_out *f, const char *site, const char *name,
    const char *const *kv, int n)
{
	bool any = site != NULL && *site;
	int i;

	eo_str(f, name);
	if (any) {
		eo_put(f, "{site=\"", 7);
		eo_esc(f, site);
		eo_chr(f, '"');
	}
	for (i = 0; i < n; i++) {
		eo_chr(f, i || any ? ',' : '{');
		eo_str(f, kv[2 * i]);
		eo_put(f, "=\"", 2);
		eo_esc(f, kv[2 * i + 1]);
		eo_chr(f, '"');
	}
	if (n > 0 || any)
		eo_chr(f, '}');
}

/* The labels every series of an entity (a node, a target) starts with,
 * "{site=..,k1=..,..." (no closing brace), escaped once per render and
 * copied into each of its series: off[i]..off[i + 1] in o's text. */
struct pfx {
	struct expo_out	 o;
	size_t		*off;
};

/* Builds the prefixes of n entities, label(i, kv) giving entity i's k
 * pairs; 0, or -1 out of memory. */
static int
pfx_build(struct pfx *p, const char *site, size_t n, int k,
    void (*label)(const void *, size_t, const char **), const void *arg)
{
	const char *kv[8];
	size_t i;
	int j;

	if ((p->off = malloc((n + 1) * sizeof(*p->off))) == NULL)
		return -1;
	if (eo_init_mem(&p->o, n * 64) == -1) {
		free(p->off);
		return -1;
	}
	for (i = 0; i < n; i++) {
		p->off[i] = p->o.n;
		label(arg, i, kv);
		eo_chr(&p->o, '{');
		if (site != NULL && *site) {
			eo_put(&p->o, "site=\"", 6);
			eo_esc(&p->o, site);
			eo_put(&p->o, "\",", 2);
		}
		for (j = 0; j < k; j++) {
			eo_str(&p->o, kv[2 * j]);
			eo_put(&p->o, "=\"", 2);
			eo_esc(&p->o, kv[2 * j + 1]);
			eo_put(&p->o, j + 1 < k ? "\"," : "\"", j + 1 < k ? 2 : 1);
		}
	}
	p->off[n] = p->o.n;
	if (p->o.err) {
		eo_fini(&p->o);
		free(p->off);
		return -1;
	}
	return 0;
}

static void
pfx_fini(struct pfx *p)
{
	eo_fini(&p->o);
	free(p->off);
}

/* name{<prefix i>,k1="v1",...} with n more pairs from kv. */
static void
pfx_series(struct expo_out *f, const char *name, const struct pfx *p,
    size_t i, const char *const *kv, int n)
{
	int j;

	eo_str(f, name);
	eo_put(f, p->o.b + p->off[i], p->off[i + 1] - p->off[i]);
	for (j = 0; j < n; j++) {
		eo_chr(f, ',');
		eo_str(f, kv[2 * j]);
		eo_put(f, "=\"", 2);
		eo_esc(f, kv[2 * j + 1]);
		eo_chr(f, '"');
	}
	eo_chr(f, '}');
}

static void
node_labels(const void *arg, size_t i, const char **kv)
{
	const struct fleet_node *n = &((const struct fleet *)arg)->nodes[i];

	kv[0] = "node";
	kv[1] = n->name;
	kv[2] = "class";
	kv[3] = n->class;
	kv[4] = "rack";
	kv[5] = n->rack;
}

static void
target_labels(const void *arg, size_t i, const char **kv)
{
	const struct fleet_target *t =
	    &((const struct fleet *)arg)->targets[i];

	kv[0] = "target";
	kv[1] = t->name;
	kv[2] = "protocol";
	kv[3] = t->protocol;
}

static void
node_family(struct expo_out *f, const struct fleet *fl, const struct pfx *p,
    bool energy)
{
	const char *name = energy ? "wattpath_node_energy_joules_total" :
	    "wattpath_node_power_watts";
	size_t i;
	int b, m;

	if (energy)
		family(f, name, "counter", "Energy of a node at a boundary "
		    "(wall, gpu: its GPUs summed, outlet: its PDU outlets "
		    "summed): the device's counter, reset-corrected, since the "
		    "collector first saw it (method counter), else the "
		    "collector's trapezoid of the power gauge since it started "
		    "(method gauge-estimated).");
	else
		family(f, name, "gauge", "Power of a node at a boundary: the "
		    "latest reading, else the mean over the last interval "
		    "from the energy counter.");
	for (i = 0; i < fl->n_nodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];

		for (b = 0; b < FB_N; b++) {
			const struct fleet_fig *g = &n->b[b];
			const char *kv[] = { "boundary", fleet_boundary_name(b),
			    "method", "" };

			if (!energy) {
				if (!g->has_power)
					continue;
				pfx_series(f, name, p, i, kv, 1);
				value(f, g->power);
				continue;
			}
			for (m = 0; m < FM_N; m++) {
				if (!g->has_m[m])
					continue;
				kv[3] = fleet_method_name(m);
				pfx_series(f, name, p, i, kv, 2);
				value(f, g->energy_m[m]);
			}
		}
	}
}

/* Coverage of each boundary: the fleet, then each class. */
static void
coverage_family(struct expo_out *f, const struct fleet *fl)
{
	const char *name = "wattpath_boundary_coverage_ratio";
	size_t i;
	int b;

	family(f, name, "gauge", "Share of nodes with an energy figure at "
	    "the boundary (scope fleet, or class): fleet figures divide the "
	    "tokens of these nodes by their energy.");
	for (b = 0; b < FB_N; b++) {
		const char *kv[] = { "scope", "fleet", "boundary",
		    fleet_boundary_name(b) };

		if (fl->cov[b].nodes == 0)
			continue;
		series(f, fl->site, name, kv, 2);
		value(f, fleet_coverage(&fl->cov[b]));
	}
	for (i = 0; i < fl->n_classes; i++)
		for (b = 0; b < FB_N; b++) {
			const char *kv[] = { "scope", "class", "class",
			    fl->classes[i].name, "boundary",
			    fleet_boundary_name(b) };

			series(f, fl->site, name, kv, 3);
			value(f, fleet_coverage(&fl->classes[i].cov[b]));
		}
}

static void
tokens_family(struct expo_out *f, const struct fleet *fl)
{
	size_t i;

	family(f, "wattpath_tokens_total", "counter", "Tokens processed by "
	    "a node's inference engines, by direction (output, input).");
	for (i = 0; i < fl->n_nodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		const char *o[] = { "node", n->name, "direction", "output" };
		const char *in[] = { "node", n->name, "direction", "input" };

		if (n->has_tok_out) {
			series(f, fl->site, "wattpath_tokens_total", o, 2);
			value(f, n->tokens_out);
		}
		if (n->has_tok_in) {
			series(f, fl->site, "wattpath_tokens_total", in, 2);
			value(f, n->tokens_in);
		}
	}
}

static void
facility_families(struct expo_out *f, const struct fleet *fl, double pue)
{
	size_t i;

	family(f, "wattpath_facility_pue", "gauge", "Power usage "
	    "effectiveness: facility_total energy over it_total energy in "
	    "the last 15 minutes (else their power ratio); absent when "
	    "unknown or below 1.");
	if (isfinite(pue) && pue >= 1) {
		series(f, fl->site, "wattpath_facility_pue", NULL, 0);
		value(f, pue);
	}
	family(f, "wattpath_facility_energy_joules_total", "counter",
	    "Energy through a site meter, reset-corrected, since the "
	    "collector first saw it.");
	for (i = 0; i < fl->n_meters; i++) {
		const char *kv[] = { "meter", fl->meters[i].name, "role",
		    fl->meters[i].role };

		if (!fl->meters[i].has_energy)
			continue;
		series(f, fl->site, "wattpath_facility_energy_joules_total", kv, 2);
		value(f, fl->meters[i].energy);
	}
	family(f, "wattpath_facility_power_watts", "gauge", "Latest power "
	    "reading of a site meter.");
	for (i = 0; i < fl->n_meters; i++) {
		const char *kv[] = { "meter", fl->meters[i].name, "role",
		    fl->meters[i].role };

		if (!fl->meters[i].has_power)
			continue;
		series(f, fl->site, "wattpath_facility_power_watts", kv, 2);
		value(f, fl->meters[i].power);
	}
}

/* Each rack's capacity from the configuration (racks:), label rack. */
static void
rack_family(struct expo_out *f, const struct fleet *fl)
{
	const char *name = "wattpath_rack_capacity_watts";
	size_t i;

	family(f, name, "gauge", "Power capacity of a rack, the "
	    "configuration's racks[].capacity_w.");
	for (i = 0; fl->conf != NULL && i < fl->conf->n_racks; i++) {
		const char *kv[] = { "rack", fl->conf->racks[i].name };

		series(f, fl->site, name, kv, 1);
		value(f, fl->conf->racks[i].capacity_w);
	}
}

/* The PDU families: one per quantity, labels pdu, role, index. */
static void
pdu_families(struct expo_out *f, const struct fleet *fl)
{
	static const struct {
		int q;
		const char *name, *type, *help;
	} fam[] = {
		{ WP_Q_POWER, "wattpath_pdu_power_watts", "gauge", "Active "
		    "power of a PDU outlet, inlet, phase or circuit (breaker), "
		    "the latest reading." },
		{ WP_Q_ENERGY, "wattpath_pdu_energy_joules_total", "counter",
		    "Active energy of a PDU outlet, inlet, phase or circuit, "
		    "reset-corrected, since the collector first saw it." },
		{ WP_Q_APPARENT_POWER, "wattpath_pdu_apparent_power_voltamperes",
		    "gauge", "Apparent power (VA, not W) of a PDU outlet, "
		    "inlet, phase or circuit." },
		{ WP_Q_REACTIVE_POWER, "wattpath_pdu_reactive_power_vars",
		    "gauge", "Reactive power (var) of a PDU outlet, inlet, "
		    "phase or circuit." },
		{ WP_Q_APPARENT_ENERGY,
		    "wattpath_pdu_apparent_energy_voltampere_hours_total",
		    "counter", "Apparent energy (VAh, not J) of a PDU outlet, "
		    "inlet, phase or circuit, reset-corrected." },
	};
	size_t i, j;

	for (j = 0; j < sizeof(fam) / sizeof(fam[0]); j++) {
		family(f, fam[j].name, fam[j].type, fam[j].help);
		for (i = 0; i < fl->n_pdu; i++) {
			const struct fleet_pdu_reading *r = &fl->pdu[i];
			char name[FLEET_PDU_NAME_LEN];
			const char *kv[] = { "pdu", NULL, "role", r->role,
			    "index", r->index };

			if (r->quantity != fam[j].q)
				continue;
			kv[1] = fleet_pdu_name(r, name, sizeof(name));
			series(f, fl->site, fam[j].name, kv, 3);
			value(f, r->value);
		}
	}
}

enum tfield { TF_UP, TF_DUR, TF_POLLS, TF_FAIL, TF_LAST, TF_RESETS, TF_STALE };

static const struct {
	const char *name, *type, *help;
} tfam[] = {
	{ "wattpath_target_up", "gauge", "1 if the target's last poll "
	    "succeeded, else 0 (see wattpath_target_down_reason)." },
	{ "wattpath_poll_duration_seconds", "gauge", "Duration of the "
	    "target's last poll." },
	{ "wattpath_target_polls_total", "counter", "Polls of the target." },
	{ "wattpath_target_poll_failures_total", "counter", "Failed polls "
	    "of the target." },
	{ "wattpath_target_last_success_timestamp_seconds", "gauge", "Unix "
	    "time of the target's last successful poll." },
	{ "wattpath_series_resets_total", "counter", "Counter resets seen "
	    "on the target's series (summed)." },
	{ "wattpath_target_stale_series", "gauge", "Series of the target "
	    "whose last reading was flagged stale." },
};

static void
target_family(struct expo_out *f, const struct fleet *fl, const struct pfx *p,
    int which)
{
	size_t i;
	double v;

	family(f, tfam[which].name, tfam[which].type, tfam[which].help);
	for (i = 0; i < fl->n_targets; i++) {
		const struct fleet_target *t = &fl->targets[i];

		switch (which) {
		case TF_UP: v = t->up; break;
		case TF_DUR: v = t->duration_s; if (t->polls == 0) continue;
			break;
		case TF_POLLS: v = (double)t->polls; break;
		case TF_FAIL: v = (double)t->failures; break;
		case TF_LAST: v = (double)t->last_ok / WP_SEC;
			if (t->last_ok == 0) continue;
			break;
		case TF_RESETS: v = (double)t->resets; break;
		default: v = t->stale; break;
		}
		pfx_series(f, tfam[which].name, p, i, NULL, 0);
		value(f, v);
	}
}

static void
reason_family(struct expo_out *f, const struct fleet *fl, const struct pfx *p)
{
	size_t i;

	family(f, "wattpath_target_down_reason", "gauge", "1 for a target "
	    "that is down, with the class of its last error (transient, "
	    "protocol, config, auth, internal).");
	for (i = 0; i < fl->n_targets; i++) {
		const struct fleet_target *t = &fl->targets[i];
		const char *kv[] = { "reason", *t->reason ? t->reason :
		    "pending" };

		if (t->up)
			continue;
		pfx_series(f, "wattpath_target_down_reason", p, i, kv, 1);
		value(f, 1);
	}
}

/* The class of each target's last failed poll, kept after it recovers:
 * at most one series per target (the reason a fixed set: transient,
 * protocol, config, auth, internal), and when. */
static void
last_error_families(struct expo_out *f, const struct fleet *fl,
    const struct pfx *p)
{
	const char *info = "wattpath_target_last_error_info";
	const char *ts = "wattpath_target_last_error_timestamp_seconds";
	size_t i;

	family(f, info, "gauge", "1 for each target that failed a poll "
	    "since the collector started, with the class of its last error "
	    "(transient, protocol, config, auth, internal), kept after it "
	    "recovers; the message is in /api/v1/targets.");
	for (i = 0; i < fl->n_targets; i++) {
		const struct fleet_target *t = &fl->targets[i];
		const char *kv[] = { "reason", t->last_error_reason };

		if (t->last_error == 0)
			continue;
		pfx_series(f, info, p, i, kv, 1);
		value(f, 1);
	}
	family(f, ts, "gauge", "Unix time of the target's last failed poll.");
	for (i = 0; i < fl->n_targets; i++) {
		if (fl->targets[i].last_error == 0)
			continue;
		pfx_series(f, ts, p, i, NULL, 0);
		value(f, (double)fl->targets[i].last_error / WP_SEC);
	}
}

/* One series of a single label (k, v; k NULL: none) and an integer. */
static void
one(struct expo_out *f, const struct fleet *fl, const char *name, const char *k,
    const char *v, double x)
{
	const char *kv[] = { k, v };

	series(f, fl->site, name, kv, k != NULL);
	value(f, x);
}

/* The collector's own storage: up, failures, drops, queue, last write. */
static void
storage_families(struct expo_out *f, const struct fleet *fl)
{
	const struct ingest_part *p[2] = { &fl->storage.journal,
	    &fl->storage.rrd };
	static const char *const part[2] = { "journal", "rrd" };
	int i;

	family(f, "wattpath_storage_up", "gauge", "1 while the part's last "
	    "write got through (journal, rrd).");
	for (i = 0; i < 2; i++)
		one(f, fl, "wattpath_storage_up", "part", part[i], p[i]->ok);
	family(f, "wattpath_storage_write_failures_total", "counter",
	    "Writes that failed, by part.");
	for (i = 0; i < 2; i++)
		one(f, fl, "wattpath_storage_write_failures_total", "part",
		    part[i], (double)p[i]->failed);
	family(f, "wattpath_storage_last_write_timestamp_seconds", "gauge",
	    "When the part last wrote successfully (Unix time).");
	for (i = 0; i < 2; i++)
		if (p[i]->last_ok != 0)
			one(f, fl, "wattpath_storage_last_write_timestamp_seconds",
			    "part", part[i], (double)p[i]->last_ok / WP_SEC);
	family(f, "wattpath_storage_rrd_dropped_total", "counter", "RRD "
	    "values left out because the writer's queue was full (the "
	    "journal has them).");
	one(f, fl, "wattpath_storage_rrd_dropped_total", NULL, NULL,
	    (double)fl->storage.rrd.dropped);
	family(f, "wattpath_storage_rrd_queued", "gauge", "RRD values "
	    "waiting for the writer.");
	one(f, fl, "wattpath_storage_rrd_queued", NULL, NULL,
	    (double)fl->storage.rrd.queued);
}

/* POSTs to the push listener that named no target. */
static void
push_listen_families(struct expo_out *f, const struct fleet *fl)
{
	static const char *const n = "wattpath_push_listen_refused_total";
	static const int shown[] = { WP_PUSH_MALFORMED, WP_PUSH_UNKNOWN_SENDER };
	size_t i;

	if (!fl->has_push_listen)
		return;
	family(f, n, "counter", "POSTs to the push listener refused before "
	    "any target took them: unknown_sender (a URL that names no "
	    "target's subscription), malformed (not a POST).");
	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		one(f, fl, n, "result", push_result_name(shown[i]),
		    (double)fl->push_listen_refused[shown[i]]);
}

/* Pushed readings of the targets that take them (lib/push.h). */
static void
push_families(struct expo_out *f, const struct fleet *fl)
{
	static const char *const rep = "wattpath_push_reports_total",
	    *const val = "wattpath_push_values_refused_total",
	    *const up = "wattpath_push_stream_up";
	size_t i;
	int r;

	push_listen_families(f, fl);
	for (i = 0; i < fl->n_targets && !fl->targets[i].push; i++)
		;
	if (i == fl->n_targets)
		return;		/* no target takes pushed readings */
	family(f, rep, "counter", "Reports a device pushed, by result: ok, "
	    "malformed, oversized, replayed (every value already ingested), "
	    "out_of_order, unknown_sender, ignored (nothing read).");
	for (i = 0; i < fl->n_targets; i++)
		for (r = 0; r < WP_PUSH_N && fl->targets[i].push; r++) {
			const char *kv[] = { "target", fl->targets[i].name,
			    "result", push_result_name(r) };

			series(f, fl->site, rep, kv, 2);
			value(f, (double)fl->targets[i].push_reports[r]);
		}
	family(f, val, "counter", "Values refused because one of their "
	    "series as new or newer was already ingested (polled or pushed): "
	    "replayed (same time) or out_of_order (older, or too far ahead).");
	for (i = 0; i < fl->n_targets; i++)
		for (r = WP_PUSH_REPLAYED; r <= WP_PUSH_OUT_OF_ORDER &&
		    fl->targets[i].push; r++) {
			const char *kv[] = { "target", fl->targets[i].name,
			    "reason", push_result_name(r) };

			series(f, fl->site, val, kv, 2);
			value(f, (double)fl->targets[i].push_refused[r]);
		}
	family(f, up, "gauge", "1 while the target's push channel (SSE "
	    "stream or subscription) delivers, else 0: it is polled.");
	for (i = 0; i < fl->n_targets; i++)
		if (fl->targets[i].push)
			one(f, fl, up, "target", fl->targets[i].name,
			    fl->targets[i].push_up);
}

/* The exposition server's connections. */
static void
http_families(struct expo_out *f, const struct fleet *fl)
{
	const struct http_stats *h = &fl->http;
	const char *cl = "wattpath_http_connections_closed_total";

	family(f, "wattpath_http_connections", "gauge", "Connections to "
	    "this server open now.");
	one(f, fl, "wattpath_http_connections", NULL, NULL, h->open);
	family(f, cl, "counter", "Connections the server closed itself: "
	    "refused (no room at a limit), evicted (idle, gave way to a new "
	    "one), timeout (past a deadline).");
	one(f, fl, cl, "reason", "refused", (double)h->refused);
	one(f, fl, cl, "reason", "evicted", (double)h->evicted);
	one(f, fl, cl, "reason", "timeout", (double)h->timed_out);
	family(f, "wattpath_http_auth_limited_total", "counter", "Requests "
	    "answered 429 after too many failed passwords from one client.");
	one(f, fl, "wattpath_http_auth_limited_total", NULL, NULL,
	    (double)h->auth_limited);
}

/* The process's own figures, as the Prometheus client libraries name
 * them (process_*), each with the site label only. */
static void
process_families(struct expo_out *f, const struct fleet *fl)
{
	const struct proc_stats *p = &fl->proc;
	static const struct {
		const char *name, *type, *help;
	} pf[] = {
		{ "process_cpu_seconds_total", "counter", "Total user and "
		    "system CPU time spent in seconds." },
		{ "process_resident_memory_bytes", "gauge", "Resident memory "
		    "size in bytes." },
		{ "process_virtual_memory_bytes", "gauge", "Virtual memory "
		    "size in bytes." },
		{ "process_start_time_seconds", "gauge", "Start time of the "
		    "process since unix epoch in seconds." },
		{ "process_open_fds", "gauge", "Number of open file "
		    "descriptors." },
		{ "process_max_fds", "gauge", "Maximum number of open file "
		    "descriptors." },
	};
	const double v[] = { p->cpu_s, p->rss, p->vsize, p->start_s,
	    p->open_fds, p->max_fds };
	const bool has[] = { p->ok, p->ok, p->ok, p->ok && p->start_s > 0,
	    p->has_fds, p->has_max };
	size_t i;

	for (i = 0; i < sizeof(pf) / sizeof(pf[0]); i++) {
		if (!has[i])
			continue;
		family(f, pf[i].name, pf[i].type, pf[i].help);
		one(f, fl, pf[i].name, NULL, NULL, v[i]);
	}
}

/* Config reloads (SIGHUP) and the renders of /metrics itself. */
static void
self_families(struct expo_out *f, const struct fleet *fl)
{
	const char *ok = "wattpath_config_last_reload_successful";
	const char *okt = "wattpath_config_last_reload_success_timestamp_seconds";
	const char *d = "wattpath_exposition_duration_seconds";

	if (fl->has_reloads) {
		family(f, ok, "gauge", "1 if the last configuration reload "
		    "(SIGHUP) took, 0 if it was refused (the running "
		    "configuration kept); 1 before any.");
		one(f, fl, ok, NULL, NULL, fl->reloads.ok);
		family(f, okt, "gauge", "Unix time of the last configuration "
		    "load that took (the start, or a SIGHUP reload).");
		one(f, fl, okt, NULL, NULL,
		    (double)fl->reloads.last_ok_real / WP_SEC);
	}
	if (!fl->has_expo)
		return;
	family(f, d, "summary", "Time the server took to produce /metrics "
	    "(snapshot, text, gzip), over the renders before this one.");
	one(f, fl, "wattpath_exposition_duration_seconds_sum", NULL, NULL,
	    fl->expo.sum_s);
	one(f, fl, "wattpath_exposition_duration_seconds_count", NULL, NULL,
	    (double)fl->expo.count);
	family(f, "wattpath_exposition_last_duration_seconds", "gauge",
	    "Time the server took to produce the last /metrics before this "
	    "one.");
	if (fl->expo.count > 0)
		one(f, fl, "wattpath_exposition_last_duration_seconds", NULL,
		    NULL, fl->expo.last_s);
}

struct models_arg {
	const struct fleet	*fl;
	double			 pue;
};

static int
models_cb(FILE *f, const void *arg)
{
	const struct models_arg *m = arg;

	return expo_models_write(f, m->fl, m->pue);
}

/* The families of the nodes and the targets, on their prefixes. */
static int
entity_families(struct expo_out *f, const struct fleet *fl, double pue)
{
	struct pfx pn, pt;
	int w;

	if (pfx_build(&pn, fl->site, fl->n_nodes, 3, node_labels, fl) == -1)
		return -1;
	node_family(f, fl, &pn, true);
	node_family(f, fl, &pn, false);
	pfx_fini(&pn);
	coverage_family(f, fl);
	tokens_family(f, fl);
	if (eo_stream(f, models_cb, &(struct models_arg){ fl, pue }) == -1)
		return -1;
	facility_families(f, fl, pue);
	rack_family(f, fl);
	pdu_families(f, fl);
	if (pfx_build(&pt, fl->site, fl->n_targets, 2, target_labels, fl) == -1)
		return -1;
	for (w = TF_UP; w <= TF_STALE; w++)
		target_family(f, fl, &pt, w);
	reason_family(f, fl, &pt);
	last_error_families(f, fl, &pt);
	pfx_fini(&pt);
	push_families(f, fl);
	return 0;
}

int
expo_metrics_out(struct expo_out *f, const struct fleet *fl, double pue)
{
	if (entity_families(f, fl, pue) == -1)
		return -1;
	if (fl->has_storage)
		storage_families(f, fl);
	if (fl->has_http)
		http_families(f, fl);
	family(f, "wattpath_build_info", "gauge", "Version of the "
	    "collector; always 1.");
	one(f, fl, "wattpath_build_info", "version", WP_VERSION, 1);
	self_families(f, fl);
	if (fl->has_proc)
		process_families(f, fl);
	return eo_flush(f);
}

int
expo_metrics_write(FILE *out, const struct fleet *fl, double pue)
{
	struct expo_out o;

	eo_init(&o, out);
	return expo_metrics_out(&o, fl, pue);
}
