#!/bin/sh
# fast
# /metrics per model and per tenant (issue 22) on a collector polling a
# served fleet whose second node is shared (--shared 1: engine0 on GPUs
# 0-3, engine1 on 4-6 at /engine1/metrics, GPU 7 idle; Kubernetes pod
# labels on the busy GPUs), with PDUs and meters: the models' and
# unallocated energy add up exactly to the nodes' energy they were split
# from (/api/v1/models) at the GPU, wall and outlet boundaries and lag the
# nodes' own counters by at most an interval, each model's wall is at
# least its GPU and
# its facility at least its wall, unallocated holds one idle GPU, both
# models count tokens, the tenant mapped by namespace (chat) has exactly
# mistral-7b's GPU energy and the tenants add up too; a later scrape has
# every counter at least as high; promtool has no complaint.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
FLEET="--nodes 2 --racks 1 --pdus 1 --meters 3 --seed 3 --shape joules --shared 1"
BASE=$(free_port_base)
LP=$(free_port)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s --listen-port "$LP"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
cat >>"$T/w.yaml" <<'YEOF'
tenants:
  - {name: chat-team, namespaces: [chat]}
  - {name: search-team, models: [llama-3.1-70b]}
YEOF
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/check.log" 2>&1 ||
	{ cat "$T/check.log"; fail "config does not check"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
wait_tcp 127.0.0.1 "$LP"
URL=http://127.0.0.1:$LP/metrics
wait_for 20 sh -c "curl -sf $URL | grep -q '^wattpath_model_tokens_total{.*model=\"mistral-7b\"'" ||
	{ curl -sf "$URL" | grep model; tail "$T/run.log"; fail "no per-model tokens"; }
sleep 3
curl -sf "$URL" >"$T/scrape.txt" || fail "scrape"
sleep 2
curl -sf "$URL" >"$T/scrape2.txt" || fail "second scrape"
curl -sf "http://127.0.0.1:$LP/api/v1/models" >"$T/models.json" ||
	fail "/api/v1/models"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/scrape.txt" >"$T/lint.txt" 2>&1 ||
		{ cat "$T/lint.txt"; fail "promtool check metrics failed"; }
fi
$PY - "$T/scrape.txt" "$T/scrape2.txt" "$T/models.json" <<'PYEOF' || fail "per-model metrics inconsistent"
import re, sys
def lab(s):
    return dict(re.findall(r'(\w+)="([^"]*)"', s))
def read(path):
    m, ten, tok, node = {}, {}, {}, {}
    flat = {}
    for line in open(path):
        g = re.match(r'(wattpath_\w+)\{([^}]*)\} (\S+)$', line)
        if not g: continue
        name, l, v = g.group(1), lab(g.group(2)), float(g.group(3))
        flat[(name, g.group(2))] = v
        if name == "wattpath_model_energy_joules_total":
            m.setdefault(l["model"], {})[l["boundary"]] = v
        elif name == "wattpath_tenant_energy_joules_total":
            ten.setdefault(l["tenant"], {})[l["boundary"]] = v
        elif name == "wattpath_model_tokens_total":
            tok[l["model"]] = v
        elif name == "wattpath_node_energy_joules_total":
            node[l["boundary"]] = node.get(l["boundary"], 0) + v
    return m, ten, tok, node, flat
m, ten, tok, node, flat = read(sys.argv[1])
print("models", m, "\nnodes", node, "\ntenants", ten, "\ntokens", tok)
assert set(m) == {"llama-3.1-70b", "mistral-7b", "unallocated"}, m
# the counters are split at each interval (1 s): at most one behind
for b in ("gpu", "wall", "outlet"):
    assert node.get(b, 0) > 0, (b, node)
    s = sum(x.get(b, 0) for x in m.values())
    assert 0.5 * node[b] < s <= node[b] * (1 + 1e-6), (b, s, node[b])
    t = sum(x.get(b, 0) for x in ten.values())
    assert abs(t - s) <= 1e-6 * s, ("tenants", b, t, s)
for k in ("llama-3.1-70b", "mistral-7b"):
    assert m[k]["wall"] >= m[k]["gpu"] > 0, (k, m[k])
    assert m[k]["facility"] >= m[k]["wall"] * 0.999, (k, m[k])
# one idle GPU at 70 W x k against 15 busy ones: a small share
assert 0 < m["unallocated"]["gpu"] < m["mistral-7b"]["gpu"], m
assert tok.get("llama-3.1-70b", 0) > 0 and tok.get("mistral-7b", 0) > 0, tok
g = m["mistral-7b"]["gpu"]
assert abs(ten["chat-team"]["gpu"] - g) <= 1e-6 * g, ten
# counters never go back between scrapes
_, _, _, _, flat2 = read(sys.argv[2])
for key, v in flat.items():
    if key[0].endswith("_total") and ("model" in key[1] or "tenant" in key[1]):
        assert flat2.get(key, -1) >= v, (key, v, flat2.get(key))
# the API's document: the same entries, taken after the second scrape
import json
api = json.load(open(sys.argv[3]))
m2 = read(sys.argv[2])[0]
assert api["attribution"] == "proportional", api
got = {x["name"]: x for x in api["models"]}
assert set(got) <= set(m2) | {"other"} and set(m2) <= set(got), (set(got), set(m2))
# exactly the nodes' energy they were split from, at every boundary
for b in ("gpu", "wall", "outlet"):
    tot = api["nodes_energy_j"][b]
    for part in ("models", "tenants"):
        s = sum(x["energy_j"][b] or 0 for x in api[part])
        assert abs(s - tot) <= 1e-6 * tot, (part, b, s, tot)
for k, x in got.items():
    for b, v in m2[k].items():
        assert x["energy_j"][b] >= v - 1e-6, (k, b, x, v)
    if x["tokens_output"]:
        assert abs(x["joules_per_token"]["wall"] -
                   x["energy_j"]["wall"] / x["tokens_output"]) < 1e-9, x
assert {x["name"] for x in api["tenants"]} == {"chat-team", "search-team", "unallocated"}, api
PYEOF
