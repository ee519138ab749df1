#!/bin/sh
# The exposition server with TLS and HTTP Basic auth from files: HTTPS with
# a test CA, 401 without or with wrong credentials, 200 with the right
# ones, 429 after ten failed passwords from one address (not for another);
# check-config refuses a certificate without its key and a user
# without a password.
# fast
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl missing"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$T/k.pem" -out "$T/c.pem" \
	>/dev/null 2>&1 || fail "openssl"
chmod 600 "$T/k.pem"
secret_file "$T/pw" s3cret
P=$(free_port)
cat >"$T/t.yaml" <<EOF2
collector:
  interval: 1s
  data_dir: $T/data
  listen: 127.0.0.1:$P
  tls_cert_file: $T/c.pem
  tls_key_file: $T/k.pem
  http_user: prom
  http_password_file: $T/pw
meters:
  - {name: m1, role: facility_total, modbus: {tcp: 127.0.0.1:1, unit: 1}, map: eastron-sdm630}
EOF2
cd "$ROOT" || fail cd
bg run "$WATTPATH" run -c "$T/t.yaml"
wait_tcp 127.0.0.1 "$P"
code() { curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/c.pem" "$@"; }
[ "$(code "https://127.0.0.1:$P/metrics")" = 401 ] || fail "no credentials not 401"
[ "$(code -u prom:wrong "https://127.0.0.1:$P/metrics")" = 401 ] || fail "wrong password not 401"
wait_for 10 sh -c "curl -sf --cacert $T/c.pem -u prom:s3cret https://127.0.0.1:$P/metrics | grep -q 'wattpath_target_down_reason{target=\"m1\",protocol=\"modbus\",reason=\"transient\"} 1'" ||
	fail "authorised scrape of the down meter"
[ "$(code -u prom:s3cret "https://127.0.0.1:$P/healthz")" = 200 ] || fail "healthz"
note "failed passwords are limited per client: 429 with Retry-After"
i=0
while [ $i -lt 10 ]; do
	[ "$(code -u prom:guess$i "https://127.0.0.1:$P/healthz")" = 401 ] ||
		fail "wrong password $i not 401"
	i=$((i + 1))
done
[ "$(code -D "$T/hdr" -u prom:s3cret "https://127.0.0.1:$P/healthz")" = 429 ] ||
	fail "the 11th attempt in a minute was not refused"
grep -qi '^retry-after: [1-9]' "$T/hdr" || fail "no Retry-After: $(cat "$T/hdr")"
[ "$(code --interface 127.0.0.2 -u prom:s3cret "https://127.0.0.1:$P/healthz")" = 200 ] ||
	fail "another client was refused too"
curl -sf --interface 127.0.0.2 --cacert "$T/c.pem" -u prom:s3cret \
	"https://127.0.0.1:$P/metrics" | grep -q '^wattpath_http_auth_limited_total 1$' ||
	fail "the refusal is not counted in /metrics"
grep -q "10 failed passwords from one client" "$T/run.log" || fail "no log line"
grep -q s3cret "$T/run.log" && fail "secret in the log"
sed '/tls_key_file/d' "$T/t.yaml" >"$T/bad1.yaml"
"$WATTPATH" check-config -c "$T/bad1.yaml" 2>&1 | grep -q "tls_cert_file and tls_key_file go together" || fail "cert without key accepted"
sed '/http_password_file/d' "$T/t.yaml" >"$T/bad2.yaml"
"$WATTPATH" check-config -c "$T/bad2.yaml" 2>&1 | grep -q "http_user needs" || fail "user without password accepted"
exit 0
