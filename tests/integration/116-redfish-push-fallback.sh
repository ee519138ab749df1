#!/bin/sh
# Push that stops and comes back, for about 75 s at 1 s intervals: n1
# (bmc: mode: push) on a test BMC pushing over SSE at a constant 5 kW, n2
# polled from a twin BMC, n3 (mode: auto) on a BMC without an EventService.
# The pushing BMC drops its stream (+8 s), stalls it (open, silent) for
# 8 s (+16 s), then "reboots" (+34 s): streams closed, every session
# forgotten, 503 to logins and streams for 3 s.
# Checks: after the drop the stream comes back (asking with Last-Event-ID
# for what it missed); while it stalls the target
# is polled (its BMC answers EnvironmentMetrics GETs again, stream_up 0)
# after a named warning ("push stream down (no report for 3 s): polling");
# after the reboot wattpath logs in again and opens a new stream, which is
# up again; a reload that makes n1 `mode: poll` closes its stream (+58 s)
# and it is polled from then on; n3 is polled with an info line and no
# warning; the journal verifies, no value of any series in it twice or
# backwards; `wattpath report` over
# a 62 s window covering all of it gives n1 (pushed, polled meanwhile) and
# n2 (polled) wall energies by their counters within 1 % of each other and
# of 5 kW x 62 s.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish/synthetic-hgx
secret_file "$T/pw" secret
L=$(free_port)
P=$(free_port 127.0.0.31)
bg rf31 $PY "$PEER" --root "$FX" --bind 127.0.0.31 --port "$P" --trace 5000 \
	--push --reboot-secs 3
bg rf32 $PY "$PEER" --root "$FX" --bind 127.0.0.32 --port "$P" --trace 5000
bg rf33 $PY "$PEER" --root "$FX" --bind 127.0.0.33 --port "$P" --trace 5000
for o in 31 32 33; do wait_tcp "127.0.0.$o" "$P"; done

cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, data_dir: $T/data, log_level: info, listen: "127.0.0.1:$L"}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - {name: n1, bmc: {url: "http://127.0.0.31:$P", credentials: bmc, mode: push}}
  - {name: n2, bmc: {url: "http://127.0.0.32:$P", credentials: bmc}}
  - {name: n3, bmc: {url: "http://127.0.0.33:$P", credentials: bmc, mode: auto}}
YAML
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"

