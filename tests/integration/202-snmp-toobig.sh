#!/bin/sh
# fast
# A PDU whose agent answers GETs of more than 10 varbinds with tooBig (a
# small maximum message size; wattpath-sim --snmp-max-get 10): the
# collector halves its GETs (profile max_get 24, then 12, then 6) and reads
# every outlet and the inlet, polls succeed, and the power it journals is
# what the agent serves (steady load: constant power).  The agent's refusal
# itself is checked with snmpget first, so the test cannot pass on an agent
# that never says tooBig.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v snmpget >/dev/null || skip "snmpget missing (Debian snmp)"
BASE=$(free_port_base)
bg sim "$SIM" serve --nodes 3 --racks 1 --pdus 2 --meters 0 --seed 5 \
	--profile steady --shape joules --port-base "$BASE" \
	--config-out "$T/sim.yaml" --snmp-max-get 10
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
C=$(cat "$T/secrets/community")
A=127.3.0.1:$((BASE + 4))
# activePower (sensor type 5) of outlets 1..N of PDU 1
pw() { echo 1.3.6.1.4.1.13742.6.5.4.3.1.4.1.$1.5; }

# The agent: 10 varbinds answered, 11 refused with tooBig.
MIBS= snmpget -v2c -c "$C" -On -t 2 -r 1 "$A" $(for o in $(seq 1 10); do pw $o; done) \
	>"$T/get10.txt" 2>&1 || { cat "$T/get10.txt"; fail "GET of 10 varbinds"; }
[ "$(grep -c "= Gauge32: " "$T/get10.txt")" = 10 ] || { cat "$T/get10.txt"; fail "10 values"; }
MIBS= snmpget -v2c -c "$C" -On -t 2 -r 1 "$A" $(for o in $(seq 1 11); do pw $o; done) \
	>"$T/get11.txt" 2>&1
grep -qi "toobig\|too big\|too long" "$T/get11.txt" ||
	{ cat "$T/get11.txt"; fail "a GET of 11 varbinds was not refused as tooBig"; }

LISTEN=$(free_port)
cat >"$T/w.yaml" <<EOF
collector:
  interval: 1s
  timeout: 1s
  data_dir: $T/wp
  listen: 127.0.0.1:$LISTEN
  log_level: info
  maps_dir: $ROOT/etc
credentials:
  - {name: com, community_file: $T/secrets/community}
pdus:
  - {name: pdu-a, address: "127.3.0.1:$((BASE + 4))", profile: raritan-pdu2,
     snmp: {version: 2c, credentials: com, timeout: 500ms}}
  - {name: pdu-b, address: "127.3.0.2:$((BASE + 4))", profile: auto,
     snmp: {version: 2c, credentials: com, timeout: 500ms}}
site: {name: t, zone: FR}
EOF
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/check.log" 2>&1 ||
	{ cat "$T/check.log"; fail "check-config"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
sleep 5
alive "$PID_run"
curl -sf "http://127.0.0.1:$LISTEN/metrics" >"$T/m.txt" || fail "/metrics"
MIBS= snmpget -v2c -c "$C" -On -t 2 -r 1 "$A" $(for o in 1 2 3; do pw $o; done) \
	>"$T/served.txt" 2>&1 || { cat "$T/served.txt"; fail "GET of served power"; }
stop_bg run
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "journal export"

$PY - "$T/j.csv" "$T/m.txt" "$T/served.txt" <<'PYEOF' || fail "collector under tooBig"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
err = []
for t in ("pdu-a", "pdu-b"):
    polls = {}
    for r in rows:
        if r["target"] == t:
            polls.setdefault(r["t_real_ns"], []).append(r)
    ok = [p for p in polls.values() if p[0]["status"] == "ok" and p[0]["series"]]
    if len(ok) < 2:
        err.append("%s: %d good polls of %d" % (t, len(ok), len(polls)))
        continue
    last = ok[-1]
    outs = {r["series"] for r in last if r["series"].startswith("outlet/")}
    if len(outs) != 48:      # 24 outlets x (power, energy)
        err.append("%s: %d outlet series in the last poll" % (t, len(outs)))
    if not any(r["series"] == "inlet/1/power" for r in last):
        err.append("%s: no inlet power" % t)
    bad = [p for p in polls.values() if p[0]["status"] != "ok"]
    if len(bad) > 0:
        err.append("%s: %d failed polls (%s)" % (t, len(bad), bad[0][0]["error"]))
served = {int(m.group(1)): float(m.group(2)) for m in
          re.finditer(r"\.4\.1\.(\d+)\.5 = Gauge32: (\d+)", open(sys.argv[3]).read())}
last = {}
for r in rows:
    if r["target"] == "pdu-a" and r["status"] == "ok":
        last[r["series"]] = float(r["value"])
for o, w in served.items():
    got = last.get("outlet/%d/power" % o)
    if w <= 0 or got is None or abs(got - w) > 1:
        err.append("outlet %d power: journal %s, agent %s W" % (o, got, w))
if len(served) != 3:
    err.append("agent answered %d of 3 outlets" % len(served))
up = re.findall(r'^wattpath_target_up\{[^}]*target="(pdu-[ab])"[^}]*\} (\S+)',
                open(sys.argv[2]).read(), re.M)
if sorted(up) != [("pdu-a", "1"), ("pdu-b", "1")]:
    err.append("up: %s" % up)
print("\n".join(err) or "ok: %d records" % len(rows))
sys.exit(1 if err else 0)
PYEOF
exit 0
