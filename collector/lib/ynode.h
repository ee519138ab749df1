/*
 * ynode.h - the YAML node API: one YAML document as a tree of struct ynode
 * with line numbers, and the lookups every reader of wattpath's YAML walks
 * it with (the config, PDU profiles, meter maps, drivers' blocks).
 *
 * Only plain mappings, lists and scalars: aliases, non-scalar keys,
 * duplicate keys, NUL characters and more than one document are reported
 * (to the struct diag given to ynode_parse) and the value left out.
 * Lookups return borrowed nodes (valid while the tree lives) or NULL.
 * Typed getters: 0 found and valid, 1 absent (out untouched), -1 invalid
 * with the message in err prefixed "line N: KEY: " (the config reader moves
 * that line into FILE:LINE); bools accept true/false, yes/no, on/off;
 * durations as clock_parse_duration.
 */
#ifndef WP_YNODE_H
#define WP_YNODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "clock.h"
#include "err.h"

struct diag;

enum ynode_type { YN_SCALAR, YN_MAP, YN_SEQ };

#define YNODE_KEY_MAX	64	/* longest key a suggestion is looked up for */

struct ynode {
	int		 type;		/* enum ynode_type */
	char		*key;		/* key when a map member, else NULL */
	char		*value;		/* scalars only */
	int		 line;		/* 1-based line in the file */
	struct ynode	*child;		/* first member (map, seq) */
	struct ynode	*last;		/* last member: appending is O(1) */
	struct ynode	*next;		/* next sibling */
	const char	*file;		/* source file when not the main one
					   (a nodes CSV's rows), else NULL */
};

/* Parses the one document of f.  Returns its root (caller frees with
 * ynode_free), or NULL with the problems added to d. */
struct ynode	*ynode_parse(FILE *f, struct diag *d);
/* A new node (key, value copied; NULL allowed), or NULL out of memory. */
struct ynode	*ynode_new(int type, const char *key, const char *value,
		    int line);
/* Frees n, its children and its following siblings; NULL-safe. */
void		 ynode_free(struct ynode *n);
/* Appends c as the last child of parent (taken over). */
void		 ynode_append(struct ynode *parent, struct ynode *c);
/* The number of n's members (a map's or a list's; 0 for a scalar). */
size_t		 ynode_count(const struct ynode *n);
/* "a mapping", "a list", "a single value". */
const char	*ynode_type_name(int type);

const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* The scalar at key, or NULL (absent or not a scalar). */
const char	*ynode_str(const struct ynode *map, const char *key);
int	 ynode_bool(const struct ynode *map, const char *key, bool *out,
	    struct wp_err *err);
int	 ynode_int(const struct ynode *map, const char *key, long min,
	    long max, long *out, struct wp_err *err);
int	 ynode_double(const struct ynode *map, const char *key, double *out,
	    struct wp_err *err);
int	 ynode_duration(const struct ynode *map, const char *key,
	    wp_time *out, struct wp_err *err);
/* Whether key is one of the NULL-ended list. */
bool	 ynode_key_in(const char *key, const char *const *list);
/* The known key (of the NULL-ended lists a and b; b may be NULL) that the
 * unknown key is most likely a typo of, or NULL: the nearest by edit
 * distance (case folded; a key that is a word-prefix of a known one, as
 * "ttft" of "ttft_ms", counts as one edit), if close enough. */
const char *ynode_key_nearest(const char *key, const char *const *a,
	    const char *const *b);
/* "unknown key 'k' (did you mean 'known'?)", else, for a block of at most
 * 8 keys, "unknown key 'k' (known: a, b, c)", else "unknown key 'k'" into
 * buf: the one wording of every unknown key.  snprintf's result (the text
 * is cut at len). */
int	 ynode_key_hint(char *buf, size_t len, const char *key,
	    const char *const *a, const char *const *b);
/* Fails naming the first key of map not in the NULL-ended allowed list. */
int	 ynode_check_keys(const struct ynode *map,
	    const char *const *allowed, struct wp_err *err);

/* The scalar grammars of the getters: 0, or -1 when s is not one. */
int	 ynode_parse_bool(const char *s, bool *out);
int	 ynode_parse_long(const char *s, long min, long max, long *out);
int	 ynode_parse_double(const char *s, double *out);

#endif
