/*
 * conf_ld.h - the config reader's state while it loads one file, shared
 * by its parts (conf.c, conf_csv.c); internal to collector/conf.
 */
#ifndef WP_CONF_LD_H
#define WP_CONF_LD_H

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
#include "../lib/diag.h"
#include "../lib/hmap.h"

struct conf_priv {
	struct ynode *root;		/* the YAML document */
	struct ynode *csv;		/* rows of nodes_csv, as a list */
	char		**strs;		/* owned strings (names, paths) */
	size_t		  n_strs, cap_strs;
	/* by name: positions in c->nodes, pdus, meters, creds (hmap_ix) */
	struct hmap	 nodes, pdus, meters, creds;
};

/* An outlet claimed by a node: "pdu\037outlet" -> the node's name. */
struct claim {
	char		*key;
	const char	*owner;
};

/* A target found while validating, before they are put in order. */
struct pend {
	const char	*name, *node, *kind, *driver;
	const char	*where;		/* the block in messages */
	const struct ynode *block;
	wp_time		 interval, timeout;
	bool		 gpu_inband;	/* the node also has gpu: */
	bool		 scratch;	/* a rejected entry: validated only */
};

struct pendv {
	struct pend	*v;
	size_t		 n, cap;
};

struct ld {
	struct wp_conf	*c;
	struct conf_priv *pv;
	struct diag	 d;
	char		*dir;		/* the config file's directory */
	bool		 timeout_set;
	bool		 oom;
	bool		 scratch;	/* validating a rejected entry: no targets */
	struct pendv	 pt_nodes, pt_pdus, pt_meters;
	struct hmap	 claims;	/* struct claim by key: outlets taken */
};

/* A problem at node n (NULL: the file), an error or a warning. */
void	 conf_bad(struct ld *l, const struct ynode *n, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 conf_warn(struct ld *l, const struct ynode *n, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Keeps a copy of s until conf_free; NULL out of memory (noted). */
char	*conf_own(struct ld *l, const char *s);
/* Replaces *dst (freed) by a copy of v; v NULL leaves it; out of memory
 * marks l. */
void	 conf_set_str(struct ld *l, char **dst, const char *v);
/* Loads every node of one list (YAML nodes: or the CSV rows). */
void	 conf_load_node_list(struct ld *l, struct ynode *seq);
/* The attribution keys (model, gpus) of engine block e, engines[k] of its
 * node, into re (NULL: validated only); held[g] (REPORT_ENGINE_GPUS, -1
 * free) records which engine holds GPU g (conf_engine.c). */
void	 conf_engine_attr(struct ld *l, const struct ynode *e,
	    struct report_engine *re, int *held, size_t k, const char *where);
/* The secret of keys PFX_file, PFX_env, PFX_credential in m: at most one,
 * checked (a private file; a variable name; a credential, as its file);
 * *file, *env set when given (either may be NULL); true if one is set. */
bool	 conf_secret_pair(struct ld *l, const struct ynode *m, const char *pfx,
	    const char *where, const char **file, const char **env);
/* collector.remote_write (n: its value, or NULL) into l->c (conf_rw.c). */
void	 conf_rw_load(struct ld *l, const struct ynode *n);
/* collector.peers (n: its value, or NULL) into l->c, after site:
 * (conf_peer.c). */
void	 conf_peer_load(struct ld *l, const struct ynode *n);
/* collector's push listener keys (m: the collector block) into l->c
 * (conf_push.c). */
void	 conf_push_load(struct ld *l, const struct ynode *m);
/* Reads nodes_csv (n: its value) into l->pv->csv. */
void	 conf_csv_load(struct ld *l, const struct ynode *n);

#endif
