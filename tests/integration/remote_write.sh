# remote_write.sh - the remote-write outage run that 707 (VictoriaMetrics)
# and 708 (Prometheus) share; sourced after lib.sh by a test that defines
#   recv_start   starts the receiver in the background as "recv" on
#                $RECV_PORT, its storage under $T/recv (kept across restarts)
#   RECV_KIND    vm or prom (how rw_check.py reads the samples back)
#   RECV_WRITE   the receiver's remote-write path
# The simulated fleet is polled every second and /metrics pushed every
# second; the receiver is stopped (SIGTERM: both receivers answer 2xx
# before their data is on disk, and a SIGKILL loses what they had not yet
# written, which is theirs to lose, not the sender's) for OUTAGE seconds,
# the collector queueing meanwhile, and started again; then the fleet is stopped so that the figures stand still, the
# queue drains, and the collector stops.  rw_check.py then reads every
# sample back from the receiver: the total equals the collector's own
# count of samples sent (its log at exit), no series has a sample twice or
# misses a batch, no batch is missing from the run, and the last energy and
# token figures equal the final /metrics.
OUTAGE=${OUTAGE:-5}
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 8 --racks 1 --pdus 1 --meters 1 --seed 7"
BASE=$(free_port_base 7)
LISTEN=$(free_port)
RECV_PORT=$(free_port)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s --listen-port "$LISTEN"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
# a second receiver refuses every batch (400): each is logged, counted as
# rejected and dropped, and the first receiver's queue is not held up
BAD_PORT=$(free_port)
cat >"$T/bad.py" <<'PYEOF'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        b = b"out of bounds\n"
        self.send_response(400)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PYEOF
bg bad $PY "$T/bad.py" "$BAD_PORT"
wait_tcp 127.0.0.1 "$BAD_PORT" 20
sed -i "s|^collector:\$|collector:\n  remote_write: [{name: rw, url: \"http://127.0.0.1:$RECV_PORT$RECV_WRITE\", timeout: 2s}, {name: bad, url: \"http://127.0.0.1:$BAD_PORT/api/v1/write\"}]|" \
	"$T/w.yaml"
grep -q 'remote_write: \[{name: rw' "$T/w.yaml" || fail "no collector: block to add remote_write to"
"$WATTPATH" check-config -c "$T/w.yaml" || fail "check-config"
recv_start
wait_tcp 127.0.0.1 "$RECV_PORT" 30
bg run sh -c "cd '$ROOT' && exec '$WATTPATH' run -c '$T/w.yaml'"
wait_tcp 127.0.0.1 "$LISTEN" 20
# rw VALUE-NAME: one wattpath_remote_write_* figure of receiver rw
rw() {
	curl -sf "http://127.0.0.1:$LISTEN/metrics" | sed -n \
		"s/^wattpath_remote_write_$1{[^}]*remote=\"rw\"[^}]*} //p"
}
rw_at_least() { [ "$(rw "$1" | cut -d. -f1)" -ge "$2" ] 2>/dev/null; }
wait_for 30 rw_at_least last_success_timestamp_seconds 1 ||
	{ tail "$T/run.log"; fail "no batch taken by the receiver"; }
sleep 3
note "receiver down for ${OUTAGE}s"
kill "$PID_recv"
wait_for 20 sh -c "! kill -0 $PID_recv" || fail "the receiver did not stop"
sleep "$OUTAGE"
alive "$PID_run"
rw_at_least queue_batches 2 || fail "the queue holds no batches in the outage: $(rw queue_batches)"
rw_at_least failures_total 1 || fail "no failed request counted in the outage"
recv_start
wait_tcp 127.0.0.1 "$RECV_PORT" 30
wait_for 30 sh -c "[ \"\$(curl -sf http://127.0.0.1:$LISTEN/metrics | grep '^wattpath_remote_write_queue_batches{.*remote=\"rw\"' | sed 's/.* //')\" = 0 ]" ||
	fail "the queue did not drain after the outage: $(rw queue_batches) batches"
sleep 2
if [ -n "${RELOAD:-}" ]; then
	# a reload that changes the receiver's settings starts its sender anew
	# on the same queue: a request it abandons stays queued
	sed -i 's|timeout: 2s}|timeout: 3s}|' "$T/w.yaml"
	kill -HUP "$PID_run"
	wait_for 20 grep -q "remote_write: the receivers changed" "$T/run.log" ||
		fail "no new sender after the reload"
	sleep 3
fi
# the figures stand still once the fleet is gone (every poll fails)
kill "$PID_sim"
sleep 3
curl -sf "http://127.0.0.1:$LISTEN/metrics" >"$T/final.txt" || fail "scrape"
sleep 3
wait_for 20 sh -c "[ \"\$(curl -sf http://127.0.0.1:$LISTEN/metrics | grep '^wattpath_remote_write_queue_batches{.*remote=\"rw\"' | sed 's/.* //')\" = 0 ]" ||
	fail "the queue did not drain"
[ "$(rw 'samples_total' | sed -n 2,3p | tr '\n' ' ')" = "0 0 " ] ||
	fail "samples rejected or dropped: $(rw samples_total | tr '\n' ' ')"
curl -sf "http://127.0.0.1:$LISTEN/metrics" | grep '^wattpath_remote_write_.*remote="bad"' >"$T/bad.txt"
$PY - "$T/bad.txt" <<'PYEOF' || { cat "$T/bad.txt"; fail "the refusing receiver's figures"; }
import re, sys
v = {}
for l in open(sys.argv[1]):
    m = re.match(r'^(\S+)\{[^}]*?(?:result="(\w+)")?\} (\S+)$', l.strip())
    if m: v[(m.group(1), m.group(2))] = float(m.group(3))
s = "wattpath_remote_write_samples_total"
ok = v[(s, "rejected")] > 1000 and v[(s, "sent")] == 0 and v[(s, "dropped")] == 0 \
    and v[("wattpath_remote_write_queue_batches", None)] <= 1
sys.exit(0 if ok else 1)
PYEOF
grep -q 'remote_write bad: batch [0-9]* of [0-9]* samples refused (HTTP 400: out of bounds' "$T/run.log" ||
	fail "no refusal logged"
kill "$PID_run"
wait_for 20 sh -c "! kill -0 $PID_run" || fail "the collector did not stop"
# one "stopped" line per sender (a reload stops one and starts another)
SENT=$(sed -n 's/.*remote_write rw: stopped: \([0-9]*\) samples sent.*/\1/p' "$T/run.log" |
	awk '{ n += $1 } END { if (NR) print n }')
[ -n "$SENT" ] || { tail "$T/run.log"; fail "no 'stopped' line in the log"; }
note "$SENT samples sent"
$PY "$ROOT/tests/integration/rw_check.py" "$RECV_KIND" "http://127.0.0.1:$RECV_PORT" \
	"$T/final.txt" "$SENT" "$OUTAGE" "$LISTEN" || fail "the receiver's samples"
