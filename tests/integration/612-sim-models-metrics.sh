#!/bin/sh
# fast
# /metrics per model and per tenant (issue 22) on a collector polling a
# served fleet whose second node is shared (--shared 1: engine0 on GPUs
# 0-3, engine1 on 4-6 at /engine1/metrics, GPU 7 idle; Kubernetes pod
# labels on the busy GPUs): in one scrape, the models' and unallocated
# GPU energy add up to the nodes' GPU energy, unallocated is one idle GPU,
# both models count tokens, and the tenant mapped by namespace (chat) has
# exactly mistral-7b's GPU energy; promtool has no complaint.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
FLEET="--nodes 2 --racks 1 --pdus 0 --meters 0 --seed 3 --shape joules --shared 1"
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
wait_for 20 sh -c "curl -sf $URL | grep -q '^wattpath_model_tokens_total{model=\"mistral-7b\"'" ||
	{ curl -sf "$URL" | grep model; tail "$T/run.log"; fail "no per-model tokens"; }
sleep 2
curl -sf "$URL" >"$T/scrape.txt" || fail "scrape"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/scrape.txt" >"$T/lint.txt" 2>&1 ||
		{ cat "$T/lint.txt"; fail "promtool check metrics failed"; }
fi
$PY - "$T/scrape.txt" <<'PYEOF' || fail "per-model metrics inconsistent"
import re, sys
m, node_gpu, ten, tok = {}, 0.0, {}, {}
for line in open(sys.argv[1]):
    g = re.match(r'wattpath_model_gpu_energy_joules_total\{model="([^"]+)"\} (\S+)', line)
    if g: m[g.group(1)] = float(g.group(2))
    g = re.match(r'wattpath_node_energy_joules_total\{.*boundary="gpu"[,}].* (\S+)$', line)
    if g: node_gpu += float(g.group(1))
    g = re.match(r'wattpath_tenant_gpu_energy_joules_total\{tenant="([^"]+)"\} (\S+)', line)
    if g: ten[g.group(1)] = float(g.group(2))
    g = re.match(r'wattpath_model_tokens_total\{model="([^"]+)",direction="output"\} (\S+)', line)
    if g: tok[g.group(1)] = float(g.group(2))
print("models", m, "nodes' GPU", node_gpu, "tenants", ten, "tokens", tok)
assert set(m) == {"llama-3.1-70b", "mistral-7b", "unallocated"}, m
assert abs(sum(m.values()) - node_gpu) <= 1e-6 * node_gpu, (sum(m.values()), node_gpu)
# one idle GPU at 70 W x k against 15 busy ones: a small share
assert 0 < m["unallocated"] < m["mistral-7b"], m
assert tok.get("llama-3.1-70b", 0) > 0 and tok.get("mistral-7b", 0) > 0, tok
assert abs(ten["chat-team"] - m["mistral-7b"]) <= 1e-6 * m["mistral-7b"], ten
assert abs(sum(ten.values()) - node_gpu) <= 1e-6 * node_gpu, ten
PYEOF
