#!/bin/sh
# 010-check-config: `wattpath check-config` on the shipped example, on a
# broken file (every error as FILE:LINE, exit 1), on a CSV inventory, on
# usage errors; secrets never appear in its output.  Issue 19: unknown keys
# are errors with the likely key, every key of the example and the docs is
# known, the example's grid and tariff give carbon and cost, compound
# durations, data files found from any working directory.
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
sed "s|source tree's etc/ or .*/share/wattpath)|source tree's etc/ or PREFIX/share/wattpath)|" \
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
	"$R:7: report: unknown key 'colour'" \
	"$R:10: site: grid: basis must be one of direct, lifecycle, not 'both'"; do
	grep -qF "$want" "$T/rep.err" || { cat "$T/rep.err" >&2; fail "missing: $want"; }
done
"$WATTPATH" report -c "$T/rep.yaml" --from 1768010400 --to 1768014000 \
	>"$T/rep2.out" 2>"$T/rep2.err" && fail "report ran on a bad report: block"
grep -qF "$R:3: report: pue: value must be a number >= 1" "$T/rep2.err" ||
	fail "wattpath report does not say the config error: $(cat "$T/rep2.err")"
note "report: and site: errors at their lines"

# 2d. Issue 19: nothing silently ignored.  A typo is an error that names
# the key it is likely a typo of, in every block; the grid and tariff keys
# an analyst guessed are refused, not accepted and then ignored.
cat >"$T/typo.yaml" <<EOF
collector: {data_dir: $T/data, intervall: 10s}
report:
  slo: {ttft: 500, tpot_ms: 50}
site:
  zone: FR
  grid: {source: static, gco2_per_kwh: 56}
  tariff: {eur_per_kwh: 0.18}
  market: {holdr: acme}
nodes:
  - name: n1
    engines: [{url: "http://127.0.0.1:1/metrics", kind: vllm, version: "0.6;3", precision: bf16}]
EOF
"$WATTPATH" check-config -c "$T/typo.yaml" >"$T/typo.out" 2>"$T/typo.err"
rc=$?
[ $rc = 1 ] || { cat "$T/typo.err" >&2; fail "typos: exit $rc, want 1"; }
Y="$T/typo.yaml"
for want in \
	"$Y:1: collector: unknown key 'intervall' (did you mean 'interval'?)" \
	"$Y:3: report: slo: unknown key 'ttft' (did you mean 'ttft_ms'?)" \
	"$Y:6: site: grid: unknown key 'source'" \
	"$Y:6: site: grid: unknown key 'gco2_per_kwh' (known: intensity_csv, basis, yearly_average_g_per_kwh, gas, cfe_csv)" \
	"$Y:7: site: tariff: unknown key 'eur_per_kwh' (known: price, price_csv, currency)" \
	"$Y:8: site: market: unknown key 'holdr' (did you mean 'holder'?)" \
	"$Y:11: node n1: engines[0]: version: a value of 1..63 bytes without ';', ',', '=' or '\"'"; do
	grep -qF "$want" "$T/typo.err" || { cat "$T/typo.err" >&2; fail "missing: $want"; }
done
grep -q ': warning: ' "$T/typo.err" && fail "an unknown key only warned"
note "unknown keys: errors with the likely key"

# 2e. Every key the shipped example (its commented examples included) and
# the docs (yaml blocks, config.md's key tables) show is one check-config
# knows, and every block's keys are checked at all (a canary in each).
$PY -c 'import yaml' 2>/dev/null || skip "python3-yaml missing"
mkdir -p "$T/keys"
$PY "$ROOT/tests/integration/conf_keys.py" "$ROOT" "$WATTPATH" "$T/keys" \
	--site-out "$T/keys/site.yaml" >&2 || fail "a key of the example or docs is unknown"
note "example and docs keys known"

# 2f. The example's grid and tariff give a report carbon and a cost (its
# site: block, commented examples live, minus the files it names).
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || fail "no wattpath-sim built"
TO=1795939200
"$SIM" history --nodes 2 --racks 1 --pdus 0 --meters 3 --seed 9 \
	--from $((TO - 7200)) --to $TO --step 10s --data-dir "$T/site" \
	>"$T/site.log" 2>&1 || { cat "$T/site.log" >&2; fail "sim history"; }
$PY - "$T/site/wattpath.yaml" "$T/keys/site.yaml" <<'PYEOF' || fail "site block"
import sys, yaml
conf, site = sys.argv[1], yaml.safe_load(open(sys.argv[2]))["site"]
site.pop("market")
site["grid"].pop("intensity_csv")
text = "".join(l for l in open(conf) if not l.startswith("site:"))
open(conf, "w").write(text + yaml.safe_dump({"site": site}))
PYEOF
(cd / && "$WATTPATH" report -c "$T/site/wattpath.yaml" --from $((TO - 6600)) \
	--to $((TO - 600)) --format json) >"$T/site.json" 2>"$T/site.err" ||
	{ cat "$T/site.err" >&2; fail "report with the example's site"; }
