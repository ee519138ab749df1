/* redfish_model.c - helpers on what discovery learns (no I/O). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "redfish_model.h"

void *
rf_pool_alloc(struct rf_disc *d, size_t size)
{
	struct blk *b;

	if ((b = calloc(1, sizeof(*b) + size)) == NULL)
		return NULL;
	b->next = d->pool;
	d->pool = b;
	return b->data;
}

int
rf_grow(void **v, size_t n, size_t *cap, size_t size, size_t first)
{
	void *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	if ((nv = realloc(*v, ncap * size)) == NULL)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

void
rf_note(struct rf_disc *d, const char *fmt, ...)
{
	char buf[WP_ERR_MSG], *s;
	va_list ap;
	size_t i;

	if (d->quiet > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < d->n_notes; i++)
		if (strcmp(d->notes[i], buf) == 0)
			return;		/* said once */
	if (d->n_notes == MAX_NOTES ||
	    (s = rf_pool_alloc(d, strlen(buf) + 1)) == NULL) {
		d->notes_dropped++;
		return;
	}
	memcpy(s, buf, strlen(buf) + 1);
	d->notes[d->n_notes++] = s;
}

void
rf_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

void
rf_copy_uri(char *dst, size_t len, const char *src)
{
	size_t n;

	rf_copy(dst, len, src);
	n = strlen(dst);
	while (n > 1 && dst[n - 1] == '/')
		dst[--n] = '\0';
}

const char *
rf_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

const char *
rf_link_in(struct json_object *doc, const char *key, size_t i)
{
	struct json_object *l, *v;

	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, "Links", &l) ||
	    !json_object_is_type(l, json_type_object) ||
	    !json_object_object_get_ex(l, key, &v))
		return NULL;
	if (json_object_is_type(v, json_type_array))
		v = i < json_object_array_length(v) ?
		    json_object_array_get_idx(v, i) : NULL;
	else if (i > 0)
		v = NULL;
	return v ? rf_link(v, NULL) : NULL;
}

bool
rf_same_uri(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	while (na > 1 && a[na - 1] == '/')
		na--;
	while (nb > 1 && b[nb - 1] == '/')
		nb--;
	return na == nb && strncmp(a, b, na) == 0;
}

struct chassis *
rf_chassis_by_uri(struct rf_disc *d, const char *uri)
{
	size_t i;

	for (i = 0; uri != NULL && i < d->n_ch; i++)
		if (rf_same_uri(d->ch[i].uri, uri))
			return &d->ch[i];
	return NULL;
}

struct system *
rf_system_by_uri(struct rf_disc *d, const char *uri)
{
	size_t i;

	for (i = 0; uri != NULL && i < d->n_sys; i++)
		if (rf_same_uri(d->sys[i].uri, uri))
			return &d->sys[i];
	return NULL;
}

const struct manager *
rf_manager_by_uri(const struct rf_disc *d, const char *uri)
{
	size_t i;

	for (i = 0; uri != NULL && uri[0] && i < d->n_mgr; i++)
		if (rf_same_uri(d->mgr[i].uri, uri))
			return &d->mgr[i];
	return NULL;
}

int
rf_chassis_index(const struct rf_disc *d, const struct chassis *c)
{
	return (int)(c - d->ch);
}

bool
rf_system_has(const struct system *s, const struct chassis *c)
{
	int i;

	for (i = 0; i < c->n_systems; i++)
		if (rf_same_uri(c->systems[i], s->uri))
			return true;
	for (i = 0; i < s->n_chassis; i++)
		if (rf_same_uri(s->chassis[i], c->uri))
			return true;
	return c->id[0] != '\0' && strcmp(c->id, s->id) == 0;
}
