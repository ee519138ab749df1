#!/bin/sh
# Fault suite, SIGKILL loops (issue 26): `wattpath run` (2 s) polls a
# simulated fleet and is killed with SIGKILL three times at odd moments
# (mid-interval, right after a start), restarted each time, then stopped
# with SIGTERM.  The journal verifies after each kill; the report over the
# whole run (~70 s) agrees with the simulator's truth within 0.5 % at the GPU and
# the wall (the first poll after each restart spans the gap exactly: no
# energy lost, none counted twice); each node has exactly one first
# reading; the daemon comes back every time.  make soak: FAULT_KILLS="the
# pauses before each SIGKILL" (more kills, longer run).
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 3 --racks 1 --pdus 1 --meters 0 --seed 5 --shape joules --profile steady"
BASE=$(free_port_base)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 2s
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
sed -i "s|^  interval: .*|  interval: 2s|" "$T/w.yaml"
grep -q '^  interval: 2s' "$T/w.yaml" || fail "no interval in the simulator's config"
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/check.log" 2>&1 ||
	{ cat "$T/check.log"; fail "check-config"; }
T0=$(date +%s)
k=1
for pause in ${FAULT_KILLS:-5.3 12.1 0.7}; do
	bg "run$k" "$WATTPATH" run -c "$T/w.yaml"
	sleep "$pause"
	eval pid=\$PID_run$k
	alive "$pid"
	kill -9 "$pid"
	note "SIGKILL $k after $pause s"
	sleep 1.5
	"$WATTPATH" journal verify -c "$T/w.yaml" >"$T/v$k.log" 2>&1 ||
		fail "verify after kill $k: $(cat "$T/v$k.log")"
	k=$((k + 1))
done
bg last "$WATTPATH" run -c "$T/w.yaml"
sleep 48	# a report window is 60 s at least
alive "$PID_last"
stop_bg last
T1=$(date +%s)
"$WATTPATH" journal verify -c "$T/w.yaml" >"$T/v.log" 2>&1 || fail "verify: $(cat "$T/v.log")"
A=$((T0 + 3)); B=$((T1 - 3))
"$WATTPATH" report -c "$T/w.yaml" --from $A --to $B >"$T/r.json" 2>"$T/r.err" ||
	fail "report: $(cat "$T/r.err")"
"$SIM" truth $FLEET --from $A --to $B --json >"$T/t.json" || fail "truth"
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "export"
$PY - "$T/t.json" "$T/r.json" "$T/j.csv" <<'PYEOF' || fail "energy across the kills"
import csv, json, sys
t = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
rn = {n["name"]: n for n in r["nodes"]}
bad = []
for n in t["nodes"]:
    got = rn[n["name"]]["boundaries"]
    for b, want in (("gpu", n["gpu_j"]), ("wall", n["wall_j"])):
        e = got[b].get("energy_j")
        err = None if e is None else (e - want) / want
        print("%s %-4s %12s J, truth %12.0f J, %s" % (n["name"], b, e, want,
              "-" if err is None else "%+.4f%%" % (100 * err)))
        if err is None or abs(err) > 0.005:
            bad.append("%s %s" % (n["name"], b))
rows = list(csv.DictReader(open(sys.argv[3])))
for n in t["nodes"]:
    firsts = [x for x in rows if x["target"] == n["name"] + "/bmc" and
              x["series"] == "wall/energy" and "discont" in x["ctr_flags"]]
    if len(firsts) != 1:
        bad.append("%s: %d first readings (want 1)" % (n["name"], len(firsts)))
if bad:
    print("FAIL: " + ", ".join(bad)); sys.exit(1)
PYEOF
exit 0
