#!/bin/sh
# fast
# /api/v1/report and /api/v1/curves run on the exposition's report workers,
# off the collector's loop: with six hours of a 32-node fleet in the
# journal (wattpath-sim history) and the collector polling a dcgm-exporter
# peer every second, a stream of reports over those hours keeps every poll
# on schedule (no gap in the journal beyond the interval plus 0.5 s).
# Two reports run at once and four wait; the next gets 503 with
# Retry-After.  A SIGHUP while reports run swaps the config under them
# (each keeps the one it was asked under, even when a reload rebuilds
# every target and nothing else refers to it); the documents are the ones
# `wattpath report` and `wattpath curve` print; SIGTERM with a report
# running stops the daemon promptly and cleanly.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
NOW=$(date +%s)
TO=$((NOW - NOW % 3600 - 3600))
FROM=$((TO - 6 * 3600))
A=$((FROM + 60))
B=$((TO - 60))
"$SIM" history --nodes 32 --racks 2 --pdus 4 --meters 3 --seed 5 \
	--from $FROM --to $TO --step 10s --data-dir "$T/data" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }

# The collector: the fleet's nodes as an inventory without targets (the
# report reads their history), one node polled every second.
P=$(free_port)
L=$(free_port)
bg srv $PY "$ROOT/tests/peers/metrics_server.py" --port "$P" --step 100 \
	--route /dcgm=$FIX/inband/issue317_a30_mig_excerpt.txt
wait_tcp 127.0.0.1 "$P"
{
	printf 'collector: {interval: 1s, data_dir: %s, listen: 127.0.0.1:%s, fsync: none}\n' \
		"$T/data" "$L"
	printf 'nodes:\n'
	printf '  - {name: probe, gpu: {dcgm_exporter: "http://127.0.0.1:%s/dcgm"}}\n' "$P"
	sed -n 's/^  - name: \(.*\)$/  - name: \1/p; s/^    class: \(.*\)$/    class: \1/p' \
		"$T/data/wattpath.yaml"
} >"$T/c.yaml"
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "check-config"; }
bg run "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
BASE=http://127.0.0.1:$L

# The documents are those of the commands.  The inventory has no targets
# for the history's series, so the report has no energy figure: printed,
# and exit 1 (issue 19).
"$WATTPATH" report -c "$T/c.yaml" --from $A --to $B >"$T/cli.json" 2>"$T/cli.err"
rc=$?
[ $rc = 0 ] || { [ $rc = 1 ] && grep -q "no energy figure" "$T/cli.err"; } ||
	{ cat "$T/cli.err"; fail "wattpath report: exit $rc"; }
"$WATTPATH" curve -c "$T/c.yaml" --class hgx-h100-8 --from $A --to $B \
	>"$T/cli-curve.json" 2>"$T/cli.err" || { cat "$T/cli.err"; fail "wattpath curve"; }
