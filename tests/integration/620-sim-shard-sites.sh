#!/bin/sh
# A sharded site in the Sites view (issue 21): three collectors, shards
# 0..2 of one simulated site (site-a), each serving its own /api/v1/fleet;
# shard 0 lists shards 1 and 2 in collector.peers under its own site name.
#   - /api/v1/sites has one row for site-a (shards: 3 of 3), whose
#     targets, tokens and every boundary's power and energy are the sums
#     of the three collectors' own /api/v1/fleet (asked around it, until
#     no poll fell in between), its nodes the inventory's (9);
#   - a reload listing shard 1 only: the row is incomplete, "shard 2 of 3
#     not in collector.peers", its figures null (never one shard's as the
#     site's), the combined row partial naming site-a, the /sites page
#     saying so;
#   - shard 2 stopped: the row unreachable with that shard's reason;
#   - a peer of the site's own name is refused by check-config (FILE:LINE)
#     on a collector without collector.shard; two peers with one url too.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
sim_serve sim "$T/w.yaml" --nodes 9 --racks 3 --pdus 3 --meters 2 --seed 31 \
	--shape joules --interval 1s
P0=$(free_port); P1=$(free_port); P2=$(free_port)
while [ "$P1" = "$P0" ]; do P1=$(free_port); done
while [ "$P2" = "$P0" ] || [ "$P2" = "$P1" ]; do P2=$(free_port); done
# shard I PORT INTERVAL
shard() {
	sed -e "s|^site: .*|site: {name: site-a, zone: FR}|" \
	    -e "s|^collector:|collector:\n  shard: {index: $1, count: 3}|" \
	    -e "s|^  listen: .*|  listen: 127.0.0.1:$2|" \
	    -e "s|^  data_dir: .*|  data_dir: \"$T/d$1\"|" \
	    -e "s|^  interval: .*|  interval: $3|" "$T/w.yaml" >"$T/s$1.yaml"
}
shard 0 "$P0" 1s
shard 1 "$P1" 30s
shard 2 "$P2" 30s
# peers0 PEERS...: shard 0's config with those shards (1, 2) as peers
peers0() {
	_l=
	for _i in "$@"; do
		eval "_p=\$P$_i"
		_l="$_l\n    - {name: site-a, url: \"http://127.0.0.1:$_p\"}"
	done
	shard 0 "$P0" 1s
	sed -i "s|^collector:|collector:\n  peers:$_l|" "$T/s0.yaml"
}
peers0 1 2
for i in 0 1 2; do
	"$WATTPATH" check-config -c "$T/s$i.yaml" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log"; fail "config of shard $i"; }
done

# check-config: the own name needs collector.shard; one url once
sed -e '/^  shard: /d' "$T/s0.yaml" >"$T/bad1.yaml"
"$WATTPATH" check-config -c "$T/bad1.yaml" >"$T/bad1.log" 2>&1 &&
	fail "a peer of the own site passed without collector.shard"
grep -q "bad1.yaml:[0-9]*: .*peers\[0\]: 'site-a' is this collector's own site.name" "$T/bad1.log" ||
	{ cat "$T/bad1.log"; fail "no FILE:LINE for the own site"; }
sed -e "s|:$P2\"|:$P1\"|" "$T/s0.yaml" >"$T/bad2.yaml"
"$WATTPATH" check-config -c "$T/bad2.yaml" >"$T/bad2.log" 2>&1 &&
	fail "one url twice passed"
grep -q "bad2.yaml:[0-9]*: .*peers\[1\]: url .* is also peers\[0\]'s" "$T/bad2.log" ||
	{ cat "$T/bad2.log"; fail "no FILE:LINE for a url twice"; }

for i in 0 1 2; do
	bg "run$i" "$WATTPATH" run -c "$T/s$i.yaml"
done
for p in "$P0" "$P1" "$P2"; do
	wait_for 20 $PY -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$p/api/v1/fleet', timeout=2)" ||
		fail "127.0.0.1:$p not serving"
done
sleep 4

cat >"$T/sum.py" <<'PYEOF'
import json, sys, time, urllib.request
P0, P1, P2 = sys.argv[1:4]
get = lambda p, path: json.load(urllib.request.urlopen(
    "http://127.0.0.1:%s%s" % (p, path), timeout=10))
Q = ("wall", "gpu", "outlet", "facility", "it")
strip = lambda d: {k: v for k, v in d.items() if k != "time"}
def fig(doc, q):
    d = doc["boundaries"][q] if q in ("wall", "gpu", "outlet") else doc[q]
    return d["power_w"], d["energy_j"]
def summed(docs, q, i):
    v = [fig(d, q)[i] for d in docs if fig(d, q)[i] is not None]
    return sum(v) if v else None
def close(a, b):
    return (a is None and b is None) or (a is not None and b is not None and
                                         abs(a - b) <= 1e-9 * max(abs(b), 1))
