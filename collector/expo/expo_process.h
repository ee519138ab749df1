/*
 * expo_process.h - the collector process's own figures for /metrics's
 * process_* families, read as the Prometheus client libraries read them
 * (Linux): /proc/self/stat (CPU time, virtual and resident memory, start
 * time with /proc/stat's btime), /proc/self/fd (open descriptors) and
 * RLIMIT_NOFILE's soft limit.
 */
#ifndef WP_EXPO_PROCESS_H
#define WP_EXPO_PROCESS_H

#include <stdbool.h>

struct proc_stats {
	double	 cpu_s;		/* user + system CPU time, s */
	double	 start_s;	/* start, Unix time, s */
	double	 rss, vsize;	/* bytes */
	double	 open_fds, max_fds;
	bool	 ok;		/* /proc/self/stat read */
	bool	 has_fds, has_max;
};

/* Fills p; 0, or -1 when /proc/self/stat cannot be read (p->ok false;
 * the descriptors may still be set). */
int	 proc_stats_read(struct proc_stats *p);

#endif
