#!/usr/bin/python3
# snmp_recordings.py OUTDIR FIXDIR - checks `wattpath probe --json` of every
# real PDU recording (OUTDIR/<rec>.json, errors in <rec>.err) against
#  1. what LibreNMS finds on it (FIXDIR/librenms-sensors/<rec>.json): every
#     W and kWh reading LibreNMS lists is found at the same OID with the
#     same value; the ones LibreNMS files under "power" that the MIB says
#     are volt-amperes (VA below) are checked as apparent_power in VA;
#  2. what the MIB has beyond that, and for recordings LibreNMS has no file
#     for, the readings expected from the MIB x the recording (EXPECT).
# Prints one line per recording; exits 1 if any check failed.
import json
import os
import sys

OUT, FIX = sys.argv[1], sys.argv[2]
WH = 3600.0
KWH = 3.6e6

# recording -> the profile `profile: auto` must pick (None: must fail)
PROFILE = {
    "apc-epdu_epdu1116s": "apc-epdu", "apc_ap7900b": "apc-rpdu",
    "apc_ap8853": "apc-rpdu2", "apc_isx-pdu": "apc-xpdu",
    "atenpdu": "aten-pe", "chatsworth-pdu": "chatsworth-cpi",
    "cyberpower": "cyberpower-epdu2", "cyberpower-epdu-only": "cyberpower",
    "cyberpower_pdu81005": "cyberpower-epdu2",
    "apc-cpdu": "apc-cpdu",
    "algcom-pdu-08p-ac_algcom-pdu-08p-ac": "algcom-pdu",
    "wti-power": "wti-power", "schleifenbauer": "schleifenbauer",
    "sentry4_switched8i": "servertech-sentry4",
    "poweralert_pdu": "tripplite-pdu", "eatonpdu_dbq": "eaton-pdu-raritan",
    "vertiv-pdu_mn03edr1": "vertiv-geist", "digitus": "digitus-dpdu",
    "dell-rpdu": "dell-rpdu",
    "eatonpdu_2": "eaton-epdu", "enlogic-pdu2": "enlogic-pdu2",
    "hpe-mapdu_pdu2": "hpe-pdu2", "hpe-mapdu_pdu3": "hpe-pdu3",
    "liebert_mph2rg": "liebert-gp-pdu", "panduit": "panduit-g5",
    "panduit_g5-p32g13m": "panduit-g5", "planet-pdu": "planet-ipm",
    "raritan-pdu": "raritan-px1", "raritan-pdu_px2": "raritan-pdu2",
    "raritan-pdu_px3": "raritan-pdu2", "rnx-updu_rn3214": "rnx-updu",
    "raritan-pdu_px4-excerpt": "raritan-pdu2",
    "schleifenbauer_dpm27e": "schleifenbauer", "sentry3": None,
    "sentry3_3phase": "servertech-sentry3",
    "sentry4": "servertech-sentry4", "vertiv-pdu_mg02e4w1": "vertiv-geist",
    # written from the MIBs (no real recording): tests/fixtures/snmp/SOURCES.md
    "written-algcom-pdu": "algcom-pdu", "written-avocent-pm": "avocent-pm",
    "written-cyberpower-epdu2": "cyberpower-epdu2",
    "written-hpe-ipdu": "hpe-ipdu", "written-raritan-emx": "raritan-emx",
    "written-ts-pwtv1": "ts-pwtv1",
    "written-geist-v3": "geist-v3", "written-hpe-pdu-mm": "hpe-pdu-mm",
    "written-rittal-cmc3": "rittal-cmc3",
    "written-vertiv-geist-breakers": "vertiv-geist",
    "written-apc-epdu": "apc-epdu", "written-apc-rpdu": "apc-rpdu",
    "written-servertech-sentry4": "servertech-sentry4",
    "ipoman": "ipoman", "liebert": "liebert-gp-pdu",
    "written-raritan-pdu2": "raritan-pdu2",
    "written-raritan-bcm2": "raritan-pdu2",
    "written-eaton-epdu-3ph": "eaton-epdu",
    "written-schleifenbauer": "schleifenbauer",
    "written-aten-pe": "aten-pe", "written-tripplite-ats": "tripplite-pdu",
    "apc_ap8959eu3": "apc-rpdu2", "apc_apdu9959eu3": "apc-rpdu2",
    "written-servertech-sentry3": "servertech-sentry3",
    "written-panduit-g5": "panduit-g5",
    "written-hpe-pdu3": "hpe-pdu3", "written-hpe-pdu2": "hpe-pdu2",
    "gude-epc": "gude-epc", "written-gude-epc": "gude-epc",
    "derived-gude-8221": "gude-epc2", "derived-gude-8340": "gude-pdu",
}

