/*
 * bench_rwrite.c - what one remote-write batch costs the collector at
 * 5,000 BMCs (issue 21): the /metrics text of a BMC-only fleet, series as
 * the exposition writes them (per node its wall energy counter and power
 * gauge with site, node, class, rack, boundary, method; per target up,
 * duration, polls, failures, last success, resets, stale), encoded into
 * the remote-write body (protobuf + snappy, lib/promwrite.h) and put
 * through the disk queue (lib/diskq.h: push, peek, pop) as the sender
 * does once per interval.  CPU per sample and bytes per sample on the
 * wire (the body; the HTTP head adds about 250 bytes per request).  The
 * whole process beside plain polling: tests/bench/bench.py's
 * wattpath-remote-write.  Usage: bench_rwrite [BMCS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../collector/lib/diskq.h"
#include "../../collector/lib/promwrite.h"

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
target_lines(FILE *f, int i, double t)
{
	static const char *const fam[] = { "wattpath_target_up",
	    "wattpath_poll_duration_seconds", "wattpath_target_polls_total",
	    "wattpath_target_poll_failures_total",
	    "wattpath_target_last_success_timestamp_seconds",
	    "wattpath_series_resets_total", "wattpath_target_stale_series" };
	const double v[] = { 1, 0.0123 + i % 7 * 0.001, t / 10, i % 3,
	    1.7e9 + t, 0, 0 };
	size_t k;

	for (k = 0; k < sizeof(fam) / sizeof(fam[0]); k++)
		fprintf(f, "%s{site=\"site-a\",target=\"gpu-%05d/bmc\","
		    "protocol=\"redfish\"} %.6f\n", fam[k], i, v[k]);
}

/* The exposition at time t (s); a new buffer, its length in *len. */
static char *
exposition(int bmcs, double t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int i;

	if (f == NULL)
		abort();
	for (i = 0; i < bmcs; i++) {
		fprintf(f, "wattpath_node_energy_joules_total{site=\"site-a\","
		    "node=\"gpu-%05d\",class=\"hgx-h100-8\",rack=\"r%03d\","
		    "boundary=\"wall\",method=\"counter\"} %.3f\n", i, i / 40,
		    1e9 + t * (5000 + i % 700));
		fprintf(f, "wattpath_node_power_watts{site=\"site-a\","
		    "node=\"gpu-%05d\",class=\"hgx-h100-8\",rack=\"r%03d\","
		    "boundary=\"wall\"} %d\n", i, i / 40, 5000 + i % 700);
		target_lines(f, i, t);
	}
	fprintf(f, "wattpath_build_info{site=\"site-a\",version=\"0.1.0\"} 1\n");
	fclose(f);
	return buf;
}

int
main(int argc, char **argv)
{
	int bmcs = argc > 1 ? atoi(argv[1]) : 5000, r, rounds = 20;
	char dir[] = "/tmp/wp-bench-rw.XXXXXX", cmd[64];
	double enc = 0, q = 0, t0;
	size_t text = 0, body = 0, n = 0, len, blen;
	uint64_t dropped = 0, seq, items;
	struct diskq *dq;
	struct wp_err err;
	uint8_t *b, *rb;

	if (mkdtemp(dir) == NULL || (dq = diskq_open(dir, 1ULL << 32,
	    &err)) == NULL)
		return 1;
	for (r = 0; r < rounds; r++) {
		char *t = exposition(bmcs, r * 10.0, &len);

		t0 = cpu_ms();
		if (promwrite_encode(t, len, 1796000000000LL + r * 10000, NULL, &b,
		    &blen, &n, &err) == -1) {
			fprintf(stderr, "bench_rwrite: %s\n", err.msg);
			return 1;
		}
		enc += cpu_ms() - t0;
		t0 = cpu_ms();
		if (diskq_push(dq, b, blen, n, &dropped, &err) == -1 ||
		    diskq_peek(dq, &rb, &len, &seq, &items, &dropped, &err) != 0 ||
		    diskq_pop(dq, seq) == -1)
			return 1;
		q += cpu_ms() - t0;
		text += strlen(t);
		body += blen;
		free(rb);
		free(b);
		free(t);
	}
	printf("remote write at %d BMCs: %zu samples per batch (one per "
	    "interval), %.1f KiB of /metrics text\n", bmcs, n,
	    text / rounds / 1024.0);
	printf("  encode (parse, protobuf, snappy) %7.2f ms per batch  "
	    "%6.3f us per sample\n", enc / rounds, 1e3 * enc / rounds / n);
	printf("  disk queue (write, read, remove) %7.2f ms per batch  "
	    "%6.3f us per sample\n", q / rounds, 1e3 * q / rounds / n);
	printf("  body on the wire %8.1f KiB per batch  %5.2f bytes per sample "
	    "(protobuf %s, snappy)\n", body / rounds / 1024.0,
	    (double)body / rounds / n, "WriteRequest");
	diskq_close(dq);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
