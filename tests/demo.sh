#!/bin/sh
# demo.sh - wattpath end to end on a simulated AI fleet (`make demo`).
#
# Starts wattpath-sim (16 GPU nodes in 2 racks, 4 PDUs, 3 facility meters,
# speaking Redfish/HTTPS, SNMP, Modbus TCP and Prometheus text on
# 127.0.0.0/8), runs the collector on the config the simulator writes,
# waits for a measurement window, prints the datacentre-boundary report and
# each figure's error against the simulator's exact truth, then stops
# everything it started.
#
#   tests/demo.sh            one window (DEMO_SECONDS, default 120 s)
#   tests/demo.sh --serve    keep fleet and collector running until ^C
#
# Environment: WATTPATH, WATTPATH_SIM (binaries), DEMO_SECONDS, DEMO_NODES,
# DEMO_SEED, DEMO_SHARED (nodes shared by two models, default 2), KEEP=1
# (keep the work directory).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WATTPATH=${WATTPATH:-$ROOT/wattpath}
SIM=${WATTPATH_SIM:-$ROOT/wattpath-sim}
PY=/usr/bin/python3
SECS=${DEMO_SECONDS:-120}
NODES=${DEMO_NODES:-16}
SEED=${DEMO_SEED:-7}
SERVE=0
[ "${1:-}" = "--serve" ] && SERVE=1
SHARED=${DEMO_SHARED:-2}
FLEET="--nodes $NODES --racks 2 --pdus 4 --meters 3 --seed $SEED --shared $SHARED"

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$WATTPATH" ] || die "no $WATTPATH (run make)"
[ -x "$SIM" ] || die "no $SIM (run make)"
[ -x "$PY" ] || die "no $PY"

D=$(mktemp -d "${TMPDIR:-/tmp}/wattpath-demo.XXXXXX")
SIM_PID=""
COL_PID=""
cleanup() {
	[ -n "$COL_PID" ] && kill "$COL_PID" 2>/dev/null
	[ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null
	[ -n "$COL_PID" ] && wait "$COL_PID" 2>/dev/null
	[ -n "$SIM_PID" ] && wait "$SIM_PID" 2>/dev/null
	if [ -n "${KEEP:-}" ]; then
		echo "demo: kept $D" >&2
	else
		rm -rf "$D"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A base port with the 6 ports after it free on loopback.
PORT=$($PY - <<'EOF'
import random, socket
for _ in range(200):
    base = random.randrange(20000, 60000, 8)
    socks = []
    try:
        for p in range(base, base + 7):
            for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                s = socket.socket(socket.AF_INET, typ)
                s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
EOF
)
[ -n "$PORT" ] || die "no free ports"

now() { $PY -c 'import time; print("%.3f" % time.time())'; }
iso() { $PY -c 'import sys,datetime; print(datetime.datetime.fromtimestamp(float(sys.argv[1]), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]+"Z")' "$1"; }

start_sim() {
	"$SIM" serve $FLEET --port-base "$PORT" --config-out "$D/wattpath.yaml" \
	    --maps-dir "$ROOT/etc" "$@" >"$D/sim.log" 2>&1 &
	SIM_PID=$!
	n=0
	while ! grep -q "^wattpath-sim: config" "$D/sim.log" 2>/dev/null; do
		kill -0 "$SIM_PID" 2>/dev/null || return 1
		n=$((n + 1)); [ $n -gt 100 ] && return 1
		sleep 0.1
	done
	return 0
}

echo "== wattpath demo: simulated fleet of $NODES GPU nodes, seed $SEED"
if ! start_sim; then
	# The SNMP PDUs are the newest front end; run without them if need be.
	cat "$D/sim.log" >&2
	SIM_PID=""
	start_sim --no-snmp || { cat "$D/sim.log" >&2; die "simulator failed"; }
	echo "   (PDUs not served: outlet boundary left out)"
fi
sed 's/^/   /' "$D/sim.log"
# The simulator's site has a name and a zone only; give it France's yearly
# grid average (g/kWh) and a flat tariff so the report shows carbon and cost.
if grep -q '^site: {name: [^,]*, zone: [A-Z-]*}$' "$D/wattpath.yaml"; then
	sed -i 's/^site: {name: \([^,]*\), zone: \([A-Z-]*\)}$/site:\
  name: \1\
  zone: \2\
  grid: {yearly_average_g_per_kwh: 56}\
  tariff: {price: 0.058, currency: EUR}/' "$D/wattpath.yaml"
fi

"$WATTPATH" check-config -c "$D/wattpath.yaml" >"$D/check.log" 2>&1 ||
	{ cat "$D/check.log" >&2; die "the generated config does not check"; }
(cd "$ROOT" && exec "$WATTPATH" run -c "$D/wattpath.yaml") \
    >"$D/collector.log" 2>&1 &
COL_PID=$!
LISTEN=$(sed -n 's/^  listen: //p' "$D/wattpath.yaml")
echo "   collector pid $COL_PID, log $D/collector.log"

if [ $SERVE -eq 1 ]; then
	echo "== dashboard: http://$LISTEN/   (config $D/wattpath.yaml)"
	echo "   truth: $SIM truth $FLEET --from T --to T"
	echo "   ^C stops the fleet and the collector"
	while kill -0 "$COL_PID" 2>/dev/null && kill -0 "$SIM_PID" 2>/dev/null
	do
		sleep 1
	done
	echo "demo: a process stopped; see $D" >&2
	KEEP=1
	exit 1
fi

# Let the first poll round establish counter baselines, then the window.
sleep 15
FROM=$(now)
echo "== measuring for $SECS s from $(iso "$FROM") ..."
sleep "$SECS"
TO=$(now)
# Readings after the window's end close it; then stop the collector.
sleep 12
kill "$COL_PID" 2>/dev/null
wait "$COL_PID" 2>/dev/null
COL_PID=""
F=$(iso "$FROM")
T=$(iso "$TO")

"$SIM" truth $FLEET --from "$F" --to "$T" --json >"$D/truth.json" ||
	die "truth failed"
echo
if "$WATTPATH" report -c "$D/wattpath.yaml" --from "$F" --to "$T" \
    --format md >"$D/report.md" 2>"$D/report.err" &&
    "$WATTPATH" report -c "$D/wattpath.yaml" --from "$F" --to "$T" \
    --format json >"$D/report.json" 2>>"$D/report.err"; then
	echo "== wattpath report (datacentre boundaries), $F .. $T"
	cat "$D/report.md"
	echo
	CURVE=""
	"$WATTPATH" curve -c "$D/wattpath.yaml" --class hgx-h100-8 --from "$F" \
	    --to "$T" --format json >"$D/curve.json" 2>"$D/curve.err" &&
		CURVE="--curve $D/curve.json"
	$PY "$ROOT/sim/compare.py" "$D/truth.json" --report "$D/report.json" \
	    $CURVE
else
	echo "== wattpath report is not available yet:"
	sed 's/^/   /' "$D/report.err" | head -5
	echo "== journal summary instead (counter deltas in the window)"
	"$WATTPATH" journal export -c "$D/wattpath.yaml" >"$D/journal.csv" \
	    2>"$D/journal.err" || { cat "$D/journal.err" >&2; }
	$PY "$ROOT/sim/compare.py" "$D/truth.json" \
	    --journal "$D/journal.csv" --from "$FROM" --to "$TO"
fi
rc=$?
echo
grep -c " warn: " "$D/collector.log" | sed 's/^/   collector warnings: /'
exit $rc
