#!/bin/sh
# A BMC's certificate re-issued by a new CA while wattpath runs, its ca_file
# replaced with the new CA (same path, no reload): refused with a
# certificate error while libcurl's parse of the old file is cached, the
# polls work again with no SIGHUP once the file is read again (a minute
# after it was last read, docs/config.md: within 80 s of the start here;
# backoff_max 2s, so a retry comes soon after).
# Fails if an edited ca_file is never read again (libcurl's own default CA
# cache keeps it a day).
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish
secret_file "$T/pw" secret

test_ca 1
test_ca 2
cp "$T/ca1.pem" "$T/trust.pem"

P=$(free_port)
L=$(free_port)
peer() {	# N: the BMC with the certificate of CA N
	bg "rf$1" $PY "$PEER" --root "$FX/dmtf-rackmount1" --port "$P" \
		--trace 400 --auth basic --cert "$T/srv$1.pem" \
		--key "$T/srv$1.key"
	wait_tcp 127.0.0.1 "$P"
}
peer 1

cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, backoff_max: 2s, data_dir: $T/data, log_level: info, listen: "127.0.0.1:$L"}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - {name: n1, bmc: {url: "https://127.0.0.1:$P", credentials: bmc, auth: basic, ca_file: $T/trust.pem}}
YAML
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"
t0=$(date +%s)
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"

M=http://127.0.0.1:$L/metrics
up() { [ "$(metric_at "$M" 'wattpath_target_up{target="n1/bmc",protocol="redfish"}')" = "$1" ]; }
ok_since() {	# T: a poll succeeded after the unix time T
	v=$(metric_at "$M" 'wattpath_target_last_success_timestamp_seconds{target="n1/bmc",protocol="redfish"}')
	awk -v v="$v" -v t="$1" 'BEGIN { exit !(v != "none" && v + 0 > t + 0) }'
}
target_error() {
	$PY -c "import json,urllib.request as u; d=json.load(u.urlopen('http://127.0.0.1:$L/api/v1/targets',timeout=5)); print([t['error'] for t in d['targets'] if t['name']=='n1/bmc'][0] or '')"
}

note "CA 1: polls verify"
wait_for 20 up 1 || fail "not up with CA 1: $(target_error)"

note "rotation: the BMC's certificate from CA 2, the ca_file replaced"
kill "$(cat "$T/rf1.pid")"
wait "$(cat "$T/rf1.pid")" 2>/dev/null
tr=$($PY -c 'import time; print(time.time())')	# any success after: CA 2's
cp "$T/ca2.pem" "$T/trust.new" && mv "$T/trust.new" "$T/trust.pem"
peer 2
note "read again: polls verify with CA 2, no reload"
# While libcurl's parse of CA 1 is cached, polls are refused, and the
# refusal must say why.
refused=0
while [ "$(date +%s)" -lt $(( t0 + 80 )) ]; do
	if ok_since "$tr"; then break; fi
	e=$(target_error)
	case "$e" in *[Cc]ertificate*) refused=1 ;; esac
	sleep 0.5
done
alive "$(cat "$T/wp.pid")"
ok_since "$tr" || fail "ca_file not read again 80 s after the first connection: $(target_error)"
[ "$refused" = 1 ] ||
	fail "not refused while the old parse was cached, or not with a certificate error"
note "up again $(( $(date +%s) - t0 )) s after the start"
exit 0
