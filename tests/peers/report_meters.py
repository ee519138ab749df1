#!/usr/bin/python3
"""report_meters.py - modbus_server.py with a power draw per meter map, for
the report integration tests (facility and IT meters must differ for PUE).

  report_meters.py --power STEM=WATTS ... [--e0-kwh K] <modbus_server args>

Each meter whose map stem is STEM draws WATTS (default: modbus_server's
POWER); its import counter starts at K kWh (default modbus_server's E0_KWH)
and advances at WATTS.  Everything else (faults, --expect, RTU) is
modbus_server.py's.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modbus_server as ms  # noqa: E402

POWER = {}
E0 = [ms.E0_KWH]


class PoweredMeter(ms.Meter):
    def value(self, v):
        w = POWER.get(self.stem, ms.POWER)
        role = v.get("role")
        if role == "total_power":
            return w / ms.SI[v["unit"]]
        if role == "total_energy_import":
            if time.monotonic() < self.reboot_until:
                return 0.0
            el = (time.monotonic() - self.t0) * self.speed
            return (E0[0] * 3.6e6 + w * el) / ms.SI[v["unit"]]
        return ms.nominal(v)


def main():
    rest = []
    args = sys.argv[1:]
    i = 0
    while i < len(args):
        if args[i] == "--power" and i + 1 < len(args):
            stem, w = args[i + 1].split("=", 1)
            POWER[stem] = float(w)
            i += 2
        elif args[i] == "--e0-kwh" and i + 1 < len(args):
            E0[0] = float(args[i + 1])
            i += 2
        else:
            rest.append(args[i])
            i += 1
    sys.argv = [sys.argv[0]] + rest
    ms.Meter = PoweredMeter
    return ms.main()


if __name__ == "__main__":
    sys.exit(main())