# LibreNMS files these under "power"; their MIB objects are VA.
VA = {
    # PDU-MIB outletApparentPower (VoltAmps): the PX1 serves no W here
    "raritan-pdu": ["1.3.6.1.4.1.13742.4.1.2.2.1.8."],
    # SCHLEIFENBAUER-DATABUS-MIB sdbDevInPowerVoltAmpere (the agent
    # serves no sdbDevInPowerWatt)
    "schleifenbauer": ["1.3.6.1.4.1.31034.12.1.1.2.6.1.1.9."],
    "schleifenbauer_dpm27e": ["1.3.6.1.4.1.31034.12.1.1.2.6.1.1.9.",
                              # sdbDevOutMtPowerVoltAmpere
                              "1.3.6.1.4.1.31034.12.1.1.2.7.2.1.10."],
    # LIEBERT-GP-PDU-MIB lgpPduPsEntryApTotal, lgpPduRcpEntryApOut:
    # UNITS "Volt-Amp-RMS"
    "liebert_mph2rg": ["1.3.6.1.4.1.476.1.42.3.8.30.20.1.90.",
                       "1.3.6.1.4.1.476.1.42.3.8.50.20.1.70."],
    # CPI-UNITY-MIB cpiPduOutletPower: volt-amperes
    "chatsworth-pdu": ["1.3.6.1.4.1.30932.1.10.1.4.10.1.8."],
    # PowerNet-MIB xPDUSystemOutput(Total)ApparentPower, tenths of kVA
    "apc_isx-pdu": ["1.3.6.1.4.1.318.1.1.15.3.4.4.",
                    "1.3.6.1.4.1.318.1.1.15.3.4.14.1.6."],
    # GUDEADS-EPC*-MIB <p>PowerApparent: UNITS "VA"
    "gude-epc": ["1.3.6.1.4.1.28507.43.1.5.1.2.1.10.",
                 "1.3.6.1.4.1.28507.81.1.5.1.2.1.10."],
}

# LibreNMS scales these otherwise than the MIB: our value is LibreNMS's
# times the factor.
SCALE = {
    # PowerNet-MIB rPDU2DeviceStatusEnergy: "A user re-settable energy meter
    # measuring Rack PDU load energy consumption in tenths of
    # kilowatt-hours"; LibreNMS divides by 100
    "apc_ap8853": {"1.3.6.1.4.1.318.1.1.26.4.3.1.9.": 10},
}

# LibreNMS names these sensors with a component "1" after the column that
# the agent does not serve (the column's OID in its definition carries the
# unit index again): compared without it.
OID_EXTRA = {
    "enlogic-pdu2": ["1.3.6.1.4.1.38446.1.2.4.1.4.",
                     "1.3.6.1.4.1.38446.1.3.4.1.7."],
}

# LibreNMS files these as power; they are no reading (a maximum since the
# last reset): never reported, in any quantity.
NOT_READING = {
    # CPDU-MIB pduUnitStatusPeakPower
    "apc-cpdu": ["1.3.6.1.4.1.318.1.1.32.2.4.1.6."],
    # The recording (an EPC 8031, sysObjectID .81) also holds an EPC 1202's
    # branch (.43), as if two walks were merged; a real agent serves its own
    # product's: the 8031's channel is inlet/1 and the 1202's row, the same
    # series, is left out as a repeat.
    "gude-epc": ["1.3.6.1.4.1.28507.43.1.5.1.2.1."],
}

