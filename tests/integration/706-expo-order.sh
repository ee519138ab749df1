#!/bin/sh
# The physical order on the simulated demo fleet (16 nodes of every BMC
# shape: joules, kWh, gauge-only PowerWatts, legacy PowerControl; 4 PDUs;
# 3 meters), in /metrics through a real Prometheus, in /api/v1/fleet and in
# the dashboard's data alike: energy at the GPU <= wall <= outlet within the
# instruments' bounds, facility >= IT, tokens per joule the other way round,
# every boundary of every node covered, and the BMC-vs-PDU alert quiet
# (it compares energy, not the instantaneous readings of a bursty load).
# The PromQL is read from
# docs/exposition.md (its "### PromQL" table) and run exactly as written.
#
# The bug this holds down: gauge-only BMCs exported no energy counter, so a
# fleet's wall energy covered half the nodes while its tokens counted all of
# them, and tokens per joule at the wall came out above the GPU.
#
# Bounds (wall vs outlet: the same power, two instruments): per window of W
# seconds, 2 poll intervals' worth of energy (a rate() or a snapshot
# difference sees each counter a poll late or early at either end) plus 2 %
# (a gauge's trapezoid on a bursty load), plus one resolution step of every
# coarse counter: the kWh BMCs' 0.01 kWh (36 kJ) and the PDU outlets' 1 Wh.
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "prometheus missing"
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 16 --racks 2 --pdus 4 --meters 3 --seed 7"
BASE=$(free_port_base 7)
LISTEN=$(free_port)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s --listen-port "$LISTEN"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
bg run sh -c "cd '$ROOT' && exec '$WATTPATH' run -c '$T/w.yaml'"
wait_tcp 127.0.0.1 "$LISTEN" 20
prom_start "$ROOT/etc/prometheus/wattpath-alerts.yml" "127.0.0.1:$LISTEN"
api() { curl -sf "http://127.0.0.1:$LISTEN/api/v1/fleet"; }
# Every node has every boundary's energy within a few polls.
wait_for 20 sh -c "[ \$(curl -sf http://127.0.0.1:$LISTEN/metrics | grep -c '^wattpath_node_energy_joules_total{') -ge 48 ]" ||
	{ curl -s "http://127.0.0.1:$LISTEN/metrics" | grep node_energy; fail "not every node has every boundary's energy"; }
curl -sf "http://127.0.0.1:$LISTEN/metrics" >"$T/scrape0.txt" || fail "scrape"
grep -q 'boundary="wall",method="gauge-estimated"}' "$T/scrape0.txt" ||
	fail "no gauge-estimated wall energy (the fleet has gauge-only BMCs)"
grep -q 'boundary="wall",method="counter"}' "$T/scrape0.txt" ||
	fail "no counter wall energy"
sleep 5
api >"$T/api0.json" || fail "api"
# the rate() window of the docs is 2 minutes: wait for it to fill
sleep 90
api >"$T/api1.json" || fail "api"
sleep 40
alive "$PID_run"
api >"$T/api2.json" || fail "api"
curl -sf "http://127.0.0.1:$LISTEN/" >"$T/dash.html" || fail "dashboard"
$PY - "$ROOT/docs/exposition.md" "http://127.0.0.1:$PP" "$T" <<'PYEOF' || fail "physical order"
import json, re, sys, urllib.parse, urllib.request
doc, prom, T = sys.argv[1:4]
text = open(doc).read()
sec = text[text.index("### PromQL"):]
sec = sec[:sec.index("\n#")] if "\n#" in sec else sec
rows = dict(re.findall(r"^\| ([a-zA-Z][^|]*?) \| `([^`]*)` \|$", sec, re.M))
need = ["fleet power by boundary (W)", "coverage by boundary",
        "output tokens per joule by boundary", "joules per output token by boundary",
        "output tokens per joule by class and boundary", "site meter power by role (W)",
        "PUE (15 min)"]
err = []
for n in need:
    if n not in rows: err.append("docs/exposition.md has no PromQL row %r" % n)
if err: sys.exit("\n".join(err))
INTERVAL, WINDOW = 1.0, 120.0
# coarse counters: 4 kWh BMCs (36 kJ), 32 PDU outlets (3.6 kJ)
RES_J = 4 * 36000 + 32 * 3600

def q(e):
    u = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": e})
    d = json.load(urllib.request.urlopen(u, timeout=10))
    out = {}
    for r in d["data"]["result"]:
        m = r["metric"]
        out[(m.get("class"), m.get("boundary") or m.get("role"))] = float(r["value"][1])
    return out

def by_b(res):
    return {k[1]: v for k, v in res.items()}

