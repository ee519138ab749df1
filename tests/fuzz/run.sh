#!/bin/sh
# run.sh SECONDS - build the libFuzzer harness of the inband text decoders
# with clang (-fsanitize=fuzzer,address,undefined) and run it for SECONDS,
# seeded from tests/fixtures/inband/.  Exit 0: no crash; 77: clang or
# libFuzzer missing; else a crash (the reproducer is in $OUT, kept).
set -u
secs=${1:-60}
cd "$(dirname "$0")/../.."
CLANG=${CLANG:-clang}
OUT=${FUZZ_OUT:-build-fuzz}
mkdir -p "$OUT/corpus" "$OUT/crashes"
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz: no $CLANG" >&2; exit 77; }
probe="$OUT/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' >"$probe"
"$CLANG" -fsanitize=fuzzer "$probe" -o "$OUT/probe" 2>/dev/null ||
	{ echo "fuzz: $CLANG has no libFuzzer" >&2; exit 77; }
srcs="tests/fuzz/fuzz_promtext.c drivers/inband/promtext.c
drivers/inband/dcgm.c drivers/inband/engines.c drivers/inband/gpu.c
collector/err.c collector/sample.c"
"$CLANG" -std=c17 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-o "$OUT/fuzz_promtext" $srcs -lm || exit 1
# Seeds: every fixture, each with mode byte 0 (Prometheus) and 1 (OpenMetrics).
for f in tests/fixtures/inband/*.txt; do
	b=$(basename "$f" .txt)
	{ printf '\000'; cat "$f"; } >"$OUT/corpus/seed-$b-prom"
	{ printf '\001'; cat "$f"; echo '# EOF'; } >"$OUT/corpus/seed-$b-om"
done
echo "fuzz: running $secs s" >&2
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
"$OUT/fuzz_promtext" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
	-timeout=10 -print_final_stats=1 -artifact_prefix="$OUT/crashes/" \
	"$OUT/corpus" 2>"$OUT/fuzz.log"
rc=$?
tail -n 15 "$OUT/fuzz.log" >&2
[ $rc -eq 0 ] || echo "fuzz: FAILED (rc $rc); reproducers in $OUT/crashes/" >&2
exit $rc
