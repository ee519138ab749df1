/*
 * report_period.h - the annual table (`wattpath report --period
 * month|year`, docs/report.md "Period table"): the query's window split
 * into UTC calendar months (a month the window cuts is marked partial),
 * one report per month (report_api.h: the ledger for whole slots, raw
 * records at the edges), and per month kWh per boundary, PUE with its
 * category, tokens and J/token, location- and market-based kgCO2e and
 * cost, by site and by node class, with the period's total.  Written as
 * JSON, Markdown or tidy CSV (one row per month x scope x boundary).
 */
#ifndef WP_REPORT_PERIOD_H
#define WP_REPORT_PERIOD_H

#include <stdio.h>

#include <json-c/json.h>

#include "../lib/err.h"

struct wp_conf;
struct report_query;

/* The table's document (caller frees with json_object_put), or NULL with
 * err (out of memory, an unreadable journal).  A month whose report is
 * refused has its "error" set and no figures. */
json_object	*report_period_doc(const struct wp_conf *c,
		    const struct report_query *q, const char *period,
		    struct wp_err *err);
void		 report_period_md_write(FILE *f, json_object *doc);
void		 report_period_csv_write(FILE *f, json_object *doc);

#endif