def order_power(src, p, w_s):
    if not (p["gpu"] <= p["wall"]):
        err.append("%s: GPU %.1f W above the wall %.1f W" % (src, p["gpu"], p["wall"]))
    # power in W: the bound's resolution part is RES_J / w_s
    tol = (2 * INTERVAL / w_s + 0.02) * p["wall"] + RES_J / w_s
    for a, b in (("wall", "outlet"), ("outlet", "wall")):
        ok = p[a] <= p[b] + tol
        print("--- %s: %s %.1f W <= %s %.1f W (+ %.1f)%s" % (src, a, p[a], b, p[b], tol,
              "" if ok else "  FAILED"), file=sys.stderr)
        if not ok: err.append("%s: %s above %s beyond the bound" % (src, a, b))

def order_tpj(src, t, w_s, p_wall):
    # tokens per joule the other way round: GPU >= wall >= outlet (bounded)
    rel = 2 * INTERVAL / w_s + 0.02 + RES_J / w_s / p_wall
    ok = t["gpu"] >= t["wall"] and t["outlet"] <= t["wall"] * (1 + rel) and \
        t["wall"] <= t["outlet"] * (1 + rel)
    print("--- %s tokens/J: gpu %.4f >= wall %.4f ~ outlet %.4f (rel %.3f)%s" % (
          src, t["gpu"], t["wall"], t["outlet"], rel, "" if ok else "  FAILED"), file=sys.stderr)
    if not ok: err.append("%s: tokens per joule out of order" % src)

# 1. /metrics through Prometheus, the docs' PromQL as written
p = by_b(q(rows["fleet power by boundary (W)"]))
if set(p) != {"gpu", "wall", "outlet"}: sys.exit("fleet power: %r" % p)
order_power("PromQL", p, WINDOW)
cov = by_b(q(rows["coverage by boundary"]))
if cov != {"gpu": 1.0, "wall": 1.0, "outlet": 1.0}: err.append("coverage %r" % cov)
tpj = by_b(q(rows["output tokens per joule by boundary"]))
order_tpj("PromQL", tpj, WINDOW, p["wall"])
jpt = by_b(q(rows["joules per output token by boundary"]))
for b in jpt:
    if abs(jpt[b] * tpj[b] - 1) > 1e-6: err.append("J/token x tokens/J at %s" % b)
cls = q(rows["output tokens per joule by class and boundary"])
if len({k[0] for k in cls}) != 1: err.append("classes %r" % cls)
order_tpj("PromQL class", by_b(cls), WINDOW, p["wall"])
m = by_b(q(rows["site meter power by role (W)"]))
if not m.get("facility_total", 0) >= m.get("it_total", 1e18) > 0:
    err.append("facility %r below IT" % m)
# the BMC-vs-PDU rule compares energy, so a healthy bursty fleet leaves
# it quiet (pending counts too); every series has the site
al = q('count(ALERTS{alertname="WattpathBmcPduDisagreement"}) or vector(0)')
if list(al.values()) != [0.0]: err.append("BMC vs PDU alert on a healthy fleet: %r" % al)
if q('count(wattpath_build_info{site="sim-1"})') != {(None, None): 1.0}:
    err.append("no site label from site.name")
pue = q(rows["PUE (15 min)"])
if len(pue) != 1 or not list(pue.values())[0] >= 1: err.append("PUE %r" % pue)
print("--- meters %r, PUE %r" % (m, pue), file=sys.stderr)

# 2. the API: energy over a window between two snapshots, tokens per joule
a = [json.load(open("%s/api%d.json" % (T, i))) for i in range(3)]
for d in a:
    for b, v in d["boundaries"].items():
        if v["coverage"] != 1 or v["nodes_covered"] != 16:
            err.append("API coverage at %s: %r" % (b, v))
import datetime
def ts(d): return datetime.datetime.fromisoformat(d["time"].replace("Z", "+00:00")).timestamp()
w_s = ts(a[2]) - ts(a[0])	# about 135 s
de = {b: a[2]["boundaries"][b]["energy_j"] - a[0]["boundaries"][b]["energy_j"]
      for b in ("gpu", "wall", "outlet")}
order_power("API energy / %.0f s" % w_s, {b: de[b] / w_s for b in de}, w_s)
t_api = {b: a[2]["boundaries"][b]["tokens_per_joule_15m"] for b in de}
order_tpj("API", t_api, w_s, de["wall"] / w_s)

# 3. the dashboard's data: its tokens per joule table
h = open(T + "/dash.html").read()
t_dash = {b: float(v) for b, v in
          re.findall(r'<tr data-boundary="(\w+)" data-coverage="1.000000" data-tpj="([0-9.e+-]+)"', h)}
if set(t_dash) != {"gpu", "wall", "outlet"}: err.append("dashboard tokens/J table %r" % t_dash)
else: order_tpj("dashboard", t_dash, w_s, de["wall"] / w_s)
if err: sys.exit("\n".join(err))
PYEOF
alive "$PID_run"
exit 0
