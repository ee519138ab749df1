/*
 * workers.h - a small fixed pool of threads for blocking libraries
 * (libmodbus).  A job runs on a worker thread and touches only its own
 * data; its completion runs later on the loop thread (woken by an eventfd).
 * Jobs submitted with the same non-NULL key never run concurrently and run
 * in submission order: this serialises meters behind one gateway or line.
 */
#ifndef WP_WORKERS_H
#define WP_WORKERS_H

#include "err.h"

struct loop;
struct workers;

typedef void (*worker_run_fn)(void *job);	/* on a worker thread */
typedef void (*worker_done_fn)(void *job);	/* on the loop thread */

/* Returns a new pool of nthreads on l; caller frees with workers_free. */
struct workers	*workers_new(struct loop *l, int nthreads, struct wp_err *err);
/*
 * Waits for running jobs and joins the threads; jobs still queued are not
 * run.  Then calls done on the calling thread for every job not yet
 * dispatched (run or not), so owners can free them: a done callback must
 * cope with a job whose run never happened.  NULL-safe.
 */
void		 workers_free(struct workers *w);

/* Queues job; key (borrowed string, compared by value) may be NULL. */
int	 workers_submit(struct workers *w, const char *key, worker_run_fn run,
	    worker_done_fn done, void *job, struct wp_err *err);
/* Runs completions due now (the loop does this on its own). */
void	 workers_dispatch(struct workers *w);

#endif
