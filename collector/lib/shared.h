/*
 * shared.h - objects that several targets of one driver share, found by a
 * string key (the Redfish driver keeps one connection and one session per
 * BMC for all the nodes behind it).
 *
 * The runtime owns the table, one per collector, and hands it to drivers
 * in struct wp_services (NULL where nothing is shared, e.g. probe).  The
 * table only stores borrowed pointers: a driver allocates what it puts
 * there, counts its users itself and takes the entry out (shared_del)
 * before freeing it.  All on the loop thread; no locking.
 */
#ifndef WP_SHARED_H
#define WP_SHARED_H

struct wp_shared;

/* Returns a new, empty table (caller frees with shared_free), NULL on
 * ENOMEM. */
struct wp_shared *shared_new(void);
/* Frees the table (NULL-safe); the objects left in it are not touched
 * (their drivers own them). */
void	 shared_free(struct wp_shared *s);
/* The object driver put under key, or NULL (borrowed). */
void	*shared_get(const struct wp_shared *s, const char *driver,
	    const char *key);
/* Puts obj (borrowed) under driver/key, replacing any; 0, or -1 on
 * ENOMEM. */
int	 shared_put(struct wp_shared *s, const char *driver, const char *key,
	    void *obj);
/* Takes driver/key out of the table if it holds obj. */
void	 shared_del(struct wp_shared *s, const char *driver, const char *key,
	    const void *obj);
/* Entries in the table (for tests and the runtime's exit check). */
int	 shared_count(const struct wp_shared *s);

#endif
