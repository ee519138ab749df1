#!/bin/sh
# The alert rules on a real Prometheus fed by the simulated fleet with two
# faults injected: node gpu-002's BMC over-reads by 20 % from the start
# (--drift-bmc 1 --drift-gain 0.2 --drift-ramp 0), and PDU pdu-r2-b never
# answers (--dead-pdu 3).  Exactly these alerts may be pending or firing:
#   WattpathTargetDown          the dead PDU's target (one per instance, site)
#   WattpathBmcPduDisagreement  gpu-002 (its BMC 20 % over its outlets), and
#                               gpu-005..008, rack r2, whose outlets on the
#                               dead PDU are missing from their outlet energy
# and nothing else, on any other node, at any time it is watched.  The
# rules are etc/prometheus/wattpath-alerts.yml with every `for:` cut to
# 10 s; their PromQL is left as it is (checked here).  BMCs report joules
# (--shape joules): the rule's 15-minute window is what makes a kWh BMC's
# 36 kJ steps small, and the test watches seconds, not minutes.  Every
# node bursty (--profile bursty): the simulator's steady and idle loads
# give a BMC power reading unchanged to 0.1 W for 30 polls at 1 s, which
# the Redfish driver flags stale (WattpathStaleReading), a real sensor's
# noise never does.  Watching
# starts 15 s after the first scrape: over the first few seconds a PDU
# outlet's 1 Wh steps are a large part of what it counted.
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "prometheus missing"
$PY -c 'import yaml' 2>/dev/null || skip "python3-yaml missing"
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
BASE=$(free_port_base 7)
LISTEN=$(free_port)
bg sim "$SIM" serve --nodes 8 --racks 2 --pdus 4 --meters 2 --seed 7 \
	--shape joules --profile bursty --drift-bmc 1 --drift-gain 0.2 --drift-ramp 0 \
	--dead-pdu 3 --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s --listen-port "$LISTEN"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
grep -q 'name: pdu-r2-b' "$T/w.yaml" || fail "the fleet has no pdu-r2-b"
$PY - "$ROOT/etc/prometheus/wattpath-alerts.yml" "$T/rules.yml" <<'PYEOF' || fail "rules copy"
import re, sys, yaml
src, dst = sys.argv[1:3]
text = open(src).read()
short = re.sub(r"^(\s+)for: \S+$", r"\1for: 10s", text, flags=re.M)
open(dst, "w").write(short)
a, b = yaml.safe_load(text), yaml.safe_load(short)
ra = [r for g in a["groups"] for r in g["rules"]]
rb = [r for g in b["groups"] for r in g["rules"]]
if [r["expr"] for r in ra] != [r["expr"] for r in rb] or len(ra) < 5:
    sys.exit("the copy's PromQL differs")
if not any("for" in r for r in rb) or any(r.get("for", "10s") != "10s" for r in rb):
    sys.exit("for: not rewritten")
PYEOF
bg run sh -c "cd '$ROOT' && exec '$WATTPATH' run -c '$T/w.yaml'"
wait_tcp 127.0.0.1 "$LISTEN" 20
prom_start "$T/rules.yml" "127.0.0.1:$LISTEN"
$PY - "http://127.0.0.1:$PP" "127.0.0.1:$LISTEN" <<'PYEOF' || fail "alerts"
import json, sys, time, urllib.parse, urllib.request
prom, inst = sys.argv[1:3]
def q(e):
    u = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": e})
    return json.load(urllib.request.urlopen(u, timeout=10))["data"]["result"]
# the first scrape
for _ in range(300):
    if q('up{job="wattpath"} == 1'): break
    time.sleep(0.1)
else:
    sys.exit("Prometheus never scraped the collector")
want = {("WattpathTargetDown", None)} | {("WattpathBmcPduDisagreement", n)
        for n in ("gpu-002", "gpu-005", "gpu-006", "gpu-007", "gpu-008")}
time.sleep(15)
seen, bad, firing = {}, [], set()
t_end = time.time() + 35
while time.time() < t_end:
    for r in q("ALERTS"):
        m = r["metric"]
        k = (m["alertname"], m.get("node"))
        seen.setdefault(k, set()).add(m["alertstate"])
        if m["alertstate"] == "firing": firing.add(k)
        if k not in want:
            bad.append("unexpected %s (%s)" % (k, m["alertstate"]))
        elif m.get("site") != "sim-1" or m.get("instance") != inst:
            bad.append("%s without its instance and site: %r" % (k, m))
    if firing == want and time.time() > t_end - 20: break
    time.sleep(1)
for k in sorted(seen, key=str):
    print("--- %s: %s" % (k, sorted(seen[k])), file=sys.stderr)
miss = want - set(seen)
if miss: bad.append("expected alerts never pending or firing: %s" % sorted(miss, key=str))
# the rest of the fleet is there and healthy, so that "nothing" means it
healthy = q('count(wattpath_target_up{site="sim-1"} == 1)')
if not healthy or float(healthy[0]["value"][1]) < 20:
    bad.append("few healthy targets: %r" % healthy)
down = q('wattpath_target_up{site="sim-1"} == 0')
if [r["metric"]["target"] for r in down] != ["pdu-r2-b"]:
    bad.append("targets down: %r" % [r["metric"].get("target") for r in down])
if bad: sys.exit("\n".join(sorted(set(bad))))
PYEOF
alive "$PID_run"
exit 0
