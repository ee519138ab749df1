#!/bin/sh
# /metrics about the collector itself, on a small simulated fleet with one
# meter that nothing answers: gzip when the scraper accepts it (the
# decoded body is the plain one; not with q=0), the process_* series
# against /proc, the config reload series across SIGHUPs (a good reload,
# a refused one, a good one again), the last error of the dead meter as a
# reason class, and the render time of /metrics itself counting up.
# fast
. "$(dirname "$0")/lib.sh"
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
BASE=$(free_port_base 7)
LISTEN=$(free_port)
DEAD=$(free_port)
bg sim "$SIM" serve --nodes 4 --racks 1 --pdus 2 --meters 2 --seed 7 \
	--port-base "$BASE" --config-out "$T/w.yaml" --maps-dir "$ROOT/etc" \
	--interval 5s --listen-port "$LISTEN"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
# a meter on a port nothing listens on: its polls fail (transient)
$PY - "$T/w.yaml" "$DEAD" <<'PYEOF' || fail "config"
import sys
p, port = sys.argv[1:3]
s = open(p).read()
s = s.replace("meters:\n", "meters:\n  - {name: dead-1, role: other, modbus: "
              "{tcp: \"127.0.0.1:%s\", unit: 1}, map: eastron-sdm630}\n" % port, 1)
open(p, "w").write(s)
PYEOF
T0=$(date +%s)
bg run sh -c "cd '$ROOT' && exec '$WATTPATH' run -c '$T/w.yaml'"
wait_tcp 127.0.0.1 "$LISTEN" 20
$PY - "http://127.0.0.1:$LISTEN/metrics" "$PID_run" "$T" "$T0" <<'PYEOF' || fail "self series"
import gzip, os, re, signal, sys, time, urllib.request
url, pid, T, t0 = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
err = []

def get(ae=None):
    r = urllib.request.Request(url, headers={"Accept-Encoding": ae} if ae else {})
    with urllib.request.urlopen(r, timeout=10) as f:
        return f.headers.get("Content-Encoding"), f.headers.get("Vary"), f.read()

def parse(text):
    out = {}
    for l in text.splitlines():
        if l and not l.startswith("#"):
            k, v = l.rsplit(" ", 1)
            out[k] = float(v)
    return out

def one(m, name):
    v = [x for k, x in m.items() if k == name or k.startswith(name + "{")]
    return v[0] if len(v) == 1 else None

# the dead meter's first failed poll: within an interval or two
for _ in range(150):
    m = parse(get()[2].decode())
    if any(k.startswith("wattpath_target_last_error_info{") for k in m): break
    time.sleep(0.1)

# 1. gzip: the decoded body is the plain one.  The collector's own
# figures (process_*, its connections, its render time) move from one
# request to the next, and a poll between two requests moves the rest:
# plain, gzip, plain again until both plains agree, then gzip must too.
SELF = re.compile(r"^(# (HELP|TYPE) )?(process_|wattpath_exposition_|wattpath_http_)")
def body(b): return "\n".join(l for l in b.decode().splitlines() if not SELF.match(l))
for attempt in range(20):
    e1, v1, p1 = get()
    ez, vz, z = get("gzip")
    e2, _, p2 = get()
    if body(p1) == body(p2): break
    time.sleep(0.3)
else:
    err.append("no two plain scrapes alike in 20 tries")
if e1 is not None: err.append("plain scrape has Content-Encoding %r" % e1)
if ez != "gzip": err.append("Accept-Encoding: gzip got Content-Encoding %r" % ez)
if "Accept-Encoding" not in (v1 or ""): err.append("no Vary: Accept-Encoding (%r)" % v1)
try:
    dz = gzip.decompress(z)
    if body(dz) != body(p1): err.append("gzip body decodes to other text than the plain one")
    if len(z) >= len(p1): err.append("gzip body %d bytes, plain %d" % (len(z), len(p1)))
    print("--- plain %d bytes, gzip %d" % (len(p1), len(z)), file=sys.stderr)
except OSError as e:
    err.append("gzip body does not decode: %s" % e)
e0, _, p0 = get("gzip;q=0, identity")
if e0 is not None or not p0.startswith(b"#"): err.append("q=0 still got %r" % e0)
e3, _, _ = get("deflate, x-gzip;q=0.5")
if e3 != "gzip": err.append("x-gzip;q=0.5 got %r" % e3)

