#!/bin/sh
# fast
# wattpath run against nine simulated Redfish services, one per 127.0.0.x, every
# second for about 12 s, then SIGTERM and a journal export:
#   .11 DMTF rackmount1 (EnergykWh sensor), trace 400 W 2 s / 700 W 3 s
#   .12 Delta power shelf (6 EnergyJoules input sensors, summed), 300/900 W
#   .13 Cisco C220: legacy PowerControl only (a gauge), 250 W, legacy
#       session URI
#   .14 accepts and never answers a GET (hang)
#   .15 trickles one byte a second
#   .16 a synthetic HGX node: node chassis EnergyJoules plus eight GPU
#       chassis (HGX_GPU_SXM_1..8) with their own; the node has a gpu: block
#       (in-band), so the BMC's GPU readings are cross-checks
#   .17 the same tree, no gpu: block, HTTP Basic only (password from a file)
#   .18 a Redfish PDU (DMTF mockup): outlets and inlet with the PDU's identity
#   .19 the HGX tree with a TelemetryService MetricReport carrying every
#       GPU's energy and power (GPUs 5-8 have nothing else): two GETs a poll
# Checks: wall energy of each counter BMC (sum of journal deltas) within
# 0.5 % of the trace's integral between its first and last reading times;
# the gauge-only BMC gives wall/power gauges at the trace's value and no
# wall/energy; the bad BMCs give per-target errors and no sample, and do not
# delay the good ones: their poll count matches the elapsed time, no gap
# over 1.5 intervals, every poll's requests reach the BMC within 0.3 s of
# the poll's start; device identity labels on every sample; every session
# deleted at exit.  GPU readings: gpu/<i>/energy|power with boundary gpu and
# name=HGX_GPU_SXM_<i+1>, crosscheck only where the node has a gpu: block,
# never added to the wall (the wall energy still follows the trace alone).
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish
secret_file "$T/pw" secret
L=$(free_port)
P=$(free_port 127.0.0.11)

# rf LAST_OCTET SET ARGS...: a test BMC on 127.0.0.LAST_OCTET:$P
rf() {
	_o=$1; _s=$2; shift 2
	bg "rf$_o" $PY "$PEER" --root "$FX/$_s" --bind "127.0.0.$_o" \
		--port "$P" "$@"
}
rf 11 dmtf-rackmount1 --trace 400:2,700:3
rf 12 lambdalabs-powershelf_delta --trace 300:1,900:2
rf 13 iserver-cisco-ucsc-c220-m5sx --trace 250 --legacy-sessions
rf 14 dmtf-rackmount1 --fault hang
rf 15 dmtf-rackmount1 --fault trickle
rf 16 synthetic-hgx --trace 5000:2,6000:2
rf 17 synthetic-hgx --trace 4000 --auth basic
rf 18 dmtf-pdu --trace 800
rf 19 synthetic-hgx-telemetry --trace 4500:3,5500:1
for o in 11 12 13 14 15 16 17 18 19; do wait_tcp "127.0.0.$o" "$P"; done

cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, data_dir: $T/data, log_level: info, listen: "127.0.0.1:$L"}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - {name: n11, bmc: {url: "http://127.0.0.11:$P", credentials: bmc}}
  - {name: n12, bmc: {url: "http://127.0.0.12:$P", credentials: bmc}}
  - {name: n13, bmc: {url: "http://127.0.0.13:$P", credentials: bmc}}
  - {name: n14, bmc: {url: "http://127.0.0.14:$P", credentials: bmc}}
  - {name: n15, bmc: {url: "http://127.0.0.15:$P", credentials: bmc}}
  - {name: n16, bmc: {url: "http://127.0.0.16:$P", credentials: bmc}, gpu: {nvml: true}}
  - {name: n17, bmc: {url: "http://127.0.0.17:$P", credentials: bmc, auth: basic}}
  - {name: n19, bmc: {url: "http://127.0.0.19:$P", credentials: bmc}}
pdus:
  - {name: pdu18, url: "http://127.0.0.18:$P", credentials: bmc}
YAML
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"

# max_inflight: one request per BMC; anything else is refused, not ignored.
sed 's|credentials: bmc}}$|credentials: bmc, max_inflight: 4}}|' "$T/c.yaml" >"$T/mi.yaml"
if "$WATTPATH" check-config -c "$T/mi.yaml" >"$T/mi.log" 2>&1; then
	fail "max_inflight 4 accepted"
fi
grep -q "max_inflight 4.*only 1 is supported" "$T/mi.log" || fail "max_inflight: $(cat "$T/mi.log")"

