#!/bin/sh
# /metrics on a collector polling a Redfish BMC, a Redfish PDU and two
# Modbus meters: node power appears within two intervals of start,
# `promtool check metrics` has no complaint, and a real Prometheus scraping
# every second answers PromQL with the values the devices served (400 W at
# the wall and at the outlet, 12345.6 W per meter) and energy counters that
# advance at exactly that power and never go backwards.
#
# The energy checks are exact, not rate() over a short window: a counter
# polled every 2 s and scraped every 1 s is a staircase of 800 J steps, so
# rate() over 8 s sees 3 or 4 steps in 7 s (343 or 457 W, never 400).
# Dividing the counter's increase by the increase of the same target's
# reading time (wattpath_target_last_success_timestamp_seconds, taken from
# the same poll and served in the same scrape) cancels the staircase; what
# is left is the meter's own resolution, stated in each bound.
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || skip "promtool (Debian prometheus) missing"
command -v prometheus >/dev/null || skip "prometheus missing"
INTERVAL=2s
. "$ROOT/tests/integration/expo_fleet.sh"

metrics() { $PY -c "import urllib.request as u,sys; sys.stdout.write(u.urlopen('$BASE/metrics',timeout=5).read().decode())"; }
start=$($PY -c 'import time; print(time.monotonic())')
bg run "$WATTPATH" run -c "$T/w.yaml"
wait_tcp 127.0.0.1 "$LISTEN"
wait_for 10 sh -c "$(command -v curl) -sf $BASE/metrics | grep -q 'wattpath_node_power_watts{site=\"test-site\",node=\"gpu-001\",class=\"hgx\",rack=\"r1\",boundary=\"wall\"} 400$'" ||
	{ metrics; tail "$T/run.log"; fail "no wall power of 400 W"; }
took=$($PY -c "import time; print(time.monotonic() - $start)")
$PY -c "import sys; sys.exit(0 if $took <= 2 * 2 + 1.5 else 1)" ||
	fail "node power took $took s to appear (interval 2 s)"
note "node power after $took s"
wait_for 10 sh -c "curl -sf $BASE/metrics | grep -q '^wattpath_facility_power_watts{site=\"test-site\",meter=\"m2\",role=\"it_total\"}'" ||
	{ metrics; fail "no meter power"; }
metrics >"$T/scrape.txt" || fail "scrape"
# the meters serve 12345.6 W as float32
v=$(sed -n 's/^wattpath_facility_power_watts{site="test-site",meter="m1",role="facility_total"} //p' "$T/scrape.txt")
approx "$v" 12345.6 1e-6 || fail "meter power $v"
promtool check metrics <"$T/scrape.txt" >"$T/lint.txt" 2>&1 || { cat "$T/lint.txt"; fail "promtool check metrics failed"; }
[ -s "$T/lint.txt" ] && { cat "$T/lint.txt"; fail "promtool complains"; }
for m in wattpath_node_energy_joules_total wattpath_node_power_watts \
    wattpath_target_up wattpath_poll_duration_seconds wattpath_facility_energy_joules_total; do
	grep -q "^# TYPE $m " "$T/scrape.txt" || fail "no TYPE for $m"
	grep -q "^# HELP $m " "$T/scrape.txt" || fail "no HELP for $m"
done
grep -q 'boundary="outlet"} 400$' "$T/scrape.txt" || fail "outlet power not 400 W"
grep -Eq '[0-9]e[+-]?[0-9]' "$T/scrape.txt" && fail "exponent notation in values"
# every series carries the site (site.name), the energy its method
grep -v '^#' "$T/scrape.txt" | grep -Ev '^(wattpath|process)_[a-z_]*\{site="test-site"[,}]' &&
	fail "series without site=\"test-site\""
grep -q 'boundary="wall",method="counter"} ' "$T/scrape.txt" || fail "no method label"

