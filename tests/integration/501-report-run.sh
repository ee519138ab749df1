#!/bin/sh
# End to end: the real collector (`wattpath run`, 2 s interval) polls real
# test peers for ~70 s - two Redfish BMCs on constant power traces (wall),
# dcgm-exporter and vLLM /metrics peers whose counters advance at a fixed
# rate on the wall clock (GPU energy, tokens), a facility and a UPS-output Modbus meter
# drawing 16 kW and 12 kW (PUE 4/3) - then `wattpath report` over windows
# inside the run is checked against what the peers served: energies at
# every boundary, J/token, PUE value and category, modeled wall energy for a
# node without a BMC (class curve), the class-deviation flag, a GPU counter
# reset refused with its reason, a window under 60 s refused, the three
# formats parsed, and a --requests window.
_KT=${T:-}
. "$(dirname "$0")/lib.sh"
$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
# diag: what the journal holds per target (polls ok and failed, the first
# and last good one from T0, the last error) and the run's warnings: why a
# figure is missing, printed when a check fails.
diag() {
	"$WATTPATH" journal export -c "$T/all.yaml" >"$T/diag.csv" 2>&1 || return 0
	$PY - "$T/diag.csv" "$T0" <<'PYEOF' >&2
import csv, sys
t0, per = int(sys.argv[2]), {}
for r in csv.DictReader(open(sys.argv[1])):
    k = per.setdefault(r["target"], {"ok": set(), "bad": set(), "err": ""})
    t = int(r["t_real_ns"]) / 1e9 - t0
    if r["status"] == "ok":
        k["ok"].add(t)
    else:
        k["bad"].add(t); k["err"] = r.get("error", "")
for n, k in sorted(per.items()):
    ok = sorted(k["ok"])
    print("  %-10s ok %3d (T0%+.1f .. T0%+.1f) failed %d %s" % (n, len(ok),
          ok[0] if ok else 0, ok[-1] if ok else 0, len(k["bad"]), k["err"]))
PYEOF
	grep -E "warn|error" "$T/run.log" | sed "s/^[^ ]* //" | sort | uniq -c | sort -rn | head -8 >&2
}
# checks: every report over the stored run (also run alone with T and T0
# of a kept run: CHECK_ONLY=1 T=... T0=...).
checks() {
	F=$((T0 + 6)); TO=$((T0 + 68))
	"$WATTPATH" report -c "$T/c.yaml" --from $F --to $TO >"$T/r.json" \
		2>"$T/r.err" || fail "report: $(cat "$T/r.err")"
	$PY - "$T/r.json" <<'PYEOF' || { diag; fail "report figures ($T/r.json)"; }
import json, sys
d = json.load(open(sys.argv[1]))
B, N = d["boundaries"], {n["name"]: n for n in d["nodes"]}
def near(what, got, want, rel):
    # the report's own warnings say why a figure is missing
    assert got is not None and abs(got - want) <= rel * abs(want), \
        "%s: %s, expected %s +/- %g %%; warnings: %s" % (
            what, got, want, rel * 100, "; ".join(d["warnings"]))
assert d["window"]["seconds"] == 62, d["window"]
# what the peers served: GPU 150 W, tokens 500/s per node, walls 800/1000 W
for n in ("n1", "n2", "n4"):
    near(n + " gpu J", N[n]["boundaries"]["gpu"]["energy_j"], 150 * 62, 0.05)
    near(n + " tokens", N[n]["tokens"], 500 * 62, 0.05)
    assert N[n]["boundaries"]["gpu"]["method"] == "counter"
near("n1 wall J", N["n1"]["boundaries"]["wall"]["energy_j"], 800 * 62, 0.01)
near("n4 wall J", N["n4"]["boundaries"]["wall"]["energy_j"], 1000 * 62, 0.01)
assert N["n1"]["boundaries"]["wall"]["method"] == "counter"
# n2 has no BMC: modeled from the class curve (wall/GPU = 1800/300 = 6)
w2 = N["n2"]["boundaries"]["wall"]
assert w2["method"] == "modeled" and w2["coverage"] == 0, w2
near("n2 modeled wall J", w2["energy_j"], 6 * 150 * 62, 0.06)
assert N["n1"]["curve_deviates"] and N["n4"]["curve_deviates"], N["n1"]
near("n1 deviation", abs(N["n1"]["curve_deviation_from_class"]), 1 / 9, 0.15)
assert any("deviates" in w and "n1" in w for w in d["warnings"]), d["warnings"]
assert any("modeled" in w and "n2" in w for w in d["warnings"]), d["warnings"]
# fleet
near("tokens", d["tokens"]["output"], 1500 * 62, 0.05)
near("gpu J/token", B["gpu"]["j_per_output_token"], 0.3, 0.05)
assert B["gpu"]["coverage"] == 1 and B["gpu"]["method"] == "counter"
near("wall J", B["wall"]["energy_j"], 2700 * 62, 0.04)
near("wall J/token", B["wall"]["j_per_output_token"], 1.8, 0.06)
assert B["wall"]["method"] == "counter+modeled", B["wall"]
near("wall coverage", B["wall"]["coverage"], 2 / 3, 1e-9)
near("kWh/Mtok", B["wall"]["kwh_per_million_output_tokens"],
     B["wall"]["j_per_output_token"] / 3.6, 1e-9)
# PUE from the 16 kW facility and 12 kW UPS-output meters
P = d["pue"]
near("PUE", P["value"], 4 / 3, 0.01)
assert P["source"] == "metered" and P["category"].startswith("PUE1"), P
assert P["period"] == "window", P
# a window of minutes is no full hour, day or year (ISO/IEC 30134-2)
assert all(not r["complete"] for k in ("hour", "day", "year")
           for r in P["periods"][k]), P
near("facility meter J", P["facility_energy_j"], 16000 * 62, 0.01)
near("facility J", B["facility"]["energy_j"], B["wall"]["energy_j"] * P["value"], 1e-9)
assert P["periods"]["hour"] and P["periods"]["year"], P
# per UTC hour: the rows add up to the window; a window across an hour
# leaves seconds of one edge hour, whose Wh-metered energies (both meters
# count 1 Wh = 3600 J steps) are too coarse for a PUE: refused, with the
# reason, where a step is over 2 % of one, else within a step of each
# (and 0.5 % for the meters' polls and the peer's clock)
H = P["periods"]["hour"]
for k in ("facility_energy_j", "it_energy_j"):
    near("hour rows' " + k, sum(row[k] for row in H), P[k], 1e-6)
for row in H:
    fj, ij = row["facility_energy_j"], row["it_energy_j"]
    if row["value"] is None:
        assert "too coarse" in row["why"] and min(fj, ij) < 3600 / 0.02 * 1.001, row
        assert any(w.startswith("PUE per hour: 1 row without a value") for w in d["warnings"]), d["warnings"]
    else:
        assert row["why"] is None, row
        near("hourly PUE", row["value"], 4 / 3, 3600 / ij + 3600 / fj + 0.005)
# a 62 s window has at least 31 s of one hour, whose steps are 1 % of it
assert any(row["value"] is not None and row["it_energy_j"] >= 12000 * 30
           for row in H), H
# disclosure from the labels collected
D = d["disclosure"]
assert "NVIDIA GH200 480GB" in D["devices"]["gpu"]["model"], D["devices"]
assert "560.35.03" in D["devices"]["gpu"]["driver"], D["devices"]
assert D["gpu_power_limit_w"]["n1"] == 900, D["gpu_power_limit_w"]
assert D["gpu_sm_clock_mhz"]["n1"] == 1980, D["gpu_sm_clock_mhz"]
assert "schneider-iem3000" in D["devices"]["meter"]["meter"], D["devices"]
assert D["sampling_intervals_s"] == [2.0], D["sampling_intervals_s"]
walls = D["instruments"]["wall"]
assert any(w["target"] == "n1/bmc" and w["kind"] == "counter" for w in walls), walls
near("disclosed PUE", D["pue"]["value"], 4 / 3, 0.01)
# the engines' declared version and precision (no engine's metrics say)
E = D["devices"]["engine"]
assert E.get("engine_version") == ["0.6.3"] and E.get("precision") == ["bf16"], E
# n4's BMC stamps its readings 90 s ahead (ReadingTime): disclosed and
# warned; its figures are the same (placed at our poll time)
C = {c["target"]: c for c in D["clock_offsets"]["targets"]}
assert D["clock_offsets"]["tolerance_s"] == 10, D["clock_offsets"]
assert "n4/bmc" in C and C["n4/bmc"]["beyond_tolerance"], C
assert 85 <= C["n4/bmc"]["min_s"] <= C["n4/bmc"]["max_s"] <= 92, C["n4/bmc"]
assert "n1/bmc" not in C or not C["n1/bmc"]["beyond_tolerance"], C
assert any(w.startswith("n4/bmc: the device's clock differs") for w in d["warnings"]), d["warnings"]
print("report ok: wall %.3f J/token, gpu %.3f, PUE %.4f" % (
    B["wall"]["j_per_output_token"], B["gpu"]["j_per_output_token"], P["value"]))
PYEOF
	# formats: CSV parses with the same figure; Markdown has the table
	"$WATTPATH" report -c "$T/c.yaml" --from $F --to $TO --format csv \
		>"$T/r.csv" || fail "csv"
	$PY - "$T/r.csv" "$T/r.json" <<'PYEOF' || fail "csv content"
import csv, json, sys
rows = {r["key"]: r["value"] for r in csv.DictReader(open(sys.argv[1]))}
d = json.load(open(sys.argv[2]))
assert abs(float(rows["boundaries.wall.energy_j"]) - d["boundaries"]["wall"]["energy_j"]) < 1e-6 * d["boundaries"]["wall"]["energy_j"]
assert rows["nodes.n2.boundaries.wall.method"] == "modeled", rows.get("nodes.n2.boundaries.wall.method")
PYEOF
	"$WATTPATH" report -c "$T/c.yaml" --from $F --to $TO --format md \
		>"$T/r.md" || fail "md"
	grep -q "^| wall | " "$T/r.md" || fail "md table: $(head -20 "$T/r.md")"
	# a window under 60 s is refused with the reason
	"$WATTPATH" report -c "$T/c.yaml" --from $F --to $((F + 30)) \
		>/dev/null 2>"$T/short.err" && fail "30 s window accepted"
	grep -q "shorter than the 60 s minimum" "$T/short.err" ||
		fail "short window reason: $(cat "$T/short.err")"
	# n3's GPU counter restarted (engine/driver reload): its window is
	# refused with the reason, and the fleet GPU figure is not given
	# (from the first reading of n3's GPU: the restart is at the 3rd scrape)
	"$WATTPATH" journal export -c "$T/all.yaml" >"$T/j.csv" || fail "export"
	F3=$($PY -c 'import csv,sys,math; print(math.ceil(min(int(r["t_real_ns"]) for r in csv.DictReader(open(sys.argv[1])) if r["target"] == "n3/gpu" and r["status"] == "ok") / 1e9))' "$T/j.csv")
	"$WATTPATH" report -c "$T/all.yaml" --from $F3 --to $TO >"$T/all.json" \
		2>"$T/all.err" || fail "report all: $(cat "$T/all.err")"
	$PY - "$T/all.json" <<'PYEOF' || fail "reset refusal ($T/all.json)"
import json, sys
d = json.load(open(sys.argv[1]))
N = {n["name"]: n for n in d["nodes"]}
assert N["n3"]["boundaries"]["gpu"]["energy_j"] is None, N["n3"]
assert d["boundaries"]["gpu"]["nodes_counted"] < d["boundaries"]["gpu"]["nodes"] and any("gpu boundary covers" in w for w in d["warnings"]), d["boundaries"]["gpu"]
assert d["boundaries"]["gpu"]["coverage"] <= 0.75, d["boundaries"]["gpu"]
assert any("n3: no GPU energy" in w and "reset" in w for w in d["warnings"]), d["warnings"]
PYEOF
	grep -q "reset" "$T/all.json" || fail "no reset reason in warnings"
	# --requests: the window is the log's first start .. last end; SLO
	# from the log (10 % of the requests miss the 500 ms TTFT).  The log
	# ends inside the run (T0 + 66), so the window has figures: one past
	# the last reading would have none, and exit 1.  Its 60 x 1500 output
	# tokens are about the 1500/s x 61 s the engines counted: a log that
	# covers under half of them gives no SLO figure.
	$PY - "$T/req.jsonl" $((T0 + 5)) <<'PYEOF'
import json, sys
t0 = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(60):
        f.write(json.dumps({"id": i, "start": t0 + i, "end": t0 + i + 2,
            "input_tokens": 200, "output_tokens": 1500,
            "ttft": 0.9 if i % 10 == 0 else 0.2, "tpot": 0.02}) + "\n")
    f.write("not json\n")
PYEOF
	"$WATTPATH" report -c "$T/c.yaml" --requests "$T/req.jsonl" \
		>"$T/q.json" 2>"$T/q.err" || fail "report --requests: $(cat "$T/q.err")"
	$PY - "$T/q.json" $((T0 + 5)) <<'PYEOF' || fail "--requests window ($T/q.json)"
import json, sys
from datetime import datetime
d = json.load(open(sys.argv[1])); t0 = int(sys.argv[2])
ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
assert abs(ts(d["window"]["start"]) - t0) < 1e-3 and d["window"]["seconds"] == 61, d["window"]
assert d["boundaries"]["gpu"]["energy_j"] is not None, d["boundaries"]["gpu"]
tok = d["tokens"]
assert abs(tok["slo_qualified"] - 0.9 * tok["output"]) < 1e-6 * tok["output"], tok
assert d["disclosure"]["requests"] == 60 and d["disclosure"]["osl"]["p50"] == 1500, d["disclosure"]
assert any("not valid request" in w for w in d["warnings"]), d["warnings"]
PYEOF
	# the same requests at 100 output tokens each: 7 % of the counted
	# tokens, so no SLO figure, said in warnings and the disclosure
	sed 's/"output_tokens": 1500/"output_tokens": 100/' "$T/req.jsonl" >"$T/thin.jsonl"
	"$WATTPATH" report -c "$T/c.yaml" --requests "$T/thin.jsonl" 		>"$T/thin.json" 2>"$T/thin.err" || fail "report thin log: $(cat "$T/thin.err")"
	$PY - "$T/thin.json" <<'PYEOF' || fail "thin request log ($T/thin.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tokens"]["slo_qualified"] is None, d["tokens"]
