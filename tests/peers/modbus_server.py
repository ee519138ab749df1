#!/usr/bin/python3
"""modbus_server.py - a Modbus TCP or RTU meter (or a gateway with several
meters behind it) built on pymodbus 3.0, serving the registers of wattpath's
meter maps (etc/meter-maps/*.yaml) with advancing energy counters, plus
fault modes for tests.

  modbus_server.py --tcp 127.0.0.1:PORT --unit 1=eastron-sdm630 \
      --unit 2=abb-m4m [--control FILE] [--maps DIR] [--speed X]
  modbus_server.py --rtu /dev/pts/N --baud 9600 --parity N --unit 3=...

Every request is printed on stdout as "REQ unit=U fc=F addr=A count=N".
Values are written with the map's type, scale and word order (an encoder
written from the map, independent of the C decoder).  Each meter draws a
constant POWER watts; its import counter starts at E0 and advances with
time (times --speed).  --expect FILE writes the values served at start as
JSON {stem: {name: value in map unit}}.

The control file (JSON, re-read when it changes) sets faults per unit:
  {"1": ["exc:2"], "2": ["silent"], "3": ["late:1.5:1"], "4": ["drop:1"],
   "5": ["nan"], "6": ["reboot:3"], "7": ["swap"]}
  exc:N        answer every read with exception N (2 illegal address,
               6 device busy, 11 gateway target failed)
  silent       never answer (a dead meter behind a gateway)
  late:S:K     the next K replies are sent S seconds late
  drop:K       close the connection on the next K requests
  nan          float values read NaN (integer maps: all-ones pattern)
  reboot:S     the energy counters read 0 for S seconds, then restore
  swap         words of 32/64-bit values sent in the wrong order
"""
import argparse
import asyncio
import json
import math
import os
import struct
import sys
import time

import yaml
from pymodbus.datastore import ModbusServerContext
from pymodbus.framer.rtu_framer import ModbusRtuFramer
from pymodbus.server.async_io import (ModbusConnectedRequestHandler,
                                      ModbusSerialServer,
                                      ModbusSingleRequestHandler,
                                      ModbusTcpServer)

POWER = 12345.6          # W per meter
E0_KWH = 123456.7        # import energy at start, kWh
NREGS = {"u16": 1, "s16": 1, "u32": 2, "s32": 2, "u64": 4, "s64": 4,
         "f32": 2, "f64": 4}
SI = {"Wh": 3600.0, "kWh": 3.6e6, "MWh": 3.6e9, "W": 1.0, "kW": 1e3,
      "MW": 1e6}


def nominal(v):
    """A plausible value in the map's unit for a context value."""
    n, u = v["name"], v["unit"]
    if u == "V":
        return 400.0 if "_l" in n and n.count("_l") == 2 else 230.1
    if u == "A":
        return 17.891
    if u == "Hz":
        return 50.02
    if u == "PF":
        return 0.95
    if u in ("W", "kW", "MW"):
        return POWER / 3 / SI[u]
    if u in ("var", "kvar", "VA", "kVA"):
        return 1234.5 / (1000.0 if u.startswith("k") else 1.0)
    if u in SI:                 # energy counters other than the total
        return 1000.0 * 3.6e6 / SI[u]
    return 42.0


def encode(v, value, swap=False):
    """value (map unit) -> list of registers as the meter sends them."""
    t, order = v["type"], v.get("order", "ABCD")
    scale = float(v.get("scale", 1))
    n = NREGS[t]
    if t == "f32":
        raw = struct.pack(">f", value / scale)
    elif t == "f64":
        raw = struct.pack(">d", value / scale)
    else:
        iv = int(round(value / scale))
        fmt = {"u16": ">H", "s16": ">h", "u32": ">I", "s32": ">i",
               "u64": ">Q", "s64": ">q"}[t]
        raw = struct.pack(fmt, iv)
    words = [raw[2 * i:2 * i + 2] for i in range(n)]
    if n > 1:
        if order in ("CDAB", "DCBA"):
            words.reverse()
        if order in ("BADC", "DCBA"):
            words = [w[::-1] for w in words]
        if swap:
            words.reverse()
    return [int.from_bytes(w, "big") for w in words]


def not_available(v):
    n = NREGS[v["type"]]
    return [0xFFFF] * n


class Meter:
    """One unit: a map and its state."""

    def __init__(self, stem, doc, speed):
        self.stem = stem
        self.map = doc
        self.base = int(doc.get("register_base", 0))
        self.speed = speed
        self.t0 = time.monotonic()
        self.faults = {}
        self.reboot_until = 0.0
        self.space = {3: {}, 4: {}}
        for v in doc["values"]:
            addr = int(str(v["address"]), 0) - self.base
            self.space[int(v["fc"])][addr] = v
        self.lo = {fc: min(s) for fc, s in self.space.items() if s}
        self.hi = {fc: max(a + NREGS[s[a]["type"]] for a in s)
                   for fc, s in self.space.items() if s}

    def value(self, v):
        role = v.get("role")
        if role == "total_power":
            return POWER / SI[v["unit"]]
        if role == "total_energy_import":
            if time.monotonic() < self.reboot_until:
                return 0.0
            el = (time.monotonic() - self.t0) * self.speed
            return (E0_KWH * 3.6e6 + POWER * el) / SI[v["unit"]]
        return nominal(v)

    def registers(self, fc, addr, count):
        out = [0] * count
        for a, v in self.space[fc].items():
            n = NREGS[v["type"]]
            if a + n <= addr or a >= addr + count:
                continue
            if "nan" in self.faults:
                if v["type"] in ("f32", "f64"):
                    regs = [0x7FC0] + [0] * (n - 1)
                else:
                    regs = not_available(v)
            else:
                regs = encode(v, self.value(v), "swap" in self.faults)
            for i, r in enumerate(regs):
                if addr <= a + i < addr + count:
                    out[a + i - addr] = r
        return out

    def expect(self):
        return {v["name"]: self.value(v) for v in self.map["values"]}


