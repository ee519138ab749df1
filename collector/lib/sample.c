#include <math.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "sample.h"
#include "strcopy.h"

static const char *const boundary_names[] = {
	"none", "gpu", "module", "wall", "outlet", "pdu", "facility",
	"component",
};

#define ABSURD_POWER_W	1e8	/* 100 MW: no single instrument reads more */
#define ABSURD_ENERGY_J	1e18

static int
series_ok(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("_.:/-", *s)))
			return 0;
	return 1;
}

int
sample_init(struct wp_sample *s, const char *series, int boundary,
    int quantity, int kind)
{
	memset(s, 0, sizeof(*s));
	s->boundary = (uint8_t)boundary;
	s->quantity = (uint8_t)quantity;
	s->kind = (uint8_t)kind;
	s->value = s->raw_value = NAN;
	if (strlen(series) >= sizeof(s->series))
		return -1;
	strcpy(s->series, series);
	return 0;
}

void
sample_set_unit(struct wp_sample *s, const char *unit)
{
	str_copy(s->raw_unit, sizeof(s->raw_unit), unit);
}

int
sample_add_label(struct wp_sample *s, const char *key, const char *value)
{
	size_t used = strlen(s->labels), kl = strlen(key), vl = strlen(value);
	char *p = s->labels + used;

	if (strpbrk(key, "=;") || strchr(value, ';'))
		return -1;
	/* ";" key "=" value NUL must fit; labels are unchanged otherwise */
	if ((used ? 1 : 0) + kl + 1 + vl >= sizeof(s->labels) - used)
		return -1;
	if (used)
		*p++ = ';';
	memcpy(p, key, kl);
	p[kl] = '=';
	memcpy(p + kl + 1, value, vl);
	p[kl + 1 + vl] = '\0';
	return 0;
}

int
sample_get_label(const struct wp_sample *s, const char *key, char *buf,
    unsigned long len)
{
	size_t klen = strlen(key);
	const char *p = s->labels, *end;

	while (*p) {
		end = strchr(p, ';');
		if (end == NULL)
			end = p + strlen(p);
		if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen] == '=') {
			snprintf(buf, len, "%.*s", (int)(end - p - klen - 1),
			    p + klen + 1);
			return 0;
		}
		p = *end ? end + 1 : end;
	}
	return -1;
}

int
sample_validate(const struct wp_sample *s, struct wp_err *err)
{
	if (!series_ok(s->series))
		return err_set(err, WP_E_PROTOCOL, "bad series name");
	if (s->boundary > WP_B_COMPONENT || s->quantity > WP_Q_LAST ||
	    s->kind > WP_COUNTER)
		return err_set(err, WP_E_INTERNAL, "%s: bad enum", s->series);
	if (!isfinite(s->value))
		return err_set(err, WP_E_PROTOCOL, "%s: value not finite",
		    s->series);
	if ((s->quantity == WP_Q_ENERGY || s->quantity == WP_Q_TOKENS) &&
	    (s->value < 0 || s->value > ABSURD_ENERGY_J))
		return err_set(err, WP_E_PROTOCOL, "%s: absurd %s %g",
		    s->series, quantity_name(s->quantity), s->value);
	if ((s->quantity == WP_Q_POWER || s->quantity == WP_Q_APPARENT_POWER) &&
	    (s->value < 0 || s->value > ABSURD_POWER_W))
		return err_set(err, WP_E_PROTOCOL, "%s: absurd %s %g %s",
		    s->series, quantity_name(s->quantity), s->value,
		    quantity_unit(s->quantity));
	if (s->quantity == WP_Q_REACTIVE_POWER &&
	    !(s->value >= -ABSURD_POWER_W && s->value <= ABSURD_POWER_W))
		return err_set(err, WP_E_PROTOCOL, "%s: absurd reactive "
		    "power %g var", s->series, s->value);
	if (s->quantity == WP_Q_APPARENT_ENERGY &&
	    (s->value < 0 || s->value > ABSURD_ENERGY_J / 3600))
		return err_set(err, WP_E_PROTOCOL, "%s: absurd apparent "
		    "energy %g VAh", s->series, s->value);
	if (!(s->resolution >= 0) || !(s->wrap >= 0))
		return err_set(err, WP_E_PROTOCOL, "%s: bad resolution or wrap",
		    s->series);
	return 0;
}

const char *
boundary_name(int b)
{
	if (b < 0 || b > WP_B_COMPONENT)
		return "none";
	return boundary_names[b];
}

int
boundary_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(boundary_names) / sizeof(boundary_names[0]); i++)
		if (strcmp(s, boundary_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
quantity_name(int q)
{
	static const char *const names[] = { "power", "energy", "tokens",
	    "other", "apparent_power", "reactive_power", "apparent_energy" };

	return (q >= 0 && q <= WP_Q_LAST) ? names[q] : "other";
}

int
quantity_parse(const char *s)
{
	int q;

	for (q = 0; q <= WP_Q_LAST; q++)
		if (strcmp(s, quantity_name(q)) == 0)
			return q;
	return -1;
}

const char *
kind_name(int k)
{
	return k == WP_COUNTER ? "counter" : "gauge";
}

const char *
quantity_unit(int q)
{
	static const char *const units[] = { "W", "J", "tokens", "", "VA",
	    "var", "VAh" };

	return (q >= 0 && q <= WP_Q_LAST) ? units[q] : "";
}
