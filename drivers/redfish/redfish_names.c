/* redfish_names.c - roles of readings from their context and names. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "redfish_names.h"
#include "redfish_parse.h"

#define MAX_WORDS	32
#define WORD_MAX	24

struct words {
	char	 w[MAX_WORDS][WORD_MAX];
	int	 n;
};

static int
kind_of(int c)
{
	if (isdigit(c))
		return 1;
	if (isupper(c))
		return 2;
	if (islower(c))
		return 3;
	return 0;
}

/* Cuts s into lower-case words (see the header; also "CPUUsage" ->
 * cpu usage: an upper case letter before a lower one starts a word). */
static void
split(const char *s, struct words *out)
{
	size_t len = 0;
	int prev = 0, k, next;

	out->n = 0;
	for (; s != NULL && out->n < MAX_WORDS; s++) {
		k = *s ? kind_of((unsigned char)*s) : 0;
		next = *s ? kind_of((unsigned char)s[1]) : 0;
		if (len > 0 && (k == 0 || (k == 1) != (prev == 1) ||
		    (k == 2 && prev == 3) || (k == 2 && prev == 2 &&
		    next == 3) || len + 1 >= WORD_MAX)) {
			out->w[out->n][len] = '\0';
			out->n++;
			len = 0;
		}
		if (*s == '\0')
			break;
		if (k != 0 && out->n < MAX_WORDS)
			out->w[out->n][len++] = (char)tolower((unsigned char)*s);
		prev = k;
	}
}

static bool
has_any(const struct words *ws, const char *const *list)
{
	int i, j;

	for (i = 0; i < ws->n; i++)
		for (j = 0; list[j] != NULL; j++)
			if (strcmp(ws->w[i], list[j]) == 0)
				return true;
	return false;
}

void
rf_names_stem(const char *s, char *out, size_t len, bool *indexed)
{
	struct words ws;
	size_t n = 0;
	int i;

	split(s, &ws);
	*indexed = false;
	out[0] = '\0';
	for (i = 0; i < ws.n; i++) {
		if (strlen(ws.w[i]) == 1 || isdigit((unsigned char)ws.w[i][0])) {
			*indexed = true;
			continue;
		}
		if (n + strlen(ws.w[i]) + 2 > len)
			break;
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "",
		    ws.w[i]);
	}
}

bool
rf_names_word(const char *s, const char *w)
{
	const char *list[2] = { w, NULL };
	struct words ws;

	split(s, &ws);
	return has_any(&ws, list);
}

/* "85" after the V of "0V85" -> 0.85. */
static double
fraction(const char *d)
{
	double v = 0, scale = 1;

	for (; isdigit((unsigned char)*d); d++) {
		scale /= 10;
		v += (*d - '0') * scale;
	}
	return v;
}

/*
 * The lowest rail voltage named in s: "0.85V", "0V85", "3V3", "P12V",
 * "1.8 V" (a number, then V, then no letter).  Returns -1 when none.
 */
