/* ycheck.c - checked reads of YAML mappings; see ycheck.h. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "diag.h"
#include "ycheck.h"
#include "ynode.h"

void
ycheck_keys(struct diag *d, const struct ynode *map, const char *where,
    const char *const *allowed)
{
	ycheck_keys_also(d, map, where, allowed, NULL);
}

void
ycheck_keys_also(struct diag *d, const struct ynode *map, const char *where,
    const char *const *allowed, const char *const *also)
{
	const struct ynode *c;
	char hint[160];

	for (c = map->child; c != NULL; c = c->next) {
		if (ynode_key_in(c->key, allowed) || (also != NULL &&
		    ynode_key_in(c->key, also)))
			continue;
		ynode_key_hint(hint, sizeof(hint), c->key, allowed, also);
		diag_at(d, c, false, "%s%s%s", where ? where : "",
		    where ? ": " : "", hint);
	}
}

bool
ycheck_is_null(const struct ynode *n)
{
	return n->type == YN_SCALAR && (*n->value == '\0' ||
	    strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0);
}

const struct ynode *
ycheck_typed(struct diag *d, const struct ynode *map, const char *key,
    int type, const char *where, bool required)
{
	const struct ynode *n = ynode_get(map, key);

	if (n == NULL) {
		if (required)
			diag_at(d, map, false, "%s: missing required key '%s'",
			    where, key);
		return NULL;
	}
	if (type == YN_SCALAR && n->type == YN_SCALAR && *n->value == '\0') {
		diag_at(d, n, false, "%s: %s has no value", where, key);
		return NULL;
	}
	if (n->type != type && ycheck_is_null(n)) {
		/* "key:" with no value: the same as absent (a mapping or
		 * list left empty in a template). */
		if (required)
			diag_at(d, n, false, "%s: %s has no value", where, key);
		return NULL;
	}
	if (n->type != type) {
		diag_at(d, n, false, "%s: %s must be %s, not %s", where, key,
		    ynode_type_name(type), ynode_type_name(n->type));
		return NULL;
	}
	return n;
}

const char *
ycheck_scalar(struct diag *d, const struct ynode *map, const char *key,
    const char *where, bool required)
{
	const struct ynode *n;

	n = ycheck_typed(d, map, key, YN_SCALAR, where, required);
	if (n != NULL && *n->value == '\0') {
		diag_at(d, n, false, "%s: %s must not be empty", where, key);
		return NULL;
	}
	return n ? n->value : NULL;
}

int
ycheck_duration(struct diag *d, const struct ynode *map, const char *key,
    const char *where, wp_time min, wp_time max, const char *range,
    wp_time *out)
{
	const struct ynode *n;
	wp_time v;

	if ((n = ycheck_typed(d, map, key, YN_SCALAR, where, false)) == NULL)
		return ynode_get(map, key) ? -1 : 1;
	if (clock_parse_duration(n->value, &v) < 0) {
		diag_at(d, n, false, "%s: %s: '%s' is not a duration (like "
		    "10s, 5m, 1h, 1m30s)", where, key, n->value);
		return -1;
	}
	if (v < min || v > max) {
		diag_at(d, n, false, "%s: %s %s is out of range (%s)", where,
		    key, n->value, range);
		return -1;
	}
	*out = v;
	return 0;
}

int
ycheck_long(struct diag *d, const struct ynode *map, const char *key,
    const char *where, long min, long max, long *out)
{
	const struct ynode *n;

	if ((n = ycheck_typed(d, map, key, YN_SCALAR, where, false)) == NULL)
		return ynode_get(map, key) ? -1 : 1;
	if (ynode_parse_long(n->value, min, max, out) < 0) {
		diag_at(d, n, false, "%s: %s must be an integer in %ld..%ld, "
		    "not '%s'", where, key, min, max, n->value);
		return -1;
	}
	return 0;
}

int
ycheck_bool(struct diag *d, const struct ynode *map, const char *key,
    const char *where, bool *out)
{
	const struct ynode *n;

	if ((n = ycheck_typed(d, map, key, YN_SCALAR, where, false)) == NULL)
		return ynode_get(map, key) ? -1 : 1;
	if (ynode_parse_bool(n->value, out) < 0) {
		diag_at(d, n, false, "%s: %s must be true or false, not '%s'",
		    where, key, n->value);
		return -1;
	}
	return 0;
}

const char *
ycheck_enum(struct diag *d, const struct ynode *map, const char *key,
    const char *where, const char *const *choices, const char *list)
{
	const char *v = ycheck_scalar(d, map, key, where, false);
	size_t i;

	if (v == NULL)
		return NULL;
	for (i = 0; choices[i] != NULL; i++)
		if (strcasecmp(v, choices[i]) == 0)
			return v;
	diag_at(d, ynode_get(map, key), false, "%s: %s must be one of %s, "
	    "not '%s'", where, key, list, v);
	return NULL;
}
