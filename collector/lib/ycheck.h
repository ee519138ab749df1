/*
 * ycheck.h - checked reads of a YAML mapping for validation: every
 * problem goes to a struct diag at its line, prefixed "where: " (how the
 * caller names the block, e.g. "node gpu-001: bmc"), and reading goes on,
 * so one pass reports them all.  The config reader and the drivers'
 * validate hooks use these; the messages are the config's own.
 */
#ifndef WP_YCHECK_H
#define WP_YCHECK_H

#include <stdbool.h>

#include "clock.h"

struct diag;
struct ynode;

/* Reports every key of map not in the NULL-ended allowed list, as an
 * error "where: unknown key 'k' (did you mean 'known'?)" at its line (the
 * suggestion when one is close: ynode_key_nearest). */
void	 ycheck_keys(struct diag *d, const struct ynode *map,
	    const char *where, const char *const *allowed);
/* The same with a second list of allowed keys (NULL: none). */
void	 ycheck_keys_also(struct diag *d, const struct ynode *map,
	    const char *where, const char *const *allowed,
	    const char *const *also);
/* "key:" written with no value ("", "~", "null"). */
bool	 ycheck_is_null(const struct ynode *n);
/* The member key of map if it has the given type (enum ynode_type), else
 * NULL: reported when present with another type or empty, or when
 * required and absent; "key:" with no value is absent. */
const struct ynode *ycheck_typed(struct diag *d, const struct ynode *map,
	    const char *key, int type, const char *where, bool required);
/* A non-empty scalar, or NULL (reported as ycheck_typed does). */
const char *ycheck_scalar(struct diag *d, const struct ynode *map,
	    const char *key, const char *where, bool required);
/* Typed values: 1 absent, 0 set in *out, -1 invalid (reported).  range
 * names the bounds in the message ("1s..1h"). */
int	 ycheck_duration(struct diag *d, const struct ynode *map,
	    const char *key, const char *where, wp_time min, wp_time max,
	    const char *range, wp_time *out);
int	 ycheck_long(struct diag *d, const struct ynode *map, const char *key,
	    const char *where, long min, long max, long *out);
int	 ycheck_bool(struct diag *d, const struct ynode *map, const char *key,
	    const char *where, bool *out);
/* The value when it is one of choices (case-insensitive), else NULL
 * (reported with list, the choices as the message names them). */
const char *ycheck_enum(struct diag *d, const struct ynode *map,
	    const char *key, const char *where, const char *const *choices,
	    const char *list);

#endif