# 2. process_* against /proc and the clock
m = parse(p1.decode())
now = time.time()
st = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
rss = int(st[21]) * os.sysconf("SC_PAGESIZE")
fds = len(os.listdir("/proc/%d/fd" % pid))
chk = {
    "process_cpu_seconds_total": lambda v: 0 < v < (now - t0 + 5) * os.cpu_count(),
    "process_resident_memory_bytes": lambda v: rss / 2 < v < rss * 2,
    "process_virtual_memory_bytes": lambda v: v >= m.get('process_resident_memory_bytes{site="sim-1"}', 0),
    "process_start_time_seconds": lambda v: t0 - 2 <= v <= t0 + 10,
    "process_open_fds": lambda v: 3 < v and abs(v - fds) <= 4,
    "process_max_fds": lambda v: v >= m.get('process_open_fds{site="sim-1"}', 1e9),
}
for n, ok in chk.items():
    v = m.get(n + '{site="sim-1"}')
    if v is None: err.append("no %s" % n)
    elif not ok(v): err.append("%s = %r not sane (rss %d, fds %d)" % (n, v, rss, fds))

# 3. the last error: the dead meter only, a reason from the fixed set
le = {k: v for k, v in m.items() if k.startswith("wattpath_target_last_error_info{")}
want = 'wattpath_target_last_error_info{site="sim-1",target="dead-1",protocol="modbus",reason="transient"}'
if list(le) != [want]: err.append("last error series %r" % le)
ts = one(m, "wattpath_target_last_error_timestamp_seconds")
if ts is None or not t0 - 2 <= ts <= now + 1: err.append("last error time %r" % ts)

# 4. the render time of /metrics: counted, summed, the last one kept
c1 = one(m, "wattpath_exposition_duration_seconds_count")
s1 = one(m, "wattpath_exposition_duration_seconds_sum")
m2 = parse(get()[2].decode())
c2 = one(m2, "wattpath_exposition_duration_seconds_count")
s2 = one(m2, "wattpath_exposition_duration_seconds_sum")
last = one(m2, "wattpath_exposition_last_duration_seconds")
if None in (c1, s1, c2, s2, last) or not (c2 > c1 >= 1 and s2 > s1 > 0 and 0 < last < 5):
    err.append("render time: count %r -> %r, sum %r -> %r, last %r" % (c1, c2, s1, s2, last))

# 5. reloads: good, refused (bad file), good again
OK = "wattpath_config_last_reload_successful"
TS = "wattpath_config_last_reload_success_timestamp_seconds"
def reload_state():
    r = parse(get()[2].decode())
    return one(r, OK), one(r, TS)
def hup_until(cond, what):
    os.kill(pid, signal.SIGHUP)
    for _ in range(100):
        s = reload_state()
        if cond(s): return s
        time.sleep(0.1)
    err.append("%s: reload series stayed %r" % (what, reload_state()))
    return reload_state()
ok0, ts0 = reload_state()
if ok0 != 1 or ts0 is None or not t0 - 2 <= ts0 <= now + 1:
    err.append("at the start: successful %r, time %r" % (ok0, ts0))
time.sleep(1.1)
ok1, ts1 = hup_until(lambda s: s[1] is not None and ts0 is not None and s[1] > ts0, "good reload")
if ok1 != 1: err.append("good reload: successful %r" % ok1)
good = open(T + "/w.yaml").read()
open(T + "/w.yaml", "w").write("collector: {interval: 0s}\nbogus: [\n")
ok2, ts2 = hup_until(lambda s: s[0] == 0, "refused reload")
if ok2 != 0 or ts2 != ts1: err.append("refused reload: successful %r, time %r (was %r)" % (ok2, ts2, ts1))
open(T + "/w.yaml", "w").write(good)
ok3, ts3 = hup_until(lambda s: s[0] == 1, "good again")
if ok3 != 1 or not (ts3 or 0) > (ts1 or 0): err.append("good again: successful %r, time %r" % (ok3, ts3))
print("--- reload times %r %r %r %r" % (ts0, ts1, ts2, ts3), file=sys.stderr)
if err: sys.exit("\n".join(err))
PYEOF
alive "$PID_run"
exit 0
