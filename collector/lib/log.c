#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

/* Process-wide logger settings, written only by log_init/log_set_level. */
static int log_level = LOG_LVL_INFO;
static int log_syslog;

void
log_init(int level, int use_syslog, const char *ident)
{
	log_level = level;
	log_syslog = use_syslog;
	if (use_syslog)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_set_level(int level)
{
	log_level = level;
}

int
log_get_level(void)
{
	return log_level;
}

int
log_level_parse(const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	if (strcmp(s, "warning") == 0)
		return LOG_LVL_WARN;
	return -1;
}

/*
 * Control characters (CR, LF, ESC...) become \xNN: a line of the log is
 * one line, whatever a device put in a string it reported.
 */
static void
defang(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in != '\0' && o + 5 < len; in++) {
		unsigned char c = (unsigned char)*in;

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

static void
vlog(int level, const char *suffix, const char *fmt, va_list ap)
{
	static const char *const tag[] = { "error", "warn", "info", "debug" };
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char raw[1024], msg[1024];
	struct timespec ts;
	struct tm tm;

	if (level > log_level)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	defang(raw, msg, sizeof(msg));
	if (log_syslog) {
		syslog(prio[level], "%s%s%s", msg, suffix ? ": " : "",
		    suffix ? suffix : "");
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	fprintf(stderr, "%04d-%02d-%02dT%02d:%02d:%02dZ %s: %s%s%s\n",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, tag[level], msg, suffix ? ": " : "",
	    suffix ? suffix : "");
}

#define DEFINE_LOG(fn, level, with_errno)				\
void									\
fn(const char *fmt, ...)						\
{									\
	va_list ap;							\
	int saved = errno;						\
									\
	va_start(ap, fmt);						\
	vlog(level, with_errno ? strerror(saved) : NULL, fmt, ap);	\
	va_end(ap);							\
	errno = saved;							\
}

DEFINE_LOG(log_error, LOG_LVL_ERROR, 0)
DEFINE_LOG(log_warn, LOG_LVL_WARN, 1)
DEFINE_LOG(log_warnx, LOG_LVL_WARN, 0)
DEFINE_LOG(log_info, LOG_LVL_INFO, 0)
DEFINE_LOG(log_debug, LOG_LVL_DEBUG, 0)