# (probe path, quantity, value in W, J, VA, var or VAh): from the MIB and
# the recording.  Beyond LibreNMS where it has a file.
EXPECT = {
    "rnx-updu_rn3214": [
        ("inlet/1", "energy", 12718314 * WH), ("inlet/1", "apparent_power",
         1195), ("inlet/1", "reactive_power", -436),
        ("phase/1", "energy", 4053607 * WH), ("circuit/1", "power", 69),
        ("outlet/1", "power", 66)],
    "raritan-pdu": [("inlet/1", "power", 580),
                    ("inlet/1", "apparent_power", 692),
                    ("inlet/1", "energy", 0)],
    "atenpdu": [("outlet/2", "energy", 719706 * WH),
                ("outlet/2", "power", 118.332)],
    "panduit": [("inlet/1", "energy", 7405 * KWH),
                ("circuit/1", "apparent_power", 454),
                ("circuit/1", "energy", 77384 * WH),
                ("inlet/1", "apparent_power", 1022)],
    # the real recordings with the rows their MIBs define and the agents
    # recorded did not serve (tests/fixtures/snmp/SOURCES.md)
    "written-servertech-sentry4": [
        ("u1/phase/1", "apparent_power", 437),
        ("u1/phase/1", "energy", 2171 * 0.1 * KWH),
        ("u1/phase/3", "apparent_power", 887),
        ("u2/phase/2", "energy", 7210 * 0.1 * KWH),
        ("u1/inlet/1", "apparent_power", 1790),
        ("u1/outlet/1", "power", 212), ("u1/outlet/1", "energy", 1503321 * WH),
        ("u1/outlet/2", "power", 0), ("u2/outlet/2", "energy", 2771345 * WH)],
    "written-servertech-sentry3": [
        ("u1/inlet/1", "apparent_power", 255),
        ("u1/inlet/1", "energy", 6520 * 0.1 * KWH),
        ("u2/inlet/3", "power", 205), ("u2/inlet/3", "apparent_power", 209),
        ("u1/device/1", "apparent_power", 483),
        ("u1/device/1", "energy", 1234 * KWH),
        ("u2/device/1", "energy", 2900 * KWH), ("device/1", "power", 885),
        ("u2/outlet/1", "power", 120), ("u2/outlet/1", "energy", 864213 * WH)],
    "written-panduit-g5": [
        ("phase/1", "energy", 3538231 * WH), ("phase/2", "energy", 239511 * WH),
        ("phase/3", "power", 492), ("phase/3", "apparent_power", 517),
        ("inlet/1", "apparent_power", 1022),
        ("circuit/4", "energy", 153030 * WH)],
    # CPQPOWER-MIB 1.84: pdu3 energies in kWh (groups too), pdu2 in Wh
    "written-hpe-pdu3": [
        ("inlet/1", "apparent_power", 157), ("inlet/1", "energy", 1290 * KWH),
        ("phase/1", "apparent_power", 157), ("phase/1", "energy", 1290 * KWH),
        ("circuit/1", "power", 153), ("circuit/1", "apparent_power", 156),
        ("circuit/1", "energy", 1265 * KWH), ("circuit/2", "energy", 25 * KWH),
        ("outlet/21", "energy", 540 * KWH), ("outlet/23", "power", 74)],
    "written-hpe-pdu2": [
        ("inlet/1", "apparent_power", 129),
        ("inlet/1", "energy", 3456789 * WH),
        ("phase/1", "apparent_power", 129), ("phase/1", "energy", 3456789 * WH),
        ("circuit/2", "power", 91), ("circuit/2", "apparent_power", 121),
        ("circuit/2", "energy", 3456789 * WH),
        ("outlet/6", "energy", 2765431 * WH), ("outlet/7", "energy", 681124 * WH)],
    "apc_isx-pdu": [],
    "hpe-mapdu_pdu2": [],
    "planet-pdu": [],
    "apc-epdu_epdu1116s": [("phase/1", "energy", 332241 * WH)],
    "apc_ap7900b": [("device/1", "power", 312)],
    "apc_ap8853": [("device/1", "power", 1140),
                   ("device/1", "energy", 35128 * 0.1 * KWH),
                   # rPDU2DeviceStatusApparentPower, PhaseStatus-:
                   # hundredths of kVA
                   ("device/1", "apparent_power", 1190),
                   ("phase/1", "apparent_power", 1190)],
    # an EPDU1116S's ePDU device row (W, VA, Wh; var -1: not supported)
    # and phases
    "written-apc-epdu": [("device/1", "power", 1183),
                         ("device/1", "apparent_power", 1231),
                         ("device/1", "energy", 332241 * WH),
                         ("phase/1", "apparent_power", 1231),
                         ("phase/1", "reactive_power", 340)],
    # pre-rPDU2 firmware: rPDUIdentDevicePowerWatts and -VA only
    "written-apc-rpdu": [("device/1", "power", 312),
                         ("device/1", "apparent_power", 328)],
    "chatsworth-pdu": [("outlet/1", "energy", 64449 * 10),
                       ("circuit/1", "apparent_power", 1467),
                       ("circuit/1", "apparent_energy", 44750279 * 10 / WH)],
    # The agent serves both CPS-MIB branches: ePDU2 (device total with
    # energy and VA, phase) answers more columns than ePDU, whose outlets
    # read 0 W of a 219 W load (switched, not metered).
    "cyberpower": [("device/1", "power", 219),
                   ("device/1", "apparent_power", 224),
                   ("device/1", "energy", 0.1 * KWH),
                   ("phase/1", "power", 219),
                   # ePDULoadStatus: the bank row (the phase row, with
                   # BankNumber 0, is left out: ePDU2's phase/1 is it)
                   ("circuit/1", "power", 219)],
    "apc-cpdu": [("device/1", "apparent_power", 301),
                 ("device/1", "energy", 7918 * 0.1 * KWH),
                 ("outlet/2", "energy", 1099 * 0.1 * KWH)],
    "wti-power": [("device/1", "power", 256), ("circuit/2", "power", 256)],
    # tlpPduOutputCalculatedPowerKVA: hundredths of kVA
    "poweralert_pdu": [("phase/1", "apparent_power", 210)],
    "schleifenbauer": [("inlet/1", "apparent_power", 70),
                       ("inlet/3", "energy", 66 * KWH)],
    "sentry4_switched8i": [("u1/inlet/1", "apparent_power", 856),
                           ("u2/inlet/1", "energy", 13322880000),
                           ("u2/phase/1", "power", 856)],
    "vertiv-pdu_mn03edr1": [("phase/1", "power", 1434),
                            ("phase/1", "energy", 5047296 * WH),
                            ("phase/3", "power", 1425),
                            ("phase/1", "apparent_power", 1472),
                            ("phase/3", "apparent_power", 1461)],
    "digitus": [("outlet/1", "power", 32), ("phase/1", "power", 32)],
    # PDU81005: ePDU2 outlets, its load in the ePDU branch only (circuits)
    "cyberpower_pdu81005": [("outlet/5", "power", 82),
                            ("outlet/5", "energy", 31 * 0.1 * KWH),
                            ("outlet/8", "energy", 11 * 0.1 * KWH),
                            ("circuit/1", "power", 216),
                            ("circuit/2", "power", 216)],
    # the same agent without the ePDU2 branch (older firmware)
    # the load rows: the phase (BankNumber 0) and the bank (a circuit)
    "cyberpower-epdu-only": [("phase/1", "energy", 0.1 * KWH),
                             ("phase/1", "power", 219),
                             ("phase/1", "apparent_power", 224),
                             ("circuit/1", "power", 219)],
    "dell-rpdu": [("outlet/3", "power", 352), ("device/1", "power", 3790),
                  ("device/1", "energy", 630139 * 0.1 * KWH)],
    "eatonpdu_2": [("outlet/1", "power", 80),
                   ("outlet/1", "energy", 785621 * WH),
                   ("inlet/1", "power", 1584),
                   ("inlet/1", "energy", 8185493 * WH)],
    "enlogic-pdu2": [("device/1", "power", 1120),
                     ("device/1", "energy", 527776 * 0.1 * KWH)],
    "hpe-mapdu_pdu3": [("inlet/1", "power", 154)],
    "liebert_mph2rg": [("outlet/2", "energy", 113 * 0.1 * KWH),
                       ("inlet/1", "power", 514),
                       ("inlet/1", "energy", 20450 * 0.1 * KWH),
                       # lgpPduPsLineTable PwrLN, ApLN; lgpPduRbTable
                       # (receptacle branch 1.2: circuit/2)
                       ("phase/1", "power", 498),
                       ("phase/1", "apparent_power", 556),
                       ("circuit/2", "power", 508),
                       ("circuit/2", "apparent_power", 553),
                       ("circuit/2", "energy", 20452 * 0.1 * KWH)],
    # IPOMANII-MIB outletStatusKwatt "in 0.001 KW/H": Wh (LibreNMS's
    # poller values, its discovery lists them as null)
    "ipoman": [("outlet/1", "energy", 272099 * WH),
               ("outlet/7", "energy", 27757 * WH),
               ("outlet/8", "energy", 0), ("outlet/12", "energy", 0)],
    # PDU2-MIB: inlet poles (phases), unit sensors (device, not chosen
    # where inlets answer); apparent energy VAh
    "written-raritan-pdu2": [
        ("inlet/1", "power", 1234), ("inlet/1", "apparent_power", 1300),
        ("inlet/1", "energy", 5000000 * WH),
        ("inlet/1", "apparent_energy", 5300000),
        ("device/1", "power", 1234), ("device/1", "apparent_power", 1300),
        ("device/1", "energy", 5000000 * WH),
        ("device/1", "apparent_energy", 5300000),
        ("phase/1", "power", 405.1), ("phase/2", "power", 412.2),
        ("phase/3", "power", 416.7), ("phase/1", "apparent_power", 430),
        ("phase/1", "energy", 1650000 * WH),
        ("phase/3", "apparent_energy", 1780000),
        ("outlet/1", "power", 500), ("outlet/3", "energy", 1200000 * WH)],
    # a BCM2 panel meter: mains, its poles, branch circuits 1, 2 and 4
    "written-raritan-bcm2": [
        ("inlet/1", "power", 9000), ("inlet/1", "apparent_power", 9450),
        ("inlet/1", "energy", 80000000 * WH),
        ("inlet/1", "apparent_energy", 84000000),
        ("phase/1", "power", 3000), ("phase/2", "energy", 27000000 * WH),
        ("phase/3", "apparent_power", 3250), ("circuit/1", "power", 6000),
        ("circuit/1", "apparent_energy", 52500000),
        ("circuit/2", "energy", 18000000 * WH),
        ("circuit/4", "power", 1200.0), ("circuit/4", "apparent_power", 1250)],
    # inputPowerTable with phase1-3 and a total(4) row: the total left out
    "written-eaton-epdu-3ph": [
        ("inlet/1", "power", 3300), ("inlet/1", "apparent_power", 3460),
        ("inlet/1", "energy", 6300000 * WH), ("phase/1", "power", 1000),
        ("phase/2", "power", 1100), ("phase/3", "power", 1200),
        ("phase/3", "apparent_power", 1260),
        ("phase/1", "energy", 2000000 * WH), ("circuit/1", "power", 1000),
        ("circuit/2", "apparent_power", 1150),
        ("circuit/3", "energy", 2200000 * WH), ("outlet/3", "power", 600),
        ("outlet/6", "energy", 1000000 * WH)],
    # unit 210: inputs (the total), metered outlets, branches (circuits),
    # the totals table (device: probe only)
    "written-schleifenbauer": [
        ("outlet/1", "power", 412), ("outlet/1", "apparent_power", 431),
        ("outlet/1", "energy", 2101 * KWH),
        ("inlet/1", "power", 1150), ("inlet/1", "apparent_power", 1210),
        ("inlet/2", "energy", 3160 * KWH),
        ("device/1", "power", 1970), ("device/1", "apparent_power", 2080),
        ("device/1", "energy", 8382 * KWH),
        ("circuit/1", "power", 1150), ("circuit/2", "apparent_power", 870),
        ("circuit/2", "energy", 3160 * KWH), ("circuit/3", "energy", 12 * KWH)],
    # ATEN-PE-CFG device and bank integer tables (mW, Wh x1000), banks 3
    # and 4 -1000000 (not available) and -2000000 (not supported)
    "written-aten-pe": [
        ("device/1", "power", 759.55), ("device/1", "energy", 6576258 * WH),
        ("circuit/1", "power", 118.332), ("circuit/1", "energy", 865754 * WH),
        ("circuit/2", "power", 641.218), ("circuit/2", "energy", 5710504 * WH),
        ("outlet/2", "power", 118.332), ("outlet/15", "energy", 3447143 * WH)],
    # a Tripp Lite ATS as device 2 of the PowerAlert agent (tlpAts tables)
    "written-tripplite-ats": [
        ("u1/phase/1", "power", 207), ("u1/phase/1", "apparent_power", 210),
        ("u2/device/1", "power", 1399), ("u2/phase/1", "power", 1399),
        ("u2/phase/1", "apparent_power", 1480), ("u2/circuit/1", "power", 745),
        ("u2/circuit/2", "power", 654), ("u2/outlet/1", "power", 312),
        ("u2/outlet/3", "power", 0), ("u2/outlet/5", "power", 401),
        ("u2/outlet/8", "power", 0)],
    # an MPH PDU's tables behind a GXT2 UPS's sysDescr
    "liebert": [("inlet/1", "power", 2411),
                ("inlet/1", "energy", 959375 * 0.1 * KWH)],
    "apc_ap8959eu3": [("device/1", "apparent_power", 300),
                      ("phase/1", "power", 250),
                      ("phase/1", "apparent_power", 300)],
    "apc_apdu9959eu3": [("device/1", "apparent_power", 1250),
                        ("phase/1", "power", 1160),
                        ("phase/1", "apparent_power", 1250)],
    "panduit_g5-p32g13m": [("outlet/1", "energy", 0)],
    "raritan-pdu_px2": [("outlet/3", "power", 68)],
    "raritan-pdu_px4-excerpt": [("inlet/1", "power", 590),
                                ("inlet/1", "energy", 2932051 * WH),
                                ("inlet/1", "apparent_power", 699),
                                ("inlet/1", "apparent_energy", 3490535),
                                ("outlet/3", "energy", 780 * WH)],
    "raritan-pdu_px3": [("outlet/1", "power", 143),
                        ("outlet/1", "energy", 5812658 * WH),
                        ("inlet/1", "power", 1665),
                        ("inlet/1", "energy", 74057676 * WH)],
    "schleifenbauer_dpm27e": [("outlet/12", "energy", 0),
                              ("inlet/1", "apparent_power", 0)],
    "sentry3_3phase": [("device/1", "power", 279), ("inlet/1", "power", 147)],
    "sentry4": [("u1/inlet/1", "power", 1701),
                ("u2/inlet/1", "energy", 25659 * 0.1 * KWH),
                ("u1/phase/3", "power", 848)],
    "vertiv-pdu_mg02e4w1": [("device/1", "power", 1017),
                            ("device/1", "energy", 8483906 * WH),
                            ("device/1", "apparent_power", 1067),
                            ("phase/2", "apparent_power", 439)],
    # six breakers (two a phase of a delta PDU), W, VA, Wh
    "written-vertiv-geist-breakers": [
        ("circuit/1", "power", 913), ("circuit/1", "apparent_power", 941),
        ("circuit/1", "energy", 3213577 * WH),
        ("circuit/6", "power", 514), ("circuit/6", "apparent_power", 520),
        ("circuit/6", "energy", 1833659 * WH),
        ("phase/1", "power", 1434), ("phase/1", "apparent_power", 1472),
        ("phase/3", "energy", 5031780 * WH)],
    "written-cyberpower-epdu2": [
        ("outlet/1", "power", 10), ("outlet/16", "power", 160),
        ("outlet/16", "energy", 116 * 0.1 * KWH),
        ("device/1", "power", 1234), ("device/1", "apparent_power", 1300),
        ("device/1", "energy", 45678 * 0.1 * KWH),
        ("device/2", "power", 567), ("phase/2", "power", 567),
        ("phase/2", "apparent_power", 600)],
    "written-hpe-ipdu": [
        ("u1/device/1", "power", 2000),
        ("u1/device/1", "apparent_power", 2100),
        ("u1/circuit/2", "power", 961), ("u1/circuit/2", "energy", 2000001 * WH),
        ("u2/circuit/1", "apparent_power", 502),
        ("u1/outlet/1", "power", 111), ("u2/outlet/3", "power", 212),
        ("u2/outlet/3", "energy", 100102 * WH)],
    "written-avocent-pm": [
        ("u1/outlet/2", "power", 103), ("u1/outlet/2", "energy", 20002 * WH),
        ("u2/outlet/4", "power", 206),
        ("u2/device/1", "power", 2469), ("u2/device/1", "energy", 1975308 * WH),
        ("u1/phase/1", "power", 1234.5),
        ("u2/circuit/2", "power", 1200.2), ("u2/circuit/2", "energy", 800002 * WH)],
    "written-algcom-pdu": [("outlet/1", "power", 81.054),
                           ("outlet/8", "power", 81.432),
                           ("device/1", "power", 666.63)],
    # rows numbered from 1 (inletIndex/outletPduAIndex 0-based, as a real
    # walk shows); energy counters in Wh (the UNITS' "KWh" contradicted by
    # a real walk); 8 inlet rows, one real; two banks per phase
    "written-ts-pwtv1": [("outlet/1", "power", 120.5),
                         ("outlet/8", "power", 0),
                         ("outlet/8", "energy", 107250 * WH),
                         ("inlet/1", "power", 3691.5),
                         ("inlet/1", "energy", 4323000 * WH),
                         ("phase/3", "power", 1230.6),
                         ("phase/3", "apparent_power", 1300.2),
                         ("phase/2", "energy", 1441000 * WH),
                         ("circuit/3", "power", 1230.6),
                         ("circuit/4", "apparent_power", 650),
                         # an idle bank is a reading (0 W), kept
                         ("circuit/6", "power", 0)],
    "written-raritan-emx": [("circuit/2", "power", 1234.5),
                            ("circuit/3", "energy", 5000000 * WH),
                            ("circuit/4", "apparent_power", 1300),
                            ("circuit/5", "apparent_energy", 5400000)],
    # an IEC 3-phase controller (total, phases W, VA, whole kWh) and 8
    # metered outlets (outlet 8 off: 0 W, 0 kWh)
    "written-geist-v3": [
        ("outlet/1", "power", 412), ("outlet/1", "energy", 702 * KWH),
        ("outlet/5", "power", 803), ("outlet/5", "energy", 1422 * KWH),
        ("outlet/8", "power", 0), ("outlet/8", "energy", 0),
        ("device/1", "power", 2763), ("device/1", "energy", 4756 * KWH),
        ("phase/1", "power", 893), ("phase/1", "apparent_power", 947),
        ("phase/1", "energy", 1523 * KWH),
        ("phase/3", "power", 1158), ("phase/3", "apparent_power", 1206),
        ("phase/3", "energy", 2046 * KWH)],
    # two PDUs behind one management module: each its own unit, the
    # module's one total each (pduOutputPower)
    "written-hpe-pdu-mm": [("u1/device/1", "power", 1473),
                           ("u2/device/1", "power", 2286)],
    # a PDU-MAN: Unit.* total, Phase L1-L3, Sockets.Socket NN (energy
    # in kWh with cmcIIIVarScale -10: tenths)
    # the 8031's channel (the 1202's, the same inlet/1, left out)
    "gude-epc": [("inlet/1", "power", 18),
                 ("inlet/1", "energy", 1109209 * WH),
                 ("inlet/1", "apparent_power", 42)],
    # an EPC 8226: banks A and B (W, VA, Wh) and 12 port meters
    "written-gude-epc": [
        ("inlet/1", "power", 932), ("inlet/1", "energy", 7654321 * WH),
        ("inlet/1", "apparent_power", 973), ("inlet/2", "power", 618),
        ("inlet/2", "energy", 4321098 * WH),
        ("inlet/2", "apparent_power", 657),
        ("outlet/1", "power", 301), ("outlet/1", "energy", 2600001 * WH),
        ("outlet/5", "power", 156),
        ("outlet/11", "energy", 1300011 * WH), ("outlet/12", "power", 0),
        ("outlet/12", "energy", 1012 * WH)],
    "derived-gude-8221": [("inlet/1", "power", 932),
                          ("inlet/2", "energy", 4321098 * WH)],
    "derived-gude-8340": [("inlet/1", "power", 932),
                          ("inlet/2", "energy", 4321098 * WH)],
    "written-rittal-cmc3": [
        ("inlet/1", "power", 3187), ("inlet/1", "energy", 7636.5 * KWH),
        ("phase/1", "power", 1123), ("phase/3", "power", 1022),
        ("phase/1", "apparent_power", 1187),
        ("phase/3", "apparent_power", 1075),
        ("phase/1", "energy", 4772.2 * KWH),
        ("phase/2", "energy", 1378.6 * KWH),
        ("outlet/1", "power", 611), ("outlet/3", "power", 0),
        ("outlet/6", "power", 281), ("outlet/1", "energy", 2101.4 * KWH),
        ("outlet/6", "energy", 577.4 * KWH)],
}

