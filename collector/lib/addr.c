/* addr.c - host:port parsing; see addr.h. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "addr.h"
#include "ynode.h"

static bool
host_ok(const char *h, bool v6)
{
	if (*h == '\0')
		return false;
	for (; *h != '\0'; h++) {
		if (isalnum((unsigned char)*h) || *h == '-' || *h == '.' ||
		    *h == '_')
			continue;
		if (v6 && (*h == ':' || *h == '%'))
			continue;
		return false;
	}
	return true;
}

int
addr_parse_hostport(const char *s, char *host, size_t hostlen, int *port)
{
	const char *colon, *h = s, *hend;
	bool v6 = false;
	long p;

	if (s == NULL || *s == '\0')
		return -1;
	if (*s == '[') {
		if ((hend = strchr(s, ']')) == NULL || hend[1] != ':')
			return -1;
		h = s + 1;
		colon = hend + 1;
		v6 = true;
	} else {
		if ((colon = strrchr(s, ':')) == NULL)
			return -1;
		hend = colon;
		if (memchr(s, ':', (size_t)(colon - s)) != NULL)
			return -1;	/* bare IPv6: needs brackets */
	}
	if ((size_t)(hend - h) + 1 > hostlen || hend == h)
		return -1;
	if (!isdigit((unsigned char)colon[1]) ||
	    ynode_parse_long(colon + 1, 1, 65535, &p) < 0)
		return -1;
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	if (!host_ok(host, v6))
		return -1;
	if (v6 && strchr(host, ':') == NULL)
		return -1;
	*port = (int)p;
	return 0;
}

