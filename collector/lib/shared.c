/* shared.c - objects several targets of one driver share (a list). */
#include <stdlib.h>
#include <string.h>

#include "shared.h"

struct entry {
	struct entry	*next;
	char		*driver, *key;
	void		*obj;		/* borrowed */
};

struct wp_shared {
	struct entry	*head;
};

struct wp_shared *
shared_new(void)
{
	return calloc(1, sizeof(struct wp_shared));
}

static void
entry_free(struct entry *e)
{
	free(e->driver);
	free(e->key);
	free(e);
}

void
shared_free(struct wp_shared *s)
{
	struct entry *e;

	if (s == NULL)
		return;
	while ((e = s->head) != NULL) {
		s->head = e->next;
		entry_free(e);
	}
	free(s);
}

static struct entry **
find(const struct wp_shared *s, const char *driver, const char *key)
{
	struct entry **pp;

	for (pp = (struct entry **)&s->head; *pp != NULL; pp = &(*pp)->next)
		if (strcmp((*pp)->driver, driver) == 0 &&
		    strcmp((*pp)->key, key) == 0)
			return pp;
	return NULL;
}

void *
shared_get(const struct wp_shared *s, const char *driver, const char *key)
{
	struct entry **pp;

	if (s == NULL || (pp = find(s, driver, key)) == NULL)
		return NULL;
	return (*pp)->obj;
}

int
shared_put(struct wp_shared *s, const char *driver, const char *key,
    void *obj)
{
	struct entry **pp, *e;

	if ((pp = find(s, driver, key)) != NULL) {
		(*pp)->obj = obj;
		return 0;
	}
	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (e->driver = strdup(driver)) == NULL ||
	    (e->key = strdup(key)) == NULL) {
		if (e != NULL)
			entry_free(e);
		return -1;
	}
	e->obj = obj;
	e->next = s->head;
	s->head = e;
	return 0;
}

void
shared_del(struct wp_shared *s, const char *driver, const char *key,
    const void *obj)
{
	struct entry **pp, *e;

	if (s == NULL || (pp = find(s, driver, key)) == NULL ||
	    (*pp)->obj != obj)
		return;
	e = *pp;
	*pp = e->next;
	entry_free(e);
}

int
shared_count(const struct wp_shared *s)
{
	const struct entry *e;
	int n = 0;

	for (e = s ? s->head : NULL; e != NULL; e = e->next)
		n++;
	return n;
}