# (probe path, quantity) that must not be reported: -1 ("cannot be
# calculated") and sensors of other types.
ABSENT = {
    "cyberpower": [("circuit/2", "power")],
    "written-apc-epdu": [("device/1", "reactive_power")],
    # the bank row's VA is "NULL"; one phase
    "cyberpower-epdu-only": [("circuit/1", "apparent_power"),
                             ("phase/2", "power")],
    # the outlet groups it serves are no circuits (they may overlap)
    "written-raritan-pdu2": [("phase/4", "power"),
                             ("phase/4", "apparent_power"),
                             ("outlet/1", "apparent_power"),
                             ("circuit/1", "power"), ("circuit/2", "power")],
    "written-raritan-bcm2": [("circuit/3", "power"), ("device/1", "power")],
    "written-eaton-epdu-3ph": [("phase/4", "power"), ("phase/4", "energy"),
                               ("outlet/1", "apparent_power")],
    # -1 rows; outlet VA is not read where the outlet's W is
    "written-servertech-sentry4": [("u1/outlet/4", "power"),
                                   ("u1/outlet/4", "energy"),
                                   ("u1/outlet/1", "apparent_power")],
    "written-servertech-sentry3": [("u1/inlet/4", "power"),
                                   ("u2/outlet/3", "power"),
                                   ("u1/device/1", "power"),
                                   ("u2/outlet/1", "apparent_power")],
    "written-hpe-pdu3": [("outlet/48", "energy"),
                         ("outlet/1", "apparent_power")],
    "written-hpe-pdu2": [("outlet/8", "energy"),
                         ("outlet/6", "apparent_power")],
    # the inlet rows past the real inlet (voltage 0)
    "written-ts-pwtv1": [("inlet/2", "power"), ("inlet/8", "energy"),
                         ("outlet/9", "power"), ("outlet/1", "apparent_power")],
    # rows past the PDU's 40 outlets (pduOutletMeteredStatusNumber 0)
    "apc-cpdu": [("outlet/41", "power"), ("outlet/64", "energy")],
    "written-hpe-ipdu": [("u2/device/1", "power"), ("u2/device/1",
                         "apparent_power"), ("u2/outlet/4", "power")],
    "written-raritan-emx": [("circuit/1", "power"), ("circuit/1", "energy"),
                            ("circuit/2", "energy"), ("circuit/3", "power"),
                            ("circuit/2", "apparent_power"),
                            ("circuit/4", "power"), ("circuit/5", "energy")],
    # the older IMD firmware's breakers serve currents only
    "vertiv-pdu_mg02e4w1": [("circuit/1", "power")],
    "written-aten-pe": [("circuit/3", "power"), ("circuit/3", "energy"),
                        ("circuit/4", "power"), ("circuit/4", "energy")],
    # a port's VA is served beside its W: not read
    "written-gude-epc": [("outlet/1", "apparent_power")],
    "written-geist-v3": [("u1/device/1", "power")],
    # the outputs are PDUs, not circuits
    "written-hpe-pdu-mm": [("u1/circuit/1", "power"), ("circuit/1", "power")],
    # "Energy.Active Custom" (the resettable twins) and the humidity
    # sensor (device 2) are no readings
    "written-rittal-cmc3": [("inlet/2", "energy"), ("phase/4", "energy"),
                            ("outlet/7", "energy"), ("outlet/7", "power"),
                            ("outlet/1", "apparent_power"),
                            ("u2/inlet/1", "power")],
}


