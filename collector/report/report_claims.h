/*
 * report_claims.h - the instrument ledger under data_dir
 * (instrument-claims.csv, format: model/claims.h): read before a report
 * so that each instrument offers only what finalised reports left of it,
 * and appended to when a report is finalised (`wattpath report ...
 * --finalise`), under an exclusive lock, after checking again that every
 * claim still fits its instrument and that the same report (site and
 * window) was not finalised before.
 */
#ifndef WP_REPORT_CLAIMS_H
#define WP_REPORT_CLAIMS_H

#include "../../model/report.h"
#include "../lib/err.h"

struct wp_conf;

#define REPORT_CLAIMS_FILE	"instrument-claims.csv"

/* Sets d's instruments' claimed_kwh from the ledger, leaving out the
 * report of c's site over [from, to) itself.  An unreadable ledger: the
 * message into d->claims_err and every instrument counted as used up. */
void	 report_claims_load(const struct wp_conf *c, wp_time from, wp_time to,
	    struct report_site_data *d);

/* Records r's claims (r->carbon.claims) in the ledger and sets
 * r->carbon.finalised.  0, or -1 with err (nothing recorded). */
int	 report_claims_finalise(const struct wp_conf *c, struct report *r,
	    struct wp_err *err);

#endif
