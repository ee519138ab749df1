/*
 * promtext.h - a streaming parser of the Prometheus text exposition format
 * (version 0.0.4) and of OpenMetrics 1.0 text.
 *
 * Pure: no I/O, no globals.  Feed the body in chunks of any size; the parser
 * keeps at most one line (bounded by max_line) and a bounded table of the
 * metric families it has seen (HELP/TYPE/UNIT).  For every sample line it
 * calls the callback with the metric name, the family it belongs to and the
 * family's declared TYPE, which part of the family the line is (_bucket,
 * _sum, _count, _created, _total...), the labels (unescaped), the value
 * (NaN and +/-Inf allowed) and the timestamp if any (seconds).  Everything
 * the callback gets is borrowed and valid only during the call.
 *
 * Errors stop the parse with "line N: ..." in err (class PROTOCOL): a line
 * longer than max_line, more than max_labels labels, a bad name, escape,
 * value or timestamp, a conflicting TYPE, a body cut in the middle of a line
 * (no final newline), and in OpenMetrics mode a missing "# EOF" or anything
 * after it.  Duplicate and out-of-order series are passed through: deciding
 * what they mean is the consumer's job (dcgm.c, engines.c).
 */
#ifndef WP_PROMTEXT_H
#define WP_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/err.h"

enum prom_type {
	PROM_UNTYPED = 0,	/* no TYPE line, or "untyped" / "unknown" */
	PROM_COUNTER,
	PROM_GAUGE,
	PROM_HISTOGRAM,
	PROM_SUMMARY,
	PROM_GAUGEHISTOGRAM,	/* OpenMetrics */
	PROM_INFO,		/* OpenMetrics */
	PROM_STATESET		/* OpenMetrics */
};

/* Which member of its family a sample line is. */
enum prom_suffix {
	PROM_S_NONE = 0,	/* the family name itself */
	PROM_S_TOTAL,		/* counter _total */
	PROM_S_BUCKET,
	PROM_S_SUM,
	PROM_S_COUNT,
	PROM_S_CREATED,
	PROM_S_GSUM,
	PROM_S_GCOUNT,
	PROM_S_INFO
};

#define PROM_LINE_MAX_DEFAULT	 (64u << 10)	/* bytes per line */
#define PROM_LABELS_MAX_DEFAULT	 64		/* labels per sample */
#define PROM_FAMILIES_MAX_DEFAULT 20000		/* HELP/TYPE families */

struct prom_label {
	const char	*name;
	const char	*value;		/* unescaped */
};

struct prom_sample {
	const char	*name;		/* metric name as written */
	const char	*family;	/* declared family, or name if none */
	int		 type;		/* enum prom_type of the family */
	int		 suffix;	/* enum prom_suffix */
	const char	*unit;		/* OpenMetrics UNIT, or "" */
	const char	*help;		/* HELP text (unescaped), or "" */
	const struct prom_label *labels;
	size_t		 n_labels;
	double		 value;
	bool		 has_ts;
	double		 ts;		/* seconds since the epoch */
	unsigned long	 line;		/* 1-based line number */
};

/* Returns 0 to go on, -1 to stop the parse (fill err). */
typedef int (*prom_sample_cb)(void *arg, const struct prom_sample *s,
    struct wp_err *err);

struct prom_opts {
	bool	 openmetrics;	/* OpenMetrics rules: # EOF, float timestamps */
	size_t	 max_line;	/* 0: PROM_LINE_MAX_DEFAULT */
	size_t	 max_labels;	/* 0: PROM_LABELS_MAX_DEFAULT */
	size_t	 max_families;	/* 0: PROM_FAMILIES_MAX_DEFAULT */
};

struct prom_parser;

/* New parser (opts may be NULL); caller frees with prom_free. */
struct prom_parser *prom_new(const struct prom_opts *opts, prom_sample_cb cb,
		    void *arg, struct wp_err *err);
/* Feeds the next chunk.  Returns 0, or -1 with err (the parser is then
 * finished: further feeds fail). */
int	 prom_feed(struct prom_parser *p, const char *buf, size_t len,
	    struct wp_err *err);
/* Ends the input: checks for truncation.  Returns 0 or -1 with err. */
int	 prom_finish(struct prom_parser *p, struct wp_err *err);
void	 prom_free(struct prom_parser *p);
/* Samples seen so far. */
unsigned long prom_samples(const struct prom_parser *p);

/* One-shot: new + feed + finish + free. */
int	 prom_parse(const char *buf, size_t len, const struct prom_opts *opts,
	    prom_sample_cb cb, void *arg, struct wp_err *err);

/* True if an HTTP Content-Type names OpenMetrics text. */
bool	 prom_content_is_openmetrics(const char *content_type);
/* A label's value, or NULL. */
const char *prom_label(const struct prom_sample *s, const char *name);
const char *prom_type_name(int type);

#endif
