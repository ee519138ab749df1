#!/bin/sh
# run.sh - run every test and end with one line "N passed, N failed, N skipped".
#   tests/run.sh               unit + integration, then the sanitizer pass
#   tests/run.sh --unit-only   unit tests of build/ only
#   tests/run.sh -k PATTERN    only tests whose name contains PATTERN
# Integration scripts (tests/integration/NNN-topic.sh) exit 0 pass, 77 skip,
# anything else fail; those with a line "# fast" also run under ASan+UBSan.
# Every test is required: a skip (a missing tool or package) fails the run
# unless WATTPATH_ALLOW_SKIP=1 (a machine without the test dependencies;
# make check installs them all).
set -u
cd "$(dirname "$0")/.."
unit_only=0 pattern=""
while [ $# -gt 0 ]; do
	case "$1" in
	--unit-only) unit_only=1 ;;
	-k) shift; pattern="$1" ;;
	esac
	shift
done
pass=0 fail=0 skip=0 failed=""
logdir=$(mktemp -d "${TMPDIR:-/tmp}/wattpath-tests.XXXXXX")
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"

record() {	# name rc log
	case "$2" in
	0) pass=$((pass + 1)); echo "PASS $1" ;;
	77) skip=$((skip + 1)); echo "SKIP $1"; tail -n 2 "$3" | sed 's/^/    /'
	    [ "${WATTPATH_ALLOW_SKIP:-0}" = 1 ] || failed="$failed $1(skipped)" ;;
	*) fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1 (rc $2)"
	   tail -n 40 "$3" | sed 's/^/    /' ;;
	esac
}

run_unit() {	# builddir tag
	for t in "$1"/tests/test_*; do
		[ -x "$t" ] || continue
		name="$2unit/$(basename "$t")"
		case "$name" in *"$pattern"*) ;; *) continue ;; esac
		log="$logdir/$(echo "$name" | tr / _).log"
		timeout 600 "$t" >"$log" 2>&1
		record "$name" $? "$log"
	done
}

run_integration() {	# binary tag fast-only
	for t in tests/integration/[0-9]*.sh; do
		[ -f "$t" ] || continue
		[ "$3" = 1 ] && ! grep -q '^# fast' "$t" && continue
		name="$2$(basename "$t" .sh)"
		case "$name" in *"$pattern"*) ;; *) continue ;; esac
		log="$logdir/$(echo "$name" | tr / _).log"
		# files a test leaves for a person (screenshots) go beside its log
		TEST_LOG_DIR="${log%.log}.files" WATTPATH="$PWD/$1" \
		    timeout 900 sh "$t" >"$log" 2>&1
		record "$name" $? "$log"
	done
}

run_unit build ""
if [ $unit_only = 0 ]; then
	run_integration build/wattpath "" 0
	if [ -x build-asan/wattpath ]; then
		run_unit build-asan "asan/"
		run_integration build-asan/wattpath "asan/" 1
	fi
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "logs: $logdir"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] && { [ $skip -eq 0 ] || [ "${WATTPATH_ALLOW_SKIP:-0}" = 1 ]; }
