/*
 * probe_cmd.c - `wattpath probe`: set up the core services, hand the URL to the
 * driver its scheme names, print what the device offers.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "cmd.h"
#include "../lib/http.h"
#include "../lib/log.h"
#include "../lib/loop.h"
#include "probe_cmd.h"
#include "../registry.h"
#include "../lib/workers.h"

const char *
probe_driver_for(const char *url, const char *protocol)
{
	const char *path;

	if (protocol != NULL) {
		if (strcmp(protocol, "redfish") == 0)
			return "redfish";
		if (strcmp(protocol, "prometheus") == 0 ||
		    strcmp(protocol, "inband") == 0)
			return "inband";
		if (strcmp(protocol, "snmp") == 0)
			return "snmp_pdu";
		if (strcmp(protocol, "modbus") == 0)
			return "modbus";
		return NULL;
	}
	if (strncasecmp(url, "snmp://", 7) == 0)
		return "snmp_pdu";
	if (strncasecmp(url, "modbus-tcp://", 13) == 0 ||
	    strncasecmp(url, "modbus-rtu://", 13) == 0)
		return "modbus";
	if (strncasecmp(url, "https://", 8) == 0)
		path = url + 8;
	else if (strncasecmp(url, "http://", 7) == 0)
		path = url + 7;
	else
		return NULL;
	path += strcspn(path, "/?#");
	if (*path == '\0' || strcmp(path, "/") == 0 ||
	    strncmp(path, "/redfish", 8) == 0)
		return "redfish";
	return "inband";
}

static json_object *
num(double v)
{
	if (!isfinite(v))
		return NULL;
	if (v == floor(v) && fabs(v) < 9e15)
		return json_object_new_int64((int64_t)v);
	return json_object_new_double(v);
}

static json_object *
source_json(const struct wp_probe_source *p)
{
	const struct wp_sample *s = &p->s;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(p->path));
	if (p->source[0])
		json_object_object_add(o, "source",
		    json_object_new_string(p->source));
	json_object_object_add(o, "boundary",
	    s->quantity == WP_Q_TOKENS || s->boundary == WP_B_NONE ? NULL :
	    json_object_new_string(boundary_name(s->boundary)));
	json_object_object_add(o, "quantity",
	    json_object_new_string(quantity_name(s->quantity)));
	json_object_object_add(o, "kind", json_object_new_string(
	    kind_name(s->kind)));
	json_object_object_add(o, "unit", json_object_new_string(
	    quantity_unit(s->quantity)));
	json_object_object_add(o, "value", num(s->value));
	json_object_object_add(o, "raw_value", num(s->raw_value));
	json_object_object_add(o, "raw_unit", json_object_new_string(
	    s->raw_unit));
	json_object_object_add(o, "resolution", s->resolution > 0 ?
	    num(s->resolution) : NULL);
	json_object_object_add(o, "chosen", json_object_new_boolean(p->chosen));
	if (p->direction[0])
		json_object_object_add(o, "direction",
		    json_object_new_string(p->direction));
	if (s->labels[0])
		json_object_object_add(o, "labels",
		    json_object_new_string(s->labels));
	if (s->flags & WP_F_OEM)
		json_object_object_add(o, "oem", json_object_new_boolean(1));
	if (s->flags & WP_F_RESETTABLE)
		json_object_object_add(o, "resettable",
		    json_object_new_boolean(1));
	return o;
}

void
probe_print_json(FILE *f, const char *target, const struct wp_probe_result *r)
{
	json_object *root = json_object_new_object(), *dev, *arr;
	size_t i;

	dev = json_object_new_object();
	json_object_object_add(dev, "vendor", json_object_new_string(r->vendor));
	json_object_object_add(dev, "model", json_object_new_string(r->model));
	json_object_object_add(dev, "firmware",
	    json_object_new_string(r->firmware));
	if (r->extra[0])
		json_object_object_add(dev, "extra",
		    json_object_new_string(r->extra));
	if (r->profile[0])
		json_object_object_add(dev, "profile",
		    json_object_new_string(r->profile));
	if (r->profile_reason[0])
		json_object_object_add(dev, "profile_reason",
		    json_object_new_string(r->profile_reason));
	arr = json_object_new_array();
	for (i = 0; i < r->n; i++)
		json_object_array_add(arr, source_json(&r->src[i]));
	json_object_object_add(root, "target", json_object_new_string(target));
	json_object_object_add(root, "protocol",
	    json_object_new_string(r->protocol));
	json_object_object_add(root, "device", dev);
	json_object_object_add(root, "sources", arr);
	fprintf(f, "%s\n", json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static void
printable(char *out, const char *in, size_t len)
{
	size_t i;

	for (i = 0; in[i] != '\0' && i + 1 < len; i++)
		out[i] = (unsigned char)in[i] < 0x20 || in[i] == 0x7f ? '?' :
		    in[i];
	out[i] = '\0';
}

void
probe_print_table(FILE *f, const char *target, const struct wp_probe_result *r)
{
	char v[sizeof(r->vendor)], m[sizeof(r->model)], fw[sizeof(r->firmware)];
	char x[sizeof(r->extra)], path[sizeof(r->src->path)];
	size_t i;

	/* what a device said, its control characters as '?': one line */
	printable(v, r->vendor[0] ? r->vendor : "?", sizeof(v));
	printable(m, r->model[0] ? r->model : "?", sizeof(m));
	printable(fw, r->firmware[0] ? r->firmware : "?", sizeof(fw));
	printable(x, r->extra, sizeof(x));
	fprintf(f, "%s (%s): %s %s, firmware %s%s%s\n", target, r->protocol, v,
	    m, fw, x[0] ? "; " : "", x);
	for (i = 0; i < r->n; i++) {
		const struct wp_probe_source *p = &r->src[i];

		printable(path, p->path, sizeof(path));
		fprintf(f, "%c %-9s %-7s %-7s %14.3f %-6s (raw %g %s) %s\n",
		    p->chosen ? '*' : ' ', boundary_name(p->s.boundary),
		    quantity_name(p->s.quantity), kind_name(p->s.kind),
		    p->s.value, quantity_unit(p->s.quantity), p->s.raw_value,
		    p->s.raw_unit, path);
	}
	fprintf(f, "(* = what the collector would use)\n");
}

