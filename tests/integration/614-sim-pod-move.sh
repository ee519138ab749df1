#!/bin/sh
# fast
# A pod that moves between GPUs mid-window (issue 22): two shared nodes
# whose engine0 pod (namespace search) moves from GPU 3 to the idle GPU 7
# an hour in (`wattpath-sim --pod-move`; dcgm's pod labels follow), a
# tenant map by namespace, two hours through the collector's ingest.  The
# report over a window around the move gives each namespace the GPU energy
# it held (GPU 3's before the move, GPU 7's after, to search) and the
# wall and outlet by the proportional rule, against `wattpath-sim truth`
# of the two halves within 0.5 %; the tenants add up to the fleet at every
# boundary; without the move the same GPUs' split differs (the test can
# tell).
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
TO=1795939200
FROM=$((TO - 7200))
MV=$((FROM + 3605))
FLEET="--nodes 4 --racks 1 --pdus 2 --meters 3 --seed 6 --shared 2 --shape joules --pod-move $MV"
"$SIM" history $FLEET --from $FROM --to $TO --step 10s --data-dir "$T/d" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }
C=$T/d/wattpath.yaml
cat >>"$C" <<'YEOF'
tenants:
  - {name: search-team, namespaces: [search]}
  - {name: chat-team, namespaces: [chat]}
YEOF
"$WATTPATH" check-config -c "$C" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "check-config"; }
A=$((FROM + 600))
B=$((TO - 600))
"$WATTPATH" report -c "$C" --from $A --to $B --format json >"$T/r.json" \
	2>"$T/r.err" || { cat "$T/r.err"; fail "report"; }
"$SIM" truth $FLEET --from $A --to $MV --json >"$T/t1.json" || fail "truth 1"
"$SIM" truth $FLEET --from $MV --to $B --json >"$T/t2.json" || fail "truth 2"
"$SIM" truth $FLEET --from $A --to $B --json >"$T/t.json" || fail "truth"
$PY - "$T/t1.json" "$T/t2.json" "$T/t.json" "$T/r.json" <<'PYEOF' || fail "per-namespace figures differ from truth"
import json, sys
t1, t2, t, r = (json.load(open(f)) for f in sys.argv[1:5])
# the shared nodes are the last two; engine0 (search) GPUs 0-3, then 0-2 and 7
shared = [n["name"] for n in t["nodes"][-2:]]
before = {"search": [0, 1, 2, 3], "chat": [4, 5, 6]}
after = {"search": [0, 1, 2, 7], "chat": [4, 5, 6]}
truth = {"search": 0.0, "chat": 0.0}
tw = {"search": 0.0, "chat": 0.0}
for name in shared:
    n1 = next(n for n in t1["nodes"] if n["name"] == name)
    n2 = next(n for n in t2["nodes"] if n["name"] == name)
    n = next(n for n in t["nodes"] if n["name"] == name)
    for ns in truth:
        g = sum(n1["gpus_j"][k] for k in before[ns]) + \
            sum(n2["gpus_j"][k] for k in after[ns])
        truth[ns] += g
        # the report's rule: the node's overhead over its GPUs by GPU share
        tw[ns] += g + (n["wall_j"] - n["gpu_j"]) * g / n["gpu_j"]
tn = {x["name"]: x for x in r["tenants"]}
bad = []
def near(what, got, want, rel):
    ok = got is not None and abs(got - want) <= rel * abs(want)
    print("%-28s report %-16.6g truth %-16.6g %s" % (what, got or 0, want,
          "ok" if ok else "OFF"))
    if not ok:
        bad.append(what)
for ns, team in (("search", "search-team"), ("chat", "chat-team")):
    b = tn[team]["boundaries"]
    near(team + " gpu", b["gpu"]["energy_j"], truth[ns], 0.005)
    near(team + " wall", b["wall"]["energy_j"], tw[ns], 0.005)
# the static layout (GPU 3 to search all along) is off by GPU 3's and 7's
# difference: the test would see it
static = 0.0
for name in shared:
    n = next(n for n in t["nodes"] if n["name"] == name)
    static += sum(n["gpus_j"][k] for k in before["search"])
if abs(static - truth["search"]) < 0.02 * truth["search"]:
    bad.append("the move does not change the truth enough to be seen")
for k, v in r["boundaries"].items():
    s = sum(m["boundaries"][k]["energy_j"] for m in r["tenants"])
    if abs(s - v["energy_j"]) > 1e-9 * v["energy_j"]:
        bad.append("tenants do not add up at %s: %r vs %r" % (k, s, v["energy_j"]))
if bad:
    print("FAIL:", bad); sys.exit(1)
PYEOF
