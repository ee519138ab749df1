#!/bin/sh
# fast
# Drift watch (issue 23): `wattpath-sim history` writes three hours of a
# fleet in which, from the end of the first hour, node 0's BMC reads high
# by up to 5 % (ramping over an hour) and node 5's outlet on its A PDU
# stops metering.  `wattpath calibrate` flags exactly the pairs those
# instruments are in (node 0's wall/outlets, node 5's wall/outlets, the A
# PDU's outlets/inlet) and nothing else; the same fleet without faults
# flags nothing.  Also: the text table, usage errors, a check-config error.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 8 --racks 2 --pdus 4 --meters 3 --seed 9"
TO=1795939200
FROM=$((TO - 10800))
for k in healthy faulty; do
	extra=
	[ $k = faulty ] && extra="--drift-bmc 0 --dead-outlet 5 --fault-at $((FROM + 3600))"
	# shellcheck disable=SC2086
	"$SIM" history $FLEET $extra --from $FROM --to $TO --step 10s \
		--data-dir "$T/$k" --maps-dir "$ROOT/etc" >"$T/$k.log" 2>&1 ||
		{ cat "$T/$k.log"; fail "history $k"; }
	"$WATTPATH" calibrate -c "$T/$k/wattpath.yaml" --from $FROM --to $TO \
		--format json >"$T/$k.json" 2>"$T/$k.err" ||
		{ cat "$T/$k.err"; fail "calibrate $k"; }
	"$WATTPATH" drift -c "$T/$k/wattpath.yaml" --from $FROM --to $TO \
		>"$T/$k.txt" 2>&1 || { cat "$T/$k.txt"; fail "drift $k"; }
	cat "$T/$k.txt"
done
# the names: node i is the i-th node of the config, PDU r2-a node 5's A PDU
$PY - "$T/healthy.json" "$T/faulty.json" "$T/faulty/wattpath.yaml" <<'PYEOF'
import json, sys, yaml
h, f = (json.load(open(p)) for p in sys.argv[1:3])
c = yaml.safe_load(open(sys.argv[3]))
nodes = [n["name"] for n in c["nodes"]]
pdu_a = sorted(o["pdu"] for o in c["nodes"][5]["outlets"])[0]
def flagged(d):
    return {(p["kind"], p["name"]) for p in d["pairs"] if p["events"] > 0}
bad = []
if flagged(h):
    bad.append("healthy fleet flagged: %s" % sorted(flagged(h)))
kinds = {p["kind"] for p in h["pairs"]}
for k in ("wall_outlet", "pdu_inlet", "it_inlets"):
    if k not in kinds:
        bad.append("no %s pair" % k)
for p in h["pairs"]:
    if p["windows"] != 18 or p["usual"] is None:
        bad.append("%s %s: %s windows, usual %s" % (p["kind"], p["name"],
                   p["windows"], p["usual"]))
want = {("wall_outlet", nodes[0]), ("wall_outlet", nodes[5]),
        ("pdu_inlet", pdu_a)}
got = flagged(f)
if got != want:
    bad.append("faulty fleet flagged %s, want %s" % (sorted(got),
               sorted(want)))
fp = {(p["kind"], p["name"]): p for p in f["pairs"]}
d0 = fp[("wall_outlet", nodes[0])]
# the BMC reads 5 % high at the end: outlets/wall 1/1.05 of usual
if not (-0.055 < d0["last_dev"] < -0.04) or not d0["drifting"]:
    bad.append("node 0 drift: last_dev %s" % d0["last_dev"])
if abs(d0["usual"] - 1) > 0.01:
    bad.append("node 0 usual ratio %s" % d0["usual"])
d5 = fp[("wall_outlet", nodes[5])]
if not (-0.6 < d5["last_dev"] < -0.35):
    bad.append("node 5 dead outlet: last_dev %s" % d5["last_dev"])
if f["drifting"] != 3:
    bad.append("drifting %s" % f["drifting"])
if bad:
    print("FAIL: " + "; ".join(bad)); sys.exit(1)
print("ok: flagged %s" % sorted(got))
PYEOF
[ $? = 0 ] || fail "flags"
grep -q "DRIFT" "$T/faulty.txt" || fail "text table: no DRIFT"
grep -q "DRIFT" "$T/healthy.txt" && fail "text table: DRIFT on the healthy fleet"
grep -q "^9 pairs, 0 drifted" "$T/healthy.txt" || fail "text summary"

# usage: a missing --to, a bad format
"$WATTPATH" calibrate -c "$T/healthy/wattpath.yaml" --from $FROM >/dev/null 2>&1
[ $? = 2 ] || fail "calibrate without --to: not 2"
"$WATTPATH" calibrate -c "$T/healthy/wattpath.yaml" --from $FROM --to $TO \
	--format xml >/dev/null 2>&1
[ $? = 2 ] || fail "calibrate --format xml: not 2"

# the drift: block is checked (FILE:LINE: message)
cp "$T/healthy/wattpath.yaml" "$T/bad.yaml"
cat >>"$T/bad.yaml" <<'YEOF'
drift:
  window: 5s
  learn: 0
  windows: {wall_outlet: 20m, pdu_inlets: 5m}
  accuracy: {bmc: 2}
YEOF
"$WATTPATH" check-config -c "$T/bad.yaml" >"$T/cc.out" 2>&1 && fail "bad drift: accepted"
cat "$T/cc.out"
for m in "drift: window" "drift: learn" "unknown key 'pdu_inlets'" "drift: accuracy: bmc"; do
	grep -q "bad.yaml:[0-9]*: .*$m" "$T/cc.out" || fail "check-config: no '$m'"
done
# a per-pair window is used: 20 min windows for wall/outlets
cp "$T/faulty/wattpath.yaml" "$T/w.yaml"
printf 'drift:\n  learn: 3\n  windows: {wall_outlet: 20m}\n' >>"$T/w.yaml"
"$WATTPATH" check-config -c "$T/w.yaml" >/dev/null 2>&1 || fail "good drift block refused"
"$WATTPATH" calibrate -c "$T/w.yaml" --from $FROM --to $TO --format json >"$T/w.json" ||
	fail "calibrate w"
$PY - "$T/w.json" <<'PYEOF' || fail "per-pair window"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pairs"]:
    w = 1200 if p["kind"] == "wall_outlet" else 600
    assert p["window_s"] == w and p["windows"] == 10800 // w, p
assert d["drifting"] == 3, d["drifting"]
PYEOF
echo "ok"
