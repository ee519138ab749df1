#!/bin/sh
# A restart loses no energy: the collector is SIGKILLed mid-run, restarted,
# then stopped with SIGTERM.  In the journal the first delta after the
# restart spans the gap exactly (no second "first reading"), the deltas add
# up to the meter's own advance, the reset-corrected cumulative is
# continuous, and the chain still verifies.
# fast
. "$(dirname "$0")/lib.sh"

$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
PORT=$(free_port)
bg mb $PY "$ROOT/tests/peers/modbus_server.py" --tcp 127.0.0.1:$PORT \
	--unit 1=schneider-pm5000
wait_tcp 127.0.0.1 $PORT
cat >"$T/w.yaml" <<EOF2
collector:
  interval: 1s
  data_dir: $T/data
  listen: 127.0.0.1:$(free_port)
meters:
  - {name: m1, role: facility_total, modbus: {tcp: 127.0.0.1:$PORT, unit: 1}, map: schneider-pm5000}
site: {name: t, zone: FR}
EOF2
"$WATTPATH" check-config -c "$T/w.yaml" >/dev/null || fail "check-config"

bg run1 "$WATTPATH" run -c "$T/w.yaml"
sleep 4
alive "$PID_run1"
kill -9 "$PID_run1"
note "killed with SIGKILL; down for 4 s"
sleep 4
bg run2 "$WATTPATH" run -c "$T/w.yaml"
sleep 4
alive "$PID_run2"
stop_bg run2
grep -q "signal 15: stopping" "$T/run2.log" || fail "no clean stop logged"

"$WATTPATH" journal verify -c "$T/w.yaml" >"$T/verify.out" 2>&1 ||
	{ cat "$T/verify.out"; fail "journal verify after SIGKILL"; }
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "journal export"
cat >"$T/check.py" <<'PYEOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["target"] == "m1" and r["series"] == "energy" and r["status"] == "ok"]
err = []
if len(rows) < 6:
    sys.exit("only %d energy readings" % len(rows))
first = [r for r in rows if "discont" in r["ctr_flags"].lower()]
if len(first) != 1:
    err.append("%d first readings (want exactly 1: state lost on restart?)" % len(first))
vals = [float(r["value"]) for r in rows]
deltas = [float(r["delta"] or 0) for r in rows]
cums = [float(r["cum"] or 0) for r in rows]
if abs(sum(deltas) - (vals[-1] - vals[0])) > 1.0:
    err.append("deltas add to %.1f J, meter advanced %.1f J" % (sum(deltas), vals[-1] - vals[0]))
if abs(cums[-1] - (vals[-1] - vals[0])) > 1.0:
    err.append("cumulative %.1f J, meter advanced %.1f J" % (cums[-1], vals[-1] - vals[0]))
ts = [int(r["t_real_ns"]) for r in rows]
gaps = [(ts[i] - ts[i-1]) / 1e9 for i in range(1, len(ts))]
g = max(range(len(gaps)), key=lambda i: gaps[i])
if gaps[g] < 4:
    err.append("no gap seen in the readings: %s" % gaps)
# the delta across the gap is the energy of the gap (12345.6 W)
if abs(deltas[g + 1] - 12345.6 * gaps[g]) > 12345.6 * 0.6 + 3600:
    err.append("delta across the %.1f s gap is %.0f J, want about %.0f J"
               % (gaps[g], deltas[g + 1], 12345.6 * gaps[g]))
if any(d < 0 for d in deltas):
    err.append("negative delta")
print("\n".join(err) or "ok: %d readings, gap %.1f s bridged by %.0f J" % (len(rows), gaps[g], deltas[g + 1]))
sys.exit(1 if err else 0)
PYEOF
$PY "$T/check.py" "$T/j.csv" || fail "energy lost or doubled across the restart"
