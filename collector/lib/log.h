/*
 * log.h - diagnostics to stderr or syslog, with levels.
 *
 * The logger is the one piece of process-wide state besides signal flags:
 * main() sets it up once with log_init(); everything else only writes.
 * Measurements never go through here (they go to the journal and the store).
 * Never pass a secret to these functions.  Control characters in a
 * message (a device's string with CR, LF or ESC) are written as \xNN, so
 * one call is one line and no device can forge or hide one.
 */
#ifndef WP_LOG_H
#define WP_LOG_H

enum wp_log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* level: enum wp_log_level; use_syslog: 0 for stderr. */
void	 log_init(int level, int use_syslog, const char *ident);
void	 log_set_level(int level);
int	 log_get_level(void);
/* Parses "error|warn|info|debug"; returns -1 on anything else. */
int	 log_level_parse(const char *s);

void	 log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log_warn appends ": strerror(errno)"; log_warnx does not. */
void	 log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	 log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	 log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	 log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
