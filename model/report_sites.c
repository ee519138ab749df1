/* report_sites.c - the fleet over several sites (see report_sites.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_sites.h"

/* The sites without a figure at boundary b, "a, b" into buf. */
static void
missing(const struct report_site_row *rows, size_t n, int b, char *buf,
    size_t len)
{
	size_t i, k = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (!rows[i].r->bnd[b].fig.v.valid) {
			k = strlen(buf);
			snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
			    rows[i].name);
		}
}

static void
sum_bnd(struct report_sites *s, int b)
{
	struct report_sites_bnd *f = &s->b[b];
	char who[512];
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct bnd_value *v = &s->rows[i].r->bnd[b].fig.v;

		if (!v->valid)
			continue;
		f->sites++;
		f->energy_j += v->energy_j;
		f->bound_j += v->bound_j;
	}
	f->valid = f->sites == s->n;
	f->j_per_output_token = f->valid && s->out > 0 ? f->energy_j / s->out :
	    NAN;
	if (f->valid || f->sites == 0)
		return;
	missing(s->rows, s->n, b, who, sizeof(who));
	report_warn(&s->w, "fleet: no %s figure: %zu of %zu sites have one "
	    "(none at %s); a total over some sites would pass for the fleet's",
	    bnd_name(b), f->sites, s->n, who);
}

static void
sum_tokens(struct report_sites *s)
{
	size_t i;

	s->out = 0;
	for (i = 0; i < s->n; i++) {
		if (s->rows[i].r->out < 0) {
			report_warn(&s->w, "fleet: no output tokens at site %s: "
			    "no fleet J/token", s->rows[i].name);
			s->out = -1;
			return;
		}
		s->out += s->rows[i].r->out;
	}
}

static void
sum_pue(struct report_sites *s)
{
	size_t i;

	s->pue = s->facility_j = s->it_j = NAN;
	for (i = 0; i < s->n; i++) {
		const struct report_pue *p = &s->rows[i].r->pue;

		if (p->source == NULL || strcmp(p->source, "metered") != 0 ||
		    !(p->it_j > 0)) {
			report_warn(&s->w, "fleet: no fleet PUE: site %s's PUE "
			    "is %s, not metered (the sites' facility figures "
			    "are still each their own)", s->rows[i].name,
			    p->source != NULL ? p->source : "none");
			s->facility_j = s->it_j = NAN;
			return;
		}
		s->facility_j = (i == 0 ? 0 : s->facility_j) + p->facility_j;
		s->it_j = (i == 0 ? 0 : s->it_j) + p->it_j;
	}
	s->pue = s->facility_j / s->it_j;
}

int
report_sites_sum(struct report_sites *s, const struct report_site_row *rows,
    size_t n)
{
	int b;

	memset(s, 0, sizeof(*s));
	s->rows = rows;
	s->n = n;
	sum_tokens(s);
	for (b = 0; b < BND_N; b++)
		sum_bnd(s, b);
	sum_pue(s);
	return s->w.oom ? -1 : 0;
}

void
report_sites_fini(struct report_sites *s)
{
	report_warnings_fini(&s->w);
}
