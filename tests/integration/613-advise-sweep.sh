#!/bin/sh
# fast
# Power-cap advice against the simulator's truth (issue 23 §3): six hours
# of a fleet whose GPU power limit steps through 250..650 W (50 W steps,
# 5 minutes each, cycling), through the collector's ingest.  `wattpath
# advise` finds the limit that minimises facility J/token that
# `wattpath-sim truth` knows, within the stated tolerance (one sweep step,
# 50 W; the truth's optimum inside the advice's range), its curve agrees
# with the truth per limit (J/token at the wall and the facility,
# throughput) within 0.5 %, and with an SLO on TPOT from a request log
# (TPOT rising as the limit cuts throughput) it advises the cheapest limit
# that meets it.  The SVG plot is well-formed, one point per limit.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 2 --racks 1 --pdus 1 --meters 3 --seed 3 --profile steady \
--shape joules --cap-sweep 250:650:50 --cap-dwell 5m"
TO=1795939200
FROM=$((TO - 6 * 3600))
"$SIM" history $FLEET --from $FROM --to $TO --step 10s --data-dir "$T/d" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }
C=$T/d/wattpath.yaml
"$SIM" truth $FLEET --from $FROM --to $TO --json >"$T/t.json" || fail "truth"
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	--format json --plot "$T/p.svg" >"$T/a.json" 2>"$T/a.err" ||
	{ cat "$T/a.err" "$T/a.json"; fail "advise"; }
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	>"$T/a.txt" 2>&1 || { cat "$T/a.txt"; fail "advise (text)"; }
cat "$T/a.txt"
grep -q "^advice: " "$T/a.txt" || fail "no advice line in the text"
# a request log: one request every 20 s, TPOT 20 ms at full throughput,
# rising as 1 / throughput under the limit (the truth's tokens/s)
$PY - "$T/t.json" "$T/r.jsonl" $FROM $TO <<'PYEOF' || fail "request log"
import json, sys
t = json.load(open(sys.argv[1]))["power_cap"]
a, b, dwell = int(sys.argv[3]), int(sys.argv[4]), int(t["dwell_s"])
tps = {p["limit_w"]: p["tokens_per_s"] for p in t["points"]}
lims = sorted(tps)
top = max(tps.values())
with open(sys.argv[2], "w") as f:
    for s in range(a, b, dwell):
        lim = lims[(s // dwell) % len(lims)]
        for k in range(s, s + dwell, 20):
            f.write(json.dumps({"id": k, "start": k, "end": k + 19.5,
                "input_tokens": 100, "output_tokens": int(tps[lim] * 20),
                "ttft": 0.1, "tpot": 0.020 * top / tps[lim]}) + "\n")
PYEOF
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	--requests "$T/r.jsonl" --slo tpot_ms=25,target=0.99 --format json \
	>"$T/s.json" 2>"$T/s.err" || { cat "$T/s.err" "$T/s.json"; fail "advise --slo"; }
$PY - "$T/t.json" "$T/a.json" "$T/s.json" "$T/p.svg" <<'PYEOF'
import json, sys
import xml.etree.ElementTree as ET
t = json.load(open(sys.argv[1]))["power_cap"]
a = json.load(open(sys.argv[2])); s = json.load(open(sys.argv[3]))
tp = {p["limit_w"]: p for p in t["points"]}
bad = []
def close(name, m, v, tol):
    e = None if m is None else (m - v) / v
    print("%-34s %12s %12.6g %s" % (name, m, v, "-" if e is None else
          "%+.3f%%" % (100 * e)))
    if e is None or abs(e) > tol:
        bad.append(name)
if len(a["points"]) != len(tp):
    bad.append("points: %d, truth %d" % (len(a["points"]), len(tp)))
for p in a["points"]:
    q = tp.get(round(p["limit_w"]))
    if q is None:
        bad.append("no truth at %s W" % p["limit_w"]); continue
    w = "%.0f W " % p["limit_w"]
    close(w + "wall J/token", p["wall_j_per_token"], q["wall_j_per_token"], 0.005)
    close(w + "facility J/token", p["facility_j_per_token"],
          q["facility_j_per_token"], 0.005)
    close(w + "tokens/s", p["tokens_per_s"], q["tokens_per_s"], 0.005)
adv, opt = a["advice"], t["optimum_facility_w"]
print("advice %s W (range %s, fit %s), truth's optimum %s W (wall's %s W)" %
      (adv["limit_w"], adv["range_w"], adv["fit_limit_w"], opt,
       t["optimum_wall_w"]))
if abs(adv["limit_w"] - opt) > 50:
    bad.append("advice %s W off the truth's %s W by more than 50 W" %
               (adv["limit_w"], opt))
if not adv["range_w"][0] - 1 <= opt <= adv["range_w"][1] + 1:
    bad.append("truth's optimum outside the range %s" % adv["range_w"])
if not adv["facility_j_per_token_se"] > 0:
    bad.append("no SE")
if a["slo"] is not None or a["refused"] is not None:
    bad.append("slo/refused not null without an SLO")
# with the SLO: the cheapest limit whose truth TPOT (20 ms x top/tps) <= 25 ms
top = max(q["tokens_per_s"] for q in tp.values())
ok = [q for q in tp.values() if 0.020 * top / q["tokens_per_s"] <= 0.025]
want = min(ok, key=lambda q: q["facility_j_per_token"])["limit_w"]
sa = s["advice"]
print("with the SLO: advice %s W, expected %s W" % (sa and sa["limit_w"], want))
if sa is None or abs(sa["limit_w"] - want) > 1:
    bad.append("SLO advice %s, expected %s" % (sa and sa["limit_w"], want))
for p in s["points"]:
    exp = 0.020 * top / tp[round(p["limit_w"])]["tokens_per_s"] <= 0.025
    if p["meets_slo"] != exp or (p["slo_attainment"] == 1) != exp:
        bad.append("%s W: meets_slo %s" % (p["limit_w"], p["meets_slo"]))
svg = ET.parse(sys.argv[4]).getroot()
n = sum(1 for e in svg.iter() if e.tag.endswith("circle"))
if n != 2 * len(tp):
    bad.append("svg: %d points, expected %d" % (n, 2 * len(tp)))
if bad:
    print("FAIL: " + "; ".join(bad)); sys.exit(1)
PYEOF
