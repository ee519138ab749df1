/* report_claims.c - the instrument ledger under data_dir (see
 * report_claims.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../model/claims.h"
#include "../conf/conf.h"
#include "report_claims.h"

#define LEDGER_MAX	(64u << 20)

static void
ledger_path(const struct wp_conf *c, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", c->data_dir, REPORT_CLAIMS_FILE);
}

/* The whole of fd from its start (up to where it ends, if cut short since
 * the fstat); caller frees.  NULL with err, a read error too. */
static char *
read_fd(int fd, size_t *len, struct wp_err *err)
{
	struct stat st;
	char *buf;
	size_t n = 0;
	ssize_t got;

	if (fstat(fd, &st) == -1) {
		err_set(err, WP_E_CONFIG, "ledger: %s", strerror(errno));
		return NULL;
	}
	if ((size_t)st.st_size > LEDGER_MAX) {
		err_set(err, WP_E_CONFIG, "ledger: larger than %u bytes",
		    LEDGER_MAX);
		return NULL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	while (n < (size_t)st.st_size) {	/* to its end, or EOF if cut */
		got = pread(fd, buf + n, (size_t)st.st_size - n, (off_t)n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err_set(err, WP_E_CONFIG, "ledger: %s", strerror(errno));
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The ledger's claims read from fd.  0, or -1 with err. */
static int
read_claims(int fd, struct claim **cl, size_t *n, struct wp_err *err)
{
	size_t len;
	char *buf = read_fd(fd, &len, err);
	int rc;

	if (buf == NULL)
		return -1;
	rc = claims_parse(buf, len, cl, n, err);
	free(buf);
	return rc;
}

void
report_claims_load(const struct wp_conf *c, wp_time from, wp_time to,
    struct report_site_data *d)
{
	char path[PATH_MAX];
	struct wp_err e = { 0 };
	struct claim *cl = NULL;
	size_t n = 0, i;
	int fd;

	if (d->n_inst == 0)
		return;
	ledger_path(c, path, sizeof(path));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return;		/* nothing finalised yet */
		err_set(&e, WP_E_CONFIG, "%s: %s", path, strerror(errno));
	} else {
		(void)flock(fd, LOCK_SH);
		if (read_claims(fd, &cl, &n, &e) == 0)
			claims_apply(d->inst, d->n_inst, cl, n, c->site.name,
			    from, to);
		close(fd);
	}
	free(cl);
	if (e.msg[0] == '\0')
		return;
	snprintf(d->claims_err, sizeof(d->claims_err), "%s: every instrument "
	    "counted as used up", e.msg);
	for (i = 0; i < d->n_inst; i++)
		d->inst[i].claimed_kwh = d->inst[i].mwh * 1000;
}

/* Whether r's claims still fit the instruments given the ledger's cl, and
 * r was not finalised before.  0, or -1 with err. */
static int
check_claims(const struct report *r, const struct claim *cl, size_t n,
    struct wp_err *err)
{
	const struct report_carbon *cb = &r->carbon;
	size_t i, j;

	for (j = 0; j < n; j++)
		if (claims_same_report(&cl[j], cb->site_name, r->from, r->to))
			return err_set(err, WP_E_CONFIG, "this report (site %s, "
			    "this window) was finalised before: its claims are "
			    "in the ledger", cb->site_name ? cb->site_name :
			    "(unnamed)");
	for (i = 0; i < cb->n_claims; i++) {
		double used = 0;

		for (j = 0; j < n; j++)
			if (strcmp(cl[j].id, cb->claims[i].id) == 0 &&
			    cl[j].hour == cb->claims[i].hour)
				used += cl[j].kwh;
		if (used + cb->claims[i].kwh > cb->claims[i].volume_kwh *
		    (1 + 1e-9))
			return err_set(err, WP_E_CONFIG, "instrument %s: "
			    "%.6g kWh claimed meanwhile; %.6g more would exceed "
			    "its %.6g kWh: run the report again",
			    cb->claims[i].id, used, cb->claims[i].kwh,
			    cb->claims[i].volume_kwh);
	}
	return 0;
}

/* Appends r's claims to fd (the header first when empty). */
static int
append_claims(int fd, const struct report *r, struct wp_err *err)
{
	const struct report_carbon *cb = &r->carbon;
	char line[512];
	size_t i;
	int k;

	if (lseek(fd, 0, SEEK_END) == 0 && write(fd, CLAIMS_HEADER,
	    strlen(CLAIMS_HEADER)) != (ssize_t)strlen(CLAIMS_HEADER))
		return err_set(err, WP_E_INTERNAL, "ledger: %s", strerror(errno));
	for (i = 0; i < cb->n_claims; i++) {
		struct claim c = { .hour = cb->claims[i].hour,
		    .kwh = cb->claims[i].kwh, .from = r->from, .to = r->to,
		    .at = clock_real() };

		snprintf(c.id, sizeof(c.id), "%s", cb->claims[i].id);
		snprintf(c.site, sizeof(c.site), "%s", cb->site_name ?
		    cb->site_name : "");
		if ((k = claims_format(&c, line, sizeof(line))) < 0)
			return err_set(err, WP_E_CONFIG, "instrument id '%s' "
			    "cannot be recorded (comma, quote or newline)",
			    c.id);
		if (write(fd, line, (size_t)k) != k)
			return err_set(err, WP_E_INTERNAL, "ledger: %s",
			    strerror(errno));
	}
	return fsync(fd) == -1 ? err_set(err, WP_E_INTERNAL, "ledger: fsync: %s",
	    strerror(errno)) : 0;
}

int
report_claims_finalise(const struct wp_conf *c, struct report *r,
    struct wp_err *err)
{
	char path[PATH_MAX];
	struct claim *cl = NULL;
	size_t n = 0;
	int fd, rc;

	if (!r->has_carbon || !r->carbon.mk_ok[r->carbon.claims_bnd])
		return err_set(err, WP_E_CONFIG, "--finalise: the report has "
		    "no market-based figure to finalise (see its warnings)");
	ledger_path(c, path, sizeof(path));
	if ((fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC,
	    0640)) == -1)
		return err_set(err, WP_E_INTERNAL, "%s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX) == -1) {
		close(fd);
		return err_set(err, WP_E_INTERNAL, "%s: lock: %s", path,
		    strerror(errno));
	}
	rc = read_claims(fd, &cl, &n, err);
	if (rc == 0)
		rc = check_claims(r, cl, n, err);
	if (rc == 0)
		rc = append_claims(fd, r, err);
	free(cl);
	close(fd);
	if (rc == 0)
		r->carbon.finalised = true;
	return rc;
}
