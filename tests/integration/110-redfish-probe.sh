#!/bin/sh
# Redfish probe against the fixture trees: which sources are found, which one
# is chosen, their values (the server serves a constant 400 W trace), device
# identity, and no session left open on the BMC.  HTTPS with a test CA.
# fast
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish
secret_file "$T/pw" secret

# A CA and a server certificate with an IP SAN for 127.0.0.1.
test_ca

# serve SET [extra args]: starts a server, sets $PORT and $URL.
serve() {
	_set=$1; shift
	PORT=$(free_port)
	bg "rf-$_set-$PORT" $PY "$PEER" --root "$FX/$_set" --port "$PORT" \
		--trace 400 --cert "$T/srv.pem" --key "$T/srv.key" "$@"
	wait_tcp 127.0.0.1 "$PORT"
	URL=https://127.0.0.1:$PORT
}

probe() {	# OUT
	"$WATTPATH" probe "$URL" --json --user monitor --password-file "$T/pw" \
		--ca-file "$T/ca.pem" >"$T/$1" 2>"$T/$1.err"
}

open_sessions() {
	$PY -c "import json,ssl,urllib.request as u; c=ssl.create_default_context(cafile='$T/ca.pem'); print(json.load(u.urlopen('$URL/_test/stats', context=c))['open'])"
}

chosen() {	# FILE BOUNDARY -> "path value" of the chosen source(s)
	json_get "$1" "' '.join(s['path'].rsplit('/redfish/v1/',1)[-1]+'='+str(s['value']) for s in d['sources'] if s['chosen'] and s['boundary']=='$2')"
}

note "rackmount1: EnergykWh sensor chosen, excerpt+cited sensor once"
serve dmtf-rackmount1
probe rm.json || { cat "$T/rm.json.err"; fail "probe rackmount1"; }
[ "$(json_get "$T/rm.json" "d['protocol']")" = redfish ] || fail protocol
# identity from the system (Model 3500) and its manager, not the chassis
[ "$(json_get "$T/rm.json" "d['device']['model']")" = 3500 ] || fail model
[ "$(json_get "$T/rm.json" "d['device']['firmware']")" = 1.45.455b66-rev4 ] || fail fw
c=$(chosen "$T/rm.json" wall)
case "$c" in Chassis/1U/Sensors/TotalEnergy=*) ;; *) fail "rackmount1 chosen: $c" ;; esac
n=$(json_get "$T/rm.json" "sum(1 for s in d['sources'] if s['path'].endswith('Sensors/TotalPower'))")
[ "$n" = 0 ] || fail "TotalPower listed besides the excerpt citing it"
v=$(json_get "$T/rm.json" "[s['value'] for s in d['sources'] if s['path'].endswith('EnvironmentMetrics#/PowerWatts')][0]")
approx "$v" 400 0.001 || fail "PowerWatts $v, want 400"
e=$(json_get "$T/rm.json" "[s for s in d['sources'] if s['chosen']][0]")
json_get "$T/rm.json" "[s for s in d['sources'] if s['chosen']][0]['unit']" | grep -qx J || fail "energy unit not J: $e"
[ "$(open_sessions)" = 0 ] || fail "probe left a session open"

note "tower: an excerpt citing an Absent Sensor is no reading"
serve dmtf-tower
probe tw.json || fail "probe tower"
# Bay1's InputPowerWatts cites PS1InputPower (a reading); Bay2's cites
# PS2InputPower, whose Status.State is Absent: no reading.
n=$(json_get "$T/tw.json" "sum(1 for s in d['sources'] if s['path'].find('PowerSupplies/Bay')>0 and s['path'].endswith('InputPowerWatts'))")
[ "$n" = 1 ] || fail "tower PSU input readings: $n"

note "delta power shelf: EnergyJoules sensors (inputs only) chosen, not kWh"
serve lambdalabs-powershelf_delta
probe dl.json || fail "probe delta"
n=$(json_get "$T/dl.json" "sum(1 for s in d['sources'] if s['chosen'] and s['raw_unit']=='J' and s['path'].endswith('_energy_in'))")
[ "$n" = 6 ] || fail "delta chosen J sensors: $n"
n=$(json_get "$T/dl.json" "sum(1 for s in d['sources'] if s['chosen'] and s['raw_unit']=='kWh')")
[ "$n" = 0 ] || fail "delta chose a kWh counter"

note "HPE PowerSubsystem id mismatch: metrics found at Bay1, dangling logged"
serve telegraf-hpe-subsys
probe hp.json || fail "probe hpe"
grep -q "PowerSupply1/Metrics" "$T/hp.json.err" || fail "dangling link not logged"
chosen "$T/hp.json" wall | grep -q 'Bay1/Metrics#/EnergykWh' || fail "hpe chosen"

# oem FILE SOURCE -> "why value" of the OEM reading of that source
oem() {
	json_get "$1" "' '.join(s['labels'].split('why=')[1].split(';')[0]+'='+str(s['value']) for s in d['sources'] if s.get('oem') and 'source=$2;' in s['labels']+';')"
}

