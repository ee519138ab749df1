/*
 * floor.c - the floor of the collector benchmarks (issue 24): the least a
 * client can do to read the same devices wattpath reads, on the same
 * schedule, so that `wattpath / floor` says what wattpath adds.
 *
 *   floor redfish TARGETS INTERVAL_S STATS   (TARGETS: "URL CA USER PASS"
 *                                             a line)
 *   floor snmp TARGETS INTERVAL_S STATS      (TARGETS: "ADDR COMMUNITY")
 *
 * Redfish: one libcurl multi handle, one easy handle per BMC, kept-alive
 * TLS (verified against the CA), a GET of the resource with Basic auth;
 * the body is dropped unread; the timeout is wattpath's default, 80 % of the
 * interval.  SNMP: one net-snmp session per PDU, the
 * GETs wattpath's raritan-pdu2 profile makes (outlet power and energy, the
 * inlet's power, VA and energy: 99 varbinds, up to 24 a GET, one GET at a
 * time per PDU); the answer is not decoded.  Target i is due at
 * i * INTERVAL / N within each interval; due polls start in 250 ms steps,
 * as wattpath's collector.poll_batch does.  Every second STATS is
 * rewritten with "ok failed" poll counts.  Runs until SIGTERM.
 * Not part of the collector: it stores, checks and reports nothing.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#define STEP	0.25
#define CHUNK	24
#define NOIDS	99

static volatile sig_atomic_t stop;

struct tgt {
	char	*a, *b, *c, *d;		/* the TARGETS line's fields */
	double	 due;
	int	 busy;
	CURL	*easy;
	void	*sess;			/* net-snmp single session */
	int	 fd, next;		/* SNMP: next OID to GET */
};

struct fl {
	struct tgt	*t;
	size_t		 n;
	double		 iv;
	unsigned long	 ok, fail;
	const char	*stats;
	double		 stats_at;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Reads TARGETS into f->t (owned by f, freed at exit). */
static int
load(struct fl *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	size_t cap = 0;

	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL) {
		struct tgt *x;
		char *s = line, *fld[4] = { NULL, NULL, NULL, NULL };
		int k;

		for (k = 0; k < 4; k++)
			if ((fld[k] = strtok(k ? NULL : s, " \t\n")) == NULL)
				break;
		if (fld[0] == NULL)
			continue;
		if (f->n == cap) {
			cap = cap ? 2 * cap : 64;
			f->t = realloc(f->t, cap * sizeof(*f->t));
			if (f->t == NULL)
				exit(2);
		}
		x = &f->t[f->n++];
		memset(x, 0, sizeof(*x));
		x->a = strdup(fld[0]);
		x->b = fld[1] ? strdup(fld[1]) : NULL;
		x->c = fld[2] ? strdup(fld[2]) : NULL;
		x->d = fld[3] ? strdup(fld[3]) : NULL;
	}
	fclose(fp);
	return f->n ? 0 : -1;
}

static void
stats(struct fl *f, double t)
{
	char tmp[4096];
	FILE *fp;

	if (t < f->stats_at)
		return;
	f->stats_at = t + 1.0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", f->stats);
	if ((fp = fopen(tmp, "w")) == NULL)
		return;
	fprintf(fp, "%lu %lu\n", f->ok, f->fail);
	fclose(fp);
	rename(tmp, f->stats);
}

static void
schedule(struct fl *f)
{
	double t0 = now();
	size_t i;

	for (i = 0; i < f->n; i++)
		f->t[i].due = t0 + 1.0 + f->iv * (double)i / (double)f->n;
}

/* The next wake-up: the earliest due idle target, rounded up to a step. */
static double
next_wake(const struct fl *f, double t)
{
	double w = t + 1.0;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!f->t[i].busy && f->t[i].due < w)
			w = f->t[i].due;
	if (w < t)
		return t;
	return STEP * (double)(long long)(w / STEP + 0.999999);
}

/* --- Redfish ------------------------------------------------------------- */