def close(a, b):
    return abs(a - b) <= 1e-9 * abs(b) + 1e-6


def check_librenms(rec, src, errs):
    path = os.path.join(FIX, "librenms-sensors", rec + ".json")
    if not os.path.exists(path):
        return 0
    lib = json.load(open(path))
    by_oid = {}
    for s in src:
        by_oid.setdefault(s.get("source", ""), []).append(s)
    n = 0
    for kind in ("power", "energy_kwh"):
        for e in lib.get(kind, []):
            oid = e["oid"].lstrip(".")
            if any(oid.startswith(p) for p in NOT_READING.get(rec, [])):
                n += 1
                if by_oid.get(oid):
                    errs.append("%s: %s (%s) is no reading, reported" %
                                (rec, oid, e["descr"]))
                continue
            for p in OID_EXTRA.get(rec, []):
                if oid.startswith(p + "1."):
                    oid = p + oid[len(p) + 2:]
            va = any(oid.startswith(p) for p in VA.get(rec, []))
            q = "apparent_power" if va else ("power" if kind == "power"
                                            else "energy")
            want = e["value"] * (KWH if kind == "energy_kwh" else 1)
            want *= next((f for p, f in SCALE.get(rec, {}).items()
                          if oid.startswith(p)), 1)
            got = [s for s in by_oid.get(oid, []) if s["quantity"] == q]
            n += 1
            if not got:
                errs.append("%s: LibreNMS %s %s (%s) not found as %s" %
                            (rec, e["descr"], oid, e["value"], q))
            elif not close(got[0]["value"], want):
                errs.append("%s: %s %s = %s, LibreNMS %s" %
                            (rec, oid, q, got[0]["value"], want))
    return n