note "Dell iDRAC telemetry: SystemInputPower listed, below PowerControl"
serve synthetic-dell-idrac-telemetry
probe dt.json || fail "probe dell telemetry"
chosen "$T/dt.json" wall | grep -qx 'Chassis/System.Embedded.1/Power#/PowerControl/0/PowerConsumedWatts=400' || fail "dell chosen: $(chosen "$T/dt.json" wall)"
[ "$(oem "$T/dt.json" Oem.Dell.SystemInputPower)" = cross-check=404 ] || fail "dell oem: $(oem "$T/dt.json" Oem.Dell.SystemInputPower)"
serve synthetic-dell-idrac-telemetry-only
probe dto.json || fail "probe dell telemetry only"
chosen "$T/dto.json" wall | grep -qx 'TelemetryService/MetricReports/PowerMetrics#/Oem/Dell/SystemInputPower=404' || fail "dell oem not chosen: $(chosen "$T/dto.json" wall)"
grep -q "the OEM meter" "$T/dto.json.err" || fail "dell rule not stated"

note "Lenovo XCC: SystemInputPower history listed, below PowerControl"
serve synthetic-lenovo-xcc
probe lx.json || fail "probe lenovo"
chosen "$T/lx.json" wall | grep -qx 'Chassis/1/Power#/PowerControl/0/PowerConsumedWatts=400' || fail "lenovo chosen: $(chosen "$T/lx.json" wall)"
[ "$(oem "$T/lx.json" Oem.Lenovo.SystemInputPower)" = cross-check=252 ] || fail "lenovo oem: $(oem "$T/lx.json" Oem.Lenovo.SystemInputPower)"
n=$(json_get "$T/lx.json" "sum(1 for s in d['sources'] if s['path'].endswith('PowerControl/1/PowerConsumedWatts') and s['boundary']=='wall')")
[ "$n" = 0 ] || fail "lenovo CPU sub-system taken as wall"
serve synthetic-lenovo-xcc-only
probe lxo.json || fail "probe lenovo only"
chosen "$T/lxo.json" wall | grep -qx 'Systems/1/Oem/Lenovo/Metrics/SystemInputPower#/Container/newest/MetricValue=252' || fail "lenovo oem not chosen: $(chosen "$T/lxo.json" wall)"
[ "$(open_sessions)" = 0 ] || fail "session left (lenovo)"

note "Cisco C220 (legacy Power only), legacy session URI, 204 + body-less"
serve iserver-cisco-ucsc-c220-m5sx --legacy-sessions --session-status 204
probe cs.json || fail "probe cisco"
chosen "$T/cs.json" wall | grep -q 'PowerControl/0/PowerConsumedWatts=400' || fail "cisco chosen: $(chosen "$T/cs.json" wall)"
[ "$(open_sessions)" = 0 ] || fail "legacy session not deleted"

note "Redfish PDU: outlets and inlet"
serve dmtf-pdu --auth basic
probe pdu.json || fail "probe pdu (basic fallback)"
n=$(json_get "$T/pdu.json" "sum(1 for s in d['sources'] if s['boundary']=='outlet' and s['chosen'])")
[ "$n" -ge 9 ] || fail "pdu outlets chosen: $n"
[ "$(json_get "$T/pdu.json" "d['device']['firmware']")" = 4.3.0 ] || fail "pdu fw"

note "UCS X 9508 (no PowerConsumedWatts): clear error, exit non-zero"
serve iserver-cisco-ucsx-9508
if probe x.json; then fail "9508 should find no source"; fi
grep -q "no power or energy source" "$T/x.json.err" || fail "9508 message: $(cat "$T/x.json.err")"
[ "$(open_sessions)" = 0 ] || fail "session left after failed probe"

note "TLS: an untrusted certificate is refused"
serve dmtf-rackmount1
if "$WATTPATH" probe "$URL" --json --user monitor --password-file "$T/pw" \
	>/dev/null 2>"$T/tls.err"; then fail "untrusted cert accepted"; fi

note "TLS: a ca_file of another CA is refused"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=wp-other-ca \
	-keyout "$T/other.key" -out "$T/other.pem" >/dev/null 2>&1 ||
	fail "openssl other ca"
if "$WATTPATH" probe "$URL" --json --user monitor --password-file "$T/pw" \
	--ca-file "$T/other.pem" >/dev/null 2>"$T/tls2.err"; then
	fail "a certificate the ca_file did not sign accepted"
fi
grep -qi "certificate" "$T/tls2.err" ||
	fail "refusal does not say certificate: $(cat "$T/tls2.err")"

# The system's CA directory holds the server's CA, in a private mount
# namespace (the machine's /etc/ssl/certs untouched): trusted without a
# ca_file, not beside one.
in_certs() {	# ERRFILE ARGS...: wattpath with $T/certs as /etc/ssl/certs
	_err=$1; shift
	unshare -rm sh -c 'mount --bind "$1" /etc/ssl/certs && shift &&
		exec "$@"' sh "$T/certs" "$WATTPATH" "$@" >/dev/null 2>"$_err"
}
if mkdir -p "$T/certs" && cp "$T/ca.pem" "$T/certs/" &&
    openssl rehash "$T/certs" 2>/dev/null &&
    unshare -rm sh -c 'mount --bind "$1" /etc/ssl/certs' sh "$T/certs" \
    2>/dev/null; then
	note "TLS: the system's CA directory, trusted without a ca_file only"
	in_certs "$T/sys.err" probe "$URL" --json --user monitor \
		--password-file "$T/pw" ||
		fail "system directory's CA not trusted: $(cat "$T/sys.err")"
	if in_certs "$T/sys2.err" probe "$URL" --json --user monitor \
		--password-file "$T/pw" --ca-file "$T/other.pem"; then
		fail "the system directory trusted beside a ca_file"
	fi
	grep -qi "certificate" "$T/sys2.err" ||
		fail "refusal does not say certificate: $(cat "$T/sys2.err")"
else
	note "skipped the system directory's case: no private mount namespace or no /etc/ssl/certs to mount over"
fi
exit 0
