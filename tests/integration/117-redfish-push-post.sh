#!/bin/sh
# Push ingestion by POST delivery (collector.push_listen, bmc: mode: push):
# two test BMCs with the synthetic HGX tree at a constant 5 kW, n1 with
# EventService subscriptions (tests/peers/redfish_server.py --push), n2
# polled; wattpath every second, its push listener on HTTPS with a
# self-signed certificate made here.  Checks: check-config refuses
# push_listen without TLS and a push_url that is not https (FILE:LINE);
# wattpath subscribes (Destination on the listener, Context naming the
# collector and target) and the reports come up; a replayed report is
# refused and counted; a report POSTed to n1's URL from another address
# than its BMC's, and one to a URL naming no target, are refused and
# counted as unknown_sender; a BMC reboot that loses the subscription is
# seen (POSTs stop, the subscription's GET is 404) and it is subscribed
# again, reports go on; SIGTERM deletes the subscription (the BMC's list
# is empty); after kill -9 the next start deletes the stale one (found by
# its Context) before subscribing, leaving exactly one; a reload that makes
# n1 polled deletes it; `wattpath report`
# over a window gives n1 (pushed) and n2 (polled) the same wall energy
# within 1 %, and each 5 kW over the window within 1 %.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish/synthetic-hgx
secret_file "$T/pw" secret
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$T/k.pem" -out "$T/c.pem" \
	>/dev/null 2>&1 || fail "openssl"
chmod 600 "$T/k.pem"
L=$(free_port)
PL=$(free_port)
P=$(free_port 127.0.0.67)
bg rf67 $PY "$PEER" --root "$FX" --bind 127.0.0.67 --port "$P" --trace 5000 \
	--push --reboot-secs 2
bg rf68 $PY "$PEER" --root "$FX" --bind 127.0.0.68 --port "$P" --trace 5000
wait_tcp 127.0.0.67 "$P"; wait_tcp 127.0.0.68 "$P"

cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, data_dir: $T/data, log_level: info, listen: "127.0.0.1:$L",
  push_listen: "127.0.0.1:$PL", push_tls_cert_file: $T/c.pem,
  push_tls_key_file: $T/k.pem}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - {name: n1, bmc: {url: "http://127.0.0.67:$P", credentials: bmc, mode: push}}
  - {name: n2, bmc: {url: "http://127.0.0.68:$P", credentials: bmc}}
YAML
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"
sed -e '/push_tls_key_file/d' -e "s|push_tls_cert_file: $T/c.pem,|push_url: \"http://x:1\"}|" \
	"$T/c.yaml" >"$T/bad.yaml"
"$WATTPATH" check-config -c "$T/bad.yaml" >"$T/bad.log" 2>&1 &&
	fail "push_listen without TLS accepted"
grep -q "bad.yaml:2:.*push_listen needs TLS" "$T/bad.log" ||
	fail "no TLS: $(cat "$T/bad.log")"
grep -q "bad.yaml:2:.*push_url 'http://x:1' is not https" "$T/bad.log" ||
	fail "push_url: $(cat "$T/bad.log")"