assert any("no SLO figure" in w for w in d["warnings"]), d["warnings"]
assert any("no SLO figure" in w for w in d["disclosure"]["plausibility"]), d["disclosure"]
PYEOF
}
if [ -n "${CHECK_ONLY:-}" ]; then rmdir "$T"; T=$_KT; KEEP=1; checks; exit 0; fi
PEERS=$ROOT/tests/peers
RUN_S=${RUN_S:-72}
RF1=$(free_port); RF4=$(free_port); MX=$(free_port); MV=$(free_port)
MB=$(free_port); L=$(free_port)
# GPU: 150000 mJ/s = 150 W; tokens: 500/s, on the wall clock (a busy
# host's late or skipped scrapes change nothing, as with a real device).
bg rf1 $PY "$PEERS/redfish_server.py" --root "$FIX/redfish/dmtf-rackmount1" \
	--port "$RF1" --trace 800 --auth none
bg rf4 $PY "$PEERS/redfish_server.py" --root "$FIX/redfish/dmtf-rackmount1" \
	--port "$RF4" --trace 1000 --auth none --clock-skew 90
bg mx $PY "$PEERS/metrics_server.py" --port "$MX" --rate 150000 \
	--route /d1=$FIX/inband/dcgm_gh200_synth.txt \
	--route /d2=$FIX/inband/dcgm_gh200_synth.txt \
	--route /d3=$FIX/inband/dcgm_gh200_synth.txt \
	--route /d4=$FIX/inband/dcgm_gh200_synth.txt