static size_t
drop(char *p, size_t sz, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return sz * n;
}

static int
rf_setup(struct fl *f)
{
	char up[1024];
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct tgt *x = &f->t[i];

		if (x->d == NULL || (x->easy = curl_easy_init()) == NULL)
			return -1;
		snprintf(up, sizeof(up), "%s:%s", x->c, x->d);
		curl_easy_setopt(x->easy, CURLOPT_URL, x->a);
		curl_easy_setopt(x->easy, CURLOPT_CAINFO, x->b);
		/* trust as wattpath's ca_file does (collector/lib/http.c):
		 * the file only, parsed once per multi handle */
		curl_easy_setopt(x->easy, CURLOPT_CAPATH, NULL);
		curl_easy_setopt(x->easy, CURLOPT_USERPWD, up);
		curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, drop);
		/* wattpath's default poll timeout: 80 % of the interval */
		curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)(f->iv * 800));
		curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	}
	return 0;
}

static void
rf_done(struct fl *f, CURLM *m)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(m, &left)) != NULL) {
		struct tgt *x;
		long code = 0;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &x);
		curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE,
		    &code);
		if (msg->data.result == CURLE_OK && code == 200)
			f->ok++;
		else if (f->fail++ < 10)
			fprintf(stderr, "floor: %s: %s, HTTP %ld\n", x->a,
			    curl_easy_strerror(msg->data.result), code);
		curl_multi_remove_handle(m, msg->easy_handle);
		x->busy = 0;
	}
}

static int
rf_run(struct fl *f)
{
	CURLM *m;
	size_t i;
	int running;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || rf_setup(f) < 0 ||
	    (m = curl_multi_init()) == NULL)
		return 2;
	/* Keep every BMC's connection, not 4x the handles in flight. */
	curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)f->n + 16);
	schedule(f);
	while (!stop) {
		double t = now(), w;
		int ms;

		for (i = 0; i < f->n; i++) {
			struct tgt *x = &f->t[i];

			if (x->busy || x->due > t + 1e-6)
				continue;
			x->busy = 1;
			x->due += f->iv;
			curl_multi_add_handle(m, x->easy);
		}
		curl_multi_perform(m, &running);
		rf_done(f, m);
		stats(f, t);
		w = next_wake(f, now());
		ms = (int)((w - now()) * 1000);
		curl_multi_poll(m, NULL, 0, ms > 0 ? ms : 0, NULL);
	}
	curl_multi_cleanup(m);
	return 0;
}

/* --- SNMP ---------------------------------------------------------------- */

/* The i-th OID of a poll: outlets 1..48 power (5) and energy (8), then the
 * inlet's power, VA (6) and energy. */
static size_t
snmp_oid(int i, oid *o)
{
	static const oid outl[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 5, 4, 3, 1,
	    4, 1 };
	static const oid inl[] = { 1, 3, 6, 1, 4, 1, 13742, 6, 5, 2, 3, 1,
	    4, 1, 1 };
	static const int isens[] = { 5, 6, 8 };

	if (i < 96) {
		memcpy(o, outl, sizeof(outl));
		o[14] = (oid)(i / 2 + 1);
		o[15] = i % 2 ? 8 : 5;
		return 16;
	}
	memcpy(o, inl, sizeof(inl));
	o[15] = (oid)isens[i - 96];
	return 16;
}

static int	snmp_cb(int op, netsnmp_session *ss, int reqid, netsnmp_pdu *pdu,
		    void *magic);

static int
fl_snmp_send(struct tgt *x)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	oid o[MAX_OID_LEN];
	int k;

	for (k = 0; k < CHUNK && x->next < NOIDS; k++, x->next++) {
		size_t len = snmp_oid(x->next, o);

		snmp_add_null_var(pdu, o, len);
	}
	if (snmp_sess_async_send(x->sess, pdu, snmp_cb, x) == 0) {
		snmp_free_pdu(pdu);
		return -1;
	}
	return 0;
}

