/*
 * fuzz_modbus.c - libFuzzer harness for the Modbus meter maps and register
 * decoding (drivers/modbus/regmap.c, mb_samples.c).
 *
 * First byte even: the rest is a meter map (YAML, the corpus holds the
 * shipped maps of etc/meter-maps/), loaded with regmap_load_file, planned,
 * and decoded from registers all zero and all 0xFFFF.  First byte odd: the
 * second byte picks a shipped map and the rest are the registers its plan
 * reads (big-endian words) and each read's exception code.
 * Invariants: a loaded map has one total energy and one total power and
 * values of 1, 2 or 4 registers of fc 3 or 4; its plan covers every value
 * in reads of at most max_read registers; a decoded value is finite and
 * within the map's bounds; every sample built passes sample_validate but
 * for an implausible value (the core's to drop).
 * Built and run by tests/fuzz/run.sh.
 */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../drivers/modbus/mb_samples.h"
#include "../../drivers/modbus/regmap.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAPS_MAX	32
#define REGS_MAX	8192

static struct regmap *maps[MAPS_MAX];
static size_t nmaps;

static void
load_shipped(void)
{
	struct wp_err err;
	struct dirent *e;
	char path[512], stem[64];
	DIR *d;
	size_t l;

	if ((d = opendir("etc/meter-maps")) == NULL)
		abort();
	while ((e = readdir(d)) != NULL && nmaps < MAPS_MAX) {
		l = strlen(e->d_name);
		if (l < 6 || l - 5 >= sizeof(stem) ||
		    strcmp(e->d_name + l - 5, ".yaml") != 0)
			continue;
		snprintf(stem, sizeof(stem), "%.*s", (int)(l - 5), e->d_name);
		snprintf(path, sizeof(path), "etc/meter-maps/%s", e->d_name);
		if ((maps[nmaps] = regmap_load_file(path, stem, &err)) == NULL)
			abort();	/* a shipped map must load */
		nmaps++;
	}
	closedir(d);
	if (nmaps == 0)
		abort();
}

static void
check_map(const struct regmap *m)
{
	size_t i;

	if (m->n == 0 || m->energy < 0 || (size_t)m->energy >= m->n ||
	    m->power < 0 || (size_t)m->power >= m->n ||
	    m->v[m->energy].role != RM_ROLE_ENERGY ||
	    m->v[m->power].role != RM_ROLE_POWER ||
	    m->max_read < 1 || m->max_read > RM_MAX_READ)
		abort();
	for (i = 0; i < m->n; i++)
		if ((m->v[i].fc != 3 && m->v[i].fc != 4) ||
		    (m->v[i].nregs != 1 && m->v[i].nregs != 2 &&
		    m->v[i].nregs != 4) ||
		    (size_t)m->v[i].addr + m->v[i].nregs > 65536 ||
		    !isfinite(m->v[i].scale) ||
		    strnlen(m->v[i].name, RM_NAME_MAX) == RM_NAME_MAX)
			abort();
}

/* Offsets of each value's first register in the plan's registers. */
static size_t
check_plan(const struct regmap *m, const struct rm_plan *p, size_t *at)
{
	size_t i, j, off, total = 0;
	const struct rm_value *v;

	for (j = 0; j < p->n; j++) {
		if (p->r[j].count < 1 || p->r[j].count > m->max_read ||
		    (size_t)p->r[j].addr + p->r[j].count > 65536)
			abort();
		total += p->r[j].count;
	}
	for (i = 0; i < m->n; i++) {
		v = &m->v[i];
		for (j = 0, off = 0; j < p->n; off += p->r[j].count, j++)
			if (p->r[j].fc == v->fc && v->addr >= p->r[j].addr &&
			    v->addr + v->nregs <= p->r[j].addr + p->r[j].count)
				break;
		if (j == p->n)
			abort();	/* a value no read covers */
		at[i] = off + (v->addr - p->r[j].addr);
	}
	return total;
}

/*
 * A sample the core can judge: sample_validate passes, or fails only on an
 * implausible value (a map without bounds may give -10 W; the core drops
 * that value at ingest and keeps the rest, issue 26.9).
 */
