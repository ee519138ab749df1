#!/bin/sh
# 010-check-config: `wattpath check-config` on the shipped example, on a
# broken file (every error as FILE:LINE, exit 1), on a CSV inventory, on
# usage errors; secrets never appear in its output.
# fast
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || fail "no $ROOT"

# 1. The shipped example passes, with and without its environment.
WATTPATH_BMC_PASSWORD=example-pw WATTPATH_PDU_COMMUNITY=public \
WATTPATH_PDU_AUTH=auth-pass-1 WATTPATH_PDU_PRIV=priv-pass-1 \
	"$WATTPATH" check-config -c etc/wattpath.yaml >"$T/ok.out" 2>"$T/ok.err" ||
	{ cat "$T/ok.err" >&2; fail "etc/wattpath.yaml does not pass"; }
grep -q '^configuration OK: 2 nodes, 2 pdus, 2 meters, 8 targets' "$T/ok.out" ||
	fail "no summary: $(cat "$T/ok.out")"
grep -v ': warning: ' "$T/ok.err" | grep . && fail "non-warning output on a good file"
env -u WATTPATH_BMC_PASSWORD -u WATTPATH_PDU_COMMUNITY -u WATTPATH_PDU_AUTH \
    -u WATTPATH_PDU_PRIV "$WATTPATH" check-config -c etc/wattpath.yaml \
	>"$T/noenv.out" 2>"$T/noenv.err" ||
	{ cat "$T/noenv.err" >&2; fail "etc/wattpath.yaml fails without its environment"; }
grep -q 'etc/wattpath.yaml:[0-9]*: warning: .*WATTPATH_BMC_PASSWORD is not set' \
	"$T/noenv.err" || fail "no warning about the unset variable"
note "shipped example passes"

# 2. A broken file: every error, each as FILE:LINE: message, exit 1.
secret_file "$T/bmc-pw" 'S3cr3t-in-file-Qx7'
printf '%s\n' 'Op3n-s3cret-Zk9' >"$T/open-pw"; chmod 644 "$T/open-pw"
secret_file "$T/community" 'c0mmunity-Vb2'
cat >"$T/bad.yaml" <<EOF
collector:
  interval: 2h
  colour: blue
  listen: 127.0.0.1:99999
credentials:
  - {name: bmc, username: u, password_file: $T/bmc-pw}
  - {name: bmc, username: u, password_file: $T/bmc-pw}
  - {name: open, username: u, password_file: $T/open-pw}
  - {name: gone, username: u, password_file: $T/missing-pw}
  - {name: com, community_file: $T/community}
nodes:
  - name: n1
    bmc: {url: "ftp://127.0.0.1", credentials: nobody}
    outlets: [{pdu: p-unknown, outlet: 1}]
  - name: n1
  - name: n2
    bmc: {url: "http://127.0.0.1:8080", credentials: bmc}
pdus:
  - {name: p1, address: "127.0.0.1:161", profile: no-such-profile, snmp: {version: 2c, credentials: com}}
meters:
  - {name: m1, role: facility_total, map: no-such-map, modbus: {tcp: "127.0.0.1:502"}}
EOF
"$WATTPATH" check-config -c "$T/bad.yaml" >"$T/bad.out" 2>"$T/bad.err"
rc=$?
[ $rc = 1 ] || { cat "$T/bad.err" >&2; fail "broken config: exit $rc, want 1"; }
cat "$T/bad.err" >&2
B="$T/bad.yaml"
for want in \
	"$B:2: collector: interval 2h is out of range" \
	"$B:3: collector: unknown key 'colour'" \
	"$B:4: collector: listen '127.0.0.1:99999' is not host:port" \
	"$B:7: duplicate credential name 'bmc'" \
	"$B:8: credential open: secrets file $T/open-pw is open to group or others" \
	"$B:9: credential gone: secrets file $T/missing-pw: No such file" \
	"$B:13: node n1: bmc: unknown credential 'nobody'" \
	"$B:13: node n1: bmc: URL 'ftp://127.0.0.1' must start with https://" \
	"$B:14: node n1: outlet on unknown PDU 'p-unknown'" \
	"$B:15: duplicate node name 'n1'" \
	"$B:17: warning: node n2: bmc: plain http:// URL: credentials travel in clear" \
	"$B:19: pdu p1: unknown PDU profile 'no-such-profile'" \
	"$B:21: meter m1: unknown meter map 'no-such-map'"; do
	grep -qF "$want" "$T/bad.err" || fail "missing: $want"
done
# every line is FILE:LINE: or the final count
grep -v "^$B:[0-9][0-9]*: " "$T/bad.err" | grep -v "^$B: [0-9]* errors\$" | grep . &&
	fail "a line without FILE:LINE"
[ -s "$T/bad.out" ] && fail "stdout not empty on failure"
note "broken file: every error at its line"

# 2b. The fixture with one mistake of each kind: exactly the expected lines.
env -u WP_FIXTURE_UNSET "$WATTPATH" check-config -c tests/fixtures/conf/broken.yaml \
	>"$T/fx.out" 2>"$T/fx.err"
rc=$?
[ $rc = 1 ] || fail "fixture: exit $rc, want 1"
sed 's|in maps_dir, ./etc or .*/share/wattpath)|in maps_dir, ./etc or PREFIX/share/wattpath)|' \
	"$T/fx.err" | diff -u tests/fixtures/conf/broken.expected - >&2 ||
	fail "fixture output differs from tests/fixtures/conf/broken.expected"
