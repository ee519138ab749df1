/*
 * lowfd.h - descriptors select(2) can take.
 *
 * select() cannot take a descriptor at or above FD_SETSIZE (glibc aborts
 * the process), and libmodbus waits with select().  A process holding
 * thousands of sockets therefore reserves low descriptors early, while few
 * are open, as placeholders on /dev/null (a slot), moves a descriptor that
 * landed high onto a slot before handing it to such code, and puts the
 * placeholder back when done.  A slot is an ordinary descriptor: the
 * caller owns it and closes it in the end.
 */
#ifndef WP_LOWFD_H
#define WP_LOWFD_H

/* A new slot below FD_SETSIZE, or -1 (no low descriptor free, or
 * /dev/null not opened). */
int	lowfd_reserve(void);
/* Moves fd onto slot (dup3, close-on-exec) and closes fd: slot, or -1
 * with errno set and fd left open, the caller's to close. */
int	lowfd_move(int fd, int slot);
/* Puts a placeholder back on slot, closing what sat there: 0, or -1 with
 * errno set and slot as it was. */
int	lowfd_release(int slot);

#endif
