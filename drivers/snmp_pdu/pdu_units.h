/*
 * pdu_units.h - the units a PDU profile may give a column, and what one
 * raw step of each is in the unit of its quantity: W (power), J (energy),
 * VA (apparent power), var (reactive power), VAh (apparent energy).
 * Pure table lookups.
 */
#ifndef WP_PDU_UNITS_H
#define WP_PDU_UNITS_H

/* The factor of unit for quantity (WP_Q_*): 0, or -1 if unit does not
 * measure that quantity ("Wh" for a power column). */
int	 pdu_unit_factor(const char *unit, int quantity, double *factor);
/*
 * A unit named by the device (a unit column: "kWh") against the unit the
 * profile gives the column: the power of ten between them in *exp10
 * ("kWh" on a "Wh" column: 3).  0, or -1 if it is not that quantity or
 * not a power of ten apart.
 */
int	 pdu_unit_exp10(const char *device_unit, const char *profile_unit,
	    int quantity, int *exp10);

#endif
