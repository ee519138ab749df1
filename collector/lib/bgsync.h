/*
 * bgsync.h - fdatasync(2) on a thread of its own.
 *
 * A loop that must not wait for the disk hands a file over and goes on:
 * bgsync_start syncs a duplicate of the descriptor (so the caller may
 * close or replace its own meanwhile) on the object's thread, one sync at
 * a time; the outcome is collected later, on the caller's thread, with
 * bgsync_finished or, where the caller must know the data is down,
 * bgsync_wait.  The thread is started by the first bgsync_start.  One
 * thread, the owner, makes every call.
 */
#ifndef WP_BGSYNC_H
#define WP_BGSYNC_H

#include <stdbool.h>

struct bgsync;

/* A new, idle object; NULL when out of memory.  Caller frees. */
struct bgsync	*bgsync_new(void);
/* Waits for a running sync, stops and joins the thread.  NULL-safe. */
void		 bgsync_free(struct bgsync *s);
/*
 * Starts the fdatasync of fd's file unless one is running or the last
 * one's outcome is not yet looked at: 1 started, 0 not (nothing done),
 * -1 with errno (fd not duplicated, or the thread not started: nothing
 * done).
 */
int		 bgsync_start(struct bgsync *s, int fd);
/* True while a sync runs. */
bool		 bgsync_busy(struct bgsync *s);
/* True when a sync finished since the last look (this call or
 * bgsync_wait), with its outcome in *e: 0, or its errno.  One sync runs
 * at a time and none starts before the last one's outcome is looked at,
 * so no outcome is missed. */
bool		 bgsync_finished(struct bgsync *s, int *e);
/* Waits until no sync runs, then as bgsync_finished. */
bool		 bgsync_wait(struct bgsync *s, int *e);

#endif