$PY - "$T/site.json" "$T/keys/site.yaml" <<'PYEOF' || fail "no carbon or no cost from the example's site:"
import json, sys, yaml
r, site = json.load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2]))["site"]
g, price = site["grid"]["yearly_average_g_per_kwh"], site["tariff"]["price"]
loc, cost = r["carbon"]["location"]["wall"], r["cost"]
print("carbon %.4f kg over %.3f kWh at %s g/kWh; cost %.4f %s" % (
    loc["kg"], loc["kwh"], g, cost["amount"], cost["currency"]))
assert loc["kwh"] > 1 and abs(loc["kg"] - loc["kwh"] * g / 1000) < 1e-6
kwh = r["carbon"]["location"][cost["boundary"]]["kwh"]
assert abs(cost["amount"] - kwh * price) < 1e-6
assert cost["currency"] == site["tariff"]["currency"]
PYEOF
note "the example's grid and tariff: carbon and cost"

# 2g. Compound durations wherever a duration is read; hex refused.
cat >"$T/dur.yaml" <<EOF
collector: {data_dir: $T/data, interval: 1m30s, timeout: 1m0.5s, backoff_max: 1h30m}
nodes:
  - {name: n1, gpu: {dcgm_exporter: "http://127.0.0.1:9400/metrics", interval: 2m30s}}
report: {curve_step: 1m30s, run_gap: 1h30m}
EOF
"$WATTPATH" check-config -v -c "$T/dur.yaml" >"$T/dur.out" 2>"$T/dur.err" ||
	{ cat "$T/dur.err" >&2; fail "compound durations refused"; }
grep -Eq 'n1/gpu .*(150|2m30)' "$T/dur.out" ||
	{ cat "$T/dur.out" >&2; fail "2m30s not read as 150 s"; }
sed 's/interval: 1m30s/interval: 0x10d/' "$T/dur.yaml" >"$T/hex.yaml"
"$WATTPATH" check-config -c "$T/hex.yaml" >/dev/null 2>"$T/hex.err" && fail "0x10d accepted"
grep -qF "$T/hex.yaml:1: collector: interval: '0x10d' is not a duration" "$T/hex.err" ||
	{ cat "$T/hex.err" >&2; fail "0x10d message"; }
"$SIM" naive --nodes 2 --from $((TO - 3600)) --to $TO --every 1m30s >"$T/naive.json" ||
	fail "sim naive --every 1m30s refused"
grep -q '"every_s":90.0' "$T/naive.json" || fail "--every 1m30s is not 90 s"
"$SIM" naive --nodes 2 --from $((TO - 3600)) --to $TO --every 0x10 >/dev/null 2>&1 &&
	fail "sim naive --every 0x10 accepted"
note "compound durations"

# 2h. Profiles and meter maps never depend on the working directory:
# check-config and probe from an unrelated one, a copy of the example in
# another directory, a relative maps_dir taken from the config's directory.
mkdir -p "$T/elsewhere" "$T/cfgdir/maps/meter-maps"
cp etc/meter-maps/eastron-sdm630.yaml "$T/cfgdir/maps/meter-maps/my-meter.yaml"
sed 's/map: eastron-sdm630/map: my-meter/; s|^  # maps_dir: /etc/wattpath |  maps_dir: maps            |' \
	etc/wattpath.yaml >"$T/cfgdir/w.yaml"
grep -q '^  maps_dir: maps' "$T/cfgdir/w.yaml" || fail "could not set maps_dir"
for c in "$ROOT/etc/wattpath.yaml" "$T/cfgdir/w.yaml"; do
	(cd "$T/elsewhere" && "$WATTPATH" check-config -c "$c") >"$T/cwd.out" 2>"$T/cwd.err" ||
		{ cat "$T/cwd.err" >&2; fail "check-config of $c from another directory"; }
done
BASE=$(free_port_base)
mkdir -p "$T/sim"
bg simserve "$SIM" serve --nodes 1 --racks 1 --pdus 1 --meters 1 --seed 3 \
	--port-base "$BASE" --config-out "$T/sim/w.yaml"
wait_for 20 grep -q "^wattpath-sim: config" "$T/simserve.log" ||
	{ cat "$T/simserve.log" >&2; fail "simulator not ready"; }
grep -q '^  maps_dir: "/' "$T/sim/w.yaml" || fail "sim wrote no absolute maps_dir"
(cd "$T/elsewhere" && "$WATTPATH" check-config -c ../sim/w.yaml) >"$T/simc.out" 2>&1 ||
	{ cat "$T/simc.out" >&2; fail "sim config from another directory"; }
MB=$(sed -n 's/.*modbus: {tcp: "\([^"]*\)", unit: 1}, map: \([a-z0-9-]*\)}.*/\1?unit=1\&map=\2/p' \
	"$T/sim/w.yaml" | head -1)
[ -n "$MB" ] || fail "no meter in the sim config"
(cd "$T/elsewhere" && "$WATTPATH" probe --json --timeout 3s "modbus-tcp://$MB") \
	>"$T/probe.json" 2>"$T/probe.err" ||
	{ cat "$T/probe.err" >&2; fail "probe from another directory"; }
grep -q '"quantity"' "$T/probe.json" || fail "probe found nothing: $(cat "$T/probe.json")"
note "data files found from any directory"

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
