/*
 * snmp_detect.h - `profile: auto`: which profile reads this agent.
 *
 * Not by sysObjectID alone.  One profile whose sys_object_ids match the
 * agent's sysObjectID is tried first (walked); when none matches, when
 * the agent gives none (or a bare enterprise number such as
 * 1.3.6.1.4.1.318), when several match, or when the one that matches
 * finds no rows, the candidates' tables are probed: one GETNEXT at each
 * of their reading columns (power, energy, VA...; at most DETECT_ASK_MAX
 * in all), and the profiles are tried in the order of how many of their
 * columns answered with a row (then a sysObjectID match, then the name).
 * Profiles marked `detect: fallback` are probed only when no other
 * profile answered; `detect: never` ones only when named.
 *
 * The caller does the I/O: sp_detect_next says what to do next (walk a
 * profile it hands over, or send the GETNEXTs sp_detect_asked lists and
 * hand each answer to sp_detect_answer, then sp_detect_scored); a walk
 * that finds no rows is reported with sp_detect_empty.
 * sp_detect_new returns a new state (caller frees with sp_detect_free).
 */
#ifndef WP_SNMP_DETECT_H
#define WP_SNMP_DETECT_H

#include "pdu_decode.h"

#define DETECT_ASK_MAX	512

struct sp_detect;

/* Loads every profile; sysoid NULL when the agent gave none. */
struct sp_detect *sp_detect_new(const char *maps_dir, const char *conf_dir,
		    const struct pdu_oid *sysoid, struct wp_err *err);
void		 sp_detect_free(struct sp_detect *d);	/* NULL-safe */
/*
 * 1: walk *p next (taken over: caller frees with pdu_profile_free);
 * 0: probe first (the OIDs of sp_detect_asked); -1: no profile left, the
 * reason in err.
 */
int		 sp_detect_next(struct sp_detect *d, struct pdu_profile **p,
		    struct wp_err *err);
/* The i-th OID to GETNEXT, or NULL past the last. */
const struct pdu_oid *sp_detect_asked(const struct sp_detect *d, size_t i);
void		 sp_detect_answer(struct sp_detect *d, size_t i,
		    const struct pdu_vb *vb);
/* Every answer is in: rank the probed profiles. */
void		 sp_detect_scored(struct sp_detect *d);
/* The profile last handed over found no rows. */
void		 sp_detect_empty(struct sp_detect *d, const char *name);
/* "sysObjectID" or "probe": how the profile named chosen was chosen. */
const char	*sp_detect_label(const struct sp_detect *d);
/* Why chosen, in words (valid until the next call or the free). */
const char	*sp_detect_reason(struct sp_detect *d, const char *chosen);

#endif