cat >"$T/get.py" <<'PYEOF'
import json, sys, time, urllib.error, urllib.request
def get(url):
    try:
        r = urllib.request.urlopen(url, timeout=120)
        return r.status, r.headers.get("Retry-After"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Retry-After"), e.read()
if __name__ == "__main__":
    st, _, body = get(sys.argv[1])
    if st != 200:
        sys.exit("status %d: %s" % (st, body[:200]))
    a = json.loads(body); b = json.load(open(sys.argv[2]))
    if a != b:
        for k in b:
            if a.get(k) != b[k]:
                print("differs:", k, file=sys.stderr)
        sys.exit("API document differs from the command's")
PYEOF
$PY "$T/get.py" "$BASE/api/v1/report?from=$A&to=$B" "$T/cli.json" ||
	fail "/api/v1/report"
$PY "$T/get.py" "$BASE/api/v1/curves?class=hgx-h100-8&from=$A&to=$B" \
	"$T/cli-curve.json" || fail "/api/v1/curves"
note "API documents equal the commands'"
# the API's times are the command line's (now-5m, a day, epoch, ISO-8601);
# a bad one is a 400 naming the argument
$PY - "$T" "$BASE" <<'PYEOF' || fail "API time arguments"
import sys; sys.path.insert(0, sys.argv[1]); from get import get
base = sys.argv[2]
st, _, body = get(base + "/api/v1/report?from=bogus")
assert st == 400 and b"from: cannot parse 'bogus'" in body, (st, body[:200])
st, _, body = get(base + "/api/v1/report?from=now-5m&to=now")
assert st != 400, (st, body[:200])
PYEOF

# A stream of reports, and a burst past the queue, with a SIGHUP in the
# middle; then the polls of that time.
cat >"$T/load.py" <<'PYEOF'
import sys, threading, time
sys.path.insert(0, sys.argv[1]); from get import get
base, a, b, pidfile = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
url = "%s/api/v1/report?from=%s&to=%s" % (base, a, b)
codes, lock = [], threading.Lock()
def one():
    st, ra, _ = get(url)
    with lock: codes.append((st, ra))
t0 = time.time()
burst = [threading.Thread(target=one) for _ in range(10)]
for t in burst: t.start()
time.sleep(0.5)
import os, signal
os.kill(int(open(pidfile).read()), signal.SIGHUP)
for t in burst: t.join()
# keep two reports running for 8 s more
end = time.time() + 8
def stream():
    while time.time() < end: one()
ws = [threading.Thread(target=stream) for _ in range(2)]
for t in ws: t.start()
for t in ws: t.join()
t1 = time.time()
ok = sum(1 for c, _ in codes if c == 200)
busy = [ra for c, ra in codes if c == 503]
bad = [c for c, _ in codes if c not in (200, 503)]
print("%d reports, %d ok, %d busy, %.1f s" % (len(codes), ok, len(busy), t1 - t0))
print("window %d %d" % (int(t0), int(t1) + 1))
if bad: sys.exit("unexpected status %s" % bad)
if not busy or any(ra != "5" for ra in busy): sys.exit("no 503 with Retry-After: 5 (%s)" % busy)
if ok < 6: sys.exit("only %d reports answered" % ok)
PYEOF
$PY "$T/load.py" "$T" "$BASE" $A $B "$T/run.pid" >"$T/load.out" 2>&1 ||
	{ cat "$T/load.out"; tail -20 "$T/run.log"; fail "report load"; }
cat "$T/load.out"
alive "$PID_run"
grep -q "SIGHUP: reloading" "$T/run.log" || fail "no reload logged"
set -- $(sed -n 's/^window //p' "$T/load.out")
"$WATTPATH" journal export -c "$T/c.yaml" --from "$1" --to "$2" >"$T/j.csv" ||
	fail "journal export"
$PY - "$T/j.csv" <<'PYEOF' || fail "polls off schedule during the reports"
import csv, sys
ts = sorted({int(r["t_real_ns"]) for r in csv.DictReader(open(sys.argv[1]))
             if r["target"] == "probe/gpu"})
if len(ts) < 8:
    sys.exit("only %d polls" % len(ts))
gaps = [(b - a) / 1e9 for a, b in zip(ts, ts[1:])]
print("%d polls, largest gap %.3f s" % (len(ts), max(gaps)))
if max(gaps) > 1.5:
    sys.exit("a gap of %.3f s between polls" % max(gaps))
PYEOF
note "polls kept their 1 s schedule during the reports"

# A reload that rebuilds every target while reports run: the old config
# then has no target left, only the reports hold it.
cat >"$T/reload.py" <<'PYEOF'
import os, signal, sys, threading, time
sys.path.insert(0, sys.argv[1]); from get import get
base, a, b, pid, cfg = sys.argv[2:7]
codes = []
def one():
    codes.append(get("%s/api/v1/report?from=%s&to=%s" % (base, a, b))[0])
ts = [threading.Thread(target=one) for _ in range(4)]
for t in ts: t.start()
time.sleep(0.3)
text = open(cfg).read().replace('/dcgm"}}', '/dcgm", timeout: 900ms}}')
open(cfg, "w").write(text)
os.kill(int(pid), signal.SIGHUP)
for t in ts: t.join()
print("reports across the reload:", codes)
if codes != [200] * 4: sys.exit("a report failed across the reload")
PYEOF
n=$(grep -c "reloaded" "$T/run.log")
$PY "$T/reload.py" "$T" "$BASE" $A $B "$PID_run" "$T/c.yaml" ||
	{ tail -20 "$T/run.log"; fail "reports across a reload"; }
wait_for 10 sh -c "[ \$(grep -c reloaded '$T/run.log') -gt $n ]" || fail "no second reload"
grep -q "timeout: 900ms" "$T/c.yaml" || fail "config not changed"
alive "$PID_run"
note "reports hold their config across a reload"

# SIGTERM while a report runs: out promptly, cleanly.
( $PY -c "import sys; sys.path.insert(0, '$T'); from get import get; print(get('$BASE/api/v1/report?from=$A&to=$B')[0])" \
	>"$T/last.out" 2>&1 & )
sleep 0.3
kill -TERM "$PID_run"
n=0
while kill -0 "$PID_run" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
kill -0 "$PID_run" 2>/dev/null && fail "still running 10 s after SIGTERM"
wait "$PID_run"
rc=$?
[ $rc = 0 ] || { tail -20 "$T/run.log"; fail "exit status $rc after SIGTERM"; }
note "SIGTERM with a report running: exit 0 after $((n / 10)).$((n % 10)) s"
exit 0
