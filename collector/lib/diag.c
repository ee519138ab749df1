#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

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
