#!/bin/sh
# fast
# Bad /metrics replies give a clear error and no sample: garbage, a body cut
# mid-line, a connection closed early, wrong TYPE, missing counters, an
# oversized body, HTTP 500, a peer too slow for the timeout, a non-HTTP URL.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
F=$FIX/inband
bg srv $PY "$ROOT/tests/peers/metrics_server.py" --port "$P" \
	--route /vllm=$F/datadog_vllm_metrics.txt \
	--route /t4=$F/dcgm_gh200_synth.txt
wait_tcp 127.0.0.1 "$P"
U=http://127.0.0.1:$P

expect_err() {	# MODE ROUTE PATTERN [ARGS...]
	_m=$1 _r=$2 _pat=$3; shift 3
	if "$WATTPATH" probe "$U/fault/$_m/$_r" --json "$@" >"$T/$_m.out" 2>"$T/$_m.err"; then
		fail "$_m/$_r accepted: $(cat "$T/$_m.out")"
	fi
	grep -qi -- "$_pat" "$T/$_m.err" || fail "$_m/$_r: '$(cat "$T/$_m.err")' lacks '$_pat'"
	[ -s "$T/$_m.out" ] && fail "$_m/$_r printed a result"
	note "$_m/$_r: $(cat "$T/$_m.err")"
}

expect_err garbage vllm "metric name"
expect_err truncated vllm "truncated"
expect_err truncated t4 "truncated"
expect_err wrongtype vllm "wrong TYPE"
# GH200 with its energy counter declared gauge: power only, and it says why.
"$WATTPATH" probe "$U/fault/wrongtype/t4" --json >"$T/wt.json" 2>&1 || fail "wrongtype t4"
[ "$(json_get "$T/wt.json" "[s['quantity'] for s in d['sources']]")" = "['power']" ] ||
	fail "energy with the wrong TYPE used: $(cat "$T/wt.json")"
json_get "$T/wt.json" "d['device']['extra']" | grep -q "wrong TYPE" || fail "no reason given"
expect_err missing vllm "no vllm token counters"
# Energy row missing: power only, never a made-up energy.
"$WATTPATH" probe "$U/fault/missing/t4" --json >"$T/mt.json" 2>&1 || fail "missing t4"
[ "$(json_get "$T/mt.json" "[s['quantity'] for s in d['sources']]")" = "['power']" ] ||
	fail "missing energy: $(cat "$T/mt.json")"
expect_err oversized vllm "over"
expect_err http500 vllm "HTTP 500"
expect_err cutconn vllm "."
start=$(date +%s)
expect_err slow vllm "time" --timeout 2s
[ $(( $(date +%s) - start )) -lt 15 ] || fail "timeout not honoured"
"$WATTPATH" probe "$U/nothing-here" --json >/dev/null 2>"$T/404.err" && fail "404 accepted"
grep -q "HTTP 404" "$T/404.err" || fail "404: $(cat "$T/404.err")"
# The peer is still fine afterwards.
"$WATTPATH" probe "$U/vllm" --json >/dev/null 2>&1 || fail "good probe after faults"
exit 0
