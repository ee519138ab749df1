/* Units of PDU profile columns; see pdu_units.h. */
#include <math.h>
#include <string.h>

#include "../../collector/lib/sample.h"
#include "pdu_units.h"

static const struct {
	const char	*u;
	int		 q;
	double		 f;
} units[] = {
	{ "W", WP_Q_POWER, 1 }, { "kW", WP_Q_POWER, 1e3 },
	{ "mW", WP_Q_POWER, 1e-3 }, { "daW", WP_Q_POWER, 10 },
	{ "hW", WP_Q_POWER, 100 }, { "MW", WP_Q_POWER, 1e6 },
	{ "J", WP_Q_ENERGY, 1 }, { "Ws", WP_Q_ENERGY, 1 },
	{ "kJ", WP_Q_ENERGY, 1e3 }, { "MJ", WP_Q_ENERGY, 1e6 },
	{ "daWs", WP_Q_ENERGY, 10 }, { "Wh", WP_Q_ENERGY, 3600 },
	{ "kWh", WP_Q_ENERGY, 3.6e6 }, { "MWh", WP_Q_ENERGY, 3.6e9 },
	{ "VA", WP_Q_APPARENT_POWER, 1 }, { "kVA", WP_Q_APPARENT_POWER, 1e3 },
	{ "mVA", WP_Q_APPARENT_POWER, 1e-3 },
	{ "daVA", WP_Q_APPARENT_POWER, 10 },
	{ "var", WP_Q_REACTIVE_POWER, 1 }, { "kvar", WP_Q_REACTIVE_POWER, 1e3 },
	{ "VAR", WP_Q_REACTIVE_POWER, 1 }, { "kVAR", WP_Q_REACTIVE_POWER, 1e3 },
	{ "VAh", WP_Q_APPARENT_ENERGY, 1 },
	{ "kVAh", WP_Q_APPARENT_ENERGY, 1e3 },
	{ "VAs", WP_Q_APPARENT_ENERGY, 1.0 / 3600 },
	{ "daVAs", WP_Q_APPARENT_ENERGY, 10.0 / 3600 },
};

int
pdu_unit_factor(const char *unit, int quantity, double *factor)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].q == quantity && strcmp(units[i].u, unit) == 0) {
			*factor = units[i].f;
			return 0;
		}
	return -1;
}

int
pdu_unit_exp10(const char *device_unit, const char *profile_unit,
    int quantity, int *exp10)
{
	double fd, fp, r, e;

	if (pdu_unit_factor(device_unit, quantity, &fd) < 0 ||
	    pdu_unit_factor(profile_unit, quantity, &fp) < 0)
		return -1;
	r = fd / fp;
	e = round(log10(r));
	if (fabs(r / pow(10, e) - 1) > 1e-9 || e < -9 || e > 9)
		return -1;
	*exp10 = (int)e;
	return 0;
}