# The poll checks below time the journal's wall-clock records; a host
# clock stepped while the test ran (chrony on a fresh CI machine) would
# read as a late poll.  Measure that step and allow for it, no more.
clock_off() { $PY -c 'import time; print(time.time() - time.monotonic())'; }
off0=$(clock_off)
bg wp "$WATTPATH" run -c "$T/c.yaml"
sleep 12
alive "$PID_wp"
stop_bg wp
off1=$(clock_off)
grep -q "signal 15" "$T/wp.log" || fail "no stop message: $(tail "$T/wp.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"
for o in 11 12 13 14 15 16 17 18 19; do
	$PY -c "import urllib.request as u; print(u.urlopen('http://127.0.0.$o:$P/_test/stats').read().decode())" \
		>"$T/stats$o.json" || fail "stats $o"
	$PY -c "import urllib.request as u; print(u.urlopen('http://127.0.0.$o:$P/_test/log').read().decode())" \
		>"$T/log$o.json" || fail "log $o"
done

$PY - "$T" "$P" "$off0" "$off1" <<'PYEOF' || fail "journal content (kept in $T/j.csv)"
import csv, json, sys, urllib.request
from datetime import datetime, timezone

T, P = sys.argv[1], sys.argv[2]
step = abs(float(sys.argv[4]) - float(sys.argv[3]))  # host clock step, s
if step > 0.05:
    print("host clock stepped %.2f s during the run" % step)
rows = list(csv.DictReader(open(T + "/j.csv")))
def recs(node):
    """One entry per journal record of node: (t, status, error, rows)."""
    out = {}
    for r in rows:
        if r["target"] == node + "/bmc":
            out.setdefault(int(r["t_real_ns"]), []).append(r)
    return [(t / 1e9, v[0]["status"], v[0]["error"], v)
            for t, v in sorted(out.items())]
def energy(o, a, b):
    u = "http://127.0.0.%d:%s/_test/energy?from=%r&to=%r" % (o, P, a, b)
    return json.load(urllib.request.urlopen(u))["joules"]

# -- the good BMCs: polled every second, quickly, whatever the bad ones do
for o in (11, 12, 13, 16, 17, 19):
    rs = recs("n%d" % o)
    ok = [r for r in rs if r[1] == "ok"]
    assert ok, "n%d: no good poll: %s" % (o, rs[:3])
    first = rs.index(ok[0])
    bad = [r for r in rs[first:] if r[1] != "ok"]
    assert not bad, "n%d: failed polls after the first good one: %s" % (o, bad)
    el = ok[-1][0] - ok[0][0]
    assert el >= 8, "n%d: only %.1f s of polls" % (o, el)
    assert abs(len(ok) - (el + 1)) <= 1 + step, "n%d: %d polls in %.1f s" % (o, len(ok), el)
    gaps = [b[0] - a[0] for a, b in zip(ok, ok[1:])]
    assert max(gaps) < 1.5 + step, "n%d: poll gap %.2f s" % (o, max(gaps))
    log = [x for x in json.load(open("%s/log%d.json" % (T, o)))
           if x[1] == "GET" and not x[2].startswith("/_test")]
    spans = []
    for t, _, _, _ in ok[1:]:
        mine = [x[0] for x in log if t <= x[0] < t + 0.9]
        assert mine, "n%d: no request for the poll at %.3f" % (o, t)
        spans.append(max(mine) - t)
    assert max(spans) < 0.3, "n%d: a poll's requests took %.3f s" % (o, max(spans))
    print("n%d: %d polls in %.1f s, longest poll %.0f ms" % (
        o, len(ok), el, 1000 * max(spans)))
    for t, _, _, v in ok:
        for r in v:
            lab = dict(kv.split("=", 1) for kv in r["labels"].split(";"))
            for k in ("source", "vendor", "model"):
                assert lab.get(k), "n%d: no %s= label: %s" % (o, k, r["labels"])

# -- energy: sum of deltas against the trace's integral (k sensors each
#    advancing by the trace: the Delta shelf's six inputs are summed).  The
#    first good poll is left out: it waited for discovery, so its reading
#    was taken some ms after the poll's start, the time the journal keeps.
for o, k in ((11, 1), (12, 6), (16, 1), (19, 1)):
    e = [(t, r) for t, s, _, v in recs("n%d" % o) if s == "ok"
         for r in v if r["series"] == "wall/energy"][1:]
    assert len(e) >= 9, "n%d: %d energy rows" % (o, len(e))
    assert all(r["kind"] == "counter" and r["boundary"] == "wall" for _, r in e)
    got = sum(float(r["delta"] or 0) for _, r in e[1:])
    want = k * energy(o, e[0][0], e[-1][0])
    assert abs(got - want) <= 0.005 * want, \
        "n%d: energy %.1f J, trace %.1f J (%.2f %%)" % (o, got, want,
                                                       100 * (got - want) / want)
    print("n%d: %.1f J over %.1f s, trace %.1f J (%+.3f %%)" % (
        o, got, e[-1][0] - e[0][0], want, 100 * (got - want) / want))
