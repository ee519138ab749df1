#!/bin/sh
# run.sh - `make soak`: the fault suite's long cases (issue 26), minutes
# each, so not in `make check`: the same tests as the fast suite with their
# faults held longer.  Each asserts what its fast run does (polls on time,
# no crash, no bogus energy, nothing lost), over the longer fault:
#   803-fault-rrdcached    rrdcached stopped for a minute (FAULT_STALL=60)
#   805-fault-kill         ten SIGKILLs at odd moments, energy against the
#                          simulator's truth (FAULT_KILLS)
#   806-fault-metrics-peer the hostile /metrics peer for two minutes
#   031-run-slow-target    a peer that never answers and one that trickles,
#                          for a minute and a half
# Usage: tests/soak/run.sh [NAME...]  (WATTPATH: the binary, default
# build/wattpath).  Exit 0 when every case passed.
set -u
cd "$(dirname "$0")/../.."
WATTPATH=${WATTPATH:-$PWD/build/wattpath}
export WATTPATH
logdir=$(mktemp -d "${TMPDIR:-/tmp}/wattpath-soak.XXXXXX")
pass=0 fail=0 failed=""

soak() {	# NAME VAR=VALUE...
	name=$1
	shift
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) return 0 ;; esac
	fi
	echo "soak: $name $*"
	start=$(date +%s)
	env "$@" sh "tests/integration/$name.sh" >"$logdir/$name.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS $name ($(($(date +%s) - start)) s)"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL $name (rc $rc)"
		tail -n 30 "$logdir/$name.log" | sed 's/^/    /'
	fi
}

only="$*"
soak 803-fault-rrdcached FAULT_STALL=60
soak 805-fault-kill FAULT_KILLS="5.3 12.1 0.7 3.9 0.2 8.4 1.7 15.0 0.9 6.1"
soak 806-fault-metrics-peer FAULT_RUN_S=120
soak 031-run-slow-target FAULT_RUN_S=90
[ -n "$failed" ] && echo "failed:$failed"
echo "logs: $logdir"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
