#!/bin/sh
# Modbus RTU over a socat pty pair: a pymodbus serial server (19200 baud,
# 8N2; pyserial cannot set parity on a pty) with two meters on the line
# answers the probe through libmodbus'
# RTU backend; a unit that is not on the line times out without taking the
# others down; wrong line settings fail cleanly.
# fast
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/modbus_server.py
command -v socat >/dev/null || skip "socat missing"
$PY -c 'import pymodbus, yaml, serial_asyncio' 2>/dev/null ||
	skip "python3-pymodbus/python3-yaml/python3-serial-asyncio missing"
bg socat socat -d -d pty,raw,echo=0,link="$T/a" pty,raw,echo=0,link="$T/b"
wait_file "$T/b" 5
wait_file "$T/a" 5
bg mb $PY "$PEER" --rtu "$T/a" --baud 19200 --parity N --stopbits 2 \
	--unit 3=carlogavazzi-em24 --unit 4=eastron-sdm630 --ready "$T/ready"
wait_file "$T/ready" 10

probe() {	# UNIT MAP OUT [extra query]
	"$WATTPATH" probe --json --timeout 3s \
		"modbus-rtu://$T/b?baud=19200&parity=N&data_bits=8&stop_bits=2&unit=$1&map=$2${4:-}" \
		>"$T/$3.json" 2>"$T/$3.err"
}
probe 3 carlogavazzi-em24 em24 || { cat "$T/em24.err"; fail "rtu probe em24"; }
p=$(json_get "$T/em24.json" "[x['value'] for x in d['sources'] if x['chosen'] and x['quantity']=='power'][0]")
approx "$p" 12345.6 0.0001 || fail "em24 power $p"
e=$(json_get "$T/em24.json" "[x['value'] for x in d['sources'] if x['chosen'] and x['quantity']=='energy'][0]")
approx "$e" 444444120000 0.00001 || fail "em24 energy $e"
probe 7 eastron-sdm630 dead && fail "unit 7 is not on the line"
grep -qi "timed out" "$T/dead.err" || { cat "$T/dead.err"; fail "dead unit: no timeout"; }
probe 4 eastron-sdm630 sdm || { cat "$T/sdm.err"; fail "rtu probe sdm630 after a dead unit"; }
p=$(json_get "$T/sdm.json" "[x['value'] for x in d['sources'] if x['chosen'] and x['quantity']=='power'][0]")
approx "$p" 12345.6 0.0001 || fail "sdm630 power $p"
"$WATTPATH" probe --json --timeout 2s "modbus-rtu://$T/b?baud=19200&parity=Q&unit=3&map=carlogavazzi-em24" \
	>/dev/null 2>"$T/par.err" && fail "parity Q accepted"
grep -q "parity" "$T/par.err" || fail "no parity error"
alive "$PID_mb"
exit 0
