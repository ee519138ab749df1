# expo_fleet.sh - sourced by the 7NN exposition tests after lib.sh: starts
# a Redfish BMC (node gpu-001, class hgx, rack r1) and a Redfish PDU whose
# outlet 1 feeds it (both serve a constant 400 W trace over HTTPS with a
# test CA), and a Modbus gateway with two meters (facility_total and
# it_total, 12345.6 W each); writes $T/w.yaml (interval ${INTERVAL:-1s},
# listen 127.0.0.1:$LISTEN, plus $EXTRA_COLLECTOR lines) and sets $BASE.
$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
test_ca
secret_file "$T/pw" secret
BMC_PORT=$(free_port)
PDU_PORT=$(free_port)
MB_PORT=$(free_port)
LISTEN=$(free_port)
bg bmc $PY "$ROOT/tests/peers/redfish_server.py" --root "$FIX/redfish/dmtf-rackmount1" \
	--port "$BMC_PORT" --trace 400 --cert "$T/srv.pem" --key "$T/srv.key"
bg pdu $PY "$ROOT/tests/peers/redfish_server.py" --root "$FIX/redfish/dmtf-pdu" \
	--port "$PDU_PORT" --trace 400 --cert "$T/srv.pem" --key "$T/srv.key"
bg mb $PY "$ROOT/tests/peers/modbus_server.py" --tcp 127.0.0.1:$MB_PORT \
	--unit 1=eastron-sdm630 --unit 2=schneider-pm5000
wait_tcp 127.0.0.1 "$BMC_PORT"
wait_tcp 127.0.0.1 "$PDU_PORT"
wait_tcp 127.0.0.1 "$MB_PORT"
cat >"$T/w.yaml" <<EOF2
collector:
  interval: ${INTERVAL:-1s}
  data_dir: $T/data
  listen: 127.0.0.1:$LISTEN
${EXTRA_COLLECTOR:-}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - name: gpu-001
    class: hgx
    rack: r1
    bmc: {url: https://127.0.0.1:$BMC_PORT, credentials: bmc, ca_file: $T/ca.pem}
    outlets: [{pdu: pdu-1, outlet: 1}]
pdus:
  - {name: pdu-1, url: https://127.0.0.1:$PDU_PORT, credentials: bmc, ca_file: $T/ca.pem}
meters:
  - {name: m1, role: facility_total, modbus: {tcp: 127.0.0.1:$MB_PORT, unit: 1}, map: eastron-sdm630}
  - {name: m2, role: it_total, modbus: {tcp: 127.0.0.1:$MB_PORT, unit: 2}, map: schneider-pm5000}
site: {name: test-site, zone: FR}
EOF2
BASE=http://127.0.0.1:$LISTEN
cd "$ROOT" || fail "cd"
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "check-config"; }
