#!/bin/sh
# SIGHUP reloads by swap: an unchanged target keeps its state (no new first
# reading), a new meter starts polling, an invalid file is refused and the
# running configuration keeps polling.
# fast
. "$(dirname "$0")/lib.sh"

$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
PORT=$(free_port)
bg mb $PY "$ROOT/tests/peers/modbus_server.py" --tcp 127.0.0.1:$PORT \
	--unit 1=eastron-sdm630 --unit 2=janitza-umg
wait_tcp 127.0.0.1 $PORT
LISTEN=$(free_port)
config() {	# extra meter lines
	cat >"$T/w.yaml" <<EOF2
collector:
  interval: 1s
  data_dir: $T/data
  listen: 127.0.0.1:$LISTEN
meters:
  - {name: m1, role: facility_total, modbus: {tcp: 127.0.0.1:$PORT, unit: 1}, map: eastron-sdm630}
$1
site: {name: t, zone: FR}
EOF2
}
config ""
bg run "$WATTPATH" run -c "$T/w.yaml"
sleep 3
config "  - {name: m2, role: it_total, modbus: {tcp: 127.0.0.1:$PORT, unit: 2}, map: janitza-umg}"
kill -HUP "$PID_run"
sleep 3
alive "$PID_run"
grep -q "reloaded: 2 targets" "$T/run.log" || { cat "$T/run.log"; fail "no reload to 2 targets"; }
printf 'collector: {interval: 0s}\nbogus: [\n' >"$T/w.yaml"
kill -HUP "$PID_run"
sleep 2
alive "$PID_run"
grep -q "reload failed: keeping the running configuration" "$T/run.log" ||
	{ cat "$T/run.log"; fail "invalid config not refused"; }
stop_bg run
config "  - {name: m2, role: it_total, modbus: {tcp: 127.0.0.1:$PORT, unit: 2}, map: janitza-umg}"
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "journal export"
cat >"$T/check.py" <<'PYEOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["series"] == "energy"]
err = []
for t, least in (("m1", 6), ("m2", 2)):
    mine = [r for r in rows if r["target"] == t and r["status"] == "ok"]
    if len(mine) < least:
        err.append("%s: %d readings" % (t, len(mine)))
    first = [r for r in mine if "discont" in r["ctr_flags"].lower()]
    if len(first) != 1:
        err.append("%s: %d first readings (state lost on reload?)" % (t, len(first)))
print("\n".join(err) or "ok")
sys.exit(1 if err else 0)
PYEOF
$PY "$T/check.py" "$T/j.csv" || fail "reload lost state or missed the new meter"
