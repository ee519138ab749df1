#!/bin/sh
# fast
# Fault suite, a stalled rrdcached (issue 26.3): `wattpath run` (1 s) polls
# two test BMCs and writes RRD through rrdcached; rrdcached is stopped
# (SIGSTOP) for 12 s, continued, then stopped again and the collector told
# to stop.  While rrdcached is stopped the polls stay on time (no gap in
# the journal over 1.6 s), /healthz and /metrics answer, the journal
# verifies; SIGTERM during a stall ends the collector within its grace.
# (A minute-long stall belongs to a soak run: FAULT_STALL=60.)
. "$(dirname "$0")/lib.sh"

command -v rrdcached >/dev/null || skip "rrdcached not installed"
STALL=${FAULT_STALL:-12}
PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
SOCK=$T/rrdcached.sock
mkdir -p "$T/data" "$T/jrn"
bg rrdcached rrdcached -g -l "unix:$SOCK" -b "$T/data" -B -j "$T/jrn" \
	-p "$T/rrdcached.pid" -w 60 -z 1
wait_file "$SOCK" 10
P=$(free_port 127.0.0.41)
L=$(free_port)
for o in 41 42; do
	bg "rf$o" $PY "$PEER" --root "$FIX/redfish/synthetic-hgx" \
		--bind "127.0.0.$o" --port "$P" --trace 3000
done
for o in 41 42; do wait_tcp "127.0.0.$o" "$P"; done
cat >"$T/c.yaml" <<EOF
collector: {interval: 1s, data_dir: $T/data, rrdcached: "unix:$SOCK",
            listen: "127.0.0.1:$L"}
credentials: [{name: bmc, username: monitor, password_file: $T/pw}]
nodes:
  - {name: n41, bmc: {url: "http://127.0.0.41:$P", credentials: bmc}}
  - {name: n42, bmc: {url: "http://127.0.0.42:$P", credentials: bmc}}
EOF
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
sleep 3
RC=$(cat "$T/rrdcached.pid")
kill -STOP "$RC" || fail "cannot stop rrdcached"
note "rrdcached stopped for $STALL s"
i=0
while [ $i -lt "$STALL" ]; do
	sleep 1
	i=$((i + 1))
	curl -fsS --max-time 2 "http://127.0.0.1:$L/healthz" >/dev/null ||
		fail "/healthz did not answer with rrdcached stopped (after $i s)"
done
curl -fsS --max-time 3 "http://127.0.0.1:$L/metrics" >"$T/m.txt" ||
	fail "/metrics did not answer with rrdcached stopped"
kill -CONT "$RC"
sleep 3
alive "$PID_wp"
note "stopped again, then SIGTERM: the collector exits within its grace"
kill -STOP "$RC"
sleep 1
stop_bg wp 15
kill -CONT "$RC"
grep -q "RRD writer is stuck\|signal 15" "$T/wp.log" || fail "no stop line: $(tail -3 "$T/wp.log")"
"$WATTPATH" journal verify -c "$T/c.yaml" >"$T/v.log" 2>&1 || fail "journal: $(cat "$T/v.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" || fail "export"
$PY - "$T/j.csv" "$STALL" <<'PYEOF' || fail "polls were late while rrdcached was stopped"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for n in ("n41/bmc", "n42/bmc"):
    t = sorted({int(r["t_real_ns"]) for r in rows if r["target"] == n and r["status"] == "ok"})
    gaps = [(b - a) / 1e9 for a, b in zip(t, t[1:])]
    span = (t[-1] - t[0]) / 1e9
    print("%s: %d polls over %.1f s, longest gap %.2f s" % (n, len(t), span, max(gaps)))
    assert len(t) >= int(sys.argv[2]) + 4, "too few polls"
    assert max(gaps) < 1.6, "a gap of %.2f s" % max(gaps)
PYEOF
exit 0
