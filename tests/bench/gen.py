#!/usr/bin/python3
"""gen.py - configs for the collector benchmarks, from the config that
`wattpath-sim serve` wrote (so the address plan, the user, the secrets and
the CA stay the simulator's).

  gen.py wattpath SIM.yaml OUT.yaml --what redfish|snmp --n N --data DIR
         --listen PORT --interval S [--rrdcached SPEC] [--maps-dir DIR]
         [--fsync poll|segment|none] [--remote-write URL]
  gen.py collectd SIM.yaml OUT.conf --what redfish|snmp --n N --data DIR
         --interval S --pidfile F --typesdb F

  gen.py floor SIM.yaml OUT.txt --what redfish|snmp --n N
  gen.py snmp_exporter SIM.yaml OUT_DIR --n N --interval S --listen PORT

floor: the targets file of tests/bench/floor.c ("URL CA USER PASSWORD" or
"ADDRESS COMMUNITY" a line).  snmp_exporter: OUT_DIR/snmp.yml (the 0.21
format of Debian 12's prometheus-snmp-exporter: auth inside the module) and
OUT_DIR/prometheus.yml, Prometheus scraping the exporter (at 127.0.0.1:PORT)
for each PDU every S seconds.
N is how many BMCs (redfish) or PDUs (snmp) of the simulator's fleet to
poll; 0 makes the empty configuration whose peak RSS is the baseline.
Every BMC is polled with a session (wattpath) or Basic auth (collectd's
curl_json has no Redfish sessions) for the one resource the simulator's
"joules" shape serves: the chassis EnvironmentMetrics (PowerWatts and
EnergyJoules).  PDUs are Raritan PDU2-MIB: 48 outlets and one inlet, power
(sensor type 5) and energy (8).
"""
import argparse
import os
import sys

import yaml

RF_PATH = "/redfish/v1/Chassis/Node0/EnvironmentMetrics"
# PDU2-MIB measurementsOutletSensorValue / measurementsInletSensorValue,
# indexed pduId.outletId.sensorType.
OUTLET_VAL = "1.3.6.1.4.1.13742.6.5.4.3.1.4.1"
INLET_VAL = "1.3.6.1.4.1.13742.6.5.2.3.1.4.1"
OUTLETS = 48


