#!/bin/sh
# fast
# Fault suite, floods on the exposition port (issue 26.2): `wattpath run`
# (1 s) polls a test BMC while
#   1. 600 half-open connections come from one address,
#   2. 600 more from 300 addresses (two each),
#   3. 20 clients send their headers a byte every 2 s (slowloris);
# during each /healthz answers within 2 s (from a flooding address too),
# the slow clients are cut at the header deadline (10 s), /metrics counts
# what was closed and why, and once the floods end the server answers at
# once and holds no more than the connections in use.  The polls stay on
# time throughout (no journal gap over 1.6 s) and the journal verifies.
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip "curl missing"
PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
P=$(free_port 127.0.0.51)
L=$(free_port)
bg rf $PY "$PEER" --root "$FIX/redfish/synthetic-hgx" --bind 127.0.0.51 \
	--port "$P"
wait_tcp 127.0.0.51 "$P"
cat >"$T/c.yaml" <<EOF2
collector: {interval: 1s, data_dir: $T/data, listen: "127.0.0.1:$L"}
credentials: [{name: bmc, username: monitor, password_file: $T/pw}]
nodes:
  - {name: n51, bmc: {url: "http://127.0.0.51:$P", credentials: bmc}}
EOF2
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"

# flood MODE N HOLD: opens N connections, says "open" on fd 3, holds them
cat >"$T/flood.py" <<'PYEOF'
import socket, sys, time
mode, n, hold, port = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
socks = []
for i in range(n):
    a = i // 2
    src = "127.0.0.1" if mode == "one" else "127.0.%d.%d" % (2 + a // 250, 1 + a % 250)
    try:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", port))
        s.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    except OSError:
        pass
print("open", len(socks), flush=True)
if mode == "slow":
    # a header byte every 2 s; count the connections the server ends
    cut, t0 = {}, time.time()
    while time.time() - t0 < hold and len(cut) < len(socks):
        for k, s in enumerate(socks):
            if k in cut:
                continue
            try:
                s.send(b"X")
            except OSError:
                cut[k] = time.time() - t0
        time.sleep(2)
    print("cut", len(cut), "of", len(socks), "latest %.1f" % max(cut.values() or [0]), flush=True)
else:
    time.sleep(hold)
for s in socks:
    s.close()
print("closed", flush=True)
PYEOF

healthy() {	# $1: what is going on
	curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$L/healthz" ||
		fail "/healthz did not answer within 2 s $1"
}

sleep 2
for mode in one many; do
	note "600 half-open connections ($mode address$( [ $mode = many ] && echo es))"
	$PY "$T/flood.py" $mode 600 8 "$L" >"$T/$mode.log" 2>&1 &
	FP=$!
	wait_for 20 grep -q '^open' "$T/$mode.log" || fail "flood did not start"
	grep -q '^open 600' "$T/$mode.log" || fail "flood: $(head -1 "$T/$mode.log")"
	healthy "during a flood ($mode)"
	curl -fsS --max-time 2 --interface 127.0.2.7 -o /dev/null \
		"http://127.0.0.1:$L/healthz" || fail "a flooding address was locked out ($mode)"
	sleep 2
	healthy "during a flood ($mode), later"
	wait $FP
	healthy "right after a flood ($mode)"
done

note "slowloris: 20 clients sending a header byte every 2 s"
$PY "$T/flood.py" slow 20 25 "$L" >"$T/slow.log" 2>&1 || fail "slow flood: $(cat "$T/slow.log")"
cat "$T/slow.log" >&2
grep -q '^cut 20 of 20' "$T/slow.log" || fail "slow clients were not all cut"
LATEST=$(sed -n 's/^cut.*latest \([0-9.]*\)/\1/p' "$T/slow.log")
$PY -c "import sys; sys.exit(not $LATEST < 16)" || fail "slow clients cut only after $LATEST s"
healthy "after the slowloris"

curl -fsS --max-time 2 "http://127.0.0.1:$L/metrics" >"$T/m.txt" || fail "/metrics"
grep '^wattpath_http' "$T/m.txt" >&2
$PY - "$T/m.txt" <<'PYEOF' || fail "the connection figures are wrong"
import sys
m = {}
for l in open(sys.argv[1]):
    if l.startswith("wattpath_http"):
        k, v = l.rsplit(" ", 1)
        m[k] = float(v)
assert m["wattpath_http_connections"] <= 2, m
assert m['wattpath_http_connections_closed_total{reason="evicted"}'] >= 600, m
assert m['wattpath_http_connections_closed_total{reason="timeout"}'] >= 20, m
PYEOF
alive "$PID_wp"
stop_bg wp 15
"$WATTPATH" journal verify -c "$T/c.yaml" >"$T/v.log" 2>&1 || fail "journal: $(cat "$T/v.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" || fail "export"
$PY - "$T/j.csv" <<'PYEOF' || fail "polls were late during the floods"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = sorted({int(r["t_real_ns"]) for r in rows if r["target"] == "n51/bmc" and r["status"] == "ok"})
gaps = [(b - a) / 1e9 for a, b in zip(t, t[1:])]
print("n51/bmc: %d polls over %.1f s, longest gap %.2f s" % (len(t), (t[-1] - t[0]) / 1e9, max(gaps)))
assert len(t) >= 30, "too few polls"
assert max(gaps) < 1.6, "a gap of %.2f s" % max(gaps)
PYEOF
exit 0