static struct fl *g_fl;		/* the callback's counters */

static int
snmp_cb(int op, netsnmp_session *ss, int reqid, netsnmp_pdu *pdu,
    void *magic)
{
	struct tgt *x = magic;

	(void)ss;
	(void)reqid;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE ||
	    pdu->errstat != SNMP_ERR_NOERROR) {
		g_fl->fail++;
		x->busy = 0;
		return 1;
	}
	if (x->next < NOIDS) {
		if (fl_snmp_send(x) < 0) {
			g_fl->fail++;
			x->busy = 0;
		}
		return 1;
	}
	g_fl->ok++;
	x->busy = 0;
	return 1;
}

static int
snmp_setup(struct fl *f)
{
	size_t i;

	setenv("MIBS", "", 0);
	setenv("MIBDIRS", "", 0);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	init_snmp("floor");
	for (i = 0; i < f->n; i++) {
		struct tgt *x = &f->t[i];
		netsnmp_session s;
		netsnmp_transport *tr;
		char peer[300];

		if (x->b == NULL)
			return -1;
		snmp_sess_init(&s);
		snprintf(peer, sizeof(peer), "udp:%s", x->a);
		s.peername = peer;
		s.version = SNMP_VERSION_2c;
		s.community = (u_char *)x->b;
		s.community_len = strlen(x->b);
		s.timeout = 5000000;
		s.retries = 1;
		if ((x->sess = snmp_sess_open(&s)) == NULL ||
		    (tr = snmp_sess_transport(x->sess)) == NULL)
			return -1;
		x->fd = tr->sock;
	}
	return 0;
}

static int
snmp_run(struct fl *f)
{
	struct epoll_event ev[256];
	size_t i;
	int ep, k, nev;

	g_fl = f;
	if (snmp_setup(f) < 0 || (ep = epoll_create1(0)) < 0)
		return 2;
	for (i = 0; i < f->n; i++) {
		struct epoll_event e = { .events = EPOLLIN };

		e.data.u64 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, f->t[i].fd, &e) < 0)
			return 2;
	}
	schedule(f);
	while (!stop) {
		double t = now(), w;
		int ms;

		for (i = 0; i < f->n; i++) {
			struct tgt *x = &f->t[i];

			if (x->busy || x->due > t + 1e-6) {
				/* Timeouts: rare in a floor run; failures. */
				if (x->busy && t - x->due + f->iv > 6.0)
					snmp_sess_timeout(x->sess);
				continue;
			}
			x->due += f->iv;
			x->next = 0;
			x->busy = 1;
			if (fl_snmp_send(x) < 0) {
				f->fail++;
				x->busy = 0;
			}
		}
		stats(f, t);
		w = next_wake(f, now());
		ms = (int)((w - now()) * 1000);
		nev = epoll_wait(ep, ev, 256, ms > 0 ? ms : 0);
		if (nev < 0 && errno != EINTR)
			return 2;
		for (k = 0; k < nev; k++) {
			struct tgt *x = &f->t[ev[k].data.u64];
			netsnmp_large_fd_set fds;

			netsnmp_large_fd_set_init(&fds, x->fd + 1);
			NETSNMP_LARGE_FD_SET(x->fd, &fds);
			snmp_sess_read2(x->sess, &fds);
			netsnmp_large_fd_set_cleanup(&fds);
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct fl f;

	memset(&f, 0, sizeof(f));
	if (argc != 5 || (f.iv = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: floor redfish|snmp TARGETS INTERVAL_S "
		    "STATS\n");
		return 2;
	}
	f.stats = argv[4];
	if (load(&f, argv[2]) < 0) {
		fprintf(stderr, "floor: cannot read targets from %s\n",
		    argv[2]);
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[1], "redfish") == 0)
		return rf_run(&f);
	if (strcmp(argv[1], "snmp") == 0)
		return snmp_run(&f);
	fprintf(stderr, "floor: redfish or snmp\n");
	return 2;
}
