/*
 * Unit tests: drivers/modbus/mb_link.c - a Modbus TCP read when the process
 * holds more than FD_SETSIZE descriptors (a collector polling thousands of
 * BMCs): libmodbus select()s on the connection, which glibc refuses (abort)
 * for a descriptor at or above FD_SETSIZE; the link's reserved low
 * descriptor takes the connection.  The server is a raw socket thread (no
 * libmodbus, which would select() too).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../drivers/modbus/mb_link.h"

#define FILL	(FD_SETSIZE + 64)

struct srv {
	int	 lfd;
	int	 reads;
};

/* Answers fc3 requests with registers addr, addr + 1, ... until EOF. */
static void *
srv_main(void *arg)
{
	struct srv *s = arg;
	unsigned char q[12], a[9 + 2 * 125];
	int c = accept(s->lfd, NULL, NULL);

	while (c >= 0 && recv(c, q, sizeof(q), MSG_WAITALL) == sizeof(q)) {
		int addr = q[8] << 8 | q[9], n = q[10] << 8 | q[11], i;

		memcpy(a, q, 4);		/* transaction, protocol */
		a[4] = 0;
		a[5] = (unsigned char)(3 + 2 * n);
		a[6] = q[6];			/* unit */
		a[7] = 3;
		a[8] = (unsigned char)(2 * n);
		for (i = 0; i < n; i++) {
			a[9 + 2 * i] = (unsigned char)((addr + i) >> 8);
			a[10 + 2 * i] = (unsigned char)(addr + i);
		}
		if (send(c, a, 9 + 2 * (size_t)n, 0) < 0)
			break;
		s->reads++;
	}
	if (c >= 0)
		close(c);
	return NULL;
}

static void
read_above_fd_setsize(void **state)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct mb_link_conf c;
	struct mb_link *l;
	struct rlimit rl;
	struct srv s = { 0 };
	struct wp_err err = { 0 };
	struct rm_read r = { .fc = 3, .addr = 100, .count = 4 };
	uint16_t regs[4];
	int status[1], fill[FILL], i, nfill = 0;
	pthread_t th;

	(void)state;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < FILL + 64) {
		print_message("open-file hard limit %lu: below %d, skipped\n",
		    (unsigned long)rl.rlim_max, FILL + 64);
		skip();
	}
	if (rl.rlim_cur < FILL + 64) {
		rl.rlim_cur = FILL + 64;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	s.lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s.lfd, 4), 0);
	assert_int_equal(getsockname(s.lfd, (struct sockaddr *)&sa, &len), 0);

	memset(&c, 0, sizeof(c));
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	c.port = ntohs(sa.sin_port);
	c.unit = 1;
	c.timeout = 2 * WP_SEC;
	l = mb_link_new(&c, &err);
	assert_non_null(l);
	/* Every descriptor below FD_SETSIZE taken, as by BMC connections. */
	while (nfill < FILL) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		assert_true(fd >= 0);
		fill[nfill++] = fd;
		if (fd >= FD_SETSIZE + 8)
			break;
	}
	assert_int_equal(pthread_create(&th, NULL, srv_main, &s), 0);
	assert_int_equal(mb_link_read_plan(l, &r, 1, regs, status,
	    clock_mono() + 5 * WP_SEC, NULL, &err), 0);
	assert_int_equal(status[0], 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(regs[i], 100 + i);
	/* And again on the kept connection. */
	assert_int_equal(mb_link_read_plan(l, &r, 1, regs, status,
	    clock_mono() + 5 * WP_SEC, NULL, &err), 0);
	mb_link_free(l);
	pthread_join(th, NULL);
	assert_int_equal(s.reads, 2);
	for (i = 0; i < nfill; i++)
		close(fill[i]);
	close(s.lfd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_above_fd_setsize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
