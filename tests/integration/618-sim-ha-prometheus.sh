#!/bin/sh
# An HA pair in one Prometheus (issue 21): two collectors poll the same
# simulated fleet and a real Prometheus scrapes both.  The shipped Grafana
# dashboard's fleet and per-site power expressions (etc/grafana/
# wattpath.json, with $site = all) count each node once: they equal one
# collector's own sum within 10 % (the two collectors' rates over a few
# seconds of joule counters differ by a few %), where a plain sum over both
# instances is twice that.  Its site variable lists the site.  Every
# variable (site, instance, class, node; each substituted by ".*" in the
# panels, as Grafana's "All" does) lists the fleet's values, and every
# panel's first query returns data (but "Targets down" and "Counter resets",
# empty on a healthy fleet); the rack panel's capacity is the racks: entry.
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
	printf 'racks:\n  - {name: r1, capacity_w: 40000}\n' >>"$T/$c.yaml"
	bg "run_$c" "$WATTPATH" run -c "$T/$c.yaml"
	wait_tcp 127.0.0.1 "$l" 20
done
prom_start "" "127.0.0.1:$LA" "127.0.0.1:$LB"
sleep 15
alive "$PID_run_a"; alive "$PID_run_b"

$PY - "$ROOT" "http://127.0.0.1:$PP" "127.0.0.1:$LA" "127.0.0.1:$LB" <<'PYEOF' || fail "the dashboard counts an HA pair twice, or a panel or variable is empty"
import json, re, sys, time, urllib.parse, urllib.request
root, base, inst_a, inst_b = sys.argv[1:5]
d = json.load(open(root + "/etc/grafana/wattpath.json"))
panel = {p["title"]: p for p in d["panels"]}
var_re = re.compile(r"\$\{?(%s)\}?" % "|".join(v["name"] for v in d["templating"]["list"]))
def all_(e):
    return var_re.sub(".*", e)
def expr(title):
    return all_(panel[title]["targets"][0]["expr"])
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
# each variable's values, as Grafana asks for label_values(sel, label)
want_vals = {"site": ["sim-1"], "instance": sorted([inst_a, inst_b]), "class": ["hgx-h100-8"],
             "node": None}
for v in d["templating"]["list"]:
    if v["type"] != "query":
        continue
    m = re.match(r"label_values\((.*), (\w+)\)$", v["query"]["query"])
    u = base + "/api/v1/label/%s/values?" % m.group(2) + urllib.parse.urlencode({"match[]": all_(m.group(1))})
    got = sorted(json.load(urllib.request.urlopen(u, timeout=5))["data"])
    w = want_vals.get(v["name"])
    ok = got == w if w is not None else len(got) == 3
    print("variable %-8s %r %s" % (v["name"], got, "ok" if ok else "FAIL"))
    if not ok:
        fails.append("variable %s lists %r" % (v["name"], got))
# every panel's first query returns data on the simulated fleet
empty_ok = {"Targets down", "Counter resets (1 h)"}
for attempt in range(30):
    t = time.time() - 1
    empty = [p["title"] for p in d["panels"] if p["title"] not in empty_ok
             and not q(all_(p["targets"][0]["expr"]), t)]
    if not empty:
        break
    time.sleep(1)
for title in empty:
    print("panel %r: no data" % title)
    fails.append("panel %r empty" % title)
print("%d panels with data" % (len(d["panels"]) - len(empty_ok) - len(empty)))
rack = panel["Rack power (wall, each node once) against capacity"]["targets"]
cap = q(all_(rack[1]["expr"]), t)
if [(r["metric"].get("rack"), float(r["value"][1])) for r in cap] != [("r1", 40000.0)]:
    fails.append("rack capacity %r, not r1 40000" % cap)
# the rack's power: its nodes' wall gauges once (one collector's), not twice
pw = q(all_(rack[0]["expr"]), t)
wall = q('sum(wattpath_node_power_watts{boundary="wall", instance="%s"})' % inst_a, t)
wall = float(wall[0]["value"][1]) if wall else 0
if [r["metric"].get("rack") for r in pw] != ["r1"] or not (0.9 * wall < float(pw[0]["value"][1]) < 1.1 * wall):
    fails.append("rack power %r, not r1 at one collector's wall %.1f W" % (pw, wall))
else:
    print("rack r1 %.1f W (one collector's wall %.1f W) against %.0f W ok" % (float(pw[0]["value"][1]), wall, 40000))
if fails:
    print("FAILED: " + ", ".join(fails)); sys.exit(1)
PYEOF
alive "$PID_prom"
exit 0
