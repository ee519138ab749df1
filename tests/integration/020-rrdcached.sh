#!/bin/sh
# 020-rrdcached.sh - the store through a real rrdcached on a private unix
# socket: test_store writes 30 minutes of 500 W / 50 tokens/s through the
# daemon, the daemon is restarted half-way (the store reconnects once),
# then the values are read back with `rrdtool fetch --daemon`.
# fast
. "$(dirname "$0")/lib.sh"

command -v rrdcached >/dev/null || skip "rrdcached not installed"
command -v rrdtool >/dev/null || skip "rrdtool not installed"
TS=$(dirname "$WATTPATH")/tests/test_store
[ -x "$TS" ] || skip "no $TS (make unit-bins)"

SOCK=$T/rrdcached.sock
mkdir -p "$T/data" "$T/jrn"
start_daemon() {
	rm -f "$SOCK" "$T/rrdcached.pid"
	# -g: foreground; -B: only below -b; -w 3600: keep updates cached so
	# the fetch really has to go through the daemon; -j: its own journal
	bg rrdcached rrdcached -g -l "unix:$SOCK" -b "$T/data" -B \
		-j "$T/jrn" -p "$T/rrdcached.pid" -w 3600 -f 7200 -z 1
	wait_file "$SOCK" 10
}
start_daemon
export WP_RRDCACHED="unix:$SOCK" WP_RRD_DIR="$T/data"
# The restart command kills the first daemon by its pid and starts a new
# one on the same socket (restart is run by test_store via system()).
cat >"$T/restart.sh" <<EOR
#!/bin/sh
kill \$(cat "$T/rrdcached.pid") 2>/dev/null
n=50; while [ -e "$SOCK" ] && [ \$n -gt 0 ]; do sleep 0.1; n=\$((n-1)); done
rm -f "$SOCK"
rrdcached -l "unix:$SOCK" -b "$T/data" -B -j "$T/jrn" -p "$T/rrdcached2.pid" -w 3600 -f 7200 -z 1 \
	>"$T/rrdcached2.log" 2>&1
n=50; while [ ! -S "$SOCK" ] && [ \$n -gt 0 ]; do sleep 0.1; n=\$((n-1)); done
[ -S "$SOCK" ]
EOR
export WP_RRDCACHED_RESTART="sh $T/restart.sh"
note "test_store through rrdcached (restart half-way)"
"$TS" >"$T/test_store.log" 2>&1 || { cat "$T/test_store.log"; fail "test_store failed"; }
grep -q 'OK \] test_through_rrdcached' "$T/test_store.log" ||
	{ cat "$T/test_store.log"; fail "rrdcached case did not run"; }
[ -f "$T/rrdcached2.pid" ] || fail "the daemon was not restarted"
D2=$(cat "$T/rrdcached2.pid")
trap 'kill $D2 2>/dev/null; cleanup' EXIT INT TERM

# wall/power and wall/energy share one file: DS power_w, energy_mj
F=$T/data/rrd/it-node_bmc/wall.rrd
[ -f "$F" ] || fail "no $F"
t0=1699999980
# check FETCH-OUTPUT DS WANT TOLERANCE: the known values of one data
# source all within tolerance x want, and enough of them
check() {
	$PY - "$@" <<'PYEOF'
import math, sys
path, ds, want, tol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
lines = open(path).read().splitlines()
col = lines[0].split().index(ds)
vals = [float(l.split(':')[1].split()[col]) for l in lines[1:] if ':' in l and l.strip()[0].isdigit()]
known = [v for v in vals if not math.isnan(v)]
assert len(known) >= 25, (len(known), vals)
assert all(abs(v - want) <= tol * want for v in known), known
print(ds, "ok:", len(known), "points")
PYEOF
}
note "fetch through the daemon"
rrdtool fetch --daemon "unix:$SOCK" "$F" AVERAGE -r 60 -s $((t0 + 120)) -e $((t0 + 1740)) \
	>"$T/wall.txt" || fail "rrdtool fetch --daemon"
check "$T/wall.txt" power_w 500 1e-12 || fail "power values"
check "$T/wall.txt" energy_mj 500000 1e-6 || fail "energy values (mean W x 1000)"
# Write a few more updates through the daemon that only it holds (-w
# 3600 keeps them cached), then read them back through it.
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	rrdtool update --daemon "unix:$SOCK" "$F" "$((t0 + 1800 + i * 10)):700:U" ||
		fail "rrdtool update through the daemon"
done
rrdtool fetch --daemon "unix:$SOCK" "$F" AVERAGE -r 60 -s $((t0 + 1800)) -e $((t0 + 1920)) \
	>"$T/power2.txt" || fail "fetch cached"
grep -q '7.0000000000e+02' "$T/power2.txt" || { cat "$T/power2.txt"; fail "cached update not seen"; }
kill -0 "$D2" || fail "rrdcached died"
exit 0
