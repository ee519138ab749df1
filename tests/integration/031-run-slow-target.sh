#!/bin/sh
# One target that never answers, and one that trickles a byte a second,
# cannot delay any other: a good meter keeps its interval while the bad
# in-band targets fail with per-target errors, and the daemon keeps going.
# make soak: FAULT_RUN_S=90 (the run's length, default 10 s).
. "$(dirname "$0")/lib.sh"

$PY -c 'import pymodbus, yaml' 2>/dev/null || skip "python3-pymodbus/python3-yaml missing"
MB=$(free_port); HANG=$(free_port); TRICKLE=$(free_port)
bg mb $PY "$ROOT/tests/peers/modbus_server.py" --tcp 127.0.0.1:$MB \
	--unit 1=eastron-sdm630
cat >"$T/bad.py" <<'PYEOF'
import socket, sys, threading, time
def serve(port, mode):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port)); s.listen(64)
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(c, mode), daemon=True).start()
def handle(c, mode):
    try:
        c.recv(4096)
        if mode == "trickle":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            for _ in range(100000):
                c.sendall(b"#"); time.sleep(1)
        else:
            time.sleep(3600)
    except OSError:
        pass
threading.Thread(target=serve, args=(int(sys.argv[1]), "hang"), daemon=True).start()
serve(int(sys.argv[2]), "trickle")
PYEOF
bg bad $PY "$T/bad.py" $HANG $TRICKLE
wait_tcp 127.0.0.1 $MB; wait_tcp 127.0.0.1 $HANG; wait_tcp 127.0.0.1 $TRICKLE
cat >"$T/w.yaml" <<EOF2
collector:
  interval: 1s
  timeout: 1s
  data_dir: $T/data
  listen: 127.0.0.1:$(free_port)
nodes:
  - name: n1
    engines: [{url: "http://127.0.0.1:$HANG/metrics", kind: vllm}, {url: "http://127.0.0.1:$TRICKLE/metrics", kind: vllm}]
meters:
  - {name: m1, role: facility_total, modbus: {tcp: 127.0.0.1:$MB, unit: 1}, map: eastron-sdm630}
site: {name: t, zone: FR}
EOF2
bg run "$WATTPATH" run -c "$T/w.yaml"
sleep "${FAULT_RUN_S:-10}"
alive "$PID_run"
stop_bg run
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "journal export"
cat >"$T/check.py" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def polls(t):
    return sorted({(int(r["t_real_ns"]), r["status"], float(r["duration_s"]) if r.get("duration_s") else 0)
                   for r in rows if r["target"] == t})
err = []
good = [p for p in polls("m1") if p[1] == "ok"]
if len(good) < 8:
    err.append("m1: %d good polls in 10 s at 1 s" % len(good))
ts = [p[0] for p in good]
gaps = [(b - a) / 1e9 for a, b in zip(ts, ts[1:])]
if gaps and max(gaps) > 1.6:
    err.append("m1 was delayed: gaps %s" % gaps)
for t in ("n1/engine0", "n1/engine1"):
    bad = [r for r in rows if r["target"] == t]
    if not bad:
        err.append("%s: no record of its failures" % t)
    elif any(r["status"] == "ok" for r in bad):
        err.append("%s: a bogus ok poll" % t)
print("\n".join(err) or "ok: m1 %d polls, max gap %.2f s" % (len(good), max(gaps)))
sys.exit(1 if err else 0)
PYEOF
$PY "$T/check.py" "$T/j.csv" || { tail -20 "$T/run.log"; fail "a slow target delayed another"; }
grep -q "n1/engine0" "$T/run.log" || fail "no per-target error logged"