static double
rail_volts(const char *s)
{
	const char *p, *q, *e;
	double best = -1, v;
	bool dot;

	for (p = s; p != NULL && *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > s &&
		    (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
			continue;
		for (v = 0, e = p; isdigit((unsigned char)*e); e++)
			v = v * 10 + (*e - '0');
		if ((dot = *e == '.' && isdigit((unsigned char)e[1]))) {
			v += fraction(e + 1);
			for (e++; isdigit((unsigned char)*e); e++)
				;
		}
		for (q = e; *q == ' '; q++)
			;
		if ((*q != 'V' && *q != 'v') || isalpha((unsigned char)q[1]))
			continue;
		if (q == e && !dot && isdigit((unsigned char)q[1]))
			v += fraction(q + 1);	/* 3V3 */
		if (best < 0 || v < best)
			best = v;
	}
	return best;
}

static const char *const component_words[] = {
	"cpu", "cpus", "proc", "processor", "processors", "gpu", "gpus",
	"dimm", "dimms", "mem", "memory", "hbm", "fan", "fans", "bmc",
	"cpld", "fpga", "asic", "soc", "pch", "nic", "nics", "network",
	"dpu", "vr", "vrm", "vcore", "vdd", "vddq", "vcc", "rail", "rails",
	"pump", "pumps", "cooling", "cdu", "heater", "storage", "drive",
	"drives", "disk", "disks", "ssd", "nvme", "hdd", "pcie", "riser",
	"accelerator", "accel", "baseboard", "nvswitch", "retimer",
	"battery", "bbu", "tpm", NULL
};

bool
rf_names_component(const char *s)
{
	struct words ws;
	double v;

	if (s == NULL)
		return false;
	split(s, &ws);
	if (has_any(&ws, component_words))
		return true;
	v = rail_volts(s);
	return v >= 0 && v < 12;
}

bool
rf_names_part(const char *s)
{
	static const char *const whole[] = { "node", "nodes", "server",
	    "system", "chassis", "enclosure", "tray", "sled", "blade",
	    "shelf", "rack", "host", "computer", NULL };
	static const char *const part[] = { "board", "module", "card",
	    "mezzanine", "daughter", NULL };
	struct words ws;

	if (s == NULL)
		return false;
	split(s, &ws);
	if (!rf_names_component(s) && !has_any(&ws, part))
		return false;
	return !has_any(&ws, whole);
}

bool
rf_names_supply(const char *s)
{
	static const char *const w[] = { "psu", "psus", "ps", "supply",
	    "supplies", "rectifier", "rectifiers", NULL };
	struct words ws;

	split(s, &ws);
	return has_any(&ws, w);
}

bool
rf_names_total(const char *s)
{
	static const char *const w[] = { "total", "sum", "overall", NULL };
	struct words ws;

	split(s, &ws);
	return has_any(&ws, w);
}

bool
rf_names_not_power(const char *s)
{
	static const char *const other[] = { "temp", "temperature",
	    "thermal", "therm", "volt", "volts", "voltage", "current",
	    "curr", "amp", "amps", "ampere", "fan", "tach", "rpm", "speed",
	    "humidity", "pressure", "flow", "airflow", "freq", "frequency",
	    "utilization", "util", "usage", "percent", "pct", "pwm",
	    "altitude", "leak", "leakage", "level", "position", "intrusion",
	    "health", NULL };
	static const char *const power[] = { "power", "pwr", "energy",
	    "watt", "watts", "wh", "kwh", "joule", "joules", "consumption",
	    "consumed", NULL };
	struct words ws;

	split(s, &ws);
	return has_any(&ws, other) && !has_any(&ws, power);
}

static bool
ctx_in(const char *ctx, const char *const *list)
{
	size_t i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(ctx, list[i]) == 0)
			return true;
	return false;
}

int
rf_role_of(const char *ctx, const char *subctx, const char *id,
    const char *name, bool aggregate)
{
	static const char *const out_words[] = { "out", "output", "outputs",
	    "pout", "iout", "vout", "standby", "stby", "branch", "branches",
	    "circuit", "circuits", "outlet", "outlets", NULL };
	static const char *const inputs[] = { "Chassis", "Rack", "ComputeBay",
	    "PowerSubsystem", "ACInput", "ACUtilityInput",
	    "ACMaintenanceBypassInput", "ACStaticSwitch", NULL };
	static const char *const supplies[] = { "PowerSupply",
	    "PowerSupplyBay", "Rectifier", NULL };
	const char *names[2] = { id, name };
	struct words ws;
	int i;

	if (subctx != NULL && strcmp(subctx, "Output") == 0)
		return RF_ROLE_OUTPUT;
	if (ctx != NULL && (strcmp(ctx, "ACOutput") == 0 || (strcmp(ctx,
	    "DCBus") == 0 && (subctx == NULL || strcmp(subctx, "Input")))))
		return RF_ROLE_OUTPUT;
	for (i = 0; i < 2; i++) {
		split(names[i], &ws);
		if (has_any(&ws, out_words))
			return RF_ROLE_OUTPUT;
	}
	if (rf_names_component(id) || rf_names_component(name))
		return RF_ROLE_COMPONENT;
	if (ctx != NULL && ctx_in(ctx, supplies))
		return aggregate ? RF_ROLE_INPUT : RF_ROLE_PSU;
	if (ctx != NULL && strcmp(ctx, "SystemBoard") == 0)
		return RF_ROLE_BOARD;
	if (ctx != NULL && strcmp(ctx, "DCBus") != 0 && !ctx_in(ctx, inputs))
		return RF_ROLE_COMPONENT;
	if (ctx == NULL && !aggregate && ((id && rf_names_supply(id)) ||
	    (name && rf_names_supply(name))))
		return RF_ROLE_PSU;
	return RF_ROLE_INPUT;
}
