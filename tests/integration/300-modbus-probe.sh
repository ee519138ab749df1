#!/bin/sh
# Modbus probe against a pymodbus gateway serving every shipped meter map
# (one unit each): chosen energy (J) and power (W) match what the server
# serves, reads are coalesced (requests on the wire = the plan), Schneider's
# 1-based register numbers go out as number - 1, and faults (exceptions,
# dead unit, NaN, wrong word order) fail with a clear error, no values.
# fast
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/modbus_server.py
$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
STEMS="eastron-sdm630 schneider-pm5000 schneider-iem3000 janitza-umg socomec-diris-a carlogavazzi-em24 abb-m4m"
PORT=$(free_port)
args="" u=0
for s in $STEMS; do u=$((u + 1)); args="$args --unit $u=$s"; done
# fault units: 11 exception 2, 12 busy, 13 NaN, 14 swapped words, 15 silent
args="$args --unit 11=eastron-sdm630 --unit 12=janitza-umg --unit 13=janitza-umg --unit 14=carlogavazzi-em24 --unit 15=abb-m4m"
cat >"$T/ctl.json" <<'JSON'
{"11": ["exc:2"], "12": ["exc:6"], "13": ["nan"], "14": ["swap"], "15": ["silent"]}
JSON
bg mb $PY "$PEER" --tcp 127.0.0.1:$PORT $args --control "$T/ctl.json" --expect "$T/expect.json"
wait_tcp 127.0.0.1 $PORT

u=0
for s in $STEMS; do
	u=$((u + 1))
	note "$s (unit $u)"
	before=$(grep -c "^REQ unit=$u " "$T/mb.log")
	"$WATTPATH" probe --json --timeout 3s \
		"modbus-tcp://127.0.0.1:$PORT?unit=$u&map=$s" >"$T/$s.json" 2>"$T/$s.err" ||
		{ cat "$T/$s.err"; fail "probe $s"; }
	after=$(grep -c "^REQ unit=$u " "$T/mb.log")
	[ "$(json_get "$T/$s.json" "d['protocol']")" = modbus ] || fail "$s protocol"
	n=$(json_get "$T/$s.json" "sum(1 for x in d['sources'] if x['chosen'])")
	[ "$n" = 2 ] || fail "$s: $n chosen sources, want 2"
	e=$(json_get "$T/$s.json" "[x['value'] for x in d['sources'] if x['chosen'] and x['quantity']=='energy'][0]")
	eu=$(json_get "$T/$s.json" "[x['unit'] for x in d['sources'] if x['chosen'] and x['quantity']=='energy'][0]")
	p=$(json_get "$T/$s.json" "[x['value'] for x in d['sources'] if x['chosen'] and x['quantity']=='power'][0]")
	[ "$eu" = J ] || fail "$s energy unit $eu"
	b=$(json_get "$T/$s.json" "set(x['boundary'] for x in d['sources'] if x['chosen'])")
	[ "$b" = "{'facility'}" ] || fail "$s chosen boundary $b"
	# 123456.7 kWh served at start; Socomec counts whole kWh
	approx "$e" 444444120000 0.00001 || fail "$s energy $e J"
	# 12345.6 W; Socomec sends kW/100 (10 W steps)
	approx "$p" 12345.6 0.0005 || fail "$s power $p W"
	v=$(json_get "$T/$s.json" "[x['value'] for x in d['sources'] if x['path'].startswith('voltage_l1_n ')][0]")
	approx "$v" 230.1 0.0001 || fail "$s voltage $v"
	r=$(json_get "$T/$s.json" "[x['resolution'] for x in d['sources'] if x['chosen'] and x['quantity']=='energy'][0]")
	$PY -c "import sys; sys.exit(0 if 0 < float('$r') <= 3.6e6 else 1)" || fail "$s energy resolution $r"
	plan=$(json_get "$T/$s.json" "d['device']['extra'].split('requests=')[1]")
	[ $((after - before)) = "$plan" ] || fail "$s: $((after - before)) requests on the wire, plan says $plan"
	nv=$(json_get "$T/$s.json" "len(d['sources'])")
	[ "$plan" -lt "$nv" ] || fail "$s: $plan requests for $nv values (no coalescing)"
done
# one request covers Janitza's 19000-19076 block; Schneider reads 3203 for 3204
[ "$(json_get "$T/janitza-umg.json" "d['device']['extra']")" = "map=janitza-umg unit=4 requests=1" ] || fail "janitza not one request"
grep -q "^REQ unit=2 fc=3 addr=3203 " "$T/mb.log" || fail "schneider energy not read at wire address 3203"
grep -q "^REQ unit=2 fc=3 addr=3204 " "$T/mb.log" && fail "schneider read at the documented number"

fault() {	# UNIT MAP EXPECTED-ERROR
	if "$WATTPATH" probe --json --timeout 2s "modbus-tcp://127.0.0.1:$PORT?unit=$1&map=$2" \
		>"$T/f$1.json" 2>"$T/f$1.err"; then
		fail "unit $1 ($3): probe succeeded"
	fi
	[ -s "$T/f$1.json" ] && fail "unit $1: values printed despite $3"
	grep -qi "$3" "$T/f$1.err" || { cat "$T/f$1.err"; fail "unit $1: no '$3' in the error"; }
}
note "faults"
fault 11 eastron-sdm630 "illegal data address"
fault 12 janitza-umg "busy"
fault 13 janitza-umg "NaN"
fault 14 carlogavazzi-em24 "sanity bounds"
t0=$(date +%s)
fault 15 abb-m4m "timed out"
[ $(( $(date +%s) - t0 )) -le 4 ] || fail "dead unit took too long"
fault 4 no-such-map "unknown meter map"
"$WATTPATH" probe "modbus-tcp://127.0.0.1:$PORT?unit=1" >/dev/null 2>"$T/nomap.err" && fail "probe without map"
grep -q "map=NAME" "$T/nomap.err" || fail "no hint about map="
alive "$PID_mb"
exit 0
