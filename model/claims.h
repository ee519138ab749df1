/*
 * claims.h - the instrument ledger's claims (pure): what finalised reports
 * have claimed of each contractual instrument, so that no MWh is claimed
 * twice across overlapping reports.  The ledger is a CSV the report's I/O
 * keeps under data_dir (collector/report/report_claims.c): one row per
 * instrument a finalised report claimed from, never rewritten:
 *   id,hour,kwh,site,window_from,window_to,finalised_at
 * (hour: the hourly record's start as epoch seconds, 0 for a volume
 * instrument; times epoch seconds).  Parsing takes the file's bytes.
 */
#ifndef WP_CLAIMS_H
#define WP_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"
#include "carbon.h"

#define CLAIMS_HEADER	"id,hour,kwh,site,window_from,window_to," \
	"finalised_at\n"

struct claim {
	char	 id[64];
	wp_time	 hour;
	double	 kwh;
	char	 site[64];		/* "" none named */
	wp_time	 from, to;		/* the finalised report's window */
	wp_time	 at;			/* when it was finalised */
};

/* Parses a ledger (an empty buffer is an empty ledger).  Caller frees *out
 * with free().  0, or -1 with err naming the line. */
int	 claims_parse(const char *buf, size_t len, struct claim **out,
	    size_t *n, struct wp_err *err);

/* Whether claim c was made by the report of site over [from, to). */
bool	 claims_same_report(const struct claim *c, const char *site,
	    wp_time from, wp_time to);

/*
 * Sets each instrument's claimed_kwh to the kWh the ledger's claims on it
 * (same id and hour) add up to, leaving out the claims of the report of
 * site over [from, to) itself (so a finalised report shows the same
 * figures when run again).
 */
void	 claims_apply(struct carbon_instrument *in, size_t n_in,
	    const struct claim *c, size_t n_c, const char *site, wp_time from,
	    wp_time to);

/* One ledger row for c into out (with its newline); the length, or -1
 * when it does not fit or the id holds a comma, quote or newline. */
int	 claims_format(const struct claim *c, char *out, size_t len);

#endif