def q(s):
    """A YAML/collectd double-quoted string."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_file(path):
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def cred(sim, name):
    for c in sim.get("credentials") or []:
        if c.get("name") == name:
            return c
    sys.exit("gen.py: simulator config has no credential %s" % name)


def bmcs(sim, n):
    nodes = sim.get("nodes") or []
    if n > len(nodes):
        sys.exit("gen.py: %d BMCs asked, the simulator serves %d" %
                 (n, len(nodes)))
    return [(x["name"], x["bmc"]["url"], x["bmc"]["ca_file"])
            for x in nodes[:n]]


def pdus(sim, n):
    p = sim.get("pdus") or []
    if n > len(p):
        sys.exit("gen.py: %d PDUs asked, the simulator serves %d" %
                 (n, len(p)))
    return [(x["name"], x["address"]) for x in p[:n]]


def wattpath(sim, a, out):
    bmc = cred(sim, "bmc")
    out.append("collector:")
    out.append("  interval: %ds" % a.interval)
    out.append("  data_dir: %s" % q(a.data))
    out.append("  listen: 127.0.0.1:%d" % a.listen)
    out.append("  log_level: warn")
    if a.rrdcached:
        out.append("  rrdcached: %s" % q(a.rrdcached))
    if a.maps_dir:
        out.append("  maps_dir: %s" % q(a.maps_dir))
    if a.fsync:
        out.append("  fsync: %s" % a.fsync)
    if a.remote_write:
        out.append("  remote_write: [{name: bench, url: %s}]" %
                   q(a.remote_write))
    out.append("credentials:")
    out.append("  - {name: bmc, username: %s, password_file: %s}" %
               (q(bmc["username"]), q(bmc["password_file"])))
    if a.what == "snmp":
        pc = cred(sim, "pdu-community")
        out.append("  - {name: pdu-community, community_file: %s}" %
                   q(pc["community_file"]))
    out.append("nodes:")
    if a.what == "redfish":
        for name, url, ca in bmcs(sim, a.n):
            out.append("  - {name: %s, class: hgx-h100-8, rack: r1, bmc: "
                       "{url: %s, credentials: bmc, auth: session, "
                       "ca_file: %s}}" % (name, q(url), q(ca)))
    else:
        out.append("pdus:")
        for name, addr in pdus(sim, a.n):
            out.append("  - {name: %s, address: %s, profile: raritan-pdu2, "
                       "snmp: {version: 2c, credentials: pdu-community}}" %
                       (name, q(addr)))


def collectd_head(a, out, plugins):
    out.append("Hostname \"bench\"")
    out.append("FQDNLookup false")
    out.append("Interval %d" % a.interval)
    out.append("ReadThreads 8")
    out.append("WriteThreads 2")
    out.append("PIDFile %s" % q(a.pidfile))
    out.append("BaseDir %s" % q(a.data))
    out.append("TypesDB \"/usr/share/collectd/types.db\" %s" % q(a.typesdb))
    out.append("LoadPlugin logfile")
    out.append("<Plugin logfile>\n  LogLevel \"warning\"\n  File STDERR\n"
               "</Plugin>")
    for p in plugins:
        out.append("LoadPlugin %s" % p)
    out.append("<Plugin rrdtool>\n  DataDir %s\n</Plugin>" %
               q(os.path.join(a.data, "rrd")))


def collectd_redfish(sim, a, out):
    bmc = cred(sim, "bmc")
    pw = read_file(bmc["password_file"])
    collectd_head(a, out, ["curl_json", "rrdtool"])
    out.append("<Plugin curl_json>")
    for name, url, ca in bmcs(sim, a.n):
        out.append("  <URL %s>" % q(url.rstrip("/") + RF_PATH))
        out.append("    Instance %s" % q(name))
        out.append("    User %s\n    Password %s" % (q(bmc["username"]),
                                                    q(pw)))
        out.append("    CACert %s\n    VerifyPeer true\n    VerifyHost true"
                   % q(ca))
        out.append("    Timeout 5000")
        out.append("    <Key \"PowerWatts/Reading\">\n      Type \"power\"\n"
                   "    </Key>")
        out.append("    <Key \"EnergyJoules/Reading\">\n      Type \"derive\"\n"
                   "    </Key>")
        out.append("  </URL>")
    out.append("</Plugin>")


def collectd_snmp(sim, a, out):
    community = read_file(cred(sim, "pdu-community")["community_file"])
    collectd_head(a, out, ["snmp", "rrdtool"])
    out.append("<Plugin snmp>")
    # One GET per outlet (power and energy in one request): collectd's
    # snmp plugin cannot pick sensor types out of a PDU2-MIB table walk.
    for o in range(1, OUTLETS + 1):
        out.append("  <Data \"o%d\">\n    Type \"pdu_sensor\"\n"
                   "    Table false\n    Instance \"outlet%d\"\n"
                   "    Values \"%s.%d.5\" \"%s.%d.8\"\n  </Data>" %
                   (o, o, OUTLET_VAL, o, OUTLET_VAL, o))
    out.append("  <Data \"inlet\">\n    Type \"pdu_sensor\"\n"
               "    Table false\n    Instance \"inlet1\"\n"
               "    Values \"%s.1.5\" \"%s.1.8\"\n  </Data>" %
               (INLET_VAL, INLET_VAL))
    coll = " ".join('"o%d"' % o for o in range(1, OUTLETS + 1))
    for name, addr in pdus(sim, a.n):
        out.append("  <Host %s>\n    Address %s\n    Version 2\n"
                   "    Community %s\n    Timeout 5\n    Retries 1\n"
                   "    Collect %s \"inlet\"\n  </Host>" %
                   (q(name), q("udp:" + addr), q(community), coll))
    out.append("</Plugin>")


def floor(sim, a, out):
    if a.what == "redfish":
        bmc = cred(sim, "bmc")
        pw = read_file(bmc["password_file"])
        for _name, url, ca in bmcs(sim, a.n):
            out.append("%s %s %s %s" % (url.rstrip("/") + RF_PATH, ca,
                                        bmc["username"], pw))
    else:
        community = read_file(cred(sim, "pdu-community")["community_file"])
        for _name, addr in pdus(sim, a.n):
            out.append("%s %s" % (addr, community))


# PDU2-MIB columns walked the way upstream's `raritan` module walks
# PDU-MIB's (generator.yml: whole columns, the outlet names as a lookup):
# measurementsInletSensorValue and measurementsOutletSensorValue, indexed
# pduId.{inlet,outlet}Id.sensorType, and outletName (pduId.outletId).
SNMP_YML = """# snmp.yml for prometheus-snmp-exporter 0.21 (hand-written: Debian ships
# none).  Module raritan_pdu2: PDU2-MIB inlet and outlet sensor values.
raritan_pdu2:
  walk:
  - 1.3.6.1.2.1.1.3
  - 1.3.6.1.4.1.13742.6.3.5.3.1.3
  - 1.3.6.1.4.1.13742.6.5.2.3.1.4
  - 1.3.6.1.4.1.13742.6.5.4.3.1.4
  metrics:
  - name: sysUpTime
    oid: 1.3.6.1.2.1.1.3
    type: gauge
    help: The time since the network management portion of the system was last re-initialized.
  - name: measurementsInletSensorValue
    oid: 1.3.6.1.4.1.13742.6.5.2.3.1.4
    type: gauge
    help: The sensor value - 1.3.6.1.4.1.13742.6.5.2.3.1.4
    indexes:
    - labelname: pduId
      type: gauge
    - labelname: inletId
      type: gauge
    - labelname: sensorType
      type: gauge
  - name: measurementsOutletSensorValue
    oid: 1.3.6.1.4.1.13742.6.5.4.3.1.4
    type: gauge
    help: The sensor value - 1.3.6.1.4.1.13742.6.5.4.3.1.4
    indexes:
    - labelname: pduId
      type: gauge
    - labelname: outletId
      type: gauge
    - labelname: sensorType
      type: gauge
    lookups:
    - labels: [pduId, outletId]
      labelname: outletName
      oid: 1.3.6.1.4.1.13742.6.3.5.3.1.3
      type: DisplayString
  version: 2
  max_repetitions: 25
  retries: 1
  timeout: 5s
  auth:
    community: %s
