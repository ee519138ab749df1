/*
 * addr.h - network addresses as the config writes them.
 */
#ifndef WP_ADDR_H
#define WP_ADDR_H

#include <stddef.h>

/* Splits "host:port" ("[v6]:port" too) into host (NUL-ended, at most
 * hostlen bytes with the NUL) and port (1..65535).  0, or -1 when s is
 * not one (bare IPv6 needs brackets; host of letters, digits, - . _). */
int	 addr_parse_hostport(const char *s, char *host, size_t hostlen,
	    int *port);

#endif