static int
probe_usage(void)
{
	cmd_usage("probe", stderr, false);
	return 2;
}

#define MAX_EXTRA	32

struct probe_args {
	struct wp_probe_req req;
	const char	*protocol;
	int		 json;
	const char	*extra[MAX_EXTRA + 1];
	char		*owned[MAX_EXTRA];
	int		 n_extra;
};

static int
add_extra(struct probe_args *a, const char *key, const char *value)
{
	char *s;

	if (a->n_extra == MAX_EXTRA)
		return -1;
	if (key == NULL)
		s = strdup(value);
	else if (asprintf(&s, "%s=%s", key, value) == -1)
		s = NULL;
	if (s == NULL)
		return -1;
	a->owned[a->n_extra] = s;
	a->extra[a->n_extra++] = s;
	a->extra[a->n_extra] = NULL;
	return 0;
}

static int
parse_args(int argc, char **argv, struct probe_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "protocol", required_argument, NULL, 'P' },
		{ "user", required_argument, NULL, 'u' },
		{ "password-file", required_argument, NULL, 'p' },
		{ "community-file", required_argument, NULL, 'C' },
		{ "ca-file", required_argument, NULL, 'A' },
		{ "insecure", no_argument, NULL, 'k' },
		{ "profile", required_argument, NULL, 'f' },
		{ "map", required_argument, NULL, 'f' },
		{ "maps-dir", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "snmp-version", required_argument, NULL, 1 },
		{ "auth-protocol", required_argument, NULL, 2 },
		{ "auth-password-file", required_argument, NULL, 3 },
		{ "priv-protocol", required_argument, NULL, 4 },
		{ "priv-password-file", required_argument, NULL, 5 },
		{ "security-level", required_argument, NULL, 6 },
		{ "option", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const extra_key[] = { NULL, "version",
	    "auth_protocol", "auth_password_file", "priv_protocol",
	    "priv_password_file", "security_level" };
	int ch, rc = 0;

	a->req.timeout = 10 * WP_SEC;
	while ((ch = getopt_long(argc, argv, "jo:", opts, NULL)) != -1) {
		switch (ch) {
		case 'j': a->json = 1; break;
		case 'P': a->protocol = optarg; break;
		case 'u': a->req.user = optarg;
			rc |= add_extra(a, "user", optarg); break;
		case 'p': a->req.password_file = optarg; break;
		case 'C': a->req.community_file = optarg; break;
		case 'A': a->req.ca_file = optarg; break;
		case 'k': a->req.insecure = true; break;
		case 'f': a->req.profile = optarg; break;
		case 'm': a->req.maps_dir = optarg; break;
		case 't':
			if (clock_parse_duration(optarg, &a->req.timeout) == -1) {
				fprintf(stderr, "wattpath probe: --timeout: cannot "
				    "parse '%s' (expected a duration such as "
				    "10s)\n", optarg);
				return -1;
			}
			break;
		case 'o': rc |= add_extra(a, NULL, optarg); break;
		case 1: case 2: case 3: case 4: case 5: case 6:
			rc |= add_extra(a, extra_key[ch], optarg);
			break;
		default:
			return -1;
		}
	}
	if (optind != argc - 1 || rc != 0)
		return -1;
	a->req.url = argv[optind];
	a->req.extra = a->extra;
	return 0;
}

