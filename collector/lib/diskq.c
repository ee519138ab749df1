/* diskq.c - batches in files, oldest first (diskq.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskq.h"

#define MAGIC		"WPRWQ1\n"	/* 8 bytes with its NUL */
#define HEAD		24
#define SUFFIX		".rwb"

struct dq_ent {
	uint64_t	 seq, bytes, items;
};

struct diskq {
	char		*dir;
	uint64_t	 max_bytes, bytes, items, next;
	struct dq_ent	*e;		/* e[head .. n): oldest first */
	size_t		 head, n, cap;
	int		 busy;		/* e[head] is being sent */
};

static void
path_of(const struct diskq *q, uint64_t seq, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%020" PRIu64 SUFFIX, q->dir, seq);
}

static void
put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int
append(struct diskq *q, uint64_t seq, uint64_t bytes, uint64_t items)
{
	struct dq_ent *ne;
	size_t cap;

	if (q->head > 0 && q->n == q->cap) {
		memmove(q->e, q->e + q->head, (q->n - q->head) * sizeof(*q->e));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		cap = q->cap ? 2 * q->cap : 64;
		if ((ne = realloc(q->e, cap * sizeof(*ne))) == NULL)
			return -1;
		q->e = ne;
		q->cap = cap;
	}
	q->e[q->n++] = (struct dq_ent){ seq, bytes, items };
	q->bytes += bytes;
	q->items += items;
	return 0;
}

