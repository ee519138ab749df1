/*
 * sim_modbus.c - facility meters as Modbus TCP servers (libmodbus).
 *
 * Each meter listens on its own address (127.(B+3).0.m+1, port_base+3)
 * in its own thread and answers like an Eastron SDM630: float32 input
 * registers, high word first, total power at 0x0034 (W), total import at
 * 0x0048 and total energy at 0x0156 (kWh).  Registers are filled from the
 * model just before each reply, so every read is current.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

#include <modbus.h>

#include "../collector/lib/lowfd.h"
#include "sim_srv.h"

#define NREG	400
#define MAX_CLIENTS	8	/* connections a meter serves at once */

struct meter {
	struct sim_srv	*s;
	int		 m;
	modbus_t	*ctx;
	modbus_mapping_t *map;
	int		 lfd;
	int		 spare[MAX_CLIENTS];	/* low descriptors held */
	int		 nspare;
	pthread_t	 th;
	int		 started;
	atomic_int	*stop;
};

struct sim_modbus {
	struct meter	 meter[SIM_MAX_METERS];
	int		 n;
	atomic_int	 stop;
};

/* float32, high word first (the register values, not wire bytes). */
static void
setf(uint16_t *r, int addr, double v)
{
	float f = (float)v;
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	r[addr] = (uint16_t)(bits >> 16);
	r[addr + 1] = (uint16_t)(bits & 0xffff);
}

/* The SDM630 register image at t. */
static void
fill(struct meter *mt, double t)
{
	uint16_t *r = mt->map->tab_input_registers;
	double p = sim_srv_meter_power(mt->s, mt->m, t);
	double kwh = sim_srv_meter_counter(mt->s, mt->m, t) / 3.6e6;
	double pf = 0.98, v = 230.0, q = p * tan(acos(pf));
	int ph;

	for (ph = 0; ph < 3; ph++) {
		setf(r, 0 + 2 * ph, v + 0.4 * ph);
		setf(r, 6 + 2 * ph, p / 3 / v / pf);
		setf(r, 12 + 2 * ph, p / 3);
		setf(r, 18 + 2 * ph, p / 3 / pf);
		setf(r, 24 + 2 * ph, q / 3);
		setf(r, 30 + 2 * ph, pf);
		setf(r, 346 + 2 * ph, kwh / 3);
		setf(r, 352 + 2 * ph, 0);
		setf(r, 358 + 2 * ph, kwh / 3);
	}
	setf(r, 0x34, p);
	setf(r, 0x38, p / pf);
	setf(r, 0x3C, q);
	setf(r, 0x3E, pf);
	setf(r, 0x42, acos(pf) * 180 / M_PI);
	setf(r, 0x46, 50.0);
	setf(r, 0x48, kwh);
	setf(r, 0x4A, 0);
	setf(r, 0x4C, kwh * 0.2);
	setf(r, 0x4E, 0);
	setf(r, 0x156, kwh);
	setf(r, 0x158, kwh * 0.2);
}

/* One request of the client on fd; 0, or -1 when it is gone. */
static int
serve_client(struct meter *mt, int fd)
{
	uint8_t q[MODBUS_TCP_MAX_ADU_LENGTH];
	int rc;

	modbus_set_socket(mt->ctx, fd);
	rc = modbus_receive(mt->ctx, q);
	if (rc > 0) {
		fill(mt, sim_now());
		modbus_reply(mt->ctx, q, rc, mt->map);
	} else if (rc == -1)
		return -1;
	return 0;
}

/*
 * libmodbus waits for a request with select(2), which cannot take a
 * descriptor at or above FD_SETSIZE, and at full load the simulator holds
 * tens of thousands of sockets.  So each meter keeps MAX_CLIENTS low
 * descriptors from its start (on /dev/null) and moves a client above the
 * limit onto one; a client that leaves gives its descriptor back.
 */
static int
client_fd(struct meter *mt, int c)
{
	if (c < FD_SETSIZE)
		return c;
	if (mt->nspare > 0 && lowfd_move(c, mt->spare[mt->nspare - 1]) != -1)
		return mt->spare[--mt->nspare];
	close(c);
	return -1;
}

