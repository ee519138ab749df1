#!/bin/sh
# The collector polls meters behind one pymodbus gateway: a dead unit on the
# gateway fails alone while the others' readings keep arriving every poll;
# a late reply (stale transaction id) is recovered by reconnecting; a
# dropped connection is retried at once; a meter that reads 0 after a
# "reboot" and then restores does not fabricate an energy spike.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/modbus_server.py
$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
"$WATTPATH" run 2>&1 | grep -qi "not implemented" && skip "wattpath run not implemented"
PORT=$(free_port)
LISTEN=$(free_port)
cat >"$T/ctl.json" <<'JSON'
{"1": ["late:0.6:1"], "2": ["drop:1"], "9": ["silent"]}
JSON
bg mb $PY "$PEER" --tcp 127.0.0.1:$PORT --unit 1=eastron-sdm630 \
	--unit 2=schneider-pm5000 --unit 3=janitza-umg --unit 9=abb-m4m \
	--control "$T/ctl.json"
wait_tcp 127.0.0.1 $PORT
cat >"$T/w.yaml" <<EOF2
collector:
  interval: 2s
  data_dir: $T/data
  listen: 127.0.0.1:$LISTEN
  log_level: info
meters:
  - {name: m1, role: facility_total, modbus: {tcp: 127.0.0.1:$PORT, unit: 1, timeout: 300ms}, map: eastron-sdm630}
  - {name: m2, role: it_total, it_measured_at: ups_output, modbus: {tcp: 127.0.0.1:$PORT, unit: 2, timeout: 300ms}, map: schneider-pm5000}
  - {name: m3, role: cooling, modbus: {tcp: 127.0.0.1:$PORT, unit: 3, timeout: 300ms}, map: janitza-umg}
  - {name: m9, role: other, modbus: {tcp: 127.0.0.1:$PORT, unit: 9, timeout: 300ms}, map: abb-m4m}
site: {name: t, zone: FR}
EOF2
"$WATTPATH" check-config -c "$T/w.yaml" >/dev/null 2>&1 || { "$WATTPATH" check-config -c "$T/w.yaml"; fail "check-config"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
sleep 3
# the janitza meter reboots: its total reads 0 for 3 s, then comes back
printf '{"3": ["reboot:3"], "9": ["silent"]}\n' >"$T/ctl.json"
sleep 8
stop_bg run 5
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "journal export"

cat >"$T/check.py" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def polls(t, status):
    return sorted({r["t_real_ns"] for r in rows if r["target"] == t and r["status"] == status})
err = []
n9 = len(polls("m9", "ok"))
if n9: err.append("dead unit 9 produced %d ok polls" % n9)
if not [r for r in rows if r["target"] == "m9" and "timed out" in r["error"]]:
    err.append("no timeout recorded for m9")
for t in ("m2", "m3"):
    if len(polls(t, "ok")) < 5: err.append("%s: only %d ok polls" % (t, len(polls(t, "ok"))))
if len(polls("m1", "ok")) < 4: err.append("m1: only %d ok polls after the late reply" % len(polls("m1", "ok")))
e = [r for r in rows if r["target"] == "m2" and r["series"] == "energy" and r["status"] == "ok"]
if not e or "category=ups_output" not in e[0]["labels"] or "role=it_total" not in e[0]["labels"]:
    err.append("m2 energy labels: %s" % (e[0]["labels"] if e else None))
p = [r for r in rows if r["target"] == "m1" and r["series"] == "power"]
if not p or abs(float(p[0]["value"]) - 12345.6) > 0.01: err.append("m1 power %s" % p[:1])
m3 = [r for r in rows if r["target"] == "m3" and r["series"] == "energy" and r["status"] == "ok"]
zeros = [r for r in m3 if float(r["value"]) == 0]
if not zeros: err.append("m3 never read 0 during its reboot")
for r in m3:
    d = float(r["delta"] or 0)
    if d > 12345.6 * 10: err.append("m3 energy spike: delta %s J (%s)" % (d, r["ctr_flags"]))
if float(m3[-1]["value"]) < 4e11: err.append("m3 total not restored: %s" % m3[-1]["value"])
print("\n".join(err))
sys.exit(1 if err else 0)
PYEOF
$PY "$T/check.py" "$T/j.csv" || { tail -20 "$T/run.log"; fail "journal checks"; }
grep -q "reconnecting" "$T/run.log" || { tail -20 "$T/run.log"; fail "no reconnect logged after the late reply"; }
exit 0
