/*
 * conf_csv.c - nodes_csv: an inventory as CSV rows (the columns of
 * docs/config.md), each row turned into the YAML node mapping it stands
 * for (bmc, gpu, engines, outlets), so one set of checks reads both; every
 * problem at FILE:LINE of the CSV.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_ld.h"
#include "../lib/diag.h"
#include "../lib/ynode.h"

#define CSV_LINE_MAX	8192

#define CSV_COLS	10
static const char *const csv_cols[CSV_COLS] = {
	"name", "class", "rack", "bmc_url", "bmc_credentials", "bmc_auth",
	"outlets", "dcgm_exporter", "engine_url", "engine_kind"
};

/*
 * Splits one CSV line in place (RFC 4180 quotes, "" escapes; spaces
 * around unquoted fields trimmed).  Returns the field count or -1.
 */
static int
csv_split(char *s, char **f, int max)
{
	char *w;
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (n == max)
			return -1;
		f[n++] = w = s;
		if (*s == '"') {
			for (s++; ; s++) {
				if (*s == '\0')
					return -1;
				if (*s == '"' && s[1] == '"')
					*w++ = '"', s++;
				else if (*s == '"')
					break;
				else
					*w++ = *s;
			}
			s++;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s != ',' && *s != '\0')
				return -1;
		} else {
			while (*s != ',' && *s != '\0')
				*w++ = *s++;
			while (w > f[n - 1] && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
		}
		if (*s == '\0') {
			*w = '\0';
			return n;
		}
		s++;
		*w = '\0';
	}
}

/* Adds key: value (a scalar) to map; NULL on ENOMEM. */
static struct ynode *
syn_add(struct ynode *map, const char *key, int type, const char *value)
{
	struct ynode *c = ynode_new(type, key, value, map->line);

	if (c != NULL) {
		c->file = map->file;
		ynode_append(map, c);
	}
	return c;
}

