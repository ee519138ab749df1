/* reqlog_load.c - load-generator request logs as JSON Lines (see
 * reqlog_load.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report_inputs.h"
#include "reqlog_load.h"

/* The first member of o present among names; NULL if none. */
static json_object *
member(json_object *o, const char *const *names)
{
	json_object *v;

	for (; *names != NULL; names++)
		if (json_object_object_get_ex(o, *names, &v) && v != NULL)
			return v;
	return NULL;
}

static int
get_num(json_object *o, const char *const *names, double *out)
{
	json_object *v = member(o, names);

	if (v == NULL || !(json_object_is_type(v, json_type_double) ||
	    json_object_is_type(v, json_type_int)))
		return -1;
	*out = json_object_get_double(v);
	return isfinite(*out) ? 0 : -1;
}

static int
get_count(json_object *o, const char *const *names, long long *out)
{
	json_object *v = member(o, names);

	if (v == NULL || !json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	*out = json_object_get_int64(v);
	return *out < 0 || *out > REQLOG_TOKENS_MAX || errno != 0 ? -1 : 0;
}

/* Optional seconds: absent -> -1; present but bad -> error. */
static int
get_opt(json_object *o, const char *const *names, double *out)
{
	*out = -1;
	if (member(o, names) == NULL ||
	    json_object_is_type(member(o, names), json_type_null))
		return 0;
	return get_num(o, names, out) == 0 && *out >= 0 ? 0 : -1;
}

static int
entry_from(json_object *o, struct reqlog_entry *e)
{
	static const char *const id[] = { "id", "request_id", NULL };
	static const char *const st[] = { "start", "start_time", "t_start",
	    NULL };
	static const char *const en[] = { "end", "end_time", "t_end", NULL };
	static const char *const in[] = { "input_tokens", "prompt_tokens",
	    NULL };
	static const char *const out[] = { "output_tokens",
	    "completion_tokens", "generated_tokens", NULL };
	static const char *const tt[] = { "ttft", "ttft_s", NULL };
	static const char *const tp[] = { "tpot", "tpot_s", NULL };
	static const char *const okn[] = { "ok", "success", NULL };
	json_object *v;

	memset(e, 0, sizeof(*e));
	if ((v = member(o, id)) != NULL)
		snprintf(e->id, sizeof(e->id), "%s", json_object_get_string(v));
	if (get_num(o, st, &e->t_start) == -1 || get_num(o, en, &e->t_end) ==
	    -1 || e->t_end < e->t_start || e->t_start <= 0)
		return -1;
	if (get_count(o, in, &e->in_tokens) == -1 ||
	    get_count(o, out, &e->out_tokens) == -1)
		return -1;
	if (get_opt(o, tt, &e->ttft) == -1 || get_opt(o, tp, &e->tpot) == -1)
		return -1;
	e->ok = true;
	if ((v = member(o, okn)) != NULL) {
		if (!json_object_is_type(v, json_type_boolean))
			return -1;
		e->ok = json_object_get_boolean(v);
	}
	return 0;
}

static int
one_line(struct reqlog *l, const char *s, size_t n, unsigned long line)
{
	struct json_tokener *tok;
	struct reqlog_entry e;
	json_object *o;
	int rc = 0;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		return 0;
	if (n > REQLOG_LINE_MAX || (tok = json_tokener_new()) == NULL) {
		reqlog_bad(l, line);
		return 0;
	}
	o = json_tokener_parse_ex(tok, s, (int)n);
	if (o == NULL || json_tokener_get_parse_end(tok) != n ||
	    !json_object_is_type(o, json_type_object) || entry_from(o, &e) == -1)
		reqlog_bad(l, line);
	else
		rc = reqlog_push(l, &e);
	json_object_put(o);
	json_tokener_free(tok);
	return rc;
}

struct reqlog *
reqlog_parse(const char *buf, size_t len, struct wp_err *err)
{
	struct reqlog *l = reqlog_new();
	const char *p = buf, *end = buf + len, *nl;
	unsigned long line = 0;

	if (l == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (one_line(l, p, (size_t)(nl - p), ++line) == -1) {
			reqlog_free(l);
			err_set(err, WP_E_INTERNAL, "out of memory");
			return NULL;
		}
		p = nl + 1;
	}
	if (l->n == 0) {
		if (l->n_bad == 0)
			err_set(err, WP_E_PROTOCOL, "no request line in it");
		else
			err_set(err, WP_E_PROTOCOL, "no valid request line (%zu "
			    "bad, first at line %lu)", l->n_bad,
			    l->bad_lines[0]);
		reqlog_free(l);
		return NULL;
	}
	return l;
}

struct reqlog *
reqlog_load(const char *path, struct wp_err *err)
{
	struct reqlog *l;
	size_t len;
	char *buf = report_file_read(path, SIZE_MAX / 2, &len, err);

	if (buf == NULL)
		return NULL;
	l = reqlog_parse(buf, len, err);
	if (l == NULL)
		err_prefix(err, "%s", path);
	free(buf);
	return l;
}