# recordings 203 makes from another one (see there) -> that one
DERIVED = {"cyberpower-epdu-only": "cyberpower",
           "derived-gude-8221": "written-gude-epc",
           "derived-gude-8340": "written-gude-epc"}


def check_profile_lists():
    """Each profile's `recordings:` names the recordings PROFILE maps to it
    (a derived one by the recording it is made from), no more, no fewer."""
    want = {}
    for rec, prof in PROFILE.items():
        if prof is not None:
            want.setdefault(prof, set()).add(DERIVED.get(rec, rec))
    pdir = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "etc", "pdu-profiles")
    bad = 0
    for f in sorted(os.listdir(pdir)):
        if not f.endswith(".yaml"):
            continue
        prof, got = f[:-5], set()
        for line in open(os.path.join(pdir, f)):
            if line.startswith("recordings:"):
                got = {r.strip() for r in line.split("[", 1)[1].split(
                    "]", 1)[0].split(",") if r.strip()}
        if got != want.get(prof, set()):
            print("BAD %s: recordings: %s, tested on %s" %
                  (f, sorted(got), sorted(want.get(prof, set()))))
            bad += 1
    return bad


def main():
    bad = check_profile_lists()
    for rec in sorted(PROFILE):
        errs = []
        jpath = os.path.join(OUT, rec + ".json")
        try:
            d = json.load(open(jpath))
        except (OSError, ValueError):
            d = None
        if PROFILE[rec] is None:
            ok = d is None and "found no rows" in open(
                os.path.join(OUT, rec + ".err")).read()
            print("%s %s: no readings, as expected" % ("ok " if ok else
                                                       "BAD", rec))
            bad += not ok
            continue
        if d is None:
            print("BAD %s: %s" % (rec, open(os.path.join(
                OUT, rec + ".err")).read().strip()))
            bad += 1
            continue
        dev = d["device"]
        if dev.get("profile") != PROFILE[rec]:
            errs.append("%s: profile %s, expected %s" %
                        (rec, dev.get("profile"), PROFILE[rec]))
        if not dev.get("profile_reason"):
            errs.append("%s: no device.profile_reason" % rec)
        src = d["sources"]
        keys = [(s["path"], s["quantity"]) for s in src]
        if len(set(keys)) != len(keys):
            errs.append("%s: a reading appears twice" % rec)
        # one total a PDU: its inlets or its device row, never both
        totals = {}
        for s in src:
            unit, _, role = s["path"].rpartition("/")[0].rpartition("/")
            if s.get("chosen") and role in ("inlet", "device"):
                totals.setdefault(unit, set()).add(role)
        for unit, roles in totals.items():
            if len(roles) > 1:
                errs.append("%s: %sinlet and device totals both chosen" %
                            (rec, unit + "/" if unit else ""))
        for s in src:
            if s["quantity"] in ("apparent_power", "reactive_power",
                                 "apparent_energy") and s["unit"] not in (
                                     "VA", "var", "VAh"):
                errs.append("%s: %s %s in %s" % (rec, s["path"],
                                                 s["quantity"], s["unit"]))
        n = check_librenms(rec, src, errs)
        for path, q, want in EXPECT.get(rec, []):
            got = [s["value"] for s in src if s["path"] == path and
                   s["quantity"] == q]
            n += 1
            if not got:
                errs.append("%s: no %s %s" % (rec, path, q))
            elif not close(got[0], want):
                errs.append("%s: %s %s = %s, expected %s" %
                            (rec, path, q, got[0], want))
        for path, q in ABSENT.get(rec, []):
            n += 1
            if (path, q) in keys:
                errs.append("%s: %s %s reported" % (rec, path, q))
        print("%s %s: profile %s, %d readings, %d checked" %
              ("ok " if not errs else "BAD", rec, dev.get("profile"),
               len(src), n))
        for e in errs:
            print("    " + e)
        bad += bool(errs)
    return 1 if bad else 0


sys.exit(main())
