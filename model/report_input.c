/* report_input.c - the defaults of the report's typed settings. */
#include <math.h>
#include <string.h>

#include "report_input.h"

void
report_settings_init(struct report_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->curve_tolerance = REPORT_CURVE_TOLERANCE;
	s->run_gap = REPORT_RUN_GAP;
	s->clock_tolerance = REPORT_CLOCK_TOLERANCE;
}

void
report_site_init(struct report_site *s)
{
	memset(s, 0, sizeof(*s));
	s->grid.yearly_g_per_kwh = -1;
	s->market.supplier_factor = NAN;
	s->market.residual_factor = NAN;
	s->market.residual_gas = CARBON_GAS_CO2;
	s->market.supplier_gas = CARBON_GAS_CO2E;
	s->grid.gas = CARBON_GAS_CO2E;
	s->tariff.price = NAN;
	s->tariff.currency = REPORT_CURRENCY;
}
