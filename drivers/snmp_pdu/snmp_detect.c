/* profile: auto, by sysObjectID and by probing tables; see snmp_detect.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/log.h"
#include "snmp_detect.h"

enum { ST_START, ST_PROBE, ST_RANKED, ST_DONE };

struct cand {
	char		 name[48];
	size_t		 match;		/* sysObjectID prefix length, 0 none */
	int		 score;		/* columns that answered; -1 unprobed */
	bool		 tried;		/* handed over (walked) */
	bool		 probing;	/* in the probe being sent */
};

struct sp_detect {
	struct pdu_profiles all;
	struct cand	*c;
	struct pdu_oid	 sysoid;
	bool		 have_sysoid;
	bool		 generic;	/* names no product: matches nothing */
	int		 state;
	int		 round;		/* 0 sysObjectID matches, 1 all, 2
					   fallbacks */
	size_t		 probed;	/* profiles probed so far */
	bool		 probe_used;	/* the choice came from a probe */
	bool		 loops;		/* an answer was a GETNEXT loop */
	struct pdu_oid	*asked;
	struct pdu_probe_ans *ans;
	size_t		 nasked;
	char		 empty[160];	/* profiles that walked empty */
	char		 reason[400];
};

struct sp_detect *
sp_detect_new(const char *maps_dir, const char *conf_dir,
    const struct pdu_oid *sysoid,
    struct wp_err *err)
{
	struct sp_detect *d = calloc(1, sizeof(*d));
	size_t i;

