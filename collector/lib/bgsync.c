/* bgsync.c - fdatasync(2) on a thread of its own; see bgsync.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "bgsync.h"

struct bgsync {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* work, a sync's end, or stop */
	pthread_t	 thr;
	bool		 started, stop;
	int		 fd;		/* the duplicate to sync, or -1 */
	bool		 busy;		/* fd handed over, not yet done */
	bool		 finished;	/* a sync's outcome not yet looked at */
	int		 outcome;	/* its errno, or 0 */
};

static void *
syncer(void *arg)
{
	struct bgsync *s = arg;
	int fd, e;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->busy && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->busy)
			break;
		fd = s->fd;
		pthread_mutex_unlock(&s->mu);
		e = fdatasync(fd) == 0 ? 0 : errno;
		close(fd);
		pthread_mutex_lock(&s->mu);
		s->fd = -1;
		s->busy = false;
		s->finished = true;
		s->outcome = e;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct bgsync *
bgsync_new(void)
{
	struct bgsync *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->fd = -1;
	return s;
}

void
bgsync_free(struct bgsync *s)
{
	if (s == NULL)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;		/* a sync handed over still runs */
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thr, NULL);
	}
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

int
bgsync_start(struct bgsync *s, int fd)
{
	int dup_fd, e;

	pthread_mutex_lock(&s->mu);
	if (s->busy || s->finished) {	/* running, or its outcome unread */
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	pthread_mutex_unlock(&s->mu);	/* only the owner starts one */
	if ((dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -1;
	if (!s->started) {
		if ((e = pthread_create(&s->thr, NULL, syncer, s)) != 0) {
			close(dup_fd);
			errno = e;
			return -1;
		}
		s->started = true;
	}
	pthread_mutex_lock(&s->mu);
	s->fd = dup_fd;
	s->busy = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 1;
}

bool
bgsync_busy(struct bgsync *s)
{
	bool busy;

	pthread_mutex_lock(&s->mu);
	busy = s->busy;
	pthread_mutex_unlock(&s->mu);
	return busy;
}

/* Takes the outcome (locked). */
static bool
take(struct bgsync *s, int *e)
{
	bool f = s->finished;

	*e = f ? s->outcome : 0;
	s->finished = false;
	return f;
}

bool
bgsync_finished(struct bgsync *s, int *e)
{
	bool f;

	pthread_mutex_lock(&s->mu);
	f = take(s, e);
	pthread_mutex_unlock(&s->mu);
	return f;
}

bool
bgsync_wait(struct bgsync *s, int *e)
{
	bool f;

	pthread_mutex_lock(&s->mu);
	while (s->busy)
		pthread_cond_wait(&s->cv, &s->mu);
	f = take(s, e);
	pthread_mutex_unlock(&s->mu);
	return f;
}