r11 = [r for r in rows if r["target"] == "n11/bmc" and r["series"]]
lab = r11[0]["labels"]
assert "vendor=Contoso" in lab and "model=3500;" in lab and \
    "fw=1.45.455b66-rev4" in lab and "source=Sensor.EnergykWh" in lab, lab

# -- gauge only: wall/power gauges at the trace's value, no energy series
g = [r for r in rows if r["target"] == "n13/bmc" and r["series"]]
assert g and all(r["series"] == "wall/power" for r in g), \
    set(r["series"] for r in g)
assert all(r["kind"] == "gauge" and r["boundary"] == "wall" and
           float(r["value"]) == 250 for r in g), g[0]
assert "source=Power.PowerControl.PowerConsumedWatts" in g[0]["labels"]
assert "vendor=Cisco Systems Inc." in g[0]["labels"], g[0]["labels"]

# -- GPUs: eight per HGX node, boundary gpu, cross-checks where in-band is
#    configured, each counter following the trace too
for o, cross in ((16, True), (17, False), (19, False)):
    g = [r for r in rows if r["target"] == "n%d/bmc" % o and
         r["series"].startswith("gpu/")]
    names = sorted(set(r["series"] for r in g))
    assert names == sorted("gpu/%d/%s" % (i, q) for i in range(8)
                           for q in ("energy", "power")), names
    for r in g:
        i = int(r["series"].split("/")[1])
        assert r["boundary"] == "gpu", r
        assert ("name=HGX_GPU_SXM_%d" % (i + 1)) in r["labels"], r["labels"]
        assert ("source=MetricReport." if o == 19 else
                "source=EnvironmentMetrics.") in r["labels"], r["labels"]
        assert "fw=syn-1.2.3" in r["labels"], r["labels"]
        assert ("crosscheck" in r["flags"]) == cross, (o, r["flags"])
    w = [r for r in rows if r["target"] == "n%d/bmc" % o and
         r["series"].startswith("wall/")]
    assert w and not any("crosscheck" in r["flags"] for r in w)
    e = [r for r in g if r["series"] == "gpu/3/energy"][1:]
    got = sum(float(r["delta"] or 0) for r in e[1:])
    t = [int(r["t_real_ns"]) / 1e9 for r in e]
    want = energy(o, t[0], t[-1])
    assert abs(got - want) <= 0.005 * want, (o, got, want)
    print("n%d: 8 GPUs, gpu/3 %.1f J, trace %.1f J" % (o, got, want))
# one report for eight GPUs: two GETs a poll (node EnvironmentMetrics, report)
log = [x for x in json.load(open(T + "/log19.json")) if x[1] == "GET"]
ok = [t for t, s, _, _ in recs("n19") if s == "ok"]
per = [sum(1 for x in log if t <= x[0] < t + 0.9) for t in ok[1:]]
assert per and max(per) == 2 and min(per) == 2, per
assert any("MetricReports/HGX_PlatformEnvironmentMetrics_0" in x[2]
           for x in log if x[0] >= ok[-1])

# -- the Redfish PDU: outlets and inlet, each with the PDU's identity
pd = [r for r in rows if r["target"].startswith("pdu18") and r["series"]]
outl = set(r["series"] for r in pd if r["boundary"] == "outlet")
assert len(outl) >= 9 and any(s.startswith("inlet/") for s in
                              set(r["series"] for r in pd)), sorted(outl)
for r in pd:
    assert "fw=4.3.0" in r["labels"] and "vendor=" in r["labels"] and \
        "model=" in r["labels"] and "source=" in r["labels"], r["labels"]
print("pdu18: %d series, labels %s" % (len(set(r["series"] for r in pd)),
                                       pd[0]["labels"]))

# -- the bad BMCs: errors per target, never a sample
for o in (14, 15):
    rs = recs("n%d" % o)
    assert len(rs) >= 3, "n%d: %d records" % (o, len(rs))
    assert all(s != "ok" and e for _, s, e, _ in rs), rs
    assert not any(r["series"] for _, _, _, v in rs for r in v)
    print("n%d: %d failed polls: %s" % (o, len(rs), rs[0][2]))

# -- sessions: one each, all deleted at exit; .17 speaks HTTP Basic only
st = json.load(open("%s/stats17.json" % T))
assert st["created"] == 0 and st["gets"] > 0, "127.0.0.17 basic: %s" % st
for o in (11, 12, 13, 14, 15, 16, 18, 19):
    st = json.load(open("%s/stats%d.json" % (T, o)))
    assert st["open"] == 0 and st["peak_open"] == 1 and st["created"] == 1, \
        "127.0.0.%d sessions: %s" % (o, st)
PYEOF
exit 0
