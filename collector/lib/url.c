#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "url.h"

int
url_check(const char *s, bool *tls, struct wp_err *err)
{
	const char *auth, *end, *p;
	char hp[300], host[256];
	size_t alen;
	int port;

	if (strncasecmp(s, "https://", 8) == 0)
		*tls = true, auth = s + 8;
	else if (strncasecmp(s, "http://", 7) == 0)
		*tls = false, auth = s + 7;
	else
		return err_set(err, WP_E_CONFIG, "URL '%s' must start with "
		    "https:// or http://", s);
	for (p = s; *p != '\0'; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return err_set(err, WP_E_CONFIG, "URL contains white "
			    "space");
	end = auth + strcspn(auth, "/?#");
	alen = (size_t)(end - auth);
	if (memchr(auth, '@', alen) != NULL)
		return err_set(err, WP_E_CONFIG, "URL must not contain a user "
		    "or password; use credentials:");
	if (alen == 0 || alen >= sizeof(hp) - 8)
		return err_set(err, WP_E_CONFIG, "URL '%s' has no host", s);
	memcpy(hp, auth, alen);
	hp[alen] = '\0';
	if (addr_parse_hostport(hp, host, sizeof(host), &port) < 0) {
		/* No port: add one to reuse the host check. */
		snprintf(hp + alen, sizeof(hp) - alen, ":%d", *tls ? 443 : 80);
		if (addr_parse_hostport(hp, host, sizeof(host), &port) < 0)
			return err_set(err, WP_E_CONFIG, "URL '%s' has a bad "
			    "host or port", s);
	}
	return 0;
}