metric() { metric_at "http://127.0.0.1:$L/metrics" "$1"; }
up_is() { [ "$(metric 'wattpath_push_stream_up{target="n1/bmc"}')" = "$1" ]; }
push() { $PY -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.67:$P/_test/push?action=$1', method='POST'), timeout=5)"; }
stat() { $PY -c "import json,urllib.request as u; print(json.dumps(json.load(u.urlopen('http://127.0.0.67:$P/_test/stats', timeout=5))['$1']))"; }
stat_gt() { [ "$(stat "$1")" -gt "$2" ]; }
subs_are() { [ "$(stat subs)" = "$1" ]; }
CTX="[\"wattpath:127.0.0.1:$PL:n1/bmc\"]"
# POST a report to URL ($1: the subscription's, or with its token changed)
forge() {
	$PY - "http://127.0.0.67:$P/_test/subs" "$1" <<'PYEOF'
import json, ssl, sys, urllib.request as u
d = json.load(u.urlopen(sys.argv[1]))[0]["Destination"]
if sys.argv[2] == "badtoken":
    d = d[:-8] + "00000000"
ctx = ssl.create_default_context()
ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
body = json.dumps({"@odata.type": "#MetricReport.v1_5_0.MetricReport",
                   "Id": "Forged", "MetricValues": []}).encode()
try:
    u.urlopen(u.Request(d, data=body, method="POST"), context=ctx)
except u.HTTPError as e:
    print(e.code)
PYEOF
}

T0=$(date +%s)
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
wait_for 10 up_is 1 || fail "reports not up: $(grep -i -e push -e subscri "$T/wp.log")"
subs_are "$CTX" || fail "subscriptions: $(stat subs)"
grep -q "push listener on https://127.0.0.1:$PL" "$T/wp.log" || fail "no listener line"

# a replay, a stranger, a wrong URL
sleep 3
push replay
sleep 2
forge own >"$T/forge1"
[ "$(forge badtoken)" = 404 ] || fail "a POST to no target's URL not 404"
sleep 1

# a reboot loses the subscription: subscribed again, reports go on
sleep $((T0 + 12 - $(date +%s)))
c0=$(stat sub_created)
push reboot
wait_for 15 stat_gt sub_created "$c0" ||
	fail "not subscribed again: $(grep -i -e push -e subscri "$T/wp.log" | tail -5)"
grep -q "warn: redfish n1/bmc: the BMC lost our subscription" "$T/wp.log" ||
	fail "loss not logged: $(grep -i subscri "$T/wp.log")"
wait_for 10 up_is 1 || fail "reports not up after the reboot"
subs_are "$CTX" || fail "subscriptions after the reboot: $(stat subs)"
sleep $((T0 + 72 - $(date +%s)))
alive "$PID_wp"
for m in 'wattpath_push_reports_total{target="n1/bmc",result="ok"}' \
    'wattpath_push_reports_total{target="n1/bmc",result="replayed"}' \
    'wattpath_push_reports_total{target="n1/bmc",result="unknown_sender"}' \
    'wattpath_push_values_refused_total{target="n1/bmc",reason="replayed"}' \
    'wattpath_push_listen_refused_total{result="unknown_sender"}' \
    'wattpath_push_stream_up{target="n1/bmc"}'; do
	echo "$m $(metric "$m")" >>"$T/metrics.txt"
done
stop_bg wp
subs_are "[]" || fail "SIGTERM left subscriptions: $(stat subs)"
F=$((T0 + 6)); TO=$((T0 + 68))
"$WATTPATH" report -c "$T/c.yaml" --from $F --to $TO >"$T/r.json" 2>"$T/r.err" ||
	fail "report: $(cat "$T/r.err")"
$PY -c "import json; print(json.load(open('$T/r.json'))['window'])" >/dev/null ||
	fail "report: no window"

# kill -9 leaves one; the next start deletes it and subscribes anew
bg wp2 "$WATTPATH" run -c "$T/c.yaml"
wait_for 10 up_is 1 || fail "wp2 not up: $(grep -i subscri "$T/wp2.log")"
kill -KILL "$PID_wp2"
sleep 1
subs_are "$CTX" || fail "after kill -9: $(stat subs)"
bg wp3 "$WATTPATH" run -c "$T/c.yaml"
wait_for 10 up_is 1 || fail "wp3 not up: $(grep -i subscri "$T/wp3.log")"
grep -q "deleted a stale subscription of ours" "$T/wp3.log" ||
	fail "stale not deleted: $(grep -i subscri "$T/wp3.log")"
subs_are "$CTX" || fail "after the restart: $(stat subs)"
# a reload that makes n1 a polled BMC deletes its subscription
sed -i 's/credentials: bmc, mode: push}/credentials: bmc, mode: poll}/' "$T/c.yaml"
kill -HUP "$PID_wp3"
wait_for 5 grep -q "reloaded" "$T/wp3.log" || fail "no reload: $(tail -3 "$T/wp3.log")"
wait_for 5 subs_are "[]" || fail "the reload left subscriptions: $(stat subs)"
stop_bg wp3
subs_are "[]" || fail "wp3 left subscriptions: $(stat subs)"
grep -l -e Sanitizer -e "runtime error" "$T"/wp*.log &&
	fail "sanitizer reports: $(grep -h -A5 -e Sanitizer -e 'runtime error' "$T"/wp*.log | head -20)"

$PY - "$T" <<'PYEOF' || fail "push POST checks (kept in $T)"
import json, sys
T = sys.argv[1]
m = dict(l.rsplit(" ", 1) for l in open(T + "/metrics.txt").read().splitlines())
def val(k):
    v = [x for n, x in m.items() if k in n]
    assert v and v[0] != "none", "no %s in %s" % (k, m)
    return float(v[0])
assert val('target="n1/bmc",result="ok"') >= 15, m
assert val('result="replayed"') >= 1, m
assert val('target="n1/bmc",result="unknown_sender"') == 1, m
assert val('reason="replayed"') >= 9, m
assert val('push_listen_refused_total{result="unknown_sender"') == 1, m
assert val("stream_up") == 1, m
assert open(T + "/forge1").read().strip() == "", "forged POST not 204"
d = json.load(open(T + "/r.json"))
N = {n["name"]: n for n in d["nodes"]}
want = 5000 * d["window"]["seconds"]
w = {}
for n in ("n1", "n2"):
    b = N[n]["boundaries"]["wall"]
    w[n] = b["energy_j"]
    assert abs(w[n] - want) <= 0.01 * want, "%s wall %s J, want %s" % (n, w[n], want)
assert abs(w["n1"] - w["n2"]) <= 0.01 * w["n2"], w
print("push POST ok: %d reports, wall J pushed %.0f, polled %.0f (%.0f)" % (
    val('result="ok"'), w["n1"], w["n2"], want))
PYEOF
