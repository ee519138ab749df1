#!/bin/sh
# fast
# Several nodes behind one BMC, and collections too big to read at once:
#   1. check-config: bmc: system: accepted; misspelled it is an error at its
#      line; in a PDU block, or with a '/', an error;
#   2. a Cray EX235n-style blade (two nodes behind one node controller) at
#      127.0.0.31 polled as three targets: n0 (system: Node0), n1 (system:
#      Node1) and blade (no system: the BMC's total): ONE session for all
#      three, each node's wall/energy its own counter (following the trace),
#      the blade's the sum of both (systems=2); reloads that drop two of the
#      targets, then add them back, keep that one session; it is deleted at
#      exit;
#   3. probe -o system=Node1 chooses Node1's input; an unknown system is a
#      clear error naming it;
#   4. an 805-Sensor node (the input the 791st) served 100 members a page,
#      with and without $expand: probe finds the input, says nothing was
#      skipped, and the requests it made match its count.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
FX=$FIX/redfish
secret_file "$T/pw" secret
L=$(free_port)
P=$(free_port 127.0.0.31)

cfg() {	# FILE NODES-YAML
	cat >"$1" <<YAML
collector: {interval: 1s, data_dir: $T/data, log_level: debug, listen: "127.0.0.1:$L"}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
$2
YAML
}