class Context:
    """A pymodbus slave context over one Meter (no address offset)."""

    def __init__(self, meter):
        self.meter = meter

    def validate(self, fc, address, count=1):
        m = self.meter
        return (fc in m.lo and address >= m.lo[fc] and
                address + count <= m.hi[fc])

    def getValues(self, fc, address, count=1):   # noqa: N802 (pymodbus API)
        return self.meter.registers(fc, address, count)

    def setValues(self, fc, address, values):    # noqa: N802
        raise ValueError("read-only meter")

    def reset(self):
        pass


class Faults:
    """Reads the control file and keeps one-shot counters."""

    def __init__(self, path, meters):
        self.path = path
        self.meters = meters
        self.mtime = None
        self.late = {}
        self.drop = {}

    def refresh(self):
        if not self.path:
            return
        try:
            st = os.stat(self.path)
        except OSError:
            return
        if st.st_mtime_ns == self.mtime:
            return
        self.mtime = st.st_mtime_ns
        try:
            with open(self.path) as f:
                ctl = json.load(f)
        except (OSError, ValueError):
            return
        for unit, m in self.meters.items():
            m.faults = {}
            self.late.pop(unit, None)
            self.drop.pop(unit, None)
            for spec in ctl.get(str(unit), []):
                parts = spec.split(":")
                m.faults[parts[0]] = parts[1:]
                if parts[0] == "late":
                    self.late[unit] = [float(parts[1]), int(parts[2])]
                elif parts[0] == "drop":
                    self.drop[unit] = int(parts[1])
                elif parts[0] == "reboot":
                    m.reboot_until = time.monotonic() + float(parts[1])


def make_handler(base, faults, meters):
    class Handler(base):
        def execute(self, request, *addr):
            faults.refresh()
            unit = request.unit_id
            print(f"REQ unit={unit} fc={request.function_code} "
                  f"addr={getattr(request, 'address', -1)} "
                  f"count={getattr(request, 'count', -1)}", flush=True)
            m = meters.get(unit)
            if m is None or "silent" in m.faults:
                return                       # a dead unit: no reply
            if faults.drop.get(unit, 0) > 0:
                faults.drop[unit] -= 1
                self.transport.close()
                return
            if "exc" in m.faults:
                resp = request.doException(int(m.faults["exc"][0]))
                resp.transaction_id = request.transaction_id
                resp.unit_id = unit
                self.send(resp, *addr)
                return
            late = faults.late.get(unit)
            if late and late[1] > 0:
                late[1] -= 1
                asyncio.get_event_loop().call_later(
                    late[0], base.execute, self, request, *addr)
                return
            base.execute(self, request, *addr)
    return Handler


async def serve(args, meters, faults):
    ctx = ModbusServerContext(
        slaves={u: Context(m) for u, m in meters.items()}, single=False)
    if args.tcp:
        host, port = args.tcp.rsplit(":", 1)
        handler = make_handler(ModbusConnectedRequestHandler, faults, meters)
        server = ModbusTcpServer(ctx, address=(host, int(port)),
                                 handler=handler, allow_reuse_address=True,
                                 ignore_missing_slaves=True)
        await server.serve_forever()
    else:
        handler = make_handler(ModbusSingleRequestHandler, faults, meters)
        server = ModbusSerialServer(ctx, framer=ModbusRtuFramer,
                                    port=args.rtu, baudrate=args.baud,
                                    parity=args.parity, bytesize=8,
                                    stopbits=args.stopbits, timeout=0.05,
                                    handler=handler,
                                    ignore_missing_slaves=True)
        await server.start()
        if server.transport is None:
            sys.exit(f"cannot open {args.rtu}")
        if args.ready:
            open(args.ready, "w").close()
        while True:
            await asyncio.sleep(3600)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tcp")
    ap.add_argument("--rtu")
    ap.add_argument("--baud", type=int, default=9600)
    ap.add_argument("--parity", default="N")
    ap.add_argument("--stopbits", type=int, default=1)
    ap.add_argument("--unit", action="append", default=[],
                    help="UNIT=MAPSTEM")
    ap.add_argument("--maps", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "etc",
        "meter-maps"))
    ap.add_argument("--control")
    ap.add_argument("--expect")
    ap.add_argument("--ready")
    ap.add_argument("--speed", type=float, default=1.0)
    args = ap.parse_args()
    if bool(args.tcp) == bool(args.rtu):
        ap.error("give --tcp HOST:PORT or --rtu DEVICE")
    meters = {}
    for spec in args.unit:
        unit, stem = spec.split("=", 1)
        with open(os.path.join(args.maps, stem + ".yaml")) as f:
            meters[int(unit)] = Meter(stem, yaml.safe_load(f), args.speed)
    if args.expect:
        with open(args.expect, "w") as f:
            json.dump({m.stem: m.expect() for m in meters.values()}, f)
    faults = Faults(args.control, meters)
    faults.refresh()
    asyncio.run(serve(args, meters, faults))


if __name__ == "__main__":
    sys.exit(main())
