#!/bin/sh
# Two collectors for availability, and reports across collectors (issue
# 21): over one simulated fleet (4 nodes, 2 PDUs, 2 meters, polled every
# 1 s) run an HA pair A and B (both the whole fleet, own data_dir) and two
# shards S0, S1 ({index, count: 2}).  Each collector holds one Redfish
# session per session-auth BMC (the simulator's session list: 3 while A, B
# and a shard poll it).  A is killed (SIGKILL) in the middle of the window.
#   - `report --data-dir A --data-dir B` takes each target from B (A has no
#     reading at the window's end), says so per target in
#     disclosure.sources and in a warning, never adds the two: every node's
#     GPU and wall energy, the meters and the tokens agree with
#     `wattpath-sim truth` within 0.5 %, and equal the report over B alone;
#     listed the other way round the figures are the same;
#   - `report --data-dir S0 --data-dir S1` (the shards) merges disjoint
#     targets (one candidate each) to the same figures; all four together
#     too (each target has 3 candidates, one is used);
#   - report.data_dirs in the config does what the flags do; a data dir
#     listed twice is a FILE:LINE error of check-config;
#   - a tampered journal among the data dirs refuses the report, named;
#     `journal verify --dir .. --dir ..` verifies each on its own.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
FLEET="--nodes 4 --racks 1 --pdus 2 --meters 2 --seed 31 --shape joules"
BASE=$(free_port_base 6)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }

# conf IN OUT DATA [SHARD]: IN with its own data_dir and listen port
conf() {
	sed -e "s|^  data_dir: .*|  data_dir: \"$3\"|" \
	    -e "s|^  listen: .*|  listen: 127.0.0.1:$(free_port)|" "$1" >"$2"
	[ -z "${4:-}" ] || sed -i "s|^collector:|collector:\n  shard: $4|" "$2"
}
conf "$T/w.yaml" "$T/a.yaml" "$T/dA"
conf "$T/w.yaml" "$T/b.yaml" "$T/dB"
conf "$T/w.yaml" "$T/s0.yaml" "$T/dS0" "{index: 0, count: 2}"
conf "$T/w.yaml" "$T/s1.yaml" "$T/dS1" "{index: 1, count: 2}"
for c in a b s0 s1; do
	"$WATTPATH" check-config -c "$T/$c.yaml" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log"; fail "config $c"; }
	bg "run_$c" "$WATTPATH" run -c "$T/$c.yaml"
done
now() { $PY -c 'import time; print("%.3f" % time.time())'; }
sleep 5
for c in a b s0 s1; do eval alive "\$PID_run_$c"; done

# The session budget: one session per collector on each session BMC.
CA=$T/sim-ca.pem
PW=$(cat "$T/secrets/bmc")
n_sess=0
for url in $(sed -n 's|.*bmc: {url: "\([^"]*\)".*auth: session.*|\1|p' "$T/w.yaml"); do
	curl -sf --cacert "$CA" -u "monitor:$PW" "$url/redfish/v1/SessionService/Sessions" \
		>"$T/sess.json" || fail "session list of $url"
	n=$(json_get "$T/sess.json" 'd["Members@odata.count"]')
	note "$url: $n sessions"
	[ "$n" = 3 ] || fail "$url holds $n sessions, not 3 (A, B and one shard)"
	n_sess=$((n_sess + 1))
done
[ "$n_sess" -ge 1 ] || fail "no session-auth BMC in the simulated fleet"

FROM=$(now)
sleep 25
kill -9 "$PID_run_a"
note "collector A killed mid-window"
sleep 37
TO=$(now)
sleep 3
for c in b s0 s1; do
	eval "p=\$PID_run_$c"; alive "$p"; kill "$p"
	wait_for 10 sh -c "! kill -0 $p" || fail "run $c did not stop"
done
"$SIM" truth $FLEET --from "$FROM" --to "$TO" --json >"$T/truth.json" ||
	fail "truth"

# rep NAME DIR...: the report over those data dirs into $T/NAME.json
rep() {
	name=$1; shift
	args=""
	for d in "$@"; do args="$args --data-dir $T/$d"; done
	"$WATTPATH" report -c "$T/w.yaml" --from "$FROM" --to "$TO" $args \
		>"$T/$name.json" 2>"$T/$name.err" ||
		{ cat "$T/$name.err"; fail "report $name"; }
}
rep ab dA dB
rep ba dB dA
rep b dB
# A alone: killed before the window's end, no figure (exit 1, printed)
"$WATTPATH" report -c "$T/w.yaml" --from "$FROM" --to "$TO" --data-dir "$T/dA" \
	>"$T/a.json" 2>"$T/a.err" && fail "A alone has a figure over the window"
rep shards dS0 dS1
rep all dA dB dS0 dS1

$PY - "$T" <<'PYEOF' || fail "reports across collectors"
import json, sys
T = sys.argv[1]
ld = lambda n: json.load(open("%s/%s.json" % (T, n)))
truth = ld("truth")
fails = []
def fig(r):
    """The figures a double count would change: per node and fleet."""
    out = {}
    for n in r.get("nodes", []):
        for b in ("gpu", "wall"):
            out["%s.%s" % (n["name"], b)] = (n["boundaries"].get(b) or {}).get("energy_j")
    for b in ("gpu", "wall"):
        out["fleet." + b] = r["boundaries"].get(b, {}).get("energy_j")
    p = r.get("pue") or {}
    out["facility"] = p.get("facility_energy_j")
    out["it"] = p.get("it_energy_j")
    out["tokens"] = (r.get("tokens") or {}).get("output")
    return out
