/*
 * loop.h - the event loop: epoll for file descriptors, a min-heap of
 * one-shot timers on the monotonic clock.  One thread owns a loop and
 * everything registered on it; callbacks run on that thread.
 */
#ifndef WP_LOOP_H
#define WP_LOOP_H

#include <stdint.h>

#include "clock.h"
#include "err.h"

#define LOOP_READ	0x1
#define LOOP_WRITE	0x2
#define LOOP_ERROR	0x4	/* reported only, never requested */

struct loop;
struct loop_timer;

typedef void (*loop_fd_cb)(int fd, int events, void *arg);
typedef void (*loop_timer_cb)(void *arg);

/* Returns a new loop; caller frees with loop_free.  NULL on error. */
struct loop	*loop_new(struct wp_err *err);
/* Frees the loop; fds are not closed, timers must already be freed. */
void		 loop_free(struct loop *l);

/* Watches fd for events (LOOP_READ|LOOP_WRITE).  0 or -1. */
int	 loop_add_fd(struct loop *l, int fd, int events, loop_fd_cb cb,
	    void *arg);
int	 loop_mod_fd(struct loop *l, int fd, int events);
void	 loop_del_fd(struct loop *l, int fd);

/* Returns a new disarmed timer; caller frees with loop_timer_free. */
struct loop_timer *loop_timer_new(struct loop *l, loop_timer_cb cb, void *arg);
/* Arms (or re-arms) the timer to fire once at monotonic time due. */
void	 loop_timer_arm(struct loop_timer *t, wp_time due);
void	 loop_timer_disarm(struct loop_timer *t);
int	 loop_timer_armed(const struct loop_timer *t);
void	 loop_timer_free(struct loop_timer *t);	/* NULL-safe */

/* Runs until loop_stop; returns 0, or -1 on an epoll failure. */
int	 loop_run(struct loop *l);
/* Waits at most timeout_ms (-1: until an event or timer) and dispatches. */
int	 loop_run_once(struct loop *l, int timeout_ms);
void	 loop_stop(struct loop *l);
int	 loop_stopped(const struct loop *l);

#endif
