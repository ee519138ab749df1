#!/bin/sh
# snmp_pdu on every real PDU recording (tests/fixtures/snmp, 41 devices) and
# the ones written from a MIB where no capture exists (written-*: Avocent
# PM, CyberPower ePDU2, HPE iPDU and PDU management module, Raritan EMX,
# Algcom, TS PWTv1, Gude EPC 8226 (also served as an 8221 and a PDU 8340),
# Geist V3, Rittal CMC III, Vertiv breakers, and the rows real recordings
# lack, written on them: APC, ServerTech, Panduit, HPE, Raritan, Eaton,
# Schleifenbauer):
# `wattpath probe --json` with profile auto against snmpsim, then
# snmp_recordings.py checks per recording the profile chosen (by
# sysObjectID or by probing tables: ATEN, PLANET, Chatsworth, Digitus,
# Tripp Lite PowerAlert and HP PDU management modules give no product
# sysObjectID), every W and kWh reading LibreNMS lists for it
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
# Bad input on the wire, from the Eaton recording: the outlet energy column
# ends after outlet 12 (rows 13-24 miss it), outlet 5's power is -1 and
# outlet 6's energy is text, not a number.
E=1.3.6.1.4.1.534.6.6.7.6.5.1
grep -v -E "^$E\.4\.0\.(1[3-9]|2[0-4])\|" "$D/eatonpdu_2.snmprec" |
	sed -e "s/^\($E\.3\.0\.5\)|2|.*/\1|2|-1/" \
	    -e "s/^\($E\.4\.0\.6\)|66|.*/\1|4|not available/" \
	    >"$D/broken-eaton.snmprec"
# The CyberPower agent serves both CPS-MIB branches (ePDU and ePDU2); older
# firmware has ePDU only: without the ePDU2 branch detection must fall back
# to the cyberpower profile.
grep -v '^1\.3\.6\.1\.4\.1\.3808\.1\.1\.6\.' "$D/cyberpower.snmprec" \
	>"$D/cyberpower-epdu-only.snmprec"
# Every Gude product MIB has the same tables under its own product number
# (28507.<p>): the EPC 8226 recording served as an EPC 8221 (.56, no port
# meters: gude-epc2) and as a PDU 8340 (.54: gude-pdu).
for p in 56:8221 54:8340; do
	grep -v "^1\.3\.6\.1\.4\.1\.28507\.58\.1\.5\.5\." \
	    "$D/written-gude-epc.snmprec" |
		sed "s/28507\.58/28507.${p%%:*}/" >"$D/derived-gude-${p#*:}.snmprec"
done
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
	[ "$f" = "$D/broken-eaton.snmprec" ] && continue
	rec=$(basename "$f" .snmprec)
	probe "$rec" || [ "$rec" = sentry3 ] || fail "$rec: $(cat "$T/out/$rec.err")"
	n=$((n + 1))
done
[ $n -ge 68 ] || fail "only $n recordings"
$PY "$ROOT/tests/integration/snmp_recordings.py" "$T/out" "$FIX/snmp" >&2 ||
	fail "a recording does not give what its MIB and LibreNMS say"

note "a table that ends early, -1, text where a number belongs"
probe broken-eaton || fail "broken-eaton: $(cat "$T/out/broken-eaton.err")"
J=$T/out/broken-eaton.json
q() { json_get "$J" "len([s for s in d['sources'] if s['boundary']=='outlet' and s['quantity']=='$1'])"; }
[ "$(q power)" = 23 ] || fail "broken-eaton: $(q power) outlet powers, not 23 (outlet 5 says -1)"
[ "$(q energy)" = 11 ] || fail "broken-eaton: $(q energy) outlet energies, not 11 (1-12 less outlet 6)"
[ "$(json_get "$J" "[s['value'] for s in d['sources'] if s['path']=='outlet/13' and s['quantity']=='power'][0]")" -ge 0 ] ||
	fail "broken-eaton: outlet 13 power"
[ "$(json_get "$J" "len([s for s in d['sources'] if (s['path'],s['quantity']) in (('outlet/5','power'),('outlet/6','energy'))])")" = 0 ] ||
	fail "broken-eaton: outlet 5 power or outlet 6 energy reported"
exit 0
