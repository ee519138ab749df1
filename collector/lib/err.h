/*
 * err.h - error classes and the caller-provided error buffer.
 *
 * Functions that can fail return 0 / -1 (or NULL) and fill a struct wp_err
 * owned by the caller.  The class tells the scheduler what to do next:
 * TRANSIENT retries later with backoff, PROTOCOL logs once and keeps polling,
 * CONFIG and AUTH need a person, INTERNAL is our bug.  Messages never carry
 * secrets.
 */
#ifndef WP_ERR_H
#define WP_ERR_H

#include <stddef.h>

enum wp_err_class {
	WP_E_NONE = 0,
	WP_E_TRANSIENT,		/* timeout, refused, 5xx: retry later */
	WP_E_PROTOCOL,		/* malformed or absurd reply */
	WP_E_CONFIG,		/* bad configuration */
	WP_E_AUTH,		/* credentials refused */
	WP_E_INTERNAL		/* our bug, or out of memory */
};

#define WP_ERR_MSG 256

struct wp_err {
	int	 class;			/* enum wp_err_class */
	char	 msg[WP_ERR_MSG];
};

/* Sets class and a printf-formatted message; err may be NULL.  Returns -1. */
int	 err_set(struct wp_err *err, int class, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with "prefix: "; err may be NULL. */
void	 err_prefix(struct wp_err *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 err_clear(struct wp_err *err);
/* Short stable name of a class, for logs and the "reason" label. */
const char *err_class_name(int class);

#endif
