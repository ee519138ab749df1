#!/bin/sh
# run.sh [SECONDS [HARNESS...]] - build the libFuzzer harnesses (make
# fuzz-bins: the library and tests/fuzz/fuzz_*.c by clang with
# -fsanitize=fuzzer,address,undefined, in build-fuzz/) and run each for
# SECONDS (default 60) over a copy of its seed corpus tests/fuzz/corpus/NAME/:
#   promtext   the inband Prometheus/OpenMetrics, dcgm-exporter and engine
#              decoders
#   http_wire  the HTTP/1.1 response parser (whole vs split must agree)
#   redfish    the Redfish decoders and the discovery walker
#   snmp       the PDU decoder against every shipped profile (.snmprec input)
#   modbus     meter maps (YAML) and register decoding
#   conf       the YAML configuration and every driver's validate hook
#   csv        the nodes_csv inventory
#   reqlog     the load generator's request log (JSON Lines)
#   journal    the journal's segment reader, verify, scan and export
#   push       SSE framing (whole vs split must agree) and pushed
#              MetricReports (drivers/redfish/redfish_push.c)
# Inputs the fuzzer finds new stay in $FUZZ_OUT/corpus/NAME (FUZZ_MERGE=1:
# merged back into tests/fuzz/corpus/NAME, minimised).  Exit 0: no crash;
# 77: clang or libFuzzer missing; else a crash (the reproducer is in
# $FUZZ_OUT/crashes, kept).  The figures: $FUZZ_OUT/fuzz.log.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/../.."
CLANG=${CLANG:-clang}
OUT=${FUZZ_OUT:-build-fuzz/run}
mkdir -p "$OUT/corpus" "$OUT/crashes"
: >"$OUT/fuzz.log"
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz: no $CLANG" >&2; exit 77; }
probe="$OUT/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' >"$probe"
"$CLANG" -fsanitize=fuzzer,address,undefined "$probe" -o "$OUT/probe" 2>/dev/null ||
	{ echo "fuzz: $CLANG has no libFuzzer (Debian: libclang-rt-dev)" >&2; exit 77; }
make -s -j"${FUZZ_JOBS:-2}" CLANG="$CLANG" fuzz-bins >"$OUT/build.log" 2>&1 ||
	{ tail -n 30 "$OUT/build.log" >&2; echo "fuzz: build failed" >&2; exit 1; }
harnesses=${*:-$(ls tests/fuzz/corpus)}
rc=0
for h in $harnesses; do
	bin=build-fuzz/fuzz/fuzz_$h
	[ -x "$bin" ] || { echo "fuzz: no harness $bin" >&2; rc=1; continue; }
	mkdir -p "$OUT/corpus/$h"
	cp tests/fuzz/corpus/"$h"/* "$OUT/corpus/$h/" 2>/dev/null
	echo "fuzz: $h for $secs s" >&2
	start=$(date +%s)
	TMPDIR=$OUT UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ASAN_OPTIONS=detect_leaks=1 \
	"$bin" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
		-timeout=10 -error_exitcode=99 -timeout_exitcode=98 \
		-print_final_stats=1 -artifact_prefix="$OUT/crashes/$h-" \
		"$OUT/corpus/$h" 2>"$OUT/fuzz-$h.log"
	r=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz-$h.log")
	echo "fuzz: $h rc $r, ${execs:-0} runs in $(($(date +%s) - start)) s," \
		"corpus $(ls "$OUT/corpus/$h" | wc -l) files" >&2
	{ echo "== $h"; cat "$OUT/fuzz-$h.log"; } >>"$OUT/fuzz.log"
	if [ $r -ne 0 ]; then
		tail -n 40 "$OUT/fuzz-$h.log" >&2
		echo "fuzz: $h FAILED (rc $r); reproducers in $OUT/crashes/" >&2
		rc=1	# never 77: libFuzzer's own crash code would read as a skip
	elif [ "${FUZZ_MERGE:-0}" = 1 ]; then
		mkdir -p "$OUT/merged/$h"
		"$bin" -merge=1 -max_len=65536 "$OUT/merged/$h" \
			tests/fuzz/corpus/"$h" "$OUT/corpus/$h" >/dev/null 2>&1 &&
			rm -f tests/fuzz/corpus/"$h"/* &&
			cp "$OUT/merged/$h"/* tests/fuzz/corpus/"$h"/
	fi
done
exit $rc
