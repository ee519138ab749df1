#!/bin/sh
# End to end against exact truth: wattpath-sim serves 8 GPU nodes (every
# load profile, every BMC source shape), 4 PDUs and 3 meters; the collector
# polls every 1 s; `wattpath report` over a 180 s window must agree with
# `wattpath-sim truth`:
#   - J and mJ counters (DCGM, EnergyJoules), tokens, meters: within 0.5 %;
#   - coarse counters (EnergykWh, Wh outlets) and gauge-only BMCs: within
#     the bound the report states for that figure (a refused coarse wall
#     counter is modeled from the class curve, within its stated bound; a
#     refused outlet leaves the node out of the outlet figure, with a
#     warning, and the fleet outlet figure covers the others within 0.5 %);
#   - the fleet wall figure (counter+gauge+modeled) within its bound;
#   - on the seed's bursty 15 s cycle, the naive method (the power gauge
#     taken every 15 s, times the window) misses by tens of percent on at
#     least one node while the report's counter figure stays within 0.5 %.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
"$WATTPATH" report 2>&1 | grep -qi "not implemented" && skip "report not implemented"
FLEET="--nodes 8 --racks 2 --pdus 4 --meters 3 --seed 5"
WINDOW=${SIM_WINDOW:-180}
BASE=$(free_port_base 7)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
bg run sh -c "cd '$ROOT' && exec '$WATTPATH' run -c '$T/w.yaml'"
now() { $PY -c 'import time; print("%.3f" % time.time())'; }
sleep 20
alive "$PID_run"
FROM=$(now)
sleep "$WINDOW"
TO=$(now)
sleep 8
alive "$PID_run"
stop_bg run
"$SIM" truth $FLEET --from "$FROM" --to "$TO" --json >"$T/truth.json" ||
	fail "truth"
"$WATTPATH" report -c "$T/w.yaml" --from "$FROM" --to "$TO" --format json \
	>"$T/report.json" 2>"$T/report.err" || { cat "$T/report.err"; fail "report"; }
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/journal.csv" 2>"$T/export.err" ||
	{ cat "$T/export.err"; fail "journal export"; }
grep " warn: " "$T/run.log" | head -20 >&2

$PY - "$T/truth.json" "$T/report.json" "$T/journal.csv" "$FROM" "$TO" <<'PYEOF'
import csv, json, sys
truth = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
a, b = float(sys.argv[4]), float(sys.argv[5])
fails = []
warns = rep.get("warnings") or []
def check(name, meas, tru, bound, why, node=None):
    """A figure within its bound; or, for a coarse source (node = (name,
    boundary)), no figure and a warning naming both (a refused window)."""
    e = None if meas is None else (meas - tru) / tru
    ok = e is not None and bound is not None and abs(e) <= bound
    refused = meas is None and node is not None and any(
        node[0] + ":" in w and node[1] in w and "no series" not in w
        for w in warns)
    print("%-34s %15s %15.1f %9s  bound %8s  %s" % (name,
        "-" if meas is None else "%.1f" % meas, tru,
        "-" if e is None else "%+.4f%%" % (100 * e),
        "-" if bound is None else "%.3f%%" % (100 * bound),
        "ok" if ok else "refused, with a warning" if refused else
        "FAIL (%s)" % why))
    if not ok and not refused:
        fails.append(name)
TIGHT = 0.005
tt = truth["totals"]; B = rep.get("boundaries", {})
check("fleet GPU energy (DCGM mJ)", B.get("gpu", {}).get("energy_j"),
      tt["gpu_j"], TIGHT, "mJ counters")
check("fleet output tokens", (rep.get("tokens") or {}).get("output"),
      tt["tokens_output"], TIGHT, "token counters")
pue = rep.get("pue") or {}
check("IT energy (SDM630 float32 kWh)", pue.get("it_energy_j"), tt["it_j"],
      TIGHT, "meter")
check("facility energy (SDM630)", pue.get("facility_energy_j"),
      tt["facility_j"], TIGHT, "meter")
check("PUE", pue.get("value"), truth["pue"], TIGHT, "meters")
# the simulator's config states its IT meter's point (the UPS output), so
# the category is known, and the disclosure says what wall x PUE misses
if not str(pue.get("category")).startswith("PUE1"):
    fails.append("PUE category %r, not PUE1 (sim: it_measured_at: "
                 "ups_output)" % pue.get("category"))
D = rep.get("disclosure") or {}
if "between the UPS output and the server inlets" not in D.get(
        "facility_method", ""):
    fails.append("PUE1 disclosure lacks the UPS-to-inlet losses: %r"
                 % D.get("facility_method"))
# the GPU's software as the exporter gives it: NVML and CUDA versions, and
# the DCGM field read named as a field (it used to read "DCGM: 156")
G = (D.get("devices") or {}).get("gpu") or {}
if G.get("nvml") != ["12.550.90.07"] or G.get("cuda") != ["12.4"] or \
        G.get("dcgm_field") != ["156"] or "dcgm" in G:
    fails.append("disclosed GPU software %r" % G)
