/* Unit tests: drivers/redfish/redfish_names.c - roles from names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/redfish/redfish_names.h"
#include "../../drivers/redfish/redfish_parse.h"

static void
test_roles(void **st)
{
	static const struct {
		const char *ctx, *sub, *id, *name;
		bool agg;
		int role;
	} c[] = {
		{ "PowerSupply", NULL, "ps1_energy_out", "ps1 energy out",
		    false, RF_ROLE_OUTPUT },
		{ "PowerSupply", NULL, "ps1_standby_output_power", NULL,
		    false, RF_ROLE_OUTPUT },
		{ "PowerSupply", "Input", "PSU0_Input_Power", NULL, false,
		    RF_ROLE_PSU },
		{ "Rectifier", "Input", "Rectifier0_Input_Power", NULL, false,
		    RF_ROLE_PSU },
		{ "Rectifier", "Output", "Rectifier0_Output_Power", NULL,
		    false, RF_ROLE_OUTPUT },
		{ "PowerSupply", NULL, "0", NULL, true, RF_ROLE_INPUT },
		{ "Chassis", NULL, "hotswap_input_power", NULL, false,
		    RF_ROLE_INPUT },
		{ "Chassis", NULL, "total_power_in", NULL, false,
		    RF_ROLE_INPUT },
		{ "SystemBoard", NULL, "VDD_0V85_Power", NULL, false,
		    RF_ROLE_COMPONENT },
		{ NULL, NULL, "P3V3_Power", NULL, false, RF_ROLE_COMPONENT },
		{ "SystemBoard", NULL, "SystemBoardPwrConsumption",
		    "System Board Pwr Consumption", false, RF_ROLE_BOARD },
		{ "PowerSubsystem", "Input", "Sensor_0790", "Node0 48V ECB",
		    false, RF_ROLE_INPUT },
		{ "CPU", NULL, "CPU1Power", NULL, false, RF_ROLE_COMPONENT },
		{ NULL, NULL, "Node0_CPU0_Power", "Node0 CPU0 Power", false,
		    RF_ROLE_COMPONENT },
		{ NULL, NULL, "Node0_Input_Power", "Node0 Input Power", false,
		    RF_ROLE_INPUT },
		{ "CPUSubsystem", NULL, "1", "CPU Sub-system Power", true,
		    RF_ROLE_COMPONENT },
		{ "Chassis", NULL, "PowerA", "Power reading for branch A",
		    false, RF_ROLE_OUTPUT },
		{ "Chassis", NULL, "PowerMains1", "Mains Power #1", false,
		    RF_ROLE_INPUT },
		{ "DCBus", NULL, "Bus_48V_Power", NULL, false, RF_ROLE_OUTPUT },
		{ "DCBus", "Input", "Bus_48V_In", NULL, false, RF_ROLE_INPUT },
		{ "Intake", NULL, "X", NULL, false, RF_ROLE_COMPONENT },
		{ "Pump", NULL, "Pump1_Power", NULL, false, RF_ROLE_COMPONENT },
		{ NULL, NULL, "PSU2 Input Power", NULL, false, RF_ROLE_PSU },
		{ NULL, NULL, "Total_GPU_Power", NULL, false,
		    RF_ROLE_COMPONENT },
		{ "PowerSupply", NULL, "PSU1_POUT", NULL, false,
		    RF_ROLE_OUTPUT },
		{ "PowerSupply", NULL, "PSU1_PIN", NULL, false, RF_ROLE_PSU },
	};
	size_t i;
	int got;

	(void)st;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		got = rf_role_of(c[i].ctx, c[i].sub, c[i].id, c[i].name,
		    c[i].agg);
		if (got != c[i].role)
			fail_msg("%s: role %d, want %d", c[i].id, got,
			    c[i].role);
	}
}

static void
test_rails_parts_and_skips(void **st)
{
	(void)st;
	assert_true(rf_names_component("VDD_0V85"));
	assert_true(rf_names_component("GPU 0.9V rail"));
	assert_true(rf_names_component("PS1Out3V"));
	assert_true(rf_names_component("1.8V"));
	assert_false(rf_names_component("P12V"));
	assert_false(rf_names_component("Node0 48V ECB"));
	assert_false(rf_names_component("PS1InputPower"));
	assert_true(rf_names_part("CPLD_0"));
	assert_true(rf_names_part("BaseBoard_0"));
	assert_true(rf_names_part("HGX_Baseboard_0"));
	assert_true(rf_names_part("BMC_0"));
	assert_false(rf_names_part("GPU Node Chassis"));
	assert_false(rf_names_part("System.Embedded.1"));
	assert_false(rf_names_part("Chassis_0"));
	assert_true(rf_names_not_power("temperature_inlet"));
	assert_true(rf_names_not_power("PS1InputCurrent"));
	assert_true(rf_names_not_power("Fan.Embedded.1A"));
	assert_true(rf_names_not_power("SystemBoardCPUUsage"));
	assert_false(rf_names_not_power("PS1InputPower"));
	assert_false(rf_names_not_power("SystemBoardPwrConsumption"));
	assert_false(rf_names_not_power("Sensor_0790"));
	assert_false(rf_names_not_power("power_temp_limit"));
	assert_true(rf_names_total("total_power_in_A"));
	assert_false(rf_names_total("totalizer"));
	assert_true(rf_names_supply("PS1Energy"));
	assert_false(rf_names_supply("Pseudo sensor"));
}

static void
test_stems_and_feeds(void **st)
{
	char s[64];
	bool ix;

	(void)st;
	rf_names_stem("Mains Power #1", s, sizeof(s), &ix);
	assert_string_equal(s, "mains power");
	assert_true(ix);
	rf_names_stem("total_power_in_A", s, sizeof(s), &ix);
	assert_string_equal(s, "total power in");
	assert_true(ix);
	rf_names_stem("total_power_in", s, sizeof(s), &ix);
	assert_false(ix);
	assert_true(rf_names_word("PS1InputPower", "input"));
	assert_false(rf_names_word("Output", "out"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_rails_parts_and_skips),
		cmocka_unit_test(test_stems_and_feeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