"""


def snmp_exporter(sim, a):
    community = read_file(cred(sim, "pdu-community")["community_file"])
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "snmp.yml"), "w", encoding="utf-8") as f:
        f.write(SNMP_YML % q(community))
    out = ["global:", "  scrape_interval: %ds" % a.interval,
           "  scrape_timeout: %ds" % min(a.interval, 20),
           "scrape_configs:"]
    if a.n:
        out += ["  - job_name: snmp", "    metrics_path: /snmp",
                "    params: {module: [raritan_pdu2]}",
                "    static_configs:", "      - targets:"]
        out += ["        - %s" % q(addr) for _name, addr in pdus(sim, a.n)]
        out += ["    relabel_configs:",
                "      - {source_labels: [__address__], "
                "target_label: __param_target}",
                "      - {source_labels: [__param_target], "
                "target_label: instance}",
                "      - {target_label: __address__, replacement: "
                "\"127.0.0.1:%d\"}" % a.listen]
    with open(os.path.join(a.out, "prometheus.yml"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["wattpath", "collectd", "floor",
                                     "snmp_exporter"])
    ap.add_argument("sim")
    ap.add_argument("out")
    ap.add_argument("--what", choices=["redfish", "snmp"], default="snmp")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--data", default="")
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--listen", type=int, default=0)
    ap.add_argument("--rrdcached")
    ap.add_argument("--maps-dir")
    ap.add_argument("--fsync", choices=["poll", "segment", "none"])
    ap.add_argument("--remote-write", help="a remote-write receiver's URL")
    ap.add_argument("--pidfile", default="/dev/null")
    ap.add_argument("--typesdb", default="/dev/null")
    a = ap.parse_args()
    with open(a.sim, encoding="utf-8") as f:
        sim = yaml.safe_load(f)
    out = []
    if a.kind == "snmp_exporter":
        snmp_exporter(sim, a)
        return
    if a.kind == "wattpath":
        wattpath(sim, a, out)
    elif a.kind == "floor":
        floor(sim, a, out)
    elif a.what == "redfish":
        collectd_redfish(sim, a, out)
    else:
        collectd_snmp(sim, a, out)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