# A real Prometheus scrapes the daemon.
prom_start "$ROOT/etc/prometheus/wattpath-alerts.yml" "127.0.0.1:$LISTEN"
cat >"$T/q.py" <<'PYEOF'
import json, sys, urllib.parse, urllib.request
base, expr = sys.argv[1], sys.argv[2]
args = {"query": expr}
if len(sys.argv) > 3:
    args["time"] = sys.argv[3]
u = base + "/api/v1/query?" + urllib.parse.urlencode(args)
d = json.load(urllib.request.urlopen(u, timeout=5))
r = d["data"]["result"]
if d["data"]["resultType"] == "scalar":
    print(r[1])
else:
    print(r[0]["value"][1] if r else "none")
PYEOF
q() { $PY "$T/q.py" "http://127.0.0.1:$PP" "$@"; }
want() {	# EXPR VALUE REL
	_i=0
	while [ $_i -lt 40 ]; do
		v=$(q "$1" 2>/dev/null || echo none)
		[ "$v" != none ] && approx "$v" "$2" "$3" && { note "$1 = $v"; return 0; }
		sleep 0.5; _i=$((_i + 1))
	done
	fail "PromQL $1 = $v, want $2"
}
# exact_power ENERGY TS WATTS RES_J: over the last 8 s of scrapes, energy
# increase / reading-time increase = WATTS, within 1 % plus one step of
# the counter's resolution (RES_J) over the span.  Waits for 8 s of history.
exact_power() {
	_i=0
	while [ $_i -lt 40 ]; do
		_t=$($PY -c 'import time; print(time.time() - 0.5)')
		_de=$(q "scalar($1 - $1 offset 8s)" "$_t" 2>/dev/null || echo none)
		_dt=$(q "scalar($2 - $2 offset 8s)" "$_t" 2>/dev/null || echo none)
		case "$_de$_dt" in *none*|*NaN*) sleep 0.5; _i=$((_i + 1)); continue ;; esac
		$PY - "$_de" "$_dt" "$3" "$4" <<'PYEOF' && return 0
import sys
de, dt, watts, res = map(float, sys.argv[1:5])
if dt < 4:
    sys.exit(f"--- reading times only {dt} s apart")
p, tol = de / dt, 0.01 + res / (dt * watts)
print(f"--- {de:.1f} J over {dt:.3f} s of readings = {p:.2f} W "
      f"(want {watts} W +/- {100 * tol:.1f} %)", file=sys.stderr)
sys.exit(0 if abs(p - watts) <= tol * watts else 1)
PYEOF
		fail "energy of $1 does not advance at $3 W"
	done
	fail "no 8 s of history for $1 and $2"
}
want 'wattpath_node_power_watts{node="gpu-001",boundary="wall"}' 400 0
want 'wattpath_node_power_watts{node="gpu-001",boundary="outlet"}' 400 0
want 'wattpath_facility_power_watts{meter="m2",role="it_total"}' 12345.6 1e-6
want 'sum(wattpath_target_up)' 4 0
WALL='wattpath_node_energy_joules_total{node="gpu-001",boundary="wall"}'
TS='wattpath_target_last_success_timestamp_seconds'
# BMC: EnergyJoules in whole joules
exact_power "$WALL" "$TS{target=\"gpu-001/bmc\"}" 400 1
# PM5000: s64 Wh (3600 J); SDM630: float32 kWh at 123,456.7 kWh, whose
# step is 2^-7 kWh (28,125 J)
exact_power 'wattpath_facility_energy_joules_total{meter="m2"}' "$TS{target=\"m2\"}" 12345.6 3600
exact_power 'wattpath_facility_energy_joules_total{meter="m1"}' "$TS{target=\"m1\"}" 12345.6 28125
want "resets($WALL[1m])" 0 0
want 'resets(wattpath_facility_energy_joules_total[1m])' 0 0
want 'count(ALERTS{alertname="WattpathTargetDown"}) or vector(0)' 0 0
alive "$PID_run"
exit 0
