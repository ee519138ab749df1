#!/bin/sh
# A short libFuzzer run (~12 s per harness) over the inband Prometheus/OpenMetrics,
# dcgm-exporter and engine decoders, the HTTP response parser and the Redfish
# decoders and discovery walker (tests/fuzz/run.sh; `make fuzz` runs it
# longer).  Skips (77) where clang has no libFuzzer.
. "$(dirname "$0")/lib.sh"
FUZZ_OUT="$T/fuzz" sh "$ROOT/tests/fuzz/run.sh" "${FUZZ_SECONDS:-12}"
rc=$?
[ $rc -eq 77 ] && skip "clang with libFuzzer not available"
if [ $rc -ne 0 ]; then
	mkdir -p "$ROOT/build-fuzz/crashes"
	cp "$T"/fuzz/crashes/* "$ROOT/build-fuzz/crashes/" 2>/dev/null
	fail "fuzzer found a crash (reproducers copied to build-fuzz/crashes/)"
fi
grep -q 'number_of_executed_units' "$T/fuzz/fuzz.log" || fail "fuzzer did not run"
exit 0
