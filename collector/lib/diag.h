/*
 * diag.h - diagnostics of a configuration read: every problem found, each
 * an error or a warning at a file and line, reported together and in file
 * and line order (the main file first) rather than the first one only.
 * The config, its nodes CSV, PDU profiles, meter maps and the drivers'
 * validate hooks all report through one struct diag.
 */
#ifndef WP_DIAG_H
#define WP_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct wp_err;
struct ynode;

struct diag_item {
	const char	*file;		/* borrowed; the main file when NULL given */
	int		 line;		/* 1-based, 0: the file as a whole */
	bool		 warn;
	size_t		 seq;		/* order of report, for a stable sort */
	char		*msg;		/* owned */
};

struct diag {
	const char	*main_file;	/* borrowed */
	struct diag_item *v;
	size_t		 n, cap;
	size_t		 n_err;		/* items that are errors */
};

/* Adds an item (file NULL: the main file).  Out of memory drops it. */
void	 diag_add(struct diag *d, const char *file, int line, bool warn,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void	 diag_vadd(struct diag *d, const char *file, int line, bool warn,
	    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
/* Adds an item at node at (its file and line; NULL: the main file, line
 * 0). */
void	 diag_at(struct diag *d, const struct ynode *at, bool warn,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Adds err's message at the line it names ("line N: " taken out of it, as
 * the ynode getters write them), else at at; prefixed "where: " unless
 * where is NULL or the message already starts with it. */
void	 diag_err(struct diag *d, const struct ynode *at, const char *where,
	    const struct wp_err *err, bool warn);
/* The first error of d (in report order) into err as "line N: message"
 * (WP_E_CONFIG): -1, or 0 when d holds no error.  For a driver's
 * target_new, which parses with the same code its validate hook uses. */
int	 diag_to_err(const struct diag *d, struct wp_err *err);
/* diag_to_err, then diag_fini: the target_new side of a driver's reader. */
int	 diag_take_err(struct diag *d, struct wp_err *err);
/* *dst = a copy of s (s NULL: *dst untouched); out of memory is an error
 * at node at, "where: out of memory". */
void	 diag_strdup(struct diag *d, const struct ynode *at, const char *where,
	    char **dst, const char *s);
/* Orders the items: the main file first, then by file, line and report. */
void	 diag_sort(struct diag *d);
/* Frees every item; d is empty after (main_file kept). */
void	 diag_fini(struct diag *d);

#endif
