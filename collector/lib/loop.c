#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"

struct fd_slot {
	loop_fd_cb	 cb;
	void		*arg;
	int		 events;	/* 0: unused */
};

struct loop_timer {
	struct loop	*loop;
	loop_timer_cb	 cb;
	void		*arg;
	wp_time		 due;
	size_t		 heap_idx;	/* SIZE_MAX when disarmed */
};

struct loop {
	int		  epfd;
	struct fd_slot	 *fds;		/* indexed by fd */
	size_t		  nfds;
	struct loop_timer **heap;	/* min-heap on due */
	size_t		  nheap, capheap;
	size_t		  ntimers;	/* capheap >= ntimers always */
	int		  stop;
};

#define DISARMED	((size_t)-1)
#define MAX_EVENTS	256

struct loop *
loop_new(struct wp_err *err)
{
	struct loop *l;

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if ((l->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		err_set(err, WP_E_INTERNAL, "epoll_create1: %s", strerror(errno));
		free(l);
		return NULL;
	}
	return l;
}

void
loop_free(struct loop *l)
{
	if (l == NULL)
		return;
	close(l->epfd);
	free(l->fds);
	free(l->heap);
	free(l);
}

static uint32_t
to_epoll(int events)
{
	return ((events & LOOP_READ) ? EPOLLIN : 0) |
	    ((events & LOOP_WRITE) ? EPOLLOUT : 0);
}

static int
grow_fds(struct loop *l, int fd)
{
	size_t n = l->nfds ? l->nfds : 64;
	struct fd_slot *p;

	while (n <= (size_t)fd)
		n *= 2;
	if (n == l->nfds)
		return 0;
	if ((p = realloc(l->fds, n * sizeof(*p))) == NULL)
		return -1;
	memset(p + l->nfds, 0, (n - l->nfds) * sizeof(*p));
	l->fds = p;
	l->nfds = n;
	return 0;
}

int
loop_add_fd(struct loop *l, int fd, int events, loop_fd_cb cb, void *arg)
{
	struct epoll_event ev = { .events = to_epoll(events), .data.fd = fd };

	if (fd < 0 || grow_fds(l, fd) == -1)
		return -1;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) == -1)
		return -1;
	l->fds[fd] = (struct fd_slot){ cb, arg, events | 0x100 };
	return 0;
}

int
loop_mod_fd(struct loop *l, int fd, int events)
{
	struct epoll_event ev = { .events = to_epoll(events), .data.fd = fd };

	if (fd < 0 || (size_t)fd >= l->nfds || l->fds[fd].events == 0)
		return -1;
	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) == -1)
		return -1;
	l->fds[fd].events = events | 0x100;
	return 0;
}

void
loop_del_fd(struct loop *l, int fd)
{
	if (fd < 0 || (size_t)fd >= l->nfds || l->fds[fd].events == 0)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	l->fds[fd] = (struct fd_slot){ NULL, NULL, 0 };
}

/* --- timers: a binary min-heap on due time --- */

static void
heap_set(struct loop *l, size_t i, struct loop_timer *t)
{
	l->heap[i] = t;
	t->heap_idx = i;
}

static void
sift_up(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];

	while (i > 0 && l->heap[(i - 1) / 2]->due > t->due) {
		heap_set(l, i, l->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(l, i, t);
}

static void
sift_down(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];
	size_t c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= l->nheap)
			break;
		if (c + 1 < l->nheap && l->heap[c + 1]->due < l->heap[c]->due)
			c++;
		if (l->heap[c]->due >= t->due)
			break;
		heap_set(l, i, l->heap[c]);
		i = c;
	}
	heap_set(l, i, t);
}

struct loop_timer *
loop_timer_new(struct loop *l, loop_timer_cb cb, void *arg)
{
	struct loop_timer *t, **p;
	size_t n;

	/* Reserve a heap slot per timer so that arming can never fail. */
	if (l->ntimers == l->capheap) {
		n = l->capheap ? l->capheap * 2 : 64;
		if ((p = realloc(l->heap, n * sizeof(*p))) == NULL)
			return NULL;
		l->heap = p;
		l->capheap = n;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	l->ntimers++;
	t->loop = l;
	t->cb = cb;
	t->arg = arg;
	t->heap_idx = DISARMED;
	return t;
}

void
loop_timer_disarm(struct loop_timer *t)
{
	struct loop *l = t->loop;
	struct loop_timer *moved;
	size_t i = t->heap_idx;

	if (i == DISARMED)
		return;
	t->heap_idx = DISARMED;
	if (i == --l->nheap)
		return;
	moved = l->heap[l->nheap];
	heap_set(l, i, moved);
	sift_up(l, i);
	sift_down(l, moved->heap_idx);
}

void
loop_timer_arm(struct loop_timer *t, wp_time due)
{
	struct loop *l = t->loop;

	loop_timer_disarm(t);
	t->due = due;
	heap_set(l, l->nheap++, t);
	sift_up(l, t->heap_idx);
}

int
loop_timer_armed(const struct loop_timer *t)
{
	return t->heap_idx != DISARMED;
}

void
loop_timer_free(struct loop_timer *t)
{
	if (t == NULL)
		return;
	loop_timer_disarm(t);
	t->loop->ntimers--;
	free(t);
}

static void
run_timers(struct loop *l)
{
	wp_time now = clock_mono();
	struct loop_timer *t;
	int budget = 4096;	/* let I/O in between timer storms */

	while (l->nheap > 0 && l->heap[0]->due <= now && budget-- > 0) {
		t = l->heap[0];
		loop_timer_disarm(t);
		t->cb(t->arg);
		if (l->stop)
			return;
	}
}

static int
next_timeout_ms(const struct loop *l, int cap_ms)
{
	wp_time d;

	if (l->nheap == 0)
		return cap_ms;
	d = l->heap[0]->due - clock_mono();
	if (d <= 0)
		return 0;
	d = (d + WP_MS - 1) / WP_MS;
	if (cap_ms >= 0 && d > cap_ms)
		return cap_ms;
	return d > 60000 ? 60000 : (int)d;
}

static void
dispatch(struct loop *l, const struct epoll_event *ev)
{
	int fd = ev->data.fd, events = 0;
	struct fd_slot *s;

	if ((size_t)fd >= l->nfds || l->fds[fd].events == 0)
		return;
	s = &l->fds[fd];
	if (ev->events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP))
		events |= LOOP_READ;
	if (ev->events & EPOLLOUT)
		events |= LOOP_WRITE;
	if (ev->events & (EPOLLERR | EPOLLHUP))
		events |= LOOP_ERROR;
	s->cb(fd, events, s->arg);
}

int
loop_run_once(struct loop *l, int timeout_ms)
{
	struct epoll_event ev[MAX_EVENTS];
	int n, i;

	/* A stop ends loop_run and the rest of one batch; a caller that
	 * drives the loop by hand afterwards (draining at exit) still gets
	 * its events dispatched. */
	l->stop = 0;
	n = epoll_wait(l->epfd, ev, MAX_EVENTS, next_timeout_ms(l, timeout_ms));
	if (n == -1 && errno != EINTR)
		return -1;
	for (i = 0; i < n && !l->stop; i++)
		dispatch(l, &ev[i]);
	if (!l->stop)
		run_timers(l);
	return 0;
}

int
loop_run(struct loop *l)
{
	l->stop = 0;
	while (!l->stop)
		if (loop_run_once(l, -1) == -1)
			return -1;
	return 0;
}

void
loop_stop(struct loop *l)
{
	l->stop = 1;
}

int
loop_stopped(const struct loop *l)
{
	return l->stop;
}
