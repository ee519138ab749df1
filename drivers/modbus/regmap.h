/*
 * regmap.h - meter register maps (etc/meter-maps/<stem>.yaml) and pure
 * decoding of Modbus registers into values.
 *
 * A map lists values: function code (3 holding, 4 input), wire address
 * (0-based; a map with "register_base: 1" states the vendor's 1-based
 * numbers and we subtract 1), type (u16 s16 u32 s32 u64 s64 f32 f64),
 * word order (ABCD CDAB BADC DCBA), scale, unit, kind, optional
 * "not available" patterns and sanity bounds.  Exactly one value has role
 * total_energy_import and one total_power.
 *
 * regmap_decode assembles registers in unsigned types (no signed shifts),
 * honours the word order, rejects NaN/Inf and values outside the bounds,
 * and reports the resolution of the reading (one integer step, or one ULP
 * of a float at that magnitude) in the map's unit.  regmap_plan coalesces
 * contiguous registers of one function code into as few requests as
 * possible, each at most max_read (<= 125) registers; a map may allow
 * reads to span up to max_gap unmapped registers (default 0) where the
 * vendor documents the whole block as readable.  No I/O here except
 * reading the map file; nothing is shared between threads.
 */
#ifndef WP_REGMAP_H
#define WP_REGMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../collector/lib/err.h"

#define RM_MAX_READ	125	/* MODBUS_MAX_READ_REGISTERS */
#define RM_NAME_MAX	48
#define RM_MAX_NA	4

enum rm_type { RM_U16, RM_S16, RM_U32, RM_S32, RM_U64, RM_S64, RM_F32,
	RM_F64 };
enum rm_order { RM_ABCD, RM_CDAB, RM_BADC, RM_DCBA };
enum rm_role { RM_ROLE_NONE, RM_ROLE_ENERGY, RM_ROLE_POWER };

struct rm_value {
	char		 name[RM_NAME_MAX];	/* [a-z0-9_] */
	char		 meaning[128];
	int		 fc;		/* 3 or 4 */
	uint16_t	 addr;		/* wire address, 0-based */
	uint8_t		 nregs;		/* 1, 2 or 4 */
	uint8_t		 type;		/* enum rm_type */
	uint8_t		 order;		/* enum rm_order */
	uint8_t		 role;		/* enum rm_role */
	int		 kind;		/* enum wp_kind */
	int		 quantity;	/* enum wp_quantity, from the unit */
	double		 scale;		/* map unit = raw * scale */
	char		 unit[12];	/* as the map says: kWh, W, V... */
	double		 si;		/* map unit -> SI (kWh: 3.6e6 J) */
	uint64_t	 na[RM_MAX_NA];	/* raw "not available" patterns */
	int		 n_na;
	bool		 has_min, has_max;
	double		 min, max;	/* sanity bounds, map unit */
};

struct regmap {
	char		 stem[64];
	char		 vendor[64];
	char		 model[128];
	char		 document[512];	/* vendor register table cited */
	int		 register_base;	/* 0 or 1, as the map states */
	int		 max_read;	/* registers per request, <= 125 */
	int		 max_gap;	/* unmapped registers a read may span */
	struct rm_value	*v;
	size_t		 n;
	int		 energy;	/* index of the total energy import */
	int		 power;		/* index of the total power */
};

/* One read request of a plan. */
struct rm_read {
	int		 fc;
	uint16_t	 addr;
	uint16_t	 count;
};

struct rm_plan {
	struct rm_read	*r;
	size_t		 n;
};

/* Result of decoding one value. */
struct rm_reading {
	double		 value;		/* map unit (raw * scale) */
	double		 raw;		/* the register value before scale */
	double		 resolution;	/* map unit; one step of this reading */
};

/*
 * Loads and validates a map from path; stem names it.  Returns a new map
 * (caller frees with regmap_free) or NULL with "path:line: why" in err.
 */
struct regmap	*regmap_load_file(const char *path, const char *stem,
		    struct wp_err *err);
void		 regmap_free(struct regmap *m);	/* NULL-safe */

/*
 * Plans the reads for all values of m.  Returns 0 and fills plan (caller
 * frees with regmap_plan_fini) or -1.
 */
int	 regmap_plan(const struct regmap *m, struct rm_plan *plan,
	    struct wp_err *err);
void	 regmap_plan_fini(struct rm_plan *plan);

/*
 * Assembles the nregs registers of type/order into an unsigned 64-bit
 * pattern (most significant first).  Pure.
 */
uint64_t regmap_assemble(const uint16_t *regs, int nregs, int order);

/*
 * Decodes v from its registers (regs[0] is the register at v->addr).
 * Returns 0 with out filled; 1 when the value matches a not-available
 * pattern; -1 for NaN/Inf or a value outside the sanity bounds (err says
 * which).  Pure.
 */
int	 regmap_decode(const struct rm_value *v, const uint16_t *regs,
	    struct rm_reading *out, struct wp_err *err);

/* Names for the YAML words; parse returns -1 if unknown. */
int	 regmap_type_parse(const char *s);
int	 regmap_order_parse(const char *s);
const char *regmap_type_name(int type);
const char *regmap_order_name(int order);
/* Unit -> quantity and SI factor (energy J, power W, else 1). -1 unknown. */
int	 regmap_unit_parse(const char *unit, int *quantity, double *si);

#endif