bg mv $PY "$PEERS/metrics_server.py" --port "$MV" --rate 500 \
	--route /v1=$FIX/inband/datadog_vllm_metrics.txt \
	--route /v2=$FIX/inband/datadog_vllm_metrics.txt \
	--route /v4=$FIX/inband/datadog_vllm_metrics.txt
bg mb $PY "$PEERS/report_meters.py" --tcp 127.0.0.1:$MB \
	--unit 1=schneider-pm5000 --unit 2=schneider-iem3000 \
	--power schneider-pm5000=16000 --power schneider-iem3000=12000 \
	--e0-kwh 1000
for p in $RF1 $RF4 $MX $MV $MB; do wait_tcp 127.0.0.1 "$p"; done

# conf NODES...: a config over the same data_dir with those nodes.
conf() {
	cat <<YAML
collector: {interval: 2s, data_dir: $T/data, listen: 127.0.0.1:$L, log_level: info, maps_dir: $ROOT/etc}
nodes:
YAML
	for n in "$@"; do
		echo "  - name: $n"
		case $n in n3) echo "    class: other";; *) echo "    class: gh200";; esac
		case $n in
		n1) echo "    bmc: {url: http://127.0.0.1:$RF1, auth: none}";;
		n4) echo "    bmc: {url: http://127.0.0.1:$RF4, auth: none}";;
		esac
		case $n in
		n3) echo "    gpu: {dcgm_exporter: http://127.0.0.1:$MX/fault/backwards/d3}";;
		*) echo "    gpu: {dcgm_exporter: http://127.0.0.1:$MX/d${n#n}}"
		   echo "    engines: [{url: http://127.0.0.1:$MV/v${n#n}, kind: vllm, version: 0.6.3, precision: bf16}]";;
		esac
	done
	cat <<YAML
meters:
  - {name: fac, role: facility_total, modbus: {tcp: 127.0.0.1:$MB, unit: 1}, map: schneider-pm5000}
  - {name: ups, role: it_total, it_measured_at: ups_output, modbus: {tcp: 127.0.0.1:$MB, unit: 2}, map: schneider-iem3000}
site: {name: t, zone: FR}
report:
  curve_tolerance: 0.05
  curve_step: 10s
  slo: {ttft_ms: 500}
YAML
}
conf n1 n2 n3 n4 >"$T/all.yaml"
conf n1 n2 n4 >"$T/c.yaml"
"$WATTPATH" check-config -c "$T/all.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"
T0=$($PY -c 'import time; print(int(time.time()) + 1)')
bg run "$WATTPATH" run -c "$T/all.yaml"
sleep "$RUN_S"
stop_bg run 5
[ -n "${KEEP:-}" ] && echo "T=$T T0=$T0"
checks