static int
run_probe(const struct wp_driver *drv, struct probe_args *a)
{
	struct wp_probe_result r = { 0 };
	struct wp_services svc = { 0 };
	struct wp_err err = { 0 };
	bool inited = false;
	int rc = 1;

	if ((svc.loop = loop_new(&err)) == NULL ||
	    (svc.http = http_new(svc.loop, 0, &err)) == NULL ||
	    (svc.workers = workers_new(svc.loop, 1, &err)) == NULL ||
	    registry_init(&svc, &err) == -1)
		goto out;
	inited = true;
	if (drv->probe(&a->req, &svc, &r, &err) == -1)
		goto out;
	if (r.n == 0) {
		err_set(&err, WP_E_PROTOCOL, "no power or energy source found");
		goto out;
	}
	if (a->json)
		probe_print_json(stdout, a->req.url, &r);
	else
		probe_print_table(stdout, a->req.url, &r);
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "wattpath probe: %s: %s\n", a->req.url,
		    err.msg[0] ? err.msg : "failed");
	probe_result_fini(&r);
	if (inited)
		registry_fini();
	workers_free(svc.workers);
	http_free(svc.http);
	loop_free(svc.loop);
	return rc;
}

int
cmd_probe(int argc, char **argv)
{
	struct probe_args a = { 0 };
	const struct wp_driver *drv;
	const char *name;
	int i, rc;

	if (parse_args(argc, argv, &a) == -1) {
		rc = probe_usage();
		goto out;
	}
	if ((name = probe_driver_for(a.req.url, a.protocol)) == NULL) {
		fprintf(stderr, "wattpath probe: cannot tell the protocol of "
		    "%s (use --protocol)\n", a.req.url);
		rc = 2;
		goto out;
	}
	drv = registry_find(name);
	if (drv == NULL || drv->probe == NULL) {
		fprintf(stderr, "wattpath probe: driver %s cannot probe yet\n",
		    name);
		rc = 1;
		goto out;
	}
	rc = run_probe(drv, &a);
out:
	for (i = 0; i < a.n_extra; i++)
		free(a.owned[i]);
	return rc;
}
