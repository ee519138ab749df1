#!/bin/sh
# run.sh - `make bench`: every benchmark, figures on stdout (they are
# copied into docs/benchmarks.md by hand, with the machine and the date).
#
#   tests/bench/run.sh                 everything (about 10 minutes on 2 CPUs)
#   BENCH_ARGS='--sizes 1000 --only redfish' tests/bench/run.sh
#   BENCH_SKIP_COLLECTORS=1 tests/bench/run.sh   only the bench_* programs
#
# 1. bench.py: Redfish (issue 3) and SNMP (issue 4), wattpath against
#    collectd on one wattpath-sim, side by side in the same run.
# 2. bench_config.sh: check-config on 10,000 to 100,000 nodes (linear?).
# 3. $BUILD/bench/bench_* (built by `make bench` from tests/bench/*.c):
#    report over 1,000 nodes x 7 days (issue 8), /metrics and dashboard
#    at 10,000 nodes (issue 10), one remote-write batch at 5,000 BMCs
#    (bench_rwrite, issue 21; the whole process beside plain polling is
#    bench.py's wattpath-remote-write), when present.
# Only 127.0.0.0/8 is used; bench.py stops everything it starts.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
BUILD=${BUILD:-build}
WATTPATH=${WATTPATH:-$ROOT/$BUILD/wattpath}
if [ -z "${SIM:-}" ]; then
	SIM=$ROOT/$BUILD/wattpath-sim
	[ -x "$SIM" ] || SIM=$ROOT/wattpath-sim
fi
PY=/usr/bin/python3
rc=0

# Many BMCs: one connection each, in several processes at once.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null

echo "# wattpath benchmarks, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' |
	head -1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' \
	/proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"),"\
" kernel $(uname -r)"
echo "# $($WATTPATH version 2>/dev/null | head -1),"\
" git $(git rev-parse --short HEAD 2>/dev/null || echo '?'),"\
" collectd $(collectd -h 2>/dev/null | sed -n 's/^collectd \([0-9.]*\).*/\1/p')"

if [ -z "${BENCH_SKIP_COLLECTORS:-}" ]; then
	# shellcheck disable=SC2086
	$PY tests/bench/bench.py --wattpath "$WATTPATH" --sim "$SIM" \
		--floor "$ROOT/$BUILD/bench/floor" \
		${BENCH_ARGS:-} || rc=1
fi

echo
echo "== check-config at scale (bench_config.sh) =="
WATTPATH=$WATTPATH sh tests/bench/bench_config.sh || rc=1

for b in bench_report bench_expo; do
	bin=$BUILD/bench/$b
	[ -x "$bin" ] || { printf "\n== %s: not built, skipped ==\n" "$b"; continue; }
	echo
	echo "== $b =="
	t0=$(date +%s)
	"$bin" || { echo "$b: failed (exit $?)"; rc=1; }
	echo "($b: $(($(date +%s) - t0)) s wall)"
done
# Any other bench_* programs someone added.
for bin in "$BUILD"/bench/bench_*; do
	[ -x "$bin" ] || continue
	case ${bin##*/} in bench_report|bench_expo) continue ;; esac
	echo
	echo "== ${bin##*/} =="
	"$bin" || { echo "${bin##*/}: failed"; rc=1; }
done
exit $rc
