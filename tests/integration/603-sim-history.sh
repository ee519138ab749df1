#!/bin/sh
# fast
# `wattpath-sim history` writes two hours of a simulated fleet through the
# collector's own ingest (journal, RRD, state); the journal verifies, and
# `wattpath report` on it agrees with `wattpath-sim truth` for the same
# fleet: J/mJ counters, tokens, Wh outlets and meters within 0.5 %.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
"$WATTPATH" report 2>&1 | grep -qi "not implemented" && skip "report not implemented"
FLEET="--nodes 8 --racks 2 --pdus 4 --meters 3 --seed 9"
TO=1795939200
FROM=$((TO - 7200))
"$SIM" history $FLEET --from $FROM --to $TO --step 10s --data-dir "$T/d" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }
cat "$T/h.log"
"$WATTPATH" journal verify -c "$T/d/wattpath.yaml" >"$T/v.log" 2>&1 ||
	{ cat "$T/v.log"; fail "journal does not verify"; }
A=$((FROM + 600))
B=$((TO - 600))
"$WATTPATH" report -c "$T/d/wattpath.yaml" --from $A --to $B --format json \
	>"$T/r.json" 2>"$T/r.err" || { cat "$T/r.err"; fail "report"; }
"$SIM" truth $FLEET --from $A --to $B --json >"$T/t.json" || fail "truth"
$PY - "$T/t.json" "$T/r.json" <<'PYEOF'
import json, sys
t = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
tt, b, pue = t["totals"], r["boundaries"], r.get("pue") or {}
rows = [("GPU", b["gpu"].get("energy_j"), tt["gpu_j"]),
        ("outlets", b["outlet"].get("energy_j"), tt["outlet_j"]),
        ("tokens", r["tokens"]["output"], tt["tokens_output"]),
        ("IT meter", pue.get("it_energy_j"), tt["it_j"]),
        ("facility meter", pue.get("facility_energy_j"), tt["facility_j"])]
rn = {n["name"]: n for n in r["nodes"]}
for n in t["nodes"]:
    if n["bmc_source"] == "joules":
        rows.append((n["name"] + " wall", rn[n["name"]]["boundaries"]["wall"]
                     .get("energy_j"), n["wall_j"]))
bad = []
for name, m, v in rows:
    e = None if m is None else (m - v) / v
    print("%-16s %16s %16.1f %s" % (name, m, v,
          "-" if e is None else "%+.4f%%" % (100 * e)))
    if e is None or abs(e) > 0.005:
        bad.append(name)
if bad:
    print("FAIL: " + ", ".join(bad)); sys.exit(1)
PYEOF