def near(name, a, b, tol=0.005):
    ok = a is not None and b is not None and abs(a - b) <= tol * abs(b)
    print("%-28s %16s %16s %s" % (name, a, b, "ok" if ok else "FAIL"))
    if not ok:
        fails.append(name)
ab, ba, b, a, sh, al = ld("ab"), ld("ba"), ld("b"), ld("a"), ld("shards"), ld("all")
tn = {n["name"]: n for n in truth["nodes"]}
F = fig(ab)
for nm, n in tn.items():
    near(nm + " gpu vs truth", F.get(nm + ".gpu"), n["gpu_j"])
    near(nm + " wall vs truth", F.get(nm + ".wall"), n["wall_j"])
tt = truth["totals"]
near("fleet gpu vs truth", F["fleet.gpu"], tt["gpu_j"])
near("facility vs truth", F["facility"], tt["facility_j"])
near("it vs truth", F["it"], tt["it_j"])
near("tokens vs truth", F["tokens"], tt["tokens_output"])
# the same series as B alone, whichever order, and as the shards
for other, name in ((b, "B alone"), (ba, "B, A"), (sh, "shards"), (al, "all four")):
    G = fig(other)
    for k, v in F.items():
        near("%s = %s" % (k, name), G.get(k), v, 1e-9 if name != "shards" and name != "all four" else 0.005)
# A alone, killed before the window's end, has no full window
if (a["boundaries"].get("gpu") or {}).get("nodes_measured") == len(tn):
    fails.append("A alone measured every node: was it killed?")
def sources(r):
    return {s["target"]: s for s in (r.get("disclosure") or {}).get("sources") or []}
S = sources(ab)
targets = [t for t in S]
if len(S) < 4 * 3 + 2 + 2:
    fails.append("disclosure.sources lists %d targets" % len(S))
for t, s in S.items():
    if not s["data_dir"].endswith("/dB") or s["candidates"] != 2:
        fails.append("source of %s: %r" % (t, s))
W = " | ".join(ab.get("warnings") or [])
if "polled by several collectors" not in W or "other than the first listed" not in W:
    fails.append("warnings: %s" % W)
if "other than the first listed" in " | ".join(ba.get("warnings") or []):
    fails.append("B listed first still says a target was moved")
if (b.get("disclosure") or {}).get("sources") is not None:
    fails.append("a report over one data dir has sources")
SS = sources(sh)
if sorted(SS) != sorted(S) or any(s["candidates"] != 1 for s in SS.values()):
    fails.append("shards: sources %r" % SS)
if any("several collectors" in w for w in sh.get("warnings") or []):
    fails.append("shards: a target in two shards")
SA = sources(al)
if any(s["candidates"] != 3 or s["data_dir"].endswith("/dA") for s in SA.values()):
    fails.append("all four: sources %r" % SA)
if fails:
    print("FAILED: " + ", ".join(fails)); sys.exit(1)
PYEOF

# report.data_dirs in the config: the same report as the flags.
{ cat "$T/w.yaml"; printf 'report:\n  data_dirs: ["%s", "%s"]\n' "$T/dA" "$T/dB"; } >"$T/r.yaml"
"$WATTPATH" check-config -c "$T/r.yaml" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "report.data_dirs"; }
"$WATTPATH" report -c "$T/r.yaml" --from "$FROM" --to "$TO" >"$T/cfg.json" 2>"$T/cfg.err" ||
	{ cat "$T/cfg.err"; fail "report with report.data_dirs"; }
$PY -c "import json,sys; a=json.load(open('$T/cfg.json')); b=json.load(open('$T/ab.json')); sys.exit(0 if a['boundaries']==b['boundaries'] and a['disclosure']['sources']==b['disclosure']['sources'] else 1)" ||
	fail "report.data_dirs differs from --data-dir A --data-dir B"
{ cat "$T/w.yaml"; printf 'report:\n  data_dirs:\n    - "%s"\n    - "%s"\n' "$T/dA" "$T/dA"; } >"$T/dup.yaml"
L=$(grep -c '' "$T/dup.yaml")
"$WATTPATH" check-config -c "$T/dup.yaml" >"$T/dup.log" 2>&1 && fail "a data dir listed twice passed"
grep -q "dup.yaml:$L: report: data_dirs: '$T/dA' is listed twice" "$T/dup.log" ||
	{ cat "$T/dup.log"; fail "no FILE:LINE for a data dir listed twice"; }

# A tampered journal among them refuses the report, named; verify each.
cp -r "$T/dB" "$T/dT"
SEG=$(ls "$T/dT/journal/"*.wpj 2>/dev/null | tail -1)
[ -n "$SEG" ] || { ls "$T/dT/journal"; fail "no journal segment"; }
$PY -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(b)" "$SEG"
"$WATTPATH" report -c "$T/w.yaml" --from "$FROM" --to "$TO" --data-dir "$T/dA" \
	--data-dir "$T/dT" >/dev/null 2>"$T/t.err" && fail "a tampered journal was merged"
grep -q "data dir $T/dT: the journal does not verify" "$T/t.err" ||
	{ cat "$T/t.err"; fail "the tampered data dir is not named"; }
"$WATTPATH" journal verify --dir "$T/dA/journal" --dir "$T/dT/journal" >"$T/v.log" 2>&1 &&
	fail "journal verify passed a tampered journal"
grep -q "^journal $T/dA/journal: OK" "$T/v.log" && grep -q "^journal $T/dT/journal: FAILED" "$T/v.log" ||
	{ cat "$T/v.log"; fail "journal verify of several"; }
"$WATTPATH" journal verify --dir "$T/dA/journal" --dir "$T/dB/journal" >"$T/v2.log" 2>&1 ||
	{ cat "$T/v2.log"; fail "journal verify of two intact journals"; }
alive "$PID_sim"
exit 0
