#!/bin/sh
# run.sh SECONDS - build the libFuzzer harnesses with clang
# (-fsanitize=fuzzer,address,undefined) and run each for SECONDS:
#   fuzz_promtext   the inband text decoders, seeded from tests/fixtures/inband/
#   fuzz_http_wire  the HTTP/1.1 response parser (whole vs split must agree),
#                   seeded from tests/fixtures/http/
#   fuzz_redfish    the Redfish decoders and the discovery walker, seeded
#                   from trees of tests/fixtures/redfish/
# Exit 0: no crash; 77: clang or libFuzzer missing; else a crash (the
# reproducer is in $OUT/crashes, kept).
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
CFLAGS_FUZZ="-std=c17 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
# shellcheck disable=SC2086
"$CLANG" $CFLAGS_FUZZ -o "$OUT/fuzz_promtext" tests/fuzz/fuzz_promtext.c \
	drivers/inband/promtext.c drivers/inband/dcgm.c drivers/inband/engines.c \
	drivers/inband/gpu.c collector/lib/err.c collector/lib/sample.c \
	collector/lib/hmap.c -lm || exit 1
# shellcheck disable=SC2086
"$CLANG" $CFLAGS_FUZZ -o "$OUT/fuzz_http_wire" tests/fuzz/fuzz_http_wire.c \
	collector/lib/http_wire.c || exit 1
# shellcheck disable=SC2086
"$CLANG" $CFLAGS_FUZZ $(pkg-config --cflags json-c) -o "$OUT/fuzz_redfish" \
	tests/fuzz/fuzz_redfish.c drivers/redfish/redfish_parse.c \
	drivers/redfish/redfish_names.c drivers/redfish/redfish_discover.c \
	drivers/redfish/redfish_topo.c drivers/redfish/redfish_wall.c \
	drivers/redfish/redfish_choose.c drivers/redfish/redfish_plan.c \
	drivers/redfish/redfish_model.c collector/lib/err.c \
	collector/lib/sample.c collector/lib/clock.c \
	$(pkg-config --libs json-c) -lm || exit 1
# Seeds: every fixture, each with mode byte 0 (Prometheus) and 1 (OpenMetrics).
mkdir -p "$OUT/corpus-http"
for f in tests/fixtures/inband/*.txt; do
	b=$(basename "$f" .txt)
	{ printf '\000'; cat "$f"; } >"$OUT/corpus/seed-$b-prom"
	{ printf '\001'; cat "$f"; echo '# EOF'; } >"$OUT/corpus/seed-$b-om"
done
for f in tests/fixtures/http/*.txt; do
	{ printf '\002\021\100'; cat "$f"; } >"$OUT/corpus-http/seed-$(basename "$f" .txt)"
done
# Redfish: some of a tree's documents, joined by NUL bytes.
mkdir -p "$OUT/corpus-redfish"
for t in dmtf-rackmount1 synthetic-cray-ex235n lambdalabs-powershelf_delta \
    synthetic-hpe-ilo-oem synthetic-hgx-telemetry; do
	find "tests/fixtures/redfish/$t" -name index.json | sort | head -40 |
	while read -r f; do cat "$f"; printf '\000'; done \
		>"$OUT/corpus-redfish/seed-$t"
done
rc=0
for h in promtext http_wire redfish; do
	corpus=$OUT/corpus
	[ $h = http_wire ] && corpus=$OUT/corpus-http
	[ $h = redfish ] && corpus=$OUT/corpus-redfish
	echo "fuzz: $h for $secs s" >&2
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$OUT/fuzz_$h" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
		-timeout=10 -print_final_stats=1 -artifact_prefix="$OUT/crashes/" \
		"$corpus" 2>"$OUT/fuzz-$h.log"
	r=$?
	tail -n 15 "$OUT/fuzz-$h.log" >&2
	cat "$OUT/fuzz-$h.log" >>"$OUT/fuzz.log"
	[ $r -eq 0 ] || { echo "fuzz: $h FAILED (rc $r); reproducers in $OUT/crashes/" >&2; rc=$r; }
done
exit $rc
