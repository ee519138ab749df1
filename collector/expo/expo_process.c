/* expo_process.c - the process's own figures (expo_process.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "expo_process.h"

/* /proc/stat's btime (boot, Unix time), or -1. */
static long long
boot_time(void)
{
	char line[256];
	long long bt = -1;
	FILE *f;

	if ((f = fopen("/proc/stat", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return bt;
}

/* Fields 14-15 (utime, stime), 22-24 (starttime, vsize, rss) of
 * /proc/self/stat, counted after the command's closing parenthesis. */
static int
read_stat(struct proc_stats *p)
{
	char buf[1024], *s;
	unsigned long long ut, st, start, vs;
	long long rss, bt;
	long tck = sysconf(_SC_CLK_TCK), pg = sysconf(_SC_PAGESIZE);
	size_t n;
	FILE *f;

	if ((f = fopen("/proc/self/stat", "re")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((s = strrchr(buf, ')')) == NULL || tck <= 0 || sscanf(s + 2,
	    "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu %*s %*s "
	    "%*s %*s %*s %*s %llu %llu %lld", &ut, &st, &start, &vs,
	    &rss) != 5)
		return -1;
	p->cpu_s = (double)(ut + st) / (double)tck;
	p->vsize = (double)vs;
	p->rss = (double)rss * (double)pg;
	bt = boot_time();
	p->start_s = bt >= 0 ? (double)bt + (double)start / (double)tck : 0;
	return 0;
}

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;		/* the directory's own descriptor */
}

int
proc_stats_read(struct proc_stats *p)
{
	struct rlimit rl;
	int n;

	memset(p, 0, sizeof(*p));
	if ((n = count_fds()) >= 0) {
		p->open_fds = n;
		p->has_fds = true;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		p->max_fds = (double)rl.rlim_cur;
		p->has_max = true;
	}
	p->ok = read_stat(p) == 0;
	return p->ok ? 0 : -1;
}
