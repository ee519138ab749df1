#!/bin/sh
# fast
# wattpath-sim speaks the protocols the way devices do: Redfish over HTTPS
# with sessions (201, X-Auth-Token, Location, DELETE) and Basic, one BMC per
# loopback address on one port, $select, 501 for unsupported queries;
# dcgm-exporter and vLLM text; an SDM630 over Modbus TCP; a Raritan PDU over
# SNMP v2c that ignores a wrong community.  The counters it serves agree with
# `wattpath-sim truth` computed by a separate process, and the config it
# writes passes check-config with 0600 secrets.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
FLEET="--nodes 3 --racks 1 --pdus 2 --meters 3 --seed 11 --shape joules"
BASE=$(free_port_base)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
CA=$T/sim-ca.pem
PW=$(cat "$T/secrets/bmc")
[ "$(stat -c %a "$T/secrets/bmc")" = 600 ] || fail "bmc secret not 0600"
[ "$(stat -c %a "$T/secrets/community")" = 600 ] || fail "community not 0600"
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/check.log" 2>&1 ||
	{ cat "$T/check.log"; fail "generated config does not check"; }
R=https://127.1.0.2:$BASE/redfish/v1

# Service root without credentials; everything else needs them.
curl -sf --cacert "$CA" "$R/" >"$T/root.json" || fail "service root"
json_get "$T/root.json" 'd["ProtocolFeaturesSupported"]["SelectQuery"]' |
	grep -q True || fail "SelectQuery not advertised"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" "$R/Chassis")
[ "$code" = 401 ] || fail "no credentials gave $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" -u monitor:nope "$R/Chassis")
[ "$code" = 401 ] || fail "wrong password gave $code"

# A session: 201, token, Location; the token works on this BMC only.
curl -s -D "$T/h" -o "$T/s.json" --cacert "$CA" -H 'Content-Type: application/json' \
	-d "{\"UserName\":\"monitor\",\"Password\":\"$PW\"}" "$R/SessionService/Sessions"
grep -q "^HTTP/1.1 201" "$T/h" || fail "session POST not 201"
TOK=$(sed -n 's/^X-Auth-Token: *//p' "$T/h" | tr -d '\r')
LOC=$(sed -n 's/^Location: *//p' "$T/h" | tr -d '\r')
[ -n "$TOK" ] && [ -n "$LOC" ] || fail "no token or Location"
curl -sf --cacert "$CA" -H "X-Auth-Token: $TOK" "$R/Chassis/Node0" >/dev/null ||
	fail "token refused"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" -H "X-Auth-Token: $TOK" \
	"https://127.1.0.1:$BASE/redfish/v1/Chassis")
[ "$code" = 401 ] || fail "a token of BMC 2 opened BMC 1 ($code)"
curl -sf --cacert "$CA" -X DELETE -H "X-Auth-Token: $TOK" "https://127.1.0.2:$BASE$LOC" \
	>/dev/null || fail "session DELETE"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" -H "X-Auth-Token: $TOK" "$R/Chassis")
[ "$code" = 401 ] || fail "deleted session still works ($code)"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" -u "monitor:$PW" "$R/Chassis?\$expand=.")
[ "$code" = 501 ] || fail "\$expand gave $code"
curl -sf --cacert "$CA" -u "monitor:$PW" \
	"$R/Chassis/Node0/EnvironmentMetrics?\$select=EnergyJoules" >"$T/em.json" ||
	fail "\$select"
json_get "$T/em.json" '"PowerWatts" not in d and "EnergyJoules" in d' | grep -q True ||
	fail "\$select did not select"
# An address that is no BMC of ours gets no answer.
curl -s -o /dev/null --max-time 3 --cacert "$CA" "https://127.1.0.9:$BASE/redfish/v1/" &&
	fail "a BMC answered on an address that is not one"

# Served energy agrees with truth from a separate process: the counter
# delta lies between the truth over the inner and the outer window.
now() { $PY -c 'import time; print("%.6f" % time.time())'; }
ej() { curl -sf --cacert "$CA" -u "monitor:$PW" "$R/Chassis/Node0/Sensors/TotalEnergy" |
	$PY -c 'import json,sys; print(json.load(sys.stdin)["Reading"])'; }
A0=$(now); E1=$(ej); A1=$(now)
sleep 3
B0=$(now); E2=$(ej); B1=$(now)
"$SIM" truth $FLEET --from "$A0" --to "$B1" --json >"$T/outer.json"
"$SIM" truth $FLEET --from "$A1" --to "$B0" --json >"$T/inner.json"
OUT=$(json_get "$T/outer.json" 'd["nodes"][1]["wall_j"]')
IN=$(json_get "$T/inner.json" 'd["nodes"][1]["wall_j"]')
note "EnergyJoules delta $((E2 - E1)) J, truth between $IN and $OUT"
$PY -c "import sys; sys.exit(0 if $IN - 1 <= $E2 - $E1 <= $OUT + 1 else 1)" ||
	fail "served energy $((E2 - E1)) J outside truth [$IN, $OUT]"

# dcgm-exporter and vLLM text.
H=http://127.2.0.3
curl -sf "$H:$((BASE + 1))/metrics" >"$T/dcgm.txt" || fail "dcgm metrics"
[ "$(grep -c '^DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{' "$T/dcgm.txt")" = 8 ] ||
	fail "not 8 GPU energy counters"
curl -sf "$H:$((BASE + 2))/metrics" | grep -q '^vllm:generation_tokens_total{' ||
	fail "vllm metrics"

# Modbus: SDM630 total import (0x48) and power (0x34), float32 high word first.
if $PY -c 'import pymodbus' 2>/dev/null; then
	$PY - "127.4.0.1" "$((BASE + 3))" >"$T/mb.txt" <<'PYEOF' || fail "modbus read"
import struct, sys
from pymodbus.client import ModbusTcpClient
c = ModbusTcpClient(sys.argv[1], port=int(sys.argv[2])); c.connect()
def f(a):
    try:
        r = c.read_input_registers(a, count=2, slave=1)
    except TypeError:
        r = c.read_input_registers(a, count=2, device_id=1)
    return struct.unpack(">f", struct.pack(">HH", *r.registers))[0]
print(f(0x48), f(0x34), f(0x46))
PYEOF
	read KWH W HZ <"$T/mb.txt"
	note "meter: $KWH kWh, $W W, $HZ Hz"
	$PY -c "import sys; sys.exit(0 if $KWH > 0 and 10000 < $W < 1e6 and $HZ == 50 else 1)" ||
		fail "implausible meter values $KWH kWh $W W $HZ Hz"
fi

# SNMP: the PDU answers its community only.
if command -v snmpget >/dev/null; then
	C=$(cat "$T/secrets/community")
	O=1.3.6.1.4.1.13742.6.5.4.3.1.4.1.2.8
	MIBS= snmpget -v2c -c "$C" -On -t 2 -r 1 "127.3.0.2:$((BASE + 4))" \
		1.3.6.1.2.1.1.2.0 $O >"$T/snmp.txt" 2>&1 || { cat "$T/snmp.txt"; fail "snmpget"; }
	grep -q "13742.6$" "$T/snmp.txt" || fail "sysObjectID"
	grep -q "$O = Gauge32: [0-9]" "$T/snmp.txt" || fail "outlet energy"
	MIBS= snmpget -v2c -c wrong -t 1 -r 0 "127.3.0.2:$((BASE + 4))" 1.3.6.1.2.1.1.2.0 \
		>/dev/null 2>&1 && fail "wrong community answered"
fi
alive "$PID_sim"
exit 0
