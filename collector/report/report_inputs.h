/*
 * report_inputs.h - the files a report reads besides the journal: the
 * grid's hourly carbon intensity, the contractual instruments and the
 * hourly prices that site: names (paths relative to the config file's
 * folder), parsed by model/carbon.h.  A file that cannot be read or parsed
 * is not an error: its message becomes the report's warning where the
 * figure needs it, and the figure is left out or falls back.
 */
#ifndef WP_REPORT_INPUTS_H
#define WP_REPORT_INPUTS_H

#include <stddef.h>

#include "../../model/report.h"
#include "../lib/err.h"

struct wp_conf;

/* Reads c's site files into d (zeroed by the caller).  Caller frees with
 * report_site_data_fini. */
void	 report_site_data_load(const struct wp_conf *c,
	    struct report_site_data *d);
void	 report_site_data_fini(struct report_site_data *d);	/* NULL-safe */
/* The whole of file path, NUL-terminated, its length in *len: of at most
 * max bytes (more is an error).  Caller frees with free().  NULL with err:
 * WP_E_CONFIG (cannot open or read it, naming the cause; too large),
 * WP_E_INTERNAL (out of memory). */
char	*report_file_read(const char *path, size_t max, size_t *len,
	    struct wp_err *err);

#endif
