#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <limits.h>

#include "diag.h"
#include "err.h"
#include "ynode.h"

void
diag_vadd(struct diag *d, const char *file, int line, bool warn,
    const char *fmt, va_list ap)
{
	struct diag_item *nv;
	char buf[1024];

	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 16;

		if ((nv = realloc(d->v, ncap * sizeof(*nv))) == NULL)
			return;
		d->v = nv;
		d->cap = ncap;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* a value quoted from the file may hold control characters: shown
	 * as '?', so that a message is one line and moves no cursor */
	for (char *q = buf; *q != '\0'; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	if ((d->v[d->n].msg = strdup(buf)) == NULL)
		return;
	d->v[d->n].file = file ? file : d->main_file;
	d->v[d->n].line = line;
	d->v[d->n].warn = warn;
	d->v[d->n].seq = d->n;
	d->n++;
	if (!warn)
		d->n_err++;
}

void
diag_add(struct diag *d, const char *file, int line, bool warn,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, file, line, warn, fmt, ap);
	va_end(ap);
}

void
diag_at(struct diag *d, const struct ynode *at, bool warn, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, at ? at->file : NULL, at ? at->line : 0, warn, fmt, ap);
	va_end(ap);
}

/* Takes the first "line N: " out of msg; returns N, or 0 when none. */
static int
take_line(char *msg)
{
	char *p, *end;
	long v;

	for (p = strstr(msg, "line "); p != NULL; p = strstr(p + 1, "line ")) {
		if (!isdigit((unsigned char)p[5]))
			continue;
		v = strtol(p + 5, &end, 10);
		if (end[0] != ':' || end[1] != ' ' || v <= 0 || v > INT_MAX)
			continue;
		memmove(p, end + 2, strlen(end + 2) + 1);
		return (int)v;
	}
	return 0;
}

void
diag_err(struct diag *d, const struct ynode *at, const char *where,
    const struct wp_err *err, bool warn)
{
	char msg[sizeof(err->msg)];
	size_t wl = where ? strlen(where) : 0;
	int line;

	snprintf(msg, sizeof(msg), "%s", err->msg);
	line = take_line(msg);
	if (line == 0)
		line = at ? at->line : 0;
	if (where == NULL || (strncmp(msg, where, wl) == 0 && msg[wl] == ':'))
		diag_add(d, at ? at->file : NULL, line, warn, "%s", msg);
	else
		diag_add(d, at ? at->file : NULL, line, warn, "%s: %s", where,
		    msg);
}

int
diag_to_err(const struct diag *d, struct wp_err *err)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!d->v[i].warn) {
			if (d->v[i].line > 0)
				return err_set(err, WP_E_CONFIG, "line %d: %s",
				    d->v[i].line, d->v[i].msg);
			return err_set(err, WP_E_CONFIG, "%s", d->v[i].msg);
		}
	return 0;
}

static int
item_cmp(const void *a, const void *b)
{
	const struct diag_item *x = a, *y = b;
	int c;

	if (x->file != y->file) {
		if ((c = strcmp(x->file, y->file)) != 0)
			return c;
	}
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

void
diag_sort(struct diag *d)
{
	struct diag_item tmp;
	size_t i, j;

	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), item_cmp);
	/* Stable move of the main file's items to the front. */
	for (i = 0, j = 0; i < d->n; i++) {
		if (strcmp(d->v[i].file, d->main_file) == 0) {
			tmp = d->v[i];
			memmove(&d->v[j + 1], &d->v[j], (i - j) * sizeof(tmp));
			d->v[j++] = tmp;
		}
	}
}

void
diag_fini(struct diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].msg);
	free(d->v);
	d->v = NULL;
	d->n = d->cap = d->n_err = 0;
}

int
diag_take_err(struct diag *d, struct wp_err *err)
{
	int rc = diag_to_err(d, err);

	diag_fini(d);
	return rc;
}

void
diag_strdup(struct diag *d, const struct ynode *at, const char *where,
    char **dst, const char *s)
{
	if (s != NULL && (*dst = strdup(s)) == NULL)
		diag_at(d, at, false, "%s: out of memory", where);
}
