#!/bin/sh
# An HA pair in one Prometheus (issue 21): two collectors poll the same
# simulated fleet and a real Prometheus scrapes both.  The shipped Grafana
# dashboard's fleet and per-site power expressions (etc/grafana/
# wattpath.json, with $site = all) count each node once: they equal one
# collector's own sum within 10 % (the two collectors' rates over a few
# seconds of joule counters differ by a few %), where a plain sum over both
# instances is twice that.  Its site variable lists the site.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v prometheus >/dev/null || skip "prometheus missing"
FLEET="--nodes 3 --racks 1 --pdus 2 --meters 2 --seed 7 --profile steady --shape joules"
BASE=$(free_port_base 6)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
LA=$(free_port); LB=$(free_port)
[ "$LA" != "$LB" ] || LB=$(free_port)
for c in a b; do
	eval "l=\$L$(echo $c | tr ab AB)"
	sed -e "s|^  data_dir: .*|  data_dir: \"$T/d$c\"|" \
	    -e "s|^  listen: .*|  listen: 127.0.0.1:$l|" "$T/w.yaml" >"$T/$c.yaml"
	bg "run_$c" "$WATTPATH" run -c "$T/$c.yaml"
	wait_tcp 127.0.0.1 "$l" 20
done
PP=$(free_port)
cat >"$T/prom.yml" <<EOF2
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: wattpath
    static_configs: [{targets: ["127.0.0.1:$LA", "127.0.0.1:$LB"]}]
EOF2
bg prom prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address=127.0.0.1:$PP --log.level=warn
wait_tcp 127.0.0.1 "$PP" 30
sleep 15
alive "$PID_run_a"; alive "$PID_run_b"

$PY - "$ROOT" "http://127.0.0.1:$PP" "127.0.0.1:$LA" <<'PYEOF' || fail "the dashboard counts an HA pair twice"
import json, sys, time, urllib.parse, urllib.request
root, base, inst_a = sys.argv[1:4]
d = json.load(open(root + "/etc/grafana/wattpath.json"))
panel = {p["title"]: p for p in d["panels"]}
def expr(title):
    return panel[title]["targets"][0]["expr"].replace("$site", ".*")
def q(e, t):
    u = base + "/api/v1/query?" + urllib.parse.urlencode({"query": e, "time": t})
    return json.load(urllib.request.urlopen(u, timeout=5))["data"]["result"]
fleet = expr("Fleet power by boundary (from energy, each node once)")
by_site = expr("Power by site and boundary (each node once)")
one = 'sum by (boundary) (rate(wattpath_node_energy_joules_total{instance="%s"}[2m]))' % inst_a
naive = "sum by (boundary) (rate(wattpath_node_energy_joules_total[2m]))"
fails = []
for attempt in range(20):
    t = time.time() - 1
    R = {}
    for name, e in (("fleet", fleet), ("one", one), ("naive", naive), ("site", by_site)):
        R[name] = {(r["metric"].get("site", ""), r["metric"]["boundary"]): float(r["value"][1])
                   for r in q(e, t)}
    if R["one"] and all(R[k] for k in R) and all(
            len(q("count(wattpath_node_energy_joules_total{boundary=\"wall\"}) by (instance)", t)) == 2
            for _ in [0]):
        break
    time.sleep(1)
fails = []
one = {b: v for (_, b), v in R["one"].items()}
for name in ("fleet", "naive"):
    got = {b: v for (_, b), v in R[name].items()}
    for b in ("gpu", "wall"):
        want = one.get(b, 0) * (2 if name == "naive" else 1)
        ok = want > 0 and abs(got.get(b, 0) - want) <= 0.10 * want
        print("%-6s %-5s %12.1f W, one collector %12.1f W %s" % (name, b, got.get(b, 0), one.get(b, 0), "ok" if ok else "FAIL"))
        if not ok:
            fails.append("%s %s" % (name, b))
sites = sorted({s for (s, _) in R["site"]})
if sites != ["sim-1"]:
    fails.append("per-site panel sites %r" % sites)
for (s, b), v in R["site"].items():
    if b in ("gpu", "wall") and abs(v - one[b]) > 0.10 * one[b]:
        fails.append("per-site %s %s = %.1f, not %.1f" % (s, b, v, one[b]))
tv = [v for v in d["templating"]["list"] if v["name"] == "site"]
if not tv or "site" not in tv[0]["query"]["query"]:
    fails.append("no site variable")
if fails:
    print("FAILED: " + ", ".join(fails)); sys.exit(1)
PYEOF
alive "$PID_prom"
exit 0
