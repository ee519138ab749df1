#!/bin/sh
# fast
# One wattpath-sim process serves 10,000 BMCs on one HTTPS port: it starts
# quickly, and BMCs spread over the whole address range answer in parallel,
# each with its own certificate (subjectAltName = its address) and its own
# readings.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
curl --help all 2>/dev/null | grep -q -- '--parallel' || skip "curl without --parallel"
BASE=$(free_port_base)
START=$(date +%s)
bg sim "$SIM" serve --nodes 10000 --racks 100 --pdus 0 --meters 0 --shape joules \
	--port-base "$BASE" --config-out "$T/w.yaml"
wait_for 30 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "10,000 BMCs not ready in 30 s"; }
note "ready after $(( $(date +%s) - START )) s"
PW=$(cat "$T/secrets/bmc")
# 1,000 BMCs across the whole range, 64 at a time, each a fresh handshake.
$PY - "$BASE" >"$T/urls" <<'PYEOF'
import sys
for i in range(0, 10000, 10):
    print('url = "https://127.1.%d.%d:%s/redfish/v1/Chassis/Node0/Sensors/TotalEnergy"'
          % (i // 254, i % 254 + 1, sys.argv[1]))
    print('output = "%s"' % ("/dev/null" if i % 1000 else "e%d.json" % i))
PYEOF
T0=$(date +%s)
(cd "$T" && curl -s -Z --parallel-max 64 --cacert "$T/sim-ca.pem" -u "monitor:$PW" \
	-K "$T/urls" -w '%{http_code}\n' >"$T/codes" 2>/dev/null)
note "1,000 BMCs in $(( $(date +%s) - T0 )) s"
[ "$(grep -c '^200$' "$T/codes")" = 1000 ] ||
	{ sort "$T/codes" | uniq -c; fail "not every BMC answered 200"; }
# Different nodes, different counters.
N=$($PY -c 'import sys,json; print(len({json.load(open(f))["Reading"] for f in sys.argv[1:]}))' "$T"/e*.json)
[ "$N" = 10 ] || fail "BMC readings are not per node ($N distinct of 10)"
curl -sv --cacert "$T/sim-ca.pem" -o /dev/null "https://127.1.39.94:$BASE/redfish/v1/" 2>&1 |
	grep -q 'subjectAltName: host "127.1.39.94" matched' || fail "BMC 10000 certificate"
alive "$PID_sim"
exit 0