static int
cmp_ent(const void *a, const void *b)
{
	const struct dq_ent *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The header of file path: its item count; -1 when not a batch. */
static int
read_head(const char *path, uint64_t *items, uint64_t *bytes)
{
	uint8_t h[HEAD];
	struct stat st;
	int fd, ok;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = fstat(fd, &st) == 0 && read(fd, h, HEAD) == HEAD &&
	    memcmp(h, MAGIC, 8) == 0 &&
	    get64(h + 16) == (uint64_t)st.st_size - HEAD;
	close(fd);
	if (!ok)
		return -1;
	*items = get64(h + 8);
	*bytes = (uint64_t)st.st_size;
	return 0;
}

/* The batches already in q->dir, sorted; leftover temporaries removed. */
static int
scan(struct diskq *q, struct wp_err *err)
{
	char path[4096], *end;
	struct dirent *de;
	uint64_t seq, items, bytes;
	DIR *d;

	if ((d = opendir(q->dir)) == NULL)
		return err_set(err, WP_E_CONFIG, "%s: %s", q->dir,
		    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", q->dir, de->d_name);
		if (strncmp(de->d_name, "tmp.", 4) == 0) {
			unlink(path);
			continue;
		}
		seq = strtoull(de->d_name, &end, 10);
		if (end == de->d_name || strcmp(end, SUFFIX) != 0)
			continue;
		if (read_head(path, &items, &bytes) == -1) {
			unlink(path);	/* not one of ours whole: useless */
			continue;
		}
		if (append(q, seq, bytes, items) == -1) {
			closedir(d);
			return err_set(err, WP_E_INTERNAL, "out of memory");
		}
		if (seq >= q->next)
			q->next = seq + 1;
	}
	closedir(d);
	if (q->n > 1)
		qsort(q->e, q->n, sizeof(*q->e), cmp_ent);
	return 0;
}

struct diskq *
diskq_open(const char *dir, uint64_t max_bytes, struct wp_err *err)
{
	struct diskq *q;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		err_set(err, WP_E_CONFIG, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	if ((q = calloc(1, sizeof(*q))) == NULL ||
	    (q->dir = strdup(dir)) == NULL) {
		free(q);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	q->max_bytes = max_bytes;
	q->next = 1;
	if (scan(q, err) == -1) {
		diskq_close(q);
		return NULL;
	}
	return q;
}

void
diskq_close(struct diskq *q)
{
	if (q == NULL)
		return;
	free(q->e);
	free(q->dir);
	free(q);
}

static void
remove_at(struct diskq *q, size_t i)
{
	char path[4096];

	path_of(q, q->e[i].seq, path, sizeof(path));
	unlink(path);
	q->bytes -= q->e[i].bytes;
	q->items -= q->e[i].items;
	if (i == q->head) {
		q->head++;
		q->busy = 0;
		if (q->head == q->n)
			q->head = q->n = 0;
		return;
	}
	memmove(q->e + i, q->e + i + 1, (q->n - i - 1) * sizeof(*q->e));
	q->n--;
}

static int
write_file(struct diskq *q, uint64_t seq, const void *data, size_t len,
    uint64_t items, struct wp_err *err)
{
	char tmp[4096], path[4096];
	uint8_t h[HEAD];
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s/tmp.%020" PRIu64, q->dir, seq);
	path_of(q, seq, path, sizeof(path));
	memcpy(h, MAGIC, 8);
	put64(h + 8, items);
	put64(h + 16, len);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0)
		return err_set(err, WP_E_TRANSIENT, "%s: %s", tmp,
		    strerror(errno));
	ok = write(fd, h, HEAD) == HEAD &&
	    write(fd, data, len) == (ssize_t)len;
	ok &= close(fd) == 0;
	if (!ok || rename(tmp, path) < 0) {
		err_set(err, WP_E_TRANSIENT, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
diskq_push(struct diskq *q, const void *data, size_t len, uint64_t items,
    uint64_t *dropped, struct wp_err *err)
{
	uint64_t seq = q->next, bytes = HEAD + (uint64_t)len;

	if (bytes > q->max_bytes)
		return err_set(err, WP_E_CONFIG, "a batch of %" PRIu64 " bytes "
		    "is over the queue's bound of %" PRIu64, bytes,
		    q->max_bytes);
	if (write_file(q, seq, data, len, items, err) == -1)
		return -1;
	if (append(q, seq, bytes, items) == -1) {
		char path[4096];

		path_of(q, seq, path, sizeof(path));
		unlink(path);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	q->next = seq + 1;
	while (q->bytes > q->max_bytes) {
		size_t i = q->head + (q->busy ? 1 : 0);

		*dropped += q->e[i].items;
		remove_at(q, i);
	}
	return 0;
}

int
diskq_peek(struct diskq *q, uint8_t **data, size_t *len, uint64_t *seq,
    uint64_t *items, uint64_t *dropped, struct wp_err *err)
{
	char path[4096];
	uint8_t *buf;
	FILE *f;
	size_t n;

	if (q->head == q->n)
		return 1;
	path_of(q, q->e[q->head].seq, path, sizeof(path));
	n = (size_t)q->e[q->head].bytes;
	if ((buf = malloc(n)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if ((f = fopen(path, "rb")) == NULL || fread(buf, 1, n, f) != n ||
	    memcmp(buf, MAGIC, 8) != 0 || get64(buf + 16) != n - HEAD) {
		if (f != NULL)
			fclose(f);
		free(buf);
		*dropped += q->e[q->head].items;
		remove_at(q, q->head);
		return err_set(err, WP_E_TRANSIENT, "%s: unreadable batch "
		    "dropped", path);
	}
	fclose(f);
	memmove(buf, buf + HEAD, n - HEAD);
	*data = buf;
	*len = n - HEAD;
	*seq = q->e[q->head].seq;
	*items = q->e[q->head].items;
	q->busy = 1;
	return 0;
}

int
diskq_pop(struct diskq *q, uint64_t seq)
{
	if (q->head == q->n || q->e[q->head].seq != seq)
		return -1;
	remove_at(q, q->head);
	return 0;
}

void
diskq_unmark(struct diskq *q)
{
	q->busy = 0;
}

size_t
diskq_len(const struct diskq *q)
{
	return q->n - q->head;
}

uint64_t
diskq_bytes(const struct diskq *q)
{
	return q->bytes;
}

uint64_t
diskq_items(const struct diskq *q)
{
	return q->items;
}

uint64_t
diskq_next_seq(const struct diskq *q)
{
	return q->next;
}