note "1. check-config: system:"
cfg "$T/ok.yaml" "nodes:
  - {name: n0, bmc: {url: \"http://127.0.0.31:$P\", credentials: bmc, system: Node0}}"
"$WATTPATH" check-config -c "$T/ok.yaml" >"$T/ok.log" 2>&1 ||
	fail "system: refused: $(cat "$T/ok.log")"
cfg "$T/typo.yaml" "nodes:
  - name: n0
    bmc:
      url: \"http://127.0.0.31:$P\"
      credentials: bmc
      sytem: Node0"
if "$WATTPATH" check-config -c "$T/typo.yaml" >"$T/typo.log" 2>&1; then
	fail "misspelled system: accepted"
fi
grep -q "^$T/typo.yaml:9: node n0: bmc: unknown key 'sytem'" "$T/typo.log" ||
	fail "misspelled key: $(cat "$T/typo.log")"
cfg "$T/pdu.yaml" "pdus:
  - {name: p1, url: \"http://127.0.0.31:$P\", credentials: bmc, system: Node0}"
if "$WATTPATH" check-config -c "$T/pdu.yaml" >"$T/pdu.log" 2>&1; then
	fail "system: in a PDU accepted"
fi
grep -q "^$T/pdu.yaml:5: pdu p1: system: is for a node's bmc block" "$T/pdu.log" ||
	fail "system in a PDU: $(cat "$T/pdu.log")"
cfg "$T/slash.yaml" "nodes:
  - {name: n0, bmc: {url: \"http://127.0.0.31:$P\", credentials: bmc, system: /Node0}}"
if "$WATTPATH" check-config -c "$T/slash.yaml" >"$T/slash.log" 2>&1; then
	fail "system /Node0 accepted"
fi
grep -q "^$T/slash.yaml:5: node n0: bmc: system '/Node0'" "$T/slash.log" ||
	fail "system with a slash: $(cat "$T/slash.log")"

note "2. three targets on one two-node BMC: one session"
bg rf31 $PY "$PEER" --root "$FX/synthetic-cray-ex235n" --bind 127.0.0.31 \
	--port "$P" --trace 900:2,1500:2
wait_tcp 127.0.0.31 "$P"
URL=http://127.0.0.31:$P
cfg "$T/c.yaml" "nodes:
  - {name: n0, bmc: {url: \"$URL\", credentials: bmc, system: Node0}}
  - {name: n1, bmc: {url: \"$URL\", credentials: bmc, system: Node1}}
  - {name: blade, bmc: {url: \"$URL\", credentials: bmc}}"
"$WATTPATH" check-config -c "$T/c.yaml" >/dev/null 2>&1 || fail "c.yaml refused"
stats() {	# KEY
	$PY -c "import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['$1'])"
}
bg wp "$WATTPATH" run -c "$T/c.yaml"
sleep 9
alive "$PID_wp"
st=$($PY -c "import urllib.request as u; print(u.urlopen('$URL/_test/stats').read().decode())")
T1=$($PY -c "import time; print(time.time())")
cp "$T/c.yaml" "$T/c3.yaml"
cfg "$T/c.yaml" "nodes:
  - {name: n0, bmc: {url: \"$URL\", credentials: bmc, system: Node0}}"
kill -HUP "$PID_wp"
wait_for 5 grep -q "reloaded: 1 targets" "$T/wp.log" || fail "no reload to one target"
g=$(stats gets)
wait_for 5 sh -c "[ \$($PY -c \"import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['gets'])\") -gt $((g + 2)) ]" ||
	fail "n0 stopped polling after the reload"
[ "$(stats open)" = 1 ] && [ "$(stats created)" = 1 ] && [ "$(stats deleted)" = 0 ] ||
	fail "dropping two targets of the BMC: open $(stats open), created $(stats created), deleted $(stats deleted)"
cp "$T/c3.yaml" "$T/c.yaml"
kill -HUP "$PID_wp"
wait_for 5 grep -q "reloaded: 3 targets" "$T/wp.log" || fail "no reload to three targets"
sleep 3
[ "$(stats open)" = 1 ] && [ "$(stats created)" = 1 ] ||
	fail "adding two targets back: open $(stats open), created $(stats created)"
stop_bg wp
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"
$PY -c "import urllib.request as u; print(u.urlopen('$URL/_test/stats').read().decode())" \
	>"$T/stats.json"
$PY - "$T" "$URL" "$st" "$T1" <<'PYEOF' || fail "journal content (kept in $T/j.csv)"
import csv, json, sys, urllib.request
T, URL, running = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
t1 = float(sys.argv[4])
rows = [r for r in csv.DictReader(open(T + "/j.csv"))
        if int(r["t_real_ns"]) / 1e9 < t1]
st = json.load(open(T + "/stats.json"))
assert running["open"] == 1 and running["created"] == 1, \
    "three targets, one BMC: %s" % running
assert st["open"] == 0 and st["peak_open"] == 1 and st["created"] == 1, st

def energy(a, b):
    u = "%s/_test/energy?from=%r&to=%r" % (URL, a, b)
    return json.load(urllib.request.urlopen(u))["joules"]

def series(node, name):
    return [r for r in rows if r["target"] == node + "/bmc" and
            r["series"] == name]

for node, k, pick in (("n0", 1, "Node0"), ("n1", 1, "Node1"),
                      ("blade", 2, None)):
    e = series(node, "wall/energy")[1:]
    assert len(e) >= 5, "%s: %d energy rows" % (node, len(e))
    lab = e[-1]["labels"]
    assert "source=Sensor.EnergyJoules" in lab, lab
    assert ("systems=2" in lab) == (pick is None), (node, lab)
    got = sum(float(r["delta"] or 0) for r in e[1:])
    t = [int(r["t_real_ns"]) / 1e9 for r in e]
    want = k * energy(t[0], t[-1])
    assert abs(got - want) <= 0.01 * want, (node, got, want)
    p = series(node, "wall/power")
    assert p and all(float(r["value"]) in (k * 900.0, k * 1500.0)
                     for r in p), (node, [r["value"] for r in p][:5])
    print("%s: %.0f J, trace x%d %.0f J; %s" % (node, got, k, want, lab))
PYEOF

note "3. probe -o system="
"$WATTPATH" probe "$URL" --json --user monitor --password-file "$T/pw" \
	-o system=Node1 >"$T/p1.json" 2>"$T/p1.err" || fail "probe system=Node1: $(cat "$T/p1.err")"
c=$(json_get "$T/p1.json" "' '.join(s['path'].rsplit('/',1)[-1] for s in d['sources'] if s['chosen'])")
[ "$c" = Node1_Energy ] || fail "system=Node1 chose: $c"
n=$(json_get "$T/p1.json" "sum(1 for s in d['sources'] if 'Node0_' in s['path'] and s['boundary']=='wall')")
[ "$n" = 0 ] || fail "Node0's readings counted as Node1's wall: $n"
"$WATTPATH" probe "$URL" --json --user monitor --password-file "$T/pw" \
	>"$T/p2.json" 2>"$T/p2.err" || fail "probe"
c=$(json_get "$T/p2.json" "' '.join(sorted(s['path'].rsplit('/',1)[-1] for s in d['sources'] if s['chosen']))")
[ "$c" = "Node0_Energy Node1_Energy" ] || fail "no system: chose $c"
if "$WATTPATH" probe "$URL" --user monitor --password-file "$T/pw" \
	-o system=Node7 >/dev/null 2>"$T/p3.err"; then fail "system=Node7 accepted"; fi
grep -q "no system 'Node7'" "$T/p3.err" || fail "unknown system: $(cat "$T/p3.err")"

note "4. 805 Sensors, 100 a page, with and without \$expand"
for how in "" --no-expand; do
	P2=$(free_port 127.0.0.32)
	bg "rf32$how" $PY "$PEER" --root "$FX/synthetic-cray-ex255a" \
		--bind 127.0.0.32 --port "$P2" --trace 2650 --page 100 $how
	wait_tcp 127.0.0.32 "$P2"
	U2=http://127.0.0.32:$P2
	g0=$($PY -c "import json,urllib.request as u; print(json.load(u.urlopen('$U2/_test/stats'))['gets'])")
	"$WATTPATH" probe "$U2" --json --user monitor --password-file "$T/pw" \
		>"$T/s$how.json" 2>"$T/s$how.err" || fail "probe 805 $how: $(cat "$T/s$how.err")"
	g1=$($PY -c "import json,urllib.request as u; print(json.load(u.urlopen('$U2/_test/stats'))['gets'])")
	c=$(json_get "$T/s$how.json" "' '.join(s['path'].rsplit('/',1)[-1]+'='+str(s['value']) for s in d['sources'] if s['chosen'])")
	[ "$c" = Sensor_0790=2650 ] || fail "805 $how: chose $c"
	grep -q "only the first\|walk stopped" "$T/s$how.err" && fail "805 $how: something skipped"
	n=$(json_get "$T/s$how.json" "d['device']['extra'].split()[0].split('=')[1]")
	[ "$n" = $((g1 - g0)) ] || fail "805 $how: probe counts $n requests, the BMC served $((g1 - g0))"
	note "805 Sensors ${how:-with \$expand}: $n requests"
done
exit 0