metric() { metric_at "http://127.0.0.1:$L/metrics" "$1"; }
up_is() { [ "$(metric "wattpath_push_stream_up{target=\"n1/bmc\"}")" = "$1" ]; }
push() { $PY -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.31:$P/_test/push?action=$1', method='POST'))"; }
stat() { $PY -c "import json,sys,urllib.request as u; print(json.load(u.urlopen('http://127.0.0.31:$P/_test/stats'))['$1'])"; }
stat_gt() { [ "$(stat "$1")" -gt "$2" ]; }
stat_is() { [ "$(stat "$1")" = "$2" ]; }
env_gets() { $PY -c "import json,urllib.request as u; print(sum(1 for x in json.load(u.urlopen('http://127.0.0.31:$P/_test/log')) if x[1] == 'GET' and 'EnvironmentMetrics' in x[2]))"; }

T0=$(date +%s)
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
wait_for 10 up_is 1 || fail "stream not up: $(grep -i push "$T/wp.log")"

# a dropped stream comes back
sleep $((T0 + 8 - $(date +%s)))
push drop
wait_for 5 grep -q "push stream down (the BMC closed the stream)" "$T/wp.log" ||
	fail "drop not seen: $(grep -i push "$T/wp.log")"
wait_for 8 up_is 1 || fail "stream not back after a drop"
[ "$(stat sse_opened)" -ge 2 ] || fail "no second stream: $(stat sse_opened)"
[ -n "$(stat last_event_id)" ] || fail "reopened without Last-Event-ID"

# a silent stream: polled meanwhile, with a warning
sleep $((T0 + 16 - $(date +%s)))
g0=$(env_gets)
push stall
wait_for 6 grep -q "warn: redfish n1/bmc: push stream down (no report for 3 s): polling" "$T/wp.log" ||
	fail "stall not seen: $(grep -i push "$T/wp.log")"
sleep 3
up_is 0 || fail "stream up while the BMC is silent"
g1=$(env_gets)
[ $((g1 - g0)) -ge 9 ] || fail "not polled while the stream stalled: $g0 -> $g1 GETs"
push resume
wait_for 8 up_is 1 || fail "stream not back after a stall"

# a reboot loses the session and the stream: logged in again, streamed again
sleep $((T0 + 34 - $(date +%s)))
o0=$(stat sse_opened); c0=$(stat created)
push reboot
wait_for 15 stat_gt sse_opened "$o0" ||
	fail "no new stream after the reboot: $(grep -i -e push -e login "$T/wp.log" | tail -5)"
[ "$(stat created)" -gt "$c0" ] || fail "no new session after the reboot"
wait_for 8 up_is 1 || fail "stream not up after the reboot"

# a reload that makes n1 a polled BMC closes its stream; polls go on
sleep $((T0 + 58 - $(date +%s)))
up_is 1 || fail "stream down before the reload: $(grep -i push "$T/wp.log" | tail -3)"
sed -i 's/credentials: bmc, mode: push}/credentials: bmc, mode: poll}/' "$T/c.yaml"
kill -HUP "$PID_wp"
wait_for 5 grep -q "reloaded" "$T/wp.log" || fail "no reload: $(tail -3 "$T/wp.log")"
wait_for 5 stat_is sse_open 0 || fail "the stream stayed open after the reload"
g0=$(env_gets)
sleep $((T0 + 72 - $(date +%s)))
alive "$PID_wp"
[ $(($(env_gets) - g0)) -ge 20 ] || fail "n1 not polled after the reload"
[ "$(metric "wattpath_push_stream_up{target=\"n1/bmc\"}")" = none ] ||
	fail "n1 still a push target after the reload"
stop_bg wp
grep -q "info: redfish n3/bmc: push stream not available" "$T/wp.log" ||
	fail "n3: $(grep n3 "$T/wp.log" | head -5)"
grep -q "warn: redfish n3/bmc" "$T/wp.log" && fail "n3 (auto) warned: $(grep n3 "$T/wp.log")"

"$WATTPATH" journal verify -c "$T/c.yaml" >"$T/verify.log" 2>&1 ||
	fail "journal verify: $(tail -3 "$T/verify.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"
F=$((T0 + 6)); TO=$((T0 + 68))
"$WATTPATH" report -c "$T/c.yaml" --from $F --to $TO >"$T/r.json" 2>"$T/r.err" ||
	fail "report: $(cat "$T/r.err")"
$PY - "$T" <<'PYEOF' || fail "fallback checks (kept in $T)"
import csv, json, sys
T = sys.argv[1]
rows = [r for r in csv.DictReader(open(T + "/j.csv")) if r["status"] == "ok"]
last = {}
for r in sorted(rows, key=lambda r: int(r["t_real_ns"])):
    k = (r["target"], r["series"])
    t = int(r["t_real_ns"])
    assert t > last.get(k, 0), "%s twice or backwards at %d" % (k, t)
    last[k] = t
d = json.load(open(T + "/r.json"))
N = {n["name"]: n for n in d["nodes"]}
want = 5000 * d["window"]["seconds"]
w = {}
for n in ("n1", "n2", "n3"):
    b = N[n]["boundaries"]["wall"]
    assert b["method"] == "counter", (n, b)
    w[n] = b["energy_j"]
    assert abs(w[n] - want) <= 0.01 * want, "%s wall %s J, want %s" % (n, w[n], want)
assert abs(w["n1"] - w["n2"]) <= 0.01 * w["n2"], w
print("fallback ok: wall J pushed %.0f, polled %.0f, auto %.0f (%.0f)" % (
    w["n1"], w["n2"], w["n3"], want))
PYEOF
