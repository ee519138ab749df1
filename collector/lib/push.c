/* push.c - names of push results (push.h). */
#include "push.h"

const char *
push_result_name(int result)
{
	static const char *const names[WP_PUSH_N] = { "ok", "malformed",
	    "oversized", "replayed", "out_of_order", "unknown_sender",
	    "ignored" };

	return result >= 0 && result < WP_PUSH_N ? names[result] : "?";
}
