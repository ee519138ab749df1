#!/bin/sh
# snmp_pdu on every real PDU recording (tests/fixtures/snmp, 25 devices):
# `wattpath probe --json` with profile auto against snmpsim, then
# snmp_recordings.py checks per recording the profile chosen (by
# sysObjectID or by probing tables: ATEN, PLANET and Chatsworth agents give
# no product sysObjectID), every W and kWh reading LibreNMS lists for it
# (tests/fixtures/snmp/librenms-sensors: same OID, same value; VA filed as
# power checked as VA) and the readings the MIB gives beyond LibreNMS.
# fast
. "$(dirname "$0")/lib.sh"

command -v snmpsimd >/dev/null || skip "snmpsimd not installed (Debian snmpsim)"
ADDR=127.0.0.$(( ($$ % 200) + 20 ))
PORT=$(free_udp_port "$ADDR")
D=$T/data
mkdir -p "$D" "$T/cache" "$T/out"
cp "$FIX"/snmp/*.snmprec "$D"/
chmod -R a+rX "$T"
chmod 1777 "$T/cache"
SIMUSER=""
[ "$(id -u)" = 0 ] && SIMUSER="--process-user=nobody --process-group=nogroup"
bg snmpsim snmpsimd --data-dir="$D" --cache-dir="$T/cache" \
	--agent-udpv4-endpoint="$ADDR:$PORT" $SIMUSER
URL=snmp://$ADDR:$PORT

probe() {	# RECORDING: JSON in $T/out/$1.json, errors in .err
	secret_file "$T/com-$1" "$1"
	$WATTPATH probe "$URL" --community-file "$T/com-$1" --timeout 4s \
		--json >"$T/out/$1.json" 2>"$T/out/$1.err"
}
wait_for 30 probe eatonpdu_2 || { cat "$T/out/eatonpdu_2.err" "$T/snmpsim.log" >&2; fail "snmpsim never answered"; }

n=0
for f in "$D"/*.snmprec; do
	rec=$(basename "$f" .snmprec)
	probe "$rec" || [ "$rec" = sentry3 ] || fail "$rec: $(cat "$T/out/$rec.err")"
	n=$((n + 1))
done
[ $n -ge 25 ] || fail "only $n recordings"
$PY "$ROOT/tests/integration/snmp_recordings.py" "$T/out" "$FIX/snmp" >&2 ||
	fail "a recording does not give what its MIB and LibreNMS say"
exit 0