why = ""
for attempt in range(80):
    d1, d2 = get(P1, "/api/v1/fleet"), get(P2, "/api/v1/fleet")
    a, s, b = get(P0, "/api/v1/fleet"), get(P0, "/api/v1/sites"), get(P0, "/api/v1/fleet")
    e1, e2 = get(P1, "/api/v1/fleet"), get(P2, "/api/v1/fleet")
    if strip(a) != strip(b) or strip(d1) != strip(e1) or strip(d2) != strip(e2):
        time.sleep(0.3)
        continue
    docs = [a, d1, d2]
    if [d["shard"] for d in docs] != [{"index": i, "count": 3} for i in range(3)]:
        sys.exit("shards in /api/v1/fleet: %r" % [d["shard"] for d in docs])
    if len(s["sites"]) != 1:
        sys.exit("rows: %r" % [r["name"] for r in s["sites"]])
    r = s["sites"][0]
    if r["name"] != "site-a" or not r["self"] or not r["reachable"] or \
       r["incomplete"] or r["shards"] != {"count": 3, "summed": 3}:
        sys.exit("row: %r" % {k: r[k] for k in ("name", "self", "reachable",
                 "incomplete", "error", "shards")})
    bad = []
    for q in Q:
        for i, k in enumerate(("power_w", "energy_j")):
            if not close(r["boundaries"][q][k], summed(docs, q, i)):
                bad.append("%s %s %r != %r" % (q, k, r["boundaries"][q][k],
                                               summed(docs, q, i)))
    # nodes: the inventory's, which each shard's collector lists whole
    if r["nodes"] != max(d["nodes"] for d in docs):
        bad.append("nodes %r" % r["nodes"])
    if r["targets"] != {"up": sum(d["targets"]["up"] for d in docs),
                        "down": sum(d["targets"]["down"] for d in docs)}:
        bad.append("targets %r" % r["targets"])
    if not close(r["output_tokens"], sum(d["tokens"]["output"] for d in docs)):
        bad.append("tokens %r, shards %r" % (r["output_tokens"], [d["tokens"] for d in docs]))
    if r["time"] is None or r["time"] > min(d["time"] for d in docs):
        bad.append("time %r is not the oldest snapshot" % r["time"])
    if not bad:
        break
    why = "; ".join(bad)
    time.sleep(0.3)
else:
    sys.exit("the site row is not the sum of its shards: " + why)
if r["nodes"] != 9 or r["boundaries"]["wall"]["energy_j"] is None:
    sys.exit("nodes %r, wall %r" % (r["nodes"], r["boundaries"]["wall"]))
if s["combined"]["boundaries"]["wall"]["partial"]:
    sys.exit("combined partial with every shard up")
print("site-a: %d nodes, wall %.0f J, from 3 shards" % (
    r["nodes"], r["boundaries"]["wall"]["energy_j"]))
PYEOF
$PY "$T/sum.py" "$P0" "$P1" "$P2" || fail "sum of the shards"

cat >"$T/state.py" <<'PYEOF'
import json, sys, urllib.request
port, want, msg = sys.argv[1:4]
s = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/sites" % port,
                                     timeout=10))
r = s["sites"][0]
state = "incomplete" if r["incomplete"] else \
    ("up" if r["reachable"] else "unreachable")
if state != want or msg not in (r["error"] or ""):
    sys.exit("state %s (%r), want %s (%r)" % (state, r["error"], want, msg))
figs = [r["boundaries"][q][k] for q in r["boundaries"] for k in ("power_w", "energy_j")]
if any(v is not None for v in figs) or r["nodes"] is not None or \
   r["targets"] != {"up": None, "down": None}:
    sys.exit("figures of a site missing a shard: %r" % r)
c = s["combined"]["boundaries"]["wall"]
if not c["partial"] or "site-a" not in c["missing_energy"]:
    sys.exit("combined not partial: %r" % c)
PYEOF
# shard 2 not listed: incomplete
peers0 1
eval "kill -HUP \$PID_run0"
wait_for 15 $PY "$T/state.py" "$P0" incomplete "shard 2 of 3 not in collector.peers" ||
	{ $PY "$T/state.py" "$P0" incomplete "shard 2 of 3 not in collector.peers"; fail "no incomplete row"; }
$PY -c "import urllib.request as u; print(u.urlopen('http://127.0.0.1:$P0/sites', timeout=10).read().decode())" >"$T/sites.html" ||
	fail "no /sites page"
grep -q "incomplete: shard 2 of 3 not in collector.peers" "$T/sites.html" ||
	fail "the /sites page does not say the site is incomplete"
# both again, then shard 2 stopped: unreachable with its reason
peers0 1 2
eval "kill -HUP \$PID_run0"
wait_for 15 $PY "$T/sum.py" "$P0" "$P1" "$P2" >/dev/null || fail "not summed after the reload"
eval "kill \$PID_run2"
wait_for 15 $PY "$T/state.py" "$P0" unreachable "a shard's collector:" ||
	{ $PY "$T/state.py" "$P0" unreachable "a shard's collector:"; fail "no unreachable row"; }
alive "$PID_run0"
alive "$PID_run1"
exit 0
