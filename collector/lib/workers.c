/*
 * workers.c - fixed thread pool; completions return to the loop through
 * an eventfd.  Keyed jobs are serialised: a worker takes the first queued
 * job whose key no other worker holds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "loop.h"
#include "workers.h"

struct job {
	worker_run_fn	 run;
	worker_done_fn	 done;
	void		*arg;
	char		*key;		/* owned copy, or NULL */
	struct job	*next;
};

struct workers {
	struct loop	*loop;
	int		 efd;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	struct job	*queue, *queue_tail;	/* not yet run */
	struct job	*done, *done_tail;	/* run, not yet dispatched */
	char		**busy_keys;		/* one slot per thread */
	pthread_t	*threads;
	int		 nthreads, started, stop;
};

static int
key_busy(const struct workers *w, const char *key)
{
	int i;

	if (key == NULL)
		return 0;
	for (i = 0; i < w->nthreads; i++)
		if (w->busy_keys[i] && strcmp(w->busy_keys[i], key) == 0)
			return 1;
	return 0;
}

/* Unlinks and returns the first runnable job; mutex held. */
static struct job *
take_job(struct workers *w)
{
	struct job **pp, *j, *prev = NULL;

	for (pp = &w->queue; (j = *pp) != NULL; prev = j, pp = &j->next) {
		if (key_busy(w, j->key))
			continue;
		*pp = j->next;
		if (w->queue_tail == j)
			w->queue_tail = prev;
		j->next = NULL;
		return j;
	}
	return NULL;
}

struct thread_arg {
	struct workers	*w;
	int		 slot;
};

static void
append(struct job **head, struct job **tail, struct job *j)
{
	j->next = NULL;
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
}

static void *
worker_main(void *p)
{
	struct workers *w = ((struct thread_arg *)p)->w;
	int slot = ((struct thread_arg *)p)->slot;
	uint64_t one = 1;
	struct job *j = NULL;

	free(p);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && (j = take_job(w)) == NULL)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		w->busy_keys[slot] = j->key;
		pthread_mutex_unlock(&w->mu);
		j->run(j->arg);
		pthread_mutex_lock(&w->mu);
		w->busy_keys[slot] = NULL;
		append(&w->done, &w->done_tail, j);
		/* A key just freed may unblock a queued job. */
		pthread_cond_broadcast(&w->cv);
		if (write(w->efd, &one, sizeof(one)) == -1 && errno != EAGAIN)
			break;
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void
on_event(int fd, int events, void *arg)
{
	uint64_t n;

	(void)events;
	if (read(fd, &n, sizeof(n)) == -1 && errno != EAGAIN)
		return;
	workers_dispatch(arg);
}

struct workers *
workers_new(struct loop *l, int nthreads, struct wp_err *err)
{
	struct workers *w;
	struct thread_arg *ta;
	int i;

	if (nthreads < 1)
		nthreads = 1;
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->busy_keys = calloc(nthreads, sizeof(char *))) == NULL ||
	    (w->threads = calloc(nthreads, sizeof(pthread_t))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	w->loop = l;
	w->nthreads = nthreads;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if ((w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1 ||
	    loop_add_fd(l, w->efd, LOOP_READ, on_event, w) == -1) {
		err_set(err, WP_E_INTERNAL, "eventfd: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < nthreads; i++) {
		if ((ta = malloc(sizeof(*ta))) == NULL)
			break;
		*ta = (struct thread_arg){ w, i };
		if (pthread_create(&w->threads[i], NULL, worker_main, ta) != 0) {
			free(ta);
			break;
		}
		w->started++;
	}
	if (w->started == 0) {
		err_set(err, WP_E_INTERNAL, "cannot start worker threads");
		goto fail;
	}
	return w;
fail:
	workers_free(w);
	return NULL;
}

static void
free_list(struct job *j)
{
	struct job *next;

	for (; j != NULL; j = next) {
		next = j->next;
		j->done(j->arg);
		free(j->key);
		free(j);
	}
}

void
workers_free(struct workers *w)
{
	struct job *queued, *done;
	int i;

	if (w == NULL)
		return;
	if (w->threads != NULL) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		for (i = 0; i < w->started; i++)
			pthread_join(w->threads[i], NULL);
	}
	if (w->efd > 0) {
		loop_del_fd(w->loop, w->efd);
		close(w->efd);
	}
	done = w->done;
	queued = w->queue;
	w->done = w->queue = NULL;
	free_list(done);
	free_list(queued);
	if (w->busy_keys != NULL) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
	}
	free(w->busy_keys);
	free(w->threads);
	free(w);
}

int
workers_submit(struct workers *w, const char *key, worker_run_fn run,
    worker_done_fn done, void *job, struct wp_err *err)
{
	struct job *j = NULL;

	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (key != NULL && (j->key = strdup(key)) == NULL)) {
		free(j);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	j->run = run;
	j->done = done;
	j->arg = job;
	pthread_mutex_lock(&w->mu);
	append(&w->queue, &w->queue_tail, j);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

void
workers_dispatch(struct workers *w)
{
	struct job *list, *next;

	pthread_mutex_lock(&w->mu);
	list = w->done;
	w->done = w->done_tail = NULL;
	pthread_mutex_unlock(&w->mu);
	for (; list != NULL; list = next) {
		next = list->next;
		list->done(list->arg);
		free(list->key);
		free(list);
	}
}
