#!/bin/sh
# fast
# Push ingestion over the EventService SSE stream (bmc: mode: push): two
# test BMCs with the synthetic HGX tree at a constant 5 kW, n1 pushing a
# MetricReport every second (tests/peers/redfish_server.py --push), n2
# polled; wattpath every second for about 12 s.  Midway the pushing BMC
# replays its last report, sends a malformed and an oversized (2 MiB) event.
# Checks: check-config refuses a bad mode (FILE:LINE) and mode push on a
# PDU; the stream comes up; n1's BMC answers far fewer GETs than n2's (its
# polls rest while reports come); /metrics counts the reports by result
# (ok, replayed, malformed, oversized) and the replayed values refused;
# in the journal every series of n1 has strictly increasing times (no
# value twice) and pushed values carry the BMC's own millisecond
# Timestamps; each node's wall energy (the sum of the counter's deltas) is
# 5 kW over the span of its readings within 0.5 %.  (`wattpath report`
# over a window, pushed against polled: 116.)
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish/synthetic-hgx
secret_file "$T/pw" secret
L=$(free_port)
P=$(free_port 127.0.0.21)
bg rf21 $PY "$PEER" --root "$FX" --bind 127.0.0.21 --port "$P" --trace 5000 --push
bg rf22 $PY "$PEER" --root "$FX" --bind 127.0.0.22 --port "$P" --trace 5000
wait_tcp 127.0.0.21 "$P"; wait_tcp 127.0.0.22 "$P"

cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, data_dir: $T/data, log_level: info, listen: "127.0.0.1:$L"}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - {name: n1, bmc: {url: "http://127.0.0.21:$P", credentials: bmc, mode: push}}
  - {name: n2, bmc: {url: "http://127.0.0.22:$P", credentials: bmc}}
YAML
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"
sed 's/mode: push/mode: shove/' "$T/c.yaml" >"$T/bad.yaml"
cat >>"$T/bad.yaml" <<YAML
pdus:
  - {name: pdu1, url: "http://127.0.0.23:$P", credentials: bmc,
     mode: push}
YAML
"$WATTPATH" check-config -c "$T/bad.yaml" >"$T/bad.log" 2>&1 &&
	fail "a bad mode accepted"
grep -q "bad.yaml:5:.*mode.*poll, push, auto" "$T/bad.log" ||
	fail "bad mode: $(cat "$T/bad.log")"
grep -q "bad.yaml:9:.*mode push is for a node" "$T/bad.log" ||
	fail "push on a PDU: $(cat "$T/bad.log")"

metric() { metric_at "http://127.0.0.1:$L/metrics" "$1"; }
push() { $PY -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.21:$P/_test/push?action=$1', method='POST'))"; }

T0=$(date +%s)
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
up_is() { [ "$(metric 'wattpath_push_stream_up{target="n1/bmc"}')" = "$1" ]; }
wait_for 10 up_is 1 || fail "stream not up: $(grep -i push "$T/wp.log")"
sleep 4
push replay; sleep 1.2; push malformed; sleep 1.2; push oversized
sleep 4
alive "$PID_wp"
for m in 'wattpath_push_reports_total{target="n1/bmc",result="ok"}' \
    'wattpath_push_reports_total{target="n1/bmc",result="replayed"}' \
    'wattpath_push_reports_total{target="n1/bmc",result="malformed"}' \
    'wattpath_push_reports_total{target="n1/bmc",result="oversized"}' \
    'wattpath_push_values_refused_total{target="n1/bmc",reason="replayed"}' \
    'wattpath_push_stream_up{target="n1/bmc"}'; do
	v=$(metric "$m")
	echo "$m $v" >>"$T/metrics.txt"
done
stop_bg wp
for o in 21 22; do
	$PY -c "import urllib.request as u; print(u.urlopen('http://127.0.0.$o:$P/_test/stats').read().decode())" \
		>"$T/stats$o.json" || fail "stats $o"
done
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"

$PY - "$T" <<'PYEOF' || fail "push checks (kept in $T)"
import csv, json, sys
T = sys.argv[1]
m = dict(l.rsplit(" ", 1) for l in open(T + "/metrics.txt").read().splitlines())
def val(k):
    v = [x for n, x in m.items() if k in n]
    assert v and v[0] != "none", "no %s in %s" % (k, m)
    return float(v[0])
assert val('result="ok"') >= 6, m
assert val('result="replayed"') >= 1, m
assert val('result="malformed"') == 1, m
assert val('result="oversized"') == 1, m
assert val('reason="replayed"') >= 9, m     # every value of the report
assert val("stream_up") == 1, m
s21 = json.load(open(T + "/stats21.json"))
s22 = json.load(open(T + "/stats22.json"))
assert s21["sse_opened"] >= 1 and s21["pushed"] >= 8, s21
assert s21["gets"] * 2 < s22["gets"], "push BMC GETs %d, polled %d" % (
    s21["gets"], s22["gets"])
rows = [r for r in csv.DictReader(open(T + "/j.csv")) if r["status"] == "ok"]
last, pushed = {}, 0
for r in sorted(rows, key=lambda r: int(r["t_real_ns"])):
    k = (r["target"], r["series"])
    t = int(r["t_real_ns"])
    assert t > last.get(k, 0), "%s twice or backwards at %d" % (k, t)
    last[k] = t
    if r["target"] == "n1/bmc" and t % 1000000 == 0:
        pushed += 1
assert pushed >= 50, "only %d values at the BMC's ms timestamps" % pushed
# wall energy: the counter's deltas against 5 kW over the readings' span
# (n1: from its first pushed reading on, at the BMC's own times)
def wall(target):
    w = sorted((r for r in rows if r["target"] == target and
                r["series"] == "wall/energy"), key=lambda r: int(r["t_real_ns"]))
    if target == "n1/bmc":
        w = w[[int(r["t_real_ns"]) % 1000000 for r in w].index(0):]
    ts = [int(r["t_real_ns"]) / 1e9 for r in w]
    got = sum(float(r["delta"] or 0) for r in w[1:])
    return got, 5000 * (ts[-1] - ts[0])
for n in ("n1/bmc", "n2/bmc"):
    got, want = wall(n)
    assert abs(got - want) <= 0.005 * want, "%s wall %s J, want %s" % (n, got, want)
print("push ok: %d reports, wall %.0f J pushed / %.0f J polled, GETs %d/%d" % (
    val('result="ok"'), wall("n1/bmc")[0], wall("n2/bmc")[0], s21["gets"], s22["gets"]))
PYEOF
