#!/bin/sh
# fast
# Per model and per tenant against the simulator's truth (issue 22): a
# fleet whose last two nodes are shared by two models (engine0 on GPUs
# 0-3, engine1 on GPUs 4-6, GPU 7 idle), two hours through the collector's
# ingest.  The report's models (GPU and outlet energy, tokens; the wall
# where every BMC has a joule counter) agree with `wattpath-sim truth`'s
# per-model split within 0.5 %, the idle GPUs are `unallocated`, the
# entries add up to the fleet's boundaries at every boundary, and the
# tenants (by model, by node) add up too; the showback CSV has the rows.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 8 --racks 2 --pdus 4 --meters 3 --seed 5 --shared 2 --shape joules"
TO=1795939200
FROM=$((TO - 7200))
"$SIM" history $FLEET --from $FROM --to $TO --step 10s --data-dir "$T/d" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }
C=$T/d/wattpath.yaml
cat >>"$C" <<'YEOF'
tenants:
  - {name: search, models: [mistral-7b]}
  - {name: research, nodes: [gpu-001, gpu-002]}
YEOF
"$WATTPATH" check-config -c "$C" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "check-config"; }
A=$((FROM + 600))
B=$((TO - 600))
"$WATTPATH" report -c "$C" --from $A --to $B --format json --showback-csv \
	"$T/sb.csv" >"$T/r.json" 2>"$T/r.err" || { cat "$T/r.err"; fail "report"; }
"$SIM" truth $FLEET --from $A --to $B --json >"$T/t.json" || fail "truth"
$PY - "$T/t.json" "$T/r.json" "$T/sb.csv" <<'PYEOF' || fail "per-model figures differ from truth"
import csv, json, sys
t = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
rm = {m["name"]: m for m in r["models"]}
bad = []
def near(what, got, want, rel):
    ok = got is not None and abs(got - want) <= rel * abs(want)
    print("%-34s report %-16.6g truth %-16.6g %s" % (what, got or 0, want,
          "ok" if ok else "OFF"))
    if not ok:
        bad.append(what)
assert r["attribution"]["rule"] == "proportional", r["attribution"]
assert r["models"][-1]["name"] == "unallocated" and r["models"][-1]["unallocated"]
for m in t["models"]:
    x = rm.get(m["name"])
    if x is None:
        bad.append("no model " + m["name"]); continue
    b = x["boundaries"]
    near(m["name"] + " gpu", b["gpu"]["energy_j"], m["gpu_j"], 0.005)
    near(m["name"] + " wall", b["wall"]["energy_j"], m["wall_j"], 0.005)
    near(m["name"] + " outlet", b["outlet"]["energy_j"], m["outlet_j"], 0.005)
    if m["name"] != "unallocated":
        near(m["name"] + " tokens", x["tokens"]["output"],
             m["tokens_output"], 0.005)
        near(m["name"] + " J/token wall", b["wall"]["j_per_output_token"],
             m["wall_j"] / m["tokens_output"], 0.01)
assert rm["mistral-7b"]["nodes"] == 2 and rm["mistral-7b"]["gpus"] == 6
assert rm["unallocated"]["gpus"] == 2, rm["unallocated"]
for scope in ("models", "tenants"):
    for k, v in r["boundaries"].items():
        s = sum(m["boundaries"][k]["energy_j"] for m in r[scope])
        if abs(s - v["energy_j"]) > 1e-9 * v["energy_j"]:
            bad.append("%s do not add up at %s: %r vs %r" % (scope, k, s,
                       v["energy_j"]))
tn = {x["name"]: x for x in r["tenants"]}
assert [x["name"] for x in r["tenants"]] == ["search", "research",
                                             "unallocated"], tn.keys()
near("tenant search gpu", tn["search"]["boundaries"]["gpu"]["energy_j"],
     rm["mistral-7b"]["boundaries"]["gpu"]["energy_j"], 1e-9)
nodes = {n["name"]: n for n in r["nodes"]}
near("tenant research wall", tn["research"]["boundaries"]["wall"]["energy_j"],
     nodes["gpu-001"]["boundaries"]["wall"]["energy_j"] +
     nodes["gpu-002"]["boundaries"]["wall"]["energy_j"], 1e-9)
rows = list(csv.DictReader(open(sys.argv[3])))
keys = {(x["scope"], x["name"], x["boundary"]) for x in rows}
for want in [("tenant", "search", "wall"), ("model", "mistral-7b", "gpu"),
             ("model", "unallocated", "facility")]:
    if want not in keys:
        bad.append("showback CSV lacks %r" % (want,))
if bad:
    print("FAIL:", bad); sys.exit(1)
PYEOF