	if (d == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if (pdu_profile_all(maps_dir, conf_dir, &d->all, err) < 0)
		goto fail;
	if ((d->c = calloc(d->all.n + 1, sizeof(*d->c))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	if (sysoid != NULL && sysoid->n > 0) {
		d->sysoid = *sysoid;
		d->have_sysoid = true;
	}
	d->generic = d->have_sysoid && PDU_SYSOID_GENERIC(&d->sysoid);
	for (i = 0; i < d->all.n; i++) {
		d->c[i].score = -1;
		snprintf(d->c[i].name, sizeof(d->c[i].name), "%s",
		    d->all.v[i]->name);
		if (d->have_sysoid && !d->generic &&
		    d->all.v[i]->detect != PDU_DETECT_NEVER)
			d->c[i].match = pdu_profile_sysoid_match(d->all.v[i],
			    &d->sysoid);
	}
	return d;
fail:
	sp_detect_free(d);
	return NULL;
}

void
sp_detect_free(struct sp_detect *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->all.n; i++)	/* handed-over ones are NULL */
		pdu_profile_free(d->all.v[i]);
	d->all.n = 0;
	pdu_profiles_free(&d->all);
	free(d->c);
	free(d->asked);
	free(d->ans);
	free(d);
}

static int
oid_cmp(const void *a, const void *b)
{
	return pdu_oid_cmp(a, b);
}

/* Whether profile i is probed in this round. */
static bool
in_round(const struct sp_detect *d, size_t i)
{
	const struct pdu_profile *p = d->all.v[i];

	if (p == NULL || d->c[i].tried || d->c[i].score >= 0)
		return false;
	switch (d->round) {
	case 0:
		return d->c[i].match > 0;
	case 1:
		return p->detect == PDU_DETECT_PROBE;
	default:
		return p->detect == PDU_DETECT_FALLBACK;
	}
}

/* The GETNEXTs of this round: the union of the profiles' reading
 * columns, sorted, each once.  Returns how many profiles take part. */
static size_t
build_probe(struct sp_detect *d)
{
	struct pdu_oid o[PDU_TABLES_MAX * 5];
	size_t i, j, k, np = 0;

	d->nasked = 0;
	for (i = 0; i < d->all.n; i++) {
		d->c[i].probing = in_round(d, i);
		if (!d->c[i].probing)
			continue;
		k = pdu_probe_oids(d->all.v[i], o, sizeof(o) / sizeof(o[0]));
		if (d->nasked + k > DETECT_ASK_MAX) {
			log_warnx("profile auto: more than %d columns to probe: "
			    "%s and later profiles are not probed",
			    DETECT_ASK_MAX, d->all.v[i]->name);
			d->c[i].probing = false;
			continue;
		}
		np++;
		for (j = 0; j < k; j++)
			d->asked[d->nasked++] = o[j];
	}
	if (d->nasked > 1)
		qsort(d->asked, d->nasked, sizeof(d->asked[0]), oid_cmp);
	for (i = 0, j = 0; i < d->nasked; i++)
		if (j == 0 || pdu_oid_cmp(&d->asked[j - 1], &d->asked[i]) != 0)
			d->asked[j++] = d->asked[i];
	d->nasked = j;
	memset(d->ans, 0, DETECT_ASK_MAX * sizeof(d->ans[0]));
	return np;
}

/* The best untried candidate: probed with a score, or a lone sysObjectID
 * match before any probe.  -1 none. */
static long
best(const struct sp_detect *d)
{
	long b = -1;
	size_t i;

	for (i = 0; i < d->all.n; i++) {
		const struct cand *c = &d->c[i];

		if (d->all.v[i] == NULL || c->tried || c->score <= 0)
			continue;
		if (b < 0 || c->score > d->c[b].score || (c->score ==
		    d->c[b].score && c->match > d->c[b].match))
			b = (long)i;
	}
	return b;
}

/* What the start does: the one profile sysObjectID names, or a probe. */
static long
start(struct sp_detect *d)
{
	size_t i, n = 0;
	long one = -1;

	for (i = 0; i < d->all.n; i++)
		if (d->c[i].match > 0) {
			n++;
			one = (long)i;
		}
	d->round = n == 0 ? 1 : 0;
	return n == 1 ? one : -1;
}

static long
handover(struct sp_detect *d, long i, struct pdu_profile **p)
{
	*p = d->all.v[i];
	d->all.v[i] = NULL;
	d->c[i].tried = true;
	return 1;
}

int
sp_detect_next(struct sp_detect *d, struct pdu_profile **p,
    struct wp_err *err)
{
	long i;

	if (d->state == ST_START) {
		d->state = ST_RANKED;
		if ((i = start(d)) >= 0)
			return (int)handover(d, i, p);
	}
	for (;;) {
		if ((i = best(d)) >= 0) {
			d->probe_used = true;
			return (int)handover(d, i, p);
		}
		if (d->round > 2)
			break;
		if ((d->asked == NULL && (d->asked = calloc(DETECT_ASK_MAX,
		    sizeof(*d->asked))) == NULL) || (d->ans == NULL &&
		    (d->ans = calloc(DETECT_ASK_MAX, sizeof(*d->ans))) ==
		    NULL))
			return err_set(err, WP_E_INTERNAL, "out of memory");
		if (build_probe(d) > 0 && d->nasked > 0) {
			d->state = ST_PROBE;
			return 0;
		}
		d->round++;
	}
	d->state = ST_DONE;
	sp_detect_reason(d, NULL);
	return err_set(err, WP_E_CONFIG, "profile auto: %s; set profile: "
	    "explicitly", d->reason);
}

const struct pdu_oid *
sp_detect_asked(const struct sp_detect *d, size_t i)
{
	return d->state == ST_PROBE && i < d->nasked ? &d->asked[i] : NULL;
}

void
sp_detect_answer(struct sp_detect *d, size_t i, const struct pdu_vb *vb)
{
	if (i >= d->nasked)
		return;
	pdu_probe_answer(&d->asked[i], vb, &d->ans[i]);
	if (d->ans[i].state == PDU_ANS_LOOP && !d->loops) {
		char a[200];

		d->loops = true;
		pdu_oid_format(&d->asked[i], a, sizeof(a));
		log_warnx("profile auto: the agent answered GETNEXT %s with "
		    "an OID not greater (a GETNEXT loop): that column counts "
		    "as empty", a);
	}
}

/* The answer to asked o, or NULL. */
static const struct pdu_probe_ans *
answer_of(const struct sp_detect *d, const struct pdu_oid *o)
{
	const struct pdu_oid *k = bsearch(o, d->asked, d->nasked,
	    sizeof(d->asked[0]), oid_cmp);

	return k == NULL ? NULL : &d->ans[k - d->asked];
}

void
sp_detect_scored(struct sp_detect *d)
{
	struct pdu_oid o[PDU_TABLES_MAX * 5];
	const struct pdu_probe_ans *a;
	size_t i, j, k;

	for (i = 0; i < d->all.n; i++) {
		if (!d->c[i].probing)
			continue;
		d->c[i].probing = false;
		d->c[i].score = 0;
		d->probed++;
		k = pdu_probe_oids(d->all.v[i], o, sizeof(o) / sizeof(o[0]));
		for (j = 0; j < k; j++)
			if ((a = answer_of(d, &o[j])) != NULL)
				d->c[i].score += pdu_probe_hit(d->all.v[i],
				    &o[j], a);
	}
	d->state = ST_RANKED;
	d->round++;
}

void
sp_detect_empty(struct sp_detect *d, const char *name)
{
	size_t n = strlen(d->empty);

	snprintf(d->empty + n, sizeof(d->empty) - n, "%s%s", n ? ", " : "",
	    name);
}

const char *
sp_detect_label(const struct sp_detect *d)
{
	return d->probe_used ? "probe" : "sysObjectID";
}

/* "sysObjectID X" or "no sysObjectID". */
static void
sysoid_text(const struct sp_detect *d, char *buf, size_t len)
{
	char s[200];

	if (!d->have_sysoid) {
		snprintf(buf, len, "the agent gives no sysObjectID");
		return;
	}
	pdu_oid_format(&d->sysoid, s, sizeof(s));
	snprintf(buf, len, "sysObjectID %s%s", s, d->generic ?
	    " (generic: names no product)" : "");
}

/* Appends to d->reason like snprintf. */
static void
add(struct sp_detect *d, const char *fmt, const char *a, long n)
{
	size_t o = strlen(d->reason);

	if (o + 1 < sizeof(d->reason))
		snprintf(d->reason + o, sizeof(d->reason) - o, fmt, a, n);
}

/* The probed profiles that answered, best first: " (a 6, b 2)". */
static void
add_scores(struct sp_detect *d)
{
	size_t i;
	int top = 0, s;
	bool first = true;

	for (i = 0; i < d->all.n; i++)
		top = d->c[i].score > top ? d->c[i].score : top;
	for (s = top; s > 0; s--)
		for (i = 0; i < d->all.n; i++) {
			if (d->c[i].score != s)
				continue;
			add(d, first ? " (columns that answered: %s %ld" :
			    ", %s %ld", d->c[i].name, s);
			first = false;
		}
	if (!first)
		add(d, ")%s", "", 0);
}

const char *
sp_detect_reason(struct sp_detect *d, const char *chosen)
{
	char so[240];
	size_t n = 0, i;

	sysoid_text(d, so, sizeof(so));
	for (i = 0; i < d->all.n; i++)
		n += d->c[i].match > 0;
	d->reason[0] = '\0';
	if (!d->probe_used && chosen != NULL) {
		add(d, "%s matches the sys_object_ids of", so, 0);
		add(d, " %s", chosen, 0);
		return d->reason;
	}
	add(d, "%s", so, 0);
	add(d, "%s", d->generic ? "" : n == 0 ? " (no profile matches it)" :
	    n > 1 ?
	    " (matches several profiles)" : "", 0);
	add(d, "; probed the tables of %s%ld profile(s)", "", (long)d->probed);
	if (chosen != NULL)
		add(d, ": %s answered best", chosen, 0);
	else
		add(d, ": none answered with power or energy rows%s", "", 0);
	add_scores(d);
	if (d->empty[0] != '\0')
		add(d, "; found no rows: %s", d->empty, 0);
	return d->reason;
}
