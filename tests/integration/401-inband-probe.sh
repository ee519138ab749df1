#!/bin/sh
# fast
# wattpath probe on dcgm-exporter and engine /metrics (real scrapes from
# tests/fixtures/inband/ served by tests/peers/metrics_server.py): per-GPU
# energy in J (from mJ, no 1000x error), module boundary on GH200, MIG rows
# counted once, token counters with direction, counters advancing.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
F=$FIX/inband
bg srv $PY "$ROOT/tests/peers/metrics_server.py" --port "$P" --step 1000 \
	--route /t4=$F/datadog_dcgm_metrics.txt \
	--route /mig=$F/issue317_a30_mig_excerpt.txt \
	--route /gh200=$F/dcgm_gh200_synth.txt \
	--route /vllm=$F/datadog_vllm_metrics.txt \
	--route /vllm2=$F/vllm_two_models_synth.txt \
	--route /sglang=$F/sglang_docs_metrics.txt \
	--route /tgi=$F/tgi_generated_tokens_synth.txt \
	--route /llama=$F/llamacpp_blog_metrics.txt \
	--route /om=$F/vllm_two_models_synth.txt --openmetrics /om
wait_tcp 127.0.0.1 "$P"
U=http://127.0.0.1:$P

probe() {	# NAME URL ARGS...: JSON into $T/NAME.json
	_n=$1; shift
	"$WATTPATH" probe "$@" --json >"$T/$_n.json" 2>"$T/$_n.err" ||
		fail "probe $*: $(cat "$T/$_n.err")"
}
src() {	# FILE EXPR-on-s: over sources
	json_get "$1" "[$2 for s in d['sources']]"
}

# T4: 128996013 mJ -> 128996.013 J; first scrape is k=0 (no advance).
probe t4 "$U/t4" -o hostname=424773df46e0
[ "$(json_get "$T/t4.json" "d['protocol']")" = prometheus ] || fail "protocol"
[ "$(json_get "$T/t4.json" "len(d['sources'])")" = 2 ] || fail "T4: 2 sources"
e=$(json_get "$T/t4.json" "[s['value'] for s in d['sources'] if s['quantity']=='energy'][0]")
approx "$e" 128996.013 1e-9 || fail "T4 energy $e J, want 128996.013"
[ "$(json_get "$T/t4.json" "[s['raw_unit'] for s in d['sources'] if s['quantity']=='energy'][0]")" = mJ ] ||
	fail "raw unit"
[ "$(src "$T/t4.json" "s['boundary']")" = "['gpu', 'gpu']" ] || fail "T4 boundaries"
# Second scrape: +1000 mJ = +1 J.
probe t4b "$U/t4" -o hostname=424773df46e0
e2=$(json_get "$T/t4b.json" "[s['value'] for s in d['sources'] if s['quantity']=='energy'][0]")
approx "$e2" 128997.013 1e-9 || fail "advanced energy $e2"
# Several hosts without a filter: a clear error naming the fix.
"$WATTPATH" probe "$U/t4" --json >/dev/null 2>"$T/hosts.err" && fail "mixed hosts accepted"
grep -q "hostname" "$T/hosts.err" || fail "hosts error: $(cat "$T/hosts.err")"

# MIG: 2 physical GPUs, 4 sources, not 11.
probe mig "$U/mig"
[ "$(json_get "$T/mig.json" "len(d['sources'])")" = 4 ] || fail "MIG sources: $(cat "$T/mig.json")"

# GH200: the counter covers the module.
probe gh "$U/gh200"
[ "$(src "$T/gh.json" "s['boundary']")" = "['module', 'module']" ] || fail "GH200 boundary"

# Engines.
probe vllm "$U/vllm"
[ "$(src "$T/vllm.json" "(s['path'], s.get('direction'), s['value'])")" = \
  "[('vllm:generation_tokens_total', 'output', 7), ('vllm:prompt_tokens_total', 'input', 5), ('vllm:request_success_total', None, 1)]" ] ||
	fail "vllm sources: $(cat "$T/vllm.json")"
[ "$(json_get "$T/vllm.json" "d['sources'][0]['quantity']")" = tokens ] || fail "quantity"
probe vllm2 "$U/vllm2"
[ "$(json_get "$T/vllm2.json" "d['sources'][0]['value']")" = 6700 ] || fail "two models summed"
probe om "$U/om"
[ "$(json_get "$T/om.json" "d['sources'][0]['value']")" = 6700 ] || fail "OpenMetrics body"
probe sg "$U/sglang"
[ "$(json_get "$T/sg.json" "d['device']['vendor']")" = sglang ] || fail "sglang"
probe tgi "$U/tgi"
[ "$(src "$T/tgi.json" "s['value']")" = "[21980, 30512, 109]" ] || fail "tgi: $(cat "$T/tgi.json")"
probe ll "$U/llama"
[ "$(src "$T/ll.json" "(s['path'], s['value'])")" = \
  "[('llamacpp:tokens_predicted_total', 1), ('llamacpp:prompt_tokens_total', 16135)]" ] ||
	fail "llama.cpp: $(cat "$T/ll.json")"
# A configured kind that does not match.
"$WATTPATH" probe "$U/vllm" -o kind=sglang --json >/dev/null 2>"$T/k.err" && fail "kind mismatch accepted"
grep -q "look like vllm" "$T/k.err" || fail "kind error: $(cat "$T/k.err")"
# The table output works too.
"$WATTPATH" probe "$U/vllm" >"$T/table.txt" 2>&1 || fail "table probe"
grep -q "vllm:generation_tokens_total" "$T/table.txt" || fail "table"
exit 0