static void
client_close(struct meter *mt, int fd)
{
	if (mt->nspare < MAX_CLIENTS && fd < FD_SETSIZE &&
	    lowfd_release(fd) == 0)
		mt->spare[mt->nspare++] = fd;
	else
		close(fd);
}

/* pfd[0] is the listening socket; poll(2) has no descriptor limit. */
static void *
meter_main(void *arg)
{
	struct meter *mt = arg;
	struct pollfd pfd[1 + MAX_CLIENTS];
	nfds_t n = 1, i;

	pfd[0] = (struct pollfd){ .fd = mt->lfd, .events = POLLIN };
	while (!atomic_load(mt->stop)) {
		if (poll(pfd, n, 200) <= 0)
			continue;
		for (i = n; i-- > 1;)
			if (pfd[i].revents != 0 &&
			    serve_client(mt, pfd[i].fd) == -1) {
				client_close(mt, pfd[i].fd);
				pfd[i] = pfd[--n];
			}
		if (pfd[0].revents & POLLIN) {
			int c = modbus_tcp_accept(mt->ctx, &mt->lfd);

			if (c >= 0 && n < 1 + MAX_CLIENTS &&
			    (c = client_fd(mt, c)) >= 0)
				pfd[n++] = (struct pollfd){ .fd = c,
				    .events = POLLIN };
			else if (c >= 0)
				close(c);
		}
	}
	for (i = 0; i < n; i++)
		close(pfd[i].fd);
	return NULL;
}

static int
meter_start(struct sim_modbus *mb, struct sim_srv *s, int m, char *err,
    unsigned long errlen)
{
	struct meter *mt = &mb->meter[m];
	char addr[32];

	mt->s = s;
	mt->m = m;
	mt->stop = &mb->stop;
	mt->lfd = -1;
	while (mt->nspare < MAX_CLIENTS) {
		int fd = lowfd_reserve();

		if (fd == -1) {
			snprintf(err, errlen, "modbus: no low descriptor: %s",
			    strerror(errno));
			return -1;
		}
		mt->spare[mt->nspare++] = fd;
	}
	sim_addr_str(sim_addr(s, SK_METER, m), addr, sizeof(addr));
	mt->ctx = modbus_new_tcp(addr, sim_port(s, SP_MODBUS));
	mt->map = modbus_mapping_new(0, 0, NREG, NREG);
	if (mt->ctx == NULL || mt->map == NULL) {
		snprintf(err, errlen, "modbus: out of memory");
		return -1;
	}
	if ((mt->lfd = modbus_tcp_listen(mt->ctx, 16)) == -1) {
		snprintf(err, errlen, "modbus %s:%d: %s", addr,
		    sim_port(s, SP_MODBUS), modbus_strerror(errno));
		return -1;
	}
	fill(mt, sim_now());
	if (pthread_create(&mt->th, NULL, meter_main, mt) != 0) {
		snprintf(err, errlen, "modbus: cannot start thread");
		return -1;
	}
	mt->started = 1;
	return 0;
}

struct sim_modbus *
sim_modbus_start(struct sim_srv *s, char *err, unsigned long errlen)
{
	struct sim_modbus *mb = calloc(1, sizeof(*mb));
	int m;

	if (mb == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	atomic_init(&mb->stop, 0);
	mb->n = s->f->o.meters;
	for (m = 0; m < mb->n; m++)
		if (meter_start(mb, s, m, err, errlen) == -1) {
			sim_modbus_stop(mb);
			return NULL;
		}
	return mb;
}

void
sim_modbus_stop(struct sim_modbus *mb)
{
	int m;

	if (mb == NULL)
		return;
	atomic_store(&mb->stop, 1);
	for (m = 0; m < mb->n; m++) {
		struct meter *mt = &mb->meter[m];

		if (mt->started)
			pthread_join(mt->th, NULL);
		else if (mt->lfd >= 0)
			close(mt->lfd);
		while (mt->nspare > 0)
			close(mt->spare[--mt->nspare]);
		if (mt->map != NULL)
			modbus_mapping_free(mt->map);
		if (mt->ctx != NULL)
			modbus_free(mt->ctx);
	}
	free(mb);
}
