/*
 * redfish_subscr.h - a BMC target's EventService subscription for POST
 * delivery (bmc: mode push or auto, with collector.push_listen): the BMC
 * POSTs its MetricReports to the listener's URL for this target.
 *
 * rf_sub_kick() (from each poll, once the BMC has a session) subscribes:
 * the first time in a process it lists EventService/Subscriptions and
 * deletes each one whose Context is ours (left by a run that crashed),
 * then POSTs a new EventDestination (redfish_push.h: rf_sub_body) and
 * keeps the URI from Location (or @odata.id) and the address that
 * answered: only that address may POST to us (rf_sub_sender_ok).  A
 * failure is retried after 30 s (logged once).  rf_sub_check() GETs the
 * subscription: 404 or 410 (a BMC that rebooted and lost it) subscribes
 * again at once.  rf_sub_free() DELETEs it, on a connection of its own
 * holding a reference on the BMC (its session outlives the DELETE).
 * All on the loop thread, each on its own connection beside the BMC's.
 */
#ifndef WP_REDFISH_SUBSCR_H
#define WP_REDFISH_SUBSCR_H

#include <stdbool.h>

#include "../../collector/lib/driver.h"
#include "redfish_bmc.h"

struct rf_sub;

/* A subscription to be made for target name, delivering to dest with
 * Context context (both copied).  NULL on ENOMEM. */
struct rf_sub	*rf_sub_new(const char *name, const char *dest,
		    const char *context, const struct wp_services *svc);
/* Deletes the subscription (if any, without waiting) and frees.
 * NULL-safe. */
void		 rf_sub_free(struct rf_sub *u);
/* Subscribes when not subscribed and not busy; bmc borrowed until the
 * next kick or rf_sub_free. */
void		 rf_sub_kick(struct rf_sub *u, struct rf_bmc *bmc);
/* Asks whether the subscription is still there (re-made if gone). */
void		 rf_sub_check(struct rf_sub *u);
/* Subscribed (the BMC accepted our EventDestination). */
bool		 rf_sub_active(const struct rf_sub *u);
/* Is peer (a numeric address) the BMC that accepted the subscription? */
bool		 rf_sub_sender_ok(const struct rf_sub *u, const char *peer);

#endif
