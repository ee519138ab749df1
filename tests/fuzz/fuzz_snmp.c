/*
 * fuzz_snmp.c - libFuzzer harness for the SNMP PDU decoder
 * (drivers/snmp_pdu/pdu_decode.c) against the shipped profiles.
 *
 * The input is a recording in .snmprec form ("OID|tag|value" lines, the
 * corpus is the recordings of tests/fixtures/snmp/).  It is decoded with
 * the profile its sysObjectID matches best and with the profile picked by
 * the first byte: every varbind goes through discovery (pdu_rows_add,
 * pdu_rows_finish), then every reading of every reported row is decoded
 * from the varbind at the OID a poll would GET, and the probe is scored.
 * The varbinds are sorted by OID, as an agent serves them.
 * Invariants: a decoded sample passes sample_validate and has the
 * column's quantity; rows stay within the varbinds given; names and
 * labels are NUL-terminated and clean.  Built and run by tests/fuzz/run.sh.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/err.h"
#include "../../drivers/snmp_pdu/pdu_decode.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define VB_MAX	2048

static struct pdu_profiles profiles;
static int loaded;

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 0;
}

/* One "OID|tag|value" line (NUL-ended, writable) to a varbind. */
static int
parse_line(char *line, struct pdu_vb *vb)
{
	char *t, *v;
	size_t i;

	memset(vb, 0, sizeof(*vb));
	if ((t = strchr(line, '|')) == NULL)
		return -1;
	*t++ = '\0';
	if ((v = strchr(t, '|')) == NULL)
		return -1;
	*v++ = '\0';
	if (pdu_oid_parse(line, &vb->oid) < 0)
		return -1;
	if (strcmp(t, "2") == 0) {
		vb->type = PDU_V_INT;
		vb->i = strtoll(v, NULL, 10);
	} else if (strcmp(t, "65") == 0 || strcmp(t, "66") == 0 ||
	    strcmp(t, "67") == 0 || strcmp(t, "70") == 0) {
		vb->type = t[1] == '5' ? PDU_V_COUNTER32 : t[1] == '6' ?
		    PDU_V_UINT : t[1] == '7' ? PDU_V_TIMETICKS :
		    PDU_V_COUNTER64;
		vb->u = strtoull(v, NULL, 10);
	} else if (strcmp(t, "4") == 0 || strcmp(t, "6") == 0) {
		vb->type = t[0] == '4' ? PDU_V_STRING : PDU_V_OID;
		snprintf(vb->s, sizeof(vb->s), "%s", v);
	} else if (strcmp(t, "4x") == 0) {
		vb->type = PDU_V_STRING;
		for (i = 0; v[2 * i] && v[2 * i + 1] &&
		    i + 1 < sizeof(vb->s); i++)
			vb->s[i] = (char)(hexval(v[2 * i]) * 16 +
			    hexval(v[2 * i + 1]));
	} else if (strcmp(t, "128") == 0 || strcmp(t, "129") == 0 ||
	    strcmp(t, "130") == 0)
		vb->type = t[2] == '8' ? PDU_V_NOSUCHOBJECT : t[2] == '9' ?
		    PDU_V_NOSUCHINSTANCE : PDU_V_ENDOFMIB;
	else
		vb->type = PDU_V_OTHER;
	return 0;
}

static size_t
parse_all(const uint8_t *data, size_t size, struct pdu_vb *vb)
{
	char line[512];
	size_t i = 0, n = 0, k;

	while (i < size && n < VB_MAX) {
		for (k = 0; i < size && data[i] != '\n'; i++)
			if (k + 1 < sizeof(line))
				line[k++] = data[i] ? (char)data[i] : ' ';
		i++;
		line[k] = '\0';
		if (k > 0 && line[k - 1] == '\r')
			line[k - 1] = '\0';
		if (parse_line(line, &vb[n]) == 0)
			n++;
	}
	return n;
}

static int
vb_cmp(const void *a, const void *b)
{
	return pdu_oid_cmp(&((const struct pdu_vb *)a)->oid,
	    &((const struct pdu_vb *)b)->oid);
}

/* The first varbind of vb (sorted, n) whose OID is >= o (> o: after). */
static size_t
lower(const struct pdu_vb *vb, size_t n, const struct pdu_oid *o, int after)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = pdu_oid_cmp(&vb[mid].oid, o);
		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
check_text(const char *s, size_t len, int labels)
{
	size_t n = strnlen(s, len);

	if (n == len)
		abort();	/* not NUL-terminated */
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f ||
		    (labels && (*s == ';' || *s == '=')))
			abort();
}

