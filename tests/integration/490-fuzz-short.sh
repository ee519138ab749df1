#!/bin/sh
# A short libFuzzer run of every harness (tests/fuzz/run.sh: promtext,
# http_wire, redfish, snmp, modbus, conf, csv, reqlog, journal, push), 6 s each
# over its seed corpus tests/fuzz/corpus/NAME (about 70 s, plus the first
# build of build-fuzz/); `make fuzz` runs them longer.  A crash fails;
# a missing clang or libFuzzer skips (77), which tests/run.sh counts as a
# failure (scripts/deps.sh check installs clang and libclang-rt-dev).
. "$(dirname "$0")/lib.sh"
FUZZ_OUT="$T/fuzz" sh "$ROOT/tests/fuzz/run.sh" "${FUZZ_SECONDS:-6}"
rc=$?
[ $rc -eq 77 ] && skip "clang with libFuzzer not available"
if [ $rc -ne 0 ]; then
	mkdir -p "$ROOT/build-fuzz/crashes"
	cp "$T"/fuzz/crashes/* "$ROOT/build-fuzz/crashes/" 2>/dev/null
	fail "fuzzer found a crash (reproducers copied to build-fuzz/crashes/)"
fi
for h in $(ls "$ROOT/tests/fuzz/corpus"); do
	grep -q 'number_of_executed_units' "$T/fuzz/fuzz-$h.log" 2>/dev/null ||
		fail "harness $h did not run"
done
exit 0
