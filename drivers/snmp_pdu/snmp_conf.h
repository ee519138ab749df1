/*
 * snmp_conf.h - one PDU's SNMP settings, read from its config block (the
 * same function for validate and target_new: every problem to the
 * diagnostics at its line) or from `wattpath probe`'s options.
 *
 * Secrets are never read here: the block names a file or an environment
 * variable and snmp_cfg_secrets loads them at the PDU's first poll.  The
 * profile named by `profile:` is loaded (a data file); "auto" leaves it to
 * the first poll.  `unit: N` reads only databus unit N of the agent.
 */
#ifndef WP_SNMP_CONF_H
#define WP_SNMP_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "../../collector/lib/driver.h"
#include "pdu_profile.h"

/* Where a secret comes from (a file or an environment variable): no
 * secret; the strings are owned (NULL: not given). */
struct secref {
	char		*file;
	char		*env;
};

struct sp_cfg {
	char		 host[256];
	int		 port;
	long		 version;	/* SNMP_VERSION_2c or SNMP_VERSION_3 */
	char		*community;	/* secret, loaded at the first poll */
	struct secref	 community_ref;
	struct secref	 auth_ref, priv_ref;
	bool		 loaded;	/* secrets loaded (snmp_cfg_secrets) */
	char		 user[64];
	char		 context[64];	/* SNMPv3 contextName, usually "" */
	const oid	*auth_proto;
	size_t		 auth_proto_len;
	char		*auth_pass;	/* secret */
	char		*priv_pass;	/* secret */
	int		 level;		/* SNMP_SEC_LEVEL_* */
	wp_time		 timeout;	/* per try */
	long		 retries;
	long		 unit;		/* databus unit to read; -1 all */
	char		 profile[48];	/* name or "auto" */
	char		*maps_dir;	/* owned, or NULL */
	char		*conf_dir;	/* owned, or NULL: the config's directory */
};

/*
 * Reads tc's block into c; a named profile is loaded into *prof (caller
 * frees with pdu_profile_free).  Every problem goes to d.
 */
void	 snmp_cfg_read(struct sp_cfg *c, const struct wp_target_conf *tc,
	    struct pdu_profile **prof, struct diag *d);
/* The options of `wattpath probe` into c.  0 or -1 with err. */
int	 snmp_cfg_probe(struct sp_cfg *c, const struct wp_probe_req *req,
	    struct wp_err *err);
/* Loads the secrets the session needs (once).  0 or -1 with err. */
int	 snmp_cfg_secrets(struct sp_cfg *c, struct wp_err *err);
/* Frees what c owns (secrets wiped); c may be reused after. */
void	 snmp_cfg_fini(struct sp_cfg *c);

#endif