static void
decode_row(const struct pdu_profile *p, const struct pdu_row *row,
    const struct pdu_vb *vb, size_t n)
{
	struct pdu_oid o;
	struct wp_sample s;
	struct wp_err err;
	char buf[128];
	size_t i;
	int col, rc;

	pdu_row_series(p, row, buf, sizeof(buf));
	check_text(buf, sizeof(buf), 0);
	pdu_row_path(p, row, buf, sizeof(buf));
	check_text(buf, sizeof(buf), 0);
	for (col = PDU_COL_READ_FIRST; col <= PDU_COL_READ_LAST; col++) {
		if (!PDU_HAS(row, col) || pdu_get_oid(p, row, col, &o) < 0)
			continue;
		i = lower(vb, n, &o, 0);
		if (i == n || pdu_oid_cmp(&vb[i].oid, &o) != 0)
			continue;
		rc = pdu_decode_value(p, row, col, &vb[i], &s, &err);
		if (rc < -1 || rc > 1)
			abort();
		if (rc == 1 && (sample_validate(&s, &err) != 0 ||
		    !isfinite(s.value) || s.quantity != pdu_col_quantity(col)))
			abort();
	}
}

static void
probe(const struct pdu_profile *p, const struct pdu_vb *vb, size_t n)
{
	struct pdu_oid asked[32];
	struct pdu_probe_ans a;
	size_t na, i, best;

	na = pdu_probe_oids(p, asked, 32);
	if (na > 32)
		abort();
	for (i = 0; i < na; i++) {
		/* GETNEXT: the smallest OID after asked. */
		best = lower(vb, n, &asked[i], 1);
		if (best == n)
			continue;
		pdu_probe_answer(&asked[i], &vb[best], &a);
		if (pdu_probe_hit(p, &asked[i], &a) < 0)
			abort();
	}
}

static void
run(const struct pdu_profile *p, const struct pdu_vb *vb, size_t n,
    long only_unit)
{
	struct pdu_rows r = { 0 };
	struct pdu_finish fo = { .only_unit = only_unit };
	struct wp_err err;
	size_t i;

	r.total_role = -1;
	for (i = 0; i < n; i++)
		if (pdu_rows_add(p, &r, &vb[i], &err) < 0)
			break;
	pdu_rows_finish(p, &r, &fo);
	check_text(fo.warn, sizeof(fo.warn), 0);
	if (r.n > n)
		abort();	/* a row needs a varbind */
	if (pdu_rows_readings(p, &r) > r.n * PDU_NCOL)
		abort();
	for (i = 0; i < r.n; i++)
		if (pdu_row_reported(p, &r, &r.v[i]))
			decode_row(p, &r.v[i], vb, n);
	pdu_rows_fini(&r);
	probe(p, vb, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pdu_vb vb[VB_MAX];
	static const struct pdu_oid sysoid_at = { { 1, 3, 6, 1, 2, 1, 1, 2, 0 },
	    9 };
	struct pdu_oid sysoid;
	struct wp_err err;
	char label[PDU_DESCR_LABEL_MAX * 4 + 8];
	size_t n, i, m, best = 0, bestlen = 0;

	if (!loaded) {
		loaded = 1;
		if (pdu_profile_all(NULL, NULL, &profiles, &err) < 0 ||
		    profiles.n == 0)
			abort();
	}
	if (size < 1)
		return 0;
	n = parse_all(data, size, vb);
	qsort(vb, n, sizeof(vb[0]), vb_cmp);	/* as an agent walks them */
	for (i = 0; i < n; i++) {
		if (vb[i].type == PDU_V_STRING) {
			pdu_label_text(label, sizeof(label), vb[i].s);
			check_text(label, sizeof(label), 1);
			if (strlen(label) > PDU_DESCR_LABEL_MAX * 4)
				abort();
		}
		if (vb[i].type == PDU_V_OID &&
		    pdu_oid_cmp(&vb[i].oid, &sysoid_at) == 0 &&
		    pdu_oid_parse(vb[i].s, &sysoid) == 0)
			for (m = 0; m < profiles.n; m++) {
				size_t l = pdu_profile_sysoid_match(
				    profiles.v[m], &sysoid);

				if (l > bestlen) {
					bestlen = l;
					best = m;
				}
			}
	}
	if (bestlen > 0)
		run(profiles.v[best], vb, n, -1);
	run(profiles.v[data[0] % profiles.n], vb, n, (data[0] & 0x80) ? 1 : -1);
	return 0;
}
