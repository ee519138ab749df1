/*
 * remote_write.h - the figures of /metrics pushed to Prometheus
 * remote-write receivers (collector.remote_write; docs/deploy.md).
 *
 * Every sample of the exposition (expo_metrics.h: the same series and
 * labels, site included, and the receiver's labels: instance, by default
 * this host and the listen port) is sent once per collector interval, at the
 * snapshot's time, as one batch: the text is encoded once, on a thread
 * of its own (lib/promwrite.h: protobuf + snappy), and the batch queued on disk per
 * receiver (lib/diskq.h, DATA_DIR/remote_write/NAME, bounded by
 * max_queue_bytes: the oldest batches are dropped first, and counted).
 * Each receiver sends its queue oldest first, one request at a time, on
 * the loop (lib/http.h: never blocking a poll); a batch leaves the queue
 * only on a 2xx (sent) or a 4xx other than 408 and 429 (rejected: the
 * receiver will never take it; logged); anything else (5xx, 408, 429, no
 * connection, a timeout) keeps it first and retries it after a backoff of
 * 1 s doubling to 1 min.  So after an outage every sample arrives once,
 * in order; a batch whose 2xx was lost is sent again, which receivers
 * take as the same samples (equal timestamps and values).  A reload
 * (SIGHUP) that changes collector.remote_write (or data_dir) stops the
 * senders and starts them anew on the same queues.
 */
#ifndef WP_REMOTE_WRITE_H
#define WP_REMOTE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../lib/clock.h"
#include "../lib/err.h"

struct loop;
struct wp_conf;
struct rw;

/* The receivers of c (none: returns NULL with err clear).  Opens each
 * queue and loads each password; NULL with err on a failure.  Caller
 * frees with rw_free; c is not kept. */
struct rw	*rw_new(struct loop *l, const struct wp_conf *c,
		    struct wp_err *err);
/* Stops sending (a request in flight is abandoned: its batch stays
 * queued) and frees.  NULL-safe. */
void		 rw_free(struct rw *w);
/* Whether w (NULL: none) was made from c's remote_write as it is (a
 * reload that changed nothing there keeps the running one). */
bool		 rw_same(const struct rw *w, const struct wp_conf *c);
/*
 * Takes text[0..len) (a text exposition, malloc'd: freed here) as one
 * batch at realtime ts for every receiver: encoded on a thread of its own
 * (in order), then queued and sent on the loop.  Failures are logged and
 * counted.
 */
void		 rw_push(struct rw *w, char *text, size_t len, wp_time ts);
/* The wattpath_remote_write_* families (docs/exposition.md), each series
 * labelled site (when not empty) and remote (the receiver's name). */
void		 rw_metrics_write(FILE *f, const struct rw *w, const char *site);

#endif
