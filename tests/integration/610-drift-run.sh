#!/bin/sh
# The drift watch while the collector runs (issue 23): a simulated fleet
# served over the real protocols (1 s polls, 20 s drift windows, 3 learned)
# whose node 1 loses the metering of its A outlet 90 s after start.  Then,
# and only then, /metrics shows wattpath_drift_active 1 for node 1's
# wall/outlets pair and its A PDU's outlets/inlet pair (0 for every other
# pair), the dashboard lists those two, `promtool check metrics` is content, the shipped alert rule fires
# on it (promtool test rules, in 703), and the log names each drift once,
# not once per window.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
FLEET="--nodes 3 --racks 1 --pdus 2 --meters 3 --seed 11 --shape joules --profile steady"
BASE=$(free_port_base)
NOW=$(date +%s)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s --dead-outlet 1 --fault-at $((NOW + 90))
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
printf 'drift:\n  window: 20s\n  learn: 3\n  persist: 2\n' >>"$T/w.yaml"
LISTEN=$(sed -n 's/^  listen: .*:\([0-9]*\)$/\1/p' "$T/w.yaml")
[ -n "$LISTEN" ] || fail "no listen port in the generated config"
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "config"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
wait_tcp 127.0.0.1 "$LISTEN"
M=http://127.0.0.1:$LISTEN/metrics
# learned, before the fault: every pair measured, none active
wait_for 85 sh -c "curl -sf $M | grep -q '^wattpath_drift_usual_ratio{pair=\"pdu_inlet\"'" ||
	{ curl -sf "$M" | grep drift; tail "$T/run.log"; fail "no learned pair"; }
curl -sf "$M" >"$T/before.txt" || fail "scrape"
grep '^wattpath_drift_' "$T/before.txt"
grep -q '^wattpath_drift_active{.*} 1$' "$T/before.txt" && fail "a drift before the fault"
N1=$(sed -n 's/^  - name: \(.*\)$/\1/p' "$T/w.yaml" | sed -n 2p)
[ -n "$N1" ] || N1=$(sed -n 's/^.*- *{ *name: \([^,}]*\).*/\1/p' "$T/w.yaml" | sed -n 2p)
wait_for 150 sh -c "curl -sf $M | grep -q '^wattpath_drift_active{pair=\"wall_outlet\",name=\"$N1\",.*} 1$'" ||
	{ curl -sf "$M" | grep drift; tail "$T/run.log"; fail "dead outlet of $N1 not flagged"; }
sleep 45	# two more windows: still one log line per drift
curl -sf "$M" >"$T/after.txt" || fail "scrape"
grep '^wattpath_drift_' "$T/after.txt"
active=$(grep '^wattpath_drift_active{.*} 1$' "$T/after.txt" | sed 's/^[^{]*{pair="\([^"]*\)",name="\([^"]*\)".*/\1 \2/' | sort | tr '\n' ';')
[ "$active" = "pdu_inlet pdu-r1-a;wall_outlet $N1;" ] || fail "active pairs: $active"
promtool_ok=0
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/after.txt" >"$T/lint.txt" 2>&1 || { cat "$T/lint.txt"; fail "promtool check metrics"; }
	[ -s "$T/lint.txt" ] && { cat "$T/lint.txt"; fail "promtool complains"; }
	promtool_ok=1
fi
curl -sf "http://127.0.0.1:$LISTEN/" >"$T/dash.html" || fail "dashboard"
grep -q "Instrument drift</h2><p>[0-9]* pairs watched, 2 drifting" "$T/dash.html" ||
	fail "dashboard: no drifting pairs listed"
grep -q "<td>wall_outlet</td><td>$N1</td>" "$T/dash.html" || fail "dashboard: $N1 not listed"
grep 'drift:' "$T/run.log"
[ "$(grep -c "drift: wall_outlet $N1:" "$T/run.log")" = 1 ] || fail "wall_outlet $N1 not logged once"
[ "$(grep -c "drift: pdu_inlet pdu-r1-a:" "$T/run.log")" = 1 ] || fail "pdu_inlet not logged once"
[ "$(grep -c 'drift:' "$T/run.log")" = 2 ] || fail "other drift lines in the log"
note "promtool: $promtool_ok"
echo ok
