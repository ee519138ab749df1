/*
 * fuzz_conf.h - what fuzz_conf.c and fuzz_csv.c check of a conf_load
 * result: a config loads with no error or fails with at least one; every
 * message names the file (and the line, within the file) and holds no
 * control character; a loaded config has unique node and target names
 * (each found by its name) and positive intervals and timeouts.
 */
#ifndef WP_FUZZ_CONF_H
#define WP_FUZZ_CONF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../collector/conf/conf.h"
#include "../../collector/registry.h"

/* A memfd holding data, or abort. */
static int
fuzz_memfd(const char *name, const void *data, size_t size)
{
	int fd = memfd_create(name, 0);

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	return fd;
}

static void
fuzz_check_msg(const char *m, const char *file, size_t lines)
{
	const char *p;
	size_t l = strlen(file);
	unsigned long line;
	char *end;

	for (p = m; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
	if (strncmp(m, file, l) != 0) {
		/* another file: the config (a CSV's), a data file */
		if (*m == '\0')
			abort();
		return;
	}
	if (m[l] != ':')
		abort();
	if (m[l + 1] >= '0' && m[l + 1] <= '9') {
		line = strtoul(m + l + 1, &end, 10);
		if (*end != ':' || line > lines + 1) {
			fprintf(stderr, "bad line (%zu lines): %s\n", lines, m);
			abort();
		}
	}
}

static void
fuzz_check_conf(const struct wp_conf *c, const struct conf_errs *e,
    const char *file, size_t lines)
{
	size_t i;

	if ((c == NULL) == (e->n == 0))
		abort();
	for (i = 0; i < e->n; i++)
		fuzz_check_msg(e->msg[i], file, lines);
	for (i = 0; i < e->n_warn; i++)
		fuzz_check_msg(e->warn[i], file, lines);
	if (c == NULL)
		return;
	for (i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].name == NULL ||
		    conf_node_by_name(c, c->nodes[i].name) != &c->nodes[i])
			abort();
	for (i = 0; i < c->n_targets; i++) {
		if (c->targets[i].interval <= 0 || c->targets[i].timeout <= 0 ||
		    c->targets[i].name == NULL)
			abort();
		if (i > 0 && strcmp(c->targets[i].name,
		    c->targets[i - 1].name) == 0)
			abort();
	}
	if (c->interval <= 0 || c->timeout <= 0)
		abort();
}

static size_t
fuzz_lines(const unsigned char *d, size_t n)
{
	size_t i, lines = 1;

	/* an upper bound: LF, CR and what YAML also breaks lines at (NEL,
	 * LS, PS) */
	for (i = 0; i < n; i++)
		lines += d[i] == '\n' || d[i] == '\r' || (d[i] == 0xc2 &&
		    i + 1 < n && d[i + 1] == 0x85) || (d[i] == 0xe2 &&
		    i + 2 < n && d[i + 1] == 0x80 && (d[i + 2] == 0xa8 ||
		    d[i + 2] == 0xa9));
	return lines;
}

#endif
