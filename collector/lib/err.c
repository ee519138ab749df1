#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int
err_set(struct wp_err *err, int class, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->class = class;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void
err_prefix(struct wp_err *err, const char *fmt, ...)
{
	char pre[WP_ERR_MSG], old[WP_ERR_MSG];
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
}

void
err_clear(struct wp_err *err)
{
	if (err == NULL)
		return;
	err->class = WP_E_NONE;
	err->msg[0] = '\0';
}

const char *
err_class_name(int class)
{
	switch (class) {
	case WP_E_NONE:		return "ok";
	case WP_E_TRANSIENT:	return "transient";
	case WP_E_PROTOCOL:	return "protocol";
	case WP_E_CONFIG:	return "config";
	case WP_E_AUTH:		return "auth";
	default:		return "internal";
	}
}
