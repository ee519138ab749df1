/*
 * promwrite.h - the Prometheus remote-write 1.0 body of a text exposition.
 *
 * The text (format 0.0.4, as /metrics serves it) is parsed line by line:
 * every sample line "name{k="v",...} value [timestamp]" becomes one
 * TimeSeries of one Sample at ts_ms (the line's own timestamp, if any, is
 * ignored: a body is one instant); comments and blank lines are skipped.
 * Labels are sorted by name with __name__ among them; a label with an
 * empty value is left out (the specification: empty means absent); extra
 * labels (name, value pairs, NULL-ended; NULL: none) are added to every
 * series that has no label of that name.  The
 * WriteRequest (collector/lib/remote.proto, packed by protobuf-c) is then
 * compressed with snappy's block format, as the protocol requires.
 */
#ifndef WP_PROMWRITE_H
#define WP_PROMWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define PROMWRITE_MAX_LABELS	32	/* per series, __name__ included */

/*
 * Packs text[0..len) into a WriteRequest (not compressed).  Returns 0 with
 * *out a new buffer (caller frees) of *out_len bytes and *n_samples the
 * samples in it, or -1 with err (a line that does not parse, named by its
 * number; out of memory).
 */
int	 promwrite_pack(const char *text, size_t len, int64_t ts_ms,
	    const char *const *extra, uint8_t **out, size_t *out_len,
	    size_t *n_samples, struct wp_err *err);
/* promwrite_pack, then snappy: the body to POST.  Same contract. */
int	 promwrite_encode(const char *text, size_t len, int64_t ts_ms,
	    const char *const *extra, uint8_t **out, size_t *out_len,
	    size_t *n_samples, struct wp_err *err);

#endif