static int
syn_outlets(struct ynode *row, char *list)
{
	struct ynode *seq, *it;
	char *tok, *save;

	if ((seq = syn_add(row, "outlets", YN_SEQ, NULL)) == NULL)
		return -1;
	for (tok = strtok_r(list, " \t;", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t;", &save)) {
		if ((it = ynode_new(YN_SCALAR, NULL, tok, row->line)) == NULL)
			return -1;
		it->file = row->file;
		ynode_append(seq, it);	/* expanded by load_outlets */
	}
	return 0;
}

static int
syn_engines(struct ld *l, struct ynode *row, char *urls, char *kinds)
{
	struct ynode *seq, *e;
	char *u, *k, *su, *sk, *ks[16];
	int nk = 0, nu = 0;

	if ((seq = syn_add(row, "engines", YN_SEQ, NULL)) == NULL)
		return -1;
	for (k = strtok_r(kinds, " \t;", &sk); k != NULL && nk < 16;
	    k = strtok_r(NULL, " \t;", &sk))
		ks[nk++] = k;
	for (u = strtok_r(urls, " \t;", &su); u != NULL;
	    u = strtok_r(NULL, " \t;", &su), nu++) {
		k = nk == 1 ? ks[0] : nu < nk ? ks[nu] : NULL;
		if ((e = syn_add(seq, NULL, YN_MAP, NULL)) == NULL ||
		    syn_add(e, "url", YN_SCALAR, u) == NULL ||
		    (k != NULL && syn_add(e, "kind", YN_SCALAR, k) == NULL))
			return -1;
	}
	if (nk > 1 && nk != nu)
		conf_bad(l, row, "engine_kind: give one kind, or one per engine_url");
	return 0;
}

/* One CSV row -> a node mapping like the YAML one. */
static int
csv_row(struct ld *l, struct ynode *list, const int *col, char **f,
    int line, const char *file)
{
	struct ynode *row, *b;
	char *v[CSV_COLS] = { 0 };
	int i;

	for (i = 0; i < CSV_COLS; i++)
		if (col[i] >= 0 && *f[col[i]] != '\0')
			v[i] = f[col[i]];
	if ((row = ynode_new(YN_MAP, NULL, NULL, line)) == NULL)
		return -1;
	row->file = file;
	ynode_append(list, row);
	if ((v[0] != NULL && !syn_add(row, "name", YN_SCALAR, v[0])) ||
	    (v[1] != NULL && !syn_add(row, "class", YN_SCALAR, v[1])) ||
	    (v[2] != NULL && !syn_add(row, "rack", YN_SCALAR, v[2])))
		return -1;
	if (v[3] != NULL || v[4] != NULL || v[5] != NULL) {
		if ((b = syn_add(row, "bmc", YN_MAP, NULL)) == NULL ||
		    (v[3] != NULL && !syn_add(b, "url", YN_SCALAR, v[3])) ||
		    (v[4] != NULL && !syn_add(b, "credentials", YN_SCALAR,
		    v[4])) ||
		    (v[5] != NULL && !syn_add(b, "auth", YN_SCALAR, v[5])))
			return -1;
	}
	if (v[6] != NULL && syn_outlets(row, v[6]) < 0)
		return -1;
	if (v[7] != NULL && ((b = syn_add(row, "gpu", YN_MAP, NULL)) == NULL ||
	    !syn_add(b, "dcgm_exporter", YN_SCALAR, v[7])))
		return -1;
	if (v[8] != NULL && syn_engines(l, row, v[8], v[9] ? v[9] : "") < 0)
		return -1;
	if (v[8] == NULL && v[9] != NULL)
		conf_bad(l, row, "engine_kind without engine_url");
	return 0;
}

static int
csv_header(struct ld *l, char **f, int n, int *col, int line,
    const char *file)
{
	struct ynode at = { .file = file, .line = line };
	int i, j, bad_n = 0;

	for (j = 0; j < CSV_COLS; j++)
		col[j] = -1;
	for (i = 0; i < n; i++) {
		for (j = 0; j < CSV_COLS; j++)
			if (strcmp(f[i], csv_cols[j]) == 0)
				break;
		if (j == CSV_COLS) {
			conf_bad(l, &at, "unknown column '%s' (known: name, class, "
			    "rack, bmc_url, bmc_credentials, bmc_auth, outlets, "
			    "dcgm_exporter, engine_url, engine_kind)", f[i]);
			bad_n++;
		} else if (col[j] >= 0) {
			conf_bad(l, &at, "column '%s' appears twice", f[i]);
			bad_n++;
		} else
			col[j] = i;
	}
	if (col[0] < 0) {
		conf_bad(l, &at, "the header needs a 'name' column");
		bad_n++;
	}
	return bad_n ? -1 : 0;
}

static char *
csv_path(struct ld *l, const char *v)
{
	char buf[PATH_MAX];

	if (*v == '/' || l->dir == NULL)
		return conf_own(l, v);
	snprintf(buf, sizeof(buf), "%s/%s", l->dir, v);
	return conf_own(l, buf);
}

static void
csv_lines(struct ld *l, FILE *fp, const char *file)
{
	char *line = NULL, *f[CSV_COLS + 1];
	int col[CSV_COLS], lineno = 0, n, hdr_n = -1;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, fp)) >= 0) {
		struct ynode at = { .file = file, .line = ++lineno };

		if (len > CSV_LINE_MAX) {
			conf_bad(l, &at, "line longer than %d bytes", CSV_LINE_MAX);
			break;
		}
		if (memchr(line, '\0', (size_t)len) != NULL) {
			conf_bad(l, &at, "a NUL byte in the line: not a text CSV "
			    "file (save it as UTF-8 text)");
			break;
		}
		while (len > 0 && (line[len - 1] == '\n' ||
		    line[len - 1] == '\r'))
			line[--len] = '\0';
		/* a spreadsheet's UTF-8 byte order mark before the header */
		if (lineno == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0) {
			memmove(line, line + 3, (size_t)len - 2);
			len -= 3;
		}
		if (strspn(line, " \t") == (size_t)len || line[0] == '#')
			continue;
		if ((n = csv_split(line, f, CSV_COLS + 1)) < 0) {
			conf_bad(l, &at, "malformed CSV (unbalanced quotes or too "
			    "many columns)");
			continue;
		}
		if (hdr_n < 0) {
			if (csv_header(l, f, n, col, lineno, file) < 0)
				break;
			hdr_n = n;
			continue;
		}
		if (n != hdr_n)
			conf_bad(l, &at, "%d columns, the header has %d", n, hdr_n);
		else if (csv_row(l, l->pv->csv, col, f, lineno, file) < 0) {
			l->oom = true;
			break;
		}
	}
	if (ferror(fp))
		conf_bad(l, NULL, "nodes_csv %s: read error", file);
	free(line);
}

void
conf_csv_load(struct ld *l, const struct ynode *n)
{
	const char *file;
	FILE *fp;

	if ((file = csv_path(l, n->value)) == NULL)
		return;
	if ((l->pv->csv = ynode_new(YN_SEQ, NULL, NULL, 0)) == NULL) {
		l->oom = true;
		return;
	}
	if ((fp = fopen(file, "re")) == NULL) {
		conf_bad(l, n, "nodes_csv: cannot open %s: %s", file,
		    strerror(errno));
		return;
	}
	csv_lines(l, fp, file);
	fclose(fp);
}