if not (D.get("wattpath") or {}).get("version"):
    fails.append("no wattpath version in the disclosure")
sm = D.get("facility_second_method") or {}
check("facility, second method (hourly IT share)", sm.get("energy_j"),
      sm.get("wall_x_pue_j") or float("nan"), 0.02, "same meters")
rn = {n["name"]: n for n in rep.get("nodes", [])}
tn = {n["name"]: n for n in truth["nodes"]}
def covered(bn):
    """Nodes with a figure at bn; a partial fleet figure covers those."""
    return [nm for nm in tn if ((rn.get(nm, {}).get("boundaries") or {})
            .get(bn) or {}).get("energy_j") is not None]
# Wh outlets: a node's outlet is refused when one step exceeds 2 % of its
# energy (idle nodes over 120 s); the fleet figure then covers the rest,
# and the sum of many Wh counters is still within 0.5 %.
ob = B.get("outlet", {})
cov = covered("outlet")
if ob.get("energy_j") is not None and ob.get("nodes_counted") != len(cov):
    fails.append("outlet nodes_counted %s != %d nodes with an outlet figure"
                 % (ob.get("nodes_counted"), len(cov)))
check("fleet outlet energy (Wh, %d/%d nodes)" % (len(cov), len(tn)),
      ob.get("energy_j"),
      sum(sum(x["j"] for x in tn[nm]["outlets"]) for nm in cov) or tt["outlet_j"],
      TIGHT, "Wh outlets")
if len(cov) < len(tn) and not any("outlet boundary covers" in w for w in warns):
    fails.append("partial outlet boundary without a warning")
# The fleet wall: counters, gauges and modeled nodes (the EnergykWh ones),
# within the bound the report states, never dropped.
wb = B.get("wall", {})
check("fleet wall energy (%s)" % wb.get("method"), wb.get("energy_j"),
      sum(tn[nm]["wall_j"] for nm in covered("wall")),
      wb.get("instrument_bound_rel"), "stated bound")
for n in truth["nodes"]:
    r = rn.get(n["name"], {}).get("boundaries", {})
    if n["bmc_source"] != "joules" and r.get("wall", {}).get("method") == "modeled":
        check("%s wall (%s, modeled)" % (n["name"], n["bmc_source"]),
              r["wall"].get("energy_j"), n["wall_j"],
              r["wall"].get("instrument_bound_rel"), "stated bound")
        if not any(n["name"] + ":" in w and "modeled" in w for w in warns):
            fails.append("%s modeled without a warning" % n["name"])
    g, w, o = r.get("gpu", {}), r.get("wall", {}), r.get("outlet", {})
    check("%s GPU" % n["name"], g.get("energy_j"), n["gpu_j"], TIGHT, "mJ")
    if n["bmc_source"] == "joules":
        check("%s wall (joules)" % n["name"], w.get("energy_j"),
              n["wall_j"], TIGHT, "J counter")
    elif r.get("wall", {}).get("method") != "modeled":
        check("%s wall (%s)" % (n["name"], n["bmc_source"]),
              w.get("energy_j"), n["wall_j"], w.get("instrument_bound_rel"),
              "stated bound", (n["name"], "wall"))
    ob = o.get("instrument_bound_rel")
    check("%s outlets (Wh)" % n["name"], o.get("energy_j"),
          sum(x["j"] for x in n["outlets"]),
          None if ob is None else max(TIGHT, ob), "stated bound",
          (n["name"], "outlet"))
# The naive method on the seed's cycle: the journal's GPU 0 gauge taken
# every 15 s (the first 1 s reading at least 15 s after the last taken),
# times the window.
pts, last = {}, {}
for row in csv.DictReader(open(sys.argv[3], newline="")):
    if row["series"] == "gpu/0/power" and row["status"] in ("ok", "0"):
        t = int(row["t_real_ns"]) / 1e9
        node = row["target"].split("/")[0]
        if a <= t < b and t >= last.get(node, -1e18) + 14.9:
            last[node] = t
            pts.setdefault(node, []).append(float(row["value"]))
worst = 0.0
for n in truth["nodes"]:
    if n["profile"] != "seed" or not pts.get(n["name"]):
        continue
    p = pts[n["name"]]
    naive = sum(p) / len(p) * (b - a)
    e = (naive - n["gpus_j"][0]) / n["gpus_j"][0]
    print("%-34s naive %+.1f%% from %d scrapes" % (n["name"] + " GPU0 naive",
          100 * e, len(p)))
    worst = max(worst, abs(e))
if worst < 0.15:
    print("FAIL: the naive method missed by only %.1f%%" % (100 * worst))
    fails.append("naive")
if fails:
    print("FAILED: %s" % ", ".join(fails)); sys.exit(1)
PYEOF