static int
sample_sane(const struct wp_sample *s, struct wp_err *err)
{
	if (sample_validate(s, err) == 0)
		return 1;
	return isfinite(s->value) && strstr(err->msg, ": absurd ") != NULL &&
	    s->resolution >= 0 && s->wrap >= 0;
}

static void
decode_all(const struct regmap *m, const struct rm_plan *p,
    const uint16_t *regs, const int *status, const size_t *at)
{
	static struct wp_sample out[1024];
	static int idx[1024];
	struct mb_info info = { "facility_total", "", "" };
	struct rm_reading rd;
	struct wp_err err;
	const struct rm_value *v;
	size_t i;
	int n, rc;

	snprintf(info.map, sizeof(info.map), "%s", m->stem);
	for (i = 0; i < m->n; i++) {
		v = &m->v[i];
		rc = regmap_decode(v, regs + at[i], &rd, &err);
		if (rc < -1 || rc > 1)
			abort();
		if (rc == 0 && (!isfinite(rd.value) || !(rd.resolution >= 0) ||
		    (v->has_min && rd.value < v->min) ||
		    (v->has_max && rd.value > v->max)))
			abort();
	}
	if (m->n > 1024)
		return;
	n = mb_samples_build(m, &info, p, regs, status, out, idx, &err);
	if (n > (int)m->n)
		abort();
	for (i = 0; n > 0 && i < (size_t)n; i++)
		if (idx[i] < 0 || (size_t)idx[i] >= m->n ||
		    !sample_sane(&out[i], &err)) {
			fprintf(stderr, "map %s value %d: %s\n", m->stem,
			    idx[i], err.msg);
			abort();
		}
}

static void
fuzz_map(const uint8_t *data, size_t size)
{
	static uint16_t regs[REGS_MAX];
	static int status[REGS_MAX];
	struct regmap *m;
	struct rm_plan p = { 0 };
	struct wp_err err;
	char path[64];
	size_t *at, total;
	int fd;

	if ((fd = memfd_create("map", 0)) < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m = regmap_load_file(path, "fuzz", &err);
	close(fd);
	if (m == NULL)
		return;
	check_map(m);
	if (regmap_plan(m, &p, &err) == 0 &&
	    (at = calloc(m->n, sizeof(*at))) != NULL) {
		total = check_plan(m, &p, at);
		if (total <= REGS_MAX && p.n <= REGS_MAX) {
			memset(status, 0, sizeof(status));
			memset(regs, 0, sizeof(regs));
			decode_all(m, &p, regs, status, at);
			memset(regs, 0xff, sizeof(regs));
			decode_all(m, &p, regs, status, at);
		}
		free(at);
	}
	regmap_plan_fini(&p);
	regmap_free(m);
}

static void
fuzz_regs(const uint8_t *data, size_t size)
{
	static uint16_t regs[REGS_MAX];
	static int status[REGS_MAX];
	static size_t at[1024];
	const struct regmap *m;
	struct rm_plan p = { 0 };
	struct wp_err err;
	size_t i, total;

	if (size < 1)
		return;
	m = maps[data[0] % nmaps];
	data++;
	size--;
	if (regmap_plan(m, &p, &err) < 0 || m->n > 1024)
		abort();	/* a shipped map plans */
	total = check_plan(m, &p, at);
	if (total > REGS_MAX || p.n > REGS_MAX)
		abort();
	for (i = 0; i < total; i++)
		regs[i] = 2 * i + 1 < size ?
		    (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]) : 0;
	/* Mostly no exception: a read fails when its byte is 1 mod 16. */
	for (i = 0; i < p.n; i++) {
		uint8_t b = 2 * total + i < size ? data[2 * total + i] : 0;

		status[i] = (b & 15) == 1 ? (b >> 4) + 1 : 0;
	}
	decode_all(m, &p, regs, status, at);
	regmap_plan_fini(&p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (nmaps == 0)
		load_shipped();
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_regs(data + 1, size - 1);
	else
		fuzz_map(data + 1, size - 1);
	return 0;
}
