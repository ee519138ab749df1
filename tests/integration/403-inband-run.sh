#!/bin/sh
# fast
# wattpath run --once with inband targets: dcgm-exporter (A30 in MIG mode:
# one reading per physical GPU) and a vLLM engine land in the journal in SI
# units; an engine restart (counter back to 0) is a reset in the core, not
# negative tokens; a gpu block with nvml: true on this GPU-less machine fails
# with a clear message.
. "$(dirname "$0")/lib.sh"
"$WATTPATH" run 2>&1 | grep -q "not implemented" && skip "run not implemented yet"
P=$(free_port)
L=$(free_port)
F=$FIX/inband
bg srv $PY "$ROOT/tests/peers/metrics_server.py" --port "$P" --step 100 \
	--route /dcgm=$F/issue317_a30_mig_excerpt.txt \
	--route /vllm=$F/datadog_vllm_metrics.txt
wait_tcp 127.0.0.1 "$P"
cat >"$T/c.yaml" <<YAML
collector: {interval: 2s, data_dir: $T/data, listen: 127.0.0.1:$L, log_level: info}
nodes:
  - name: n1
    gpu: {dcgm_exporter: http://127.0.0.1:$P/dcgm, collect_interval: 15s}
    engines: [{url: http://127.0.0.1:$P/fault/backwards/vllm, kind: vllm}]
  - name: n2
    gpu: {nvml: true}
YAML
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 || fail "check-config: $(cat "$T/check.log")"
# dcgm-exporter's collection interval is a duration
sed 's/collect_interval: 15s/collect_interval: soon/' "$T/c.yaml" >"$T/bad.yaml"
"$WATTPATH" check-config -c "$T/bad.yaml" >"$T/bad.log" 2>&1 && fail "check-config took collect_interval: soon"
grep -q "bad.yaml:4: node n1: gpu: collect_interval: .soon. is not a duration" "$T/bad.log" || fail "collect_interval error: $(cat "$T/bad.log")"
for i in 1 2 3; do
	timeout 60 "$WATTPATH" run -c "$T/c.yaml" --once >"$T/run$i.log" 2>&1 ||
		fail "run --once: $(cat "$T/run$i.log")"
done
grep -q "n2/gpu.*NVML not available" "$T/run1.log" || fail "no NVML message: $(cat "$T/run1.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" || fail "export: $(cat "$T/j.err")"
$PY - "$T/j.csv" <<'PYEOF' || fail "journal content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def ser(t, s): return [r for r in rows if r["target"] == t and r["series"] == s]
e0 = ser("n1/gpu", "gpu/0/energy")
assert len(e0) == 3, e0
# mJ -> J; latest of the four MIG rows; the peer adds 100 mJ per scrape.
assert abs(float(e0[0]["value"]) - 126272106.318) < 1e-3, e0[0]
assert abs(float(e0[1]["value"]) - 126272106.418) < 1e-3, e0[1]
assert e0[0]["raw_unit"] == "mJ" and e0[0]["boundary"] == "gpu"
# the exporter's collection interval, and the field read named as a field
assert "collect_interval_s=15" in e0[0]["labels"], e0[0]["labels"]
assert "dcgm_field=156" in e0[0]["labels"], e0[0]["labels"]
assert len(ser("n1/gpu", "gpu/2/energy")) == 0
p = ser("n1/gpu", "gpu/1/power")
assert abs(float(p[0]["value"]) - 56.121) < 1e-9, p[0]
tok = ser("n1/engine0", "tokens/output")
assert [float(r["value"]) for r in tok] == [7, 107, 0], tok
assert "reset" in tok[2]["ctr_flags"] or "discont" in tok[2]["ctr_flags"], tok[2]
assert all(float(r["delta"] or 0) >= 0 for r in tok), tok
assert "direction=output" in tok[0]["labels"] and "engine=vllm" in tok[0]["labels"]
print("journal ok:", len(rows), "rows")
PYEOF
exit 0