note "fixture: every error, exactly"

# 2c. report: and site: are checked at load, not when a report runs.
cat >"$T/rep.yaml" <<EOF
collector: {data_dir: $T/data}
report:
  pue: {value: high}
  curve_tolerance: tight
  curve_step: 5x
  idle: {from: "2026-01-10T02:00:00Z"}
  colour: red
site:
  zone: FR
  grid: {basis: both}
EOF
"$WATTPATH" check-config -c "$T/rep.yaml" >"$T/rep.out" 2>"$T/rep.err"
rc=$?
[ $rc = 1 ] || { cat "$T/rep.err" >&2; fail "report: errors: exit $rc, want 1"; }
R="$T/rep.yaml"
for want in \
	"$R:3: report: pue: value must be a number >= 1, not 'high'" \
	"$R:4: report: curve_tolerance must be a number >= 0, not 'tight'" \
	"$R:5: report: curve_step: '5x' is not a duration" \
	"$R:6: report: idle: missing required key 'to'" \
	"$R:7: warning: report: unknown key 'colour' (ignored)" \
	"$R:10: site: grid: basis must be one of direct, lifecycle, not 'both'"; do
	grep -qF "$want" "$T/rep.err" || { cat "$T/rep.err" >&2; fail "missing: $want"; }
done
"$WATTPATH" report -c "$T/rep.yaml" --from 1768010400 --to 1768014000 \
	>"$T/rep2.out" 2>"$T/rep2.err" && fail "report ran on a bad report: block"
grep -qF "$R:3: report: pue: value must be a number >= 1" "$T/rep2.err" ||
	fail "wattpath report does not say the config error: $(cat "$T/rep2.err")"
note "report: and site: errors at their lines"

# 3. Secrets never appear, whatever happens.
for s in S3cr3t-in-file-Qx7 Op3n-s3cret-Zk9 c0mmunity-Vb2; do
	cat "$T"/*.out "$T"/*.err | grep -qF "$s" && fail "secret $s leaked"
done
note "no secret in the output"

# 4. nodes_csv: rows are nodes; errors point into the CSV.
cat >"$T/inv.csv" <<'EOF'
name,class,rack,bmc_url,bmc_credentials,bmc_auth,outlets,dcgm_exporter,engine_url,engine_kind
gpu-101,hgx,r9,https://127.0.0.1:8443,bmc,session,"p1:1 p1:2",http://127.0.0.1:9400/metrics,http://127.0.0.1:8000/metrics,vllm
gpu-102,hgx,r9,https://127.0.0.1:8444,bmc,basic,p1:3,,,
EOF
cat >"$T/csv.yaml" <<EOF
credentials: [{name: bmc, username: u, password_file: $T/bmc-pw},
              {name: com, community_file: $T/community}]
pdus: [{name: p1, address: "127.0.0.1:1161", profile: auto, snmp: {version: 2c, credentials: com}}]
nodes_csv: inv.csv
EOF
"$WATTPATH" check-config -v -c "$T/csv.yaml" >"$T/csv.out" 2>"$T/csv.err" ||
	{ cat "$T/csv.err" >&2; fail "CSV inventory refused"; }
grep -q 'configuration OK: 2 nodes, 1 pdus, 0 meters, 5 targets' "$T/csv.out" ||
	fail "CSV summary: $(cat "$T/csv.out")"
grep -q '^  gpu-101/engine0 *inband' "$T/csv.out" || fail "no engine target from CSV"
printf 'gpu-103,hgx,r9,ftp://x,bmc,session,p9:1,,,\n' >>"$T/inv.csv"
"$WATTPATH" check-config -c "$T/csv.yaml" >/dev/null 2>"$T/csv2.err" && fail "bad CSV row passed"
grep -qF "$T/inv.csv:4: node gpu-103: bmc: URL 'ftp://x' must start" "$T/csv2.err" ||
	fail "CSV error not at inv.csv:4: $(cat "$T/csv2.err")"
grep -qF "$T/inv.csv:4: node gpu-103: outlet on unknown PDU 'p9'" "$T/csv2.err" ||
	fail "CSV outlet error"
note "nodes_csv"

# 5. Usage and missing files.
"$WATTPATH" check-config >/dev/null 2>&1; [ $? = 2 ] || fail "no -c: want exit 2"
"$WATTPATH" check-config -c a b >/dev/null 2>&1; [ $? = 2 ] || fail "extra arg: want exit 2"
"$WATTPATH" check-config -c "$T/absent.yaml" 2>"$T/absent.err"; [ $? = 1 ] ||
	fail "missing file: want exit 1"
grep -qF "$T/absent.yaml: cannot open: No such file or directory" "$T/absent.err" ||
	fail "missing file message"
printf 'collector: {interval: [10s\n' >"$T/syntax.yaml"
"$WATTPATH" check-config -c "$T/syntax.yaml" 2>"$T/syntax.err"; [ $? = 1 ] ||
	fail "syntax error: want exit 1"
grep -q "^$T/syntax.yaml:[0-9]*: YAML syntax error" "$T/syntax.err" || fail "syntax message"
note "usage"
exit 0
