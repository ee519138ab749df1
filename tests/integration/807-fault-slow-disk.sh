#!/bin/sh
# Fault suite, a slow and then failing disk: every fdatasync(2) of the
# collector takes 2.5 s (an LD_PRELOAD shim built here, as a disk under
# load or a stalled SAN would), and for a few seconds in the middle fails
# with EIO; two test BMCs polled every second with the default
# `fsync: poll`.  The journal's group commit syncs on a thread of its own,
# so the polls keep their schedule: every poll good, one a second, no gap
# over 1.5 s, each poll's request at the BMC within 0.5 s of its start;
# the syncs ran off the main thread.  The failed syncs are the journal's
# health (one "writes fail" line naming fdatasync, one "work again"), and
# the records they covered count once: the journal's energy deltas add up
# to its cumulative (a record written but not synced is in the file).  At
# SIGTERM every record is on disk (the journal verifies).  Not under ASan
# (its runtime must come first in the preload list).
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
cat >"$T/slowsync.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* fdatasync slowed by SLOW_SYNC_MS, failing with EIO while the file
 * SLOW_SYNC_FAIL exists; each call logged to SLOW_SYNC_LOG as "pid tid"
 * (the main thread's tid is the pid). */
int
fdatasync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	const char *ms = getenv("SLOW_SYNC_MS"), *log = getenv("SLOW_SYNC_LOG");
	const char *failing = getenv("SLOW_SYNC_FAIL");
	long n = ms != NULL ? atol(ms) : 0;
	struct timespec ts = { n / 1000, (n % 1000) * 1000000L };
	char line[64];
	int lfd, len;

	if (log != NULL && (lfd = open(log, O_WRONLY | O_APPEND | O_CREAT,
	    0600)) >= 0) {
		len = snprintf(line, sizeof(line), "%d %d\n", (int)getpid(),
		    (int)gettid());
		if (write(lfd, line, (size_t)len) < 0)
			;
		close(lfd);
	}
	nanosleep(&ts, NULL);
	if (failing != NULL && access(failing, F_OK) == 0) {
		errno = EIO;
		return -1;
	}
	return real(fd);
}
EOF
"$CC" -shared -fPIC -O1 -o "$T/slowsync.so" "$T/slowsync.c" -ldl \
	2>"$T/cc.err" || skip "cannot build the preload shim: $(cat "$T/cc.err")"
if nm -D "$WATTPATH" 2>/dev/null | grep -q __asan_init; then
	skip "an ASan build: the preload shim cannot come first"
fi

PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
P=$(free_port 127.0.0.61)
L=$(free_port)
for o in 61 62; do
	bg "rf$o" $PY "$PEER" --root "$FIX/redfish/synthetic-hgx" \
		--bind "127.0.0.$o" --port "$P" --trace 2000
done
for o in 61 62; do wait_tcp "127.0.0.$o" "$P"; done
cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, data_dir: $T/data, log_level: info, listen: "127.0.0.1:$L", fsync: poll}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
nodes:
  - {name: n61, bmc: {url: "http://127.0.0.61:$P", credentials: bmc}}
  - {name: n62, bmc: {url: "http://127.0.0.62:$P", credentials: bmc}}
YAML

# A segment's close (at the top of the hour) syncs on the loop: keep the
# run (about 30 s) clear of it.
left=$(( 3600 - $(date +%s) % 3600 ))
[ "$left" -ge 45 ] || { note "waiting $left s for the hour to turn"; sleep $(( left + 2 )); }
clock_off() { $PY -c 'import time; print(time.time() - time.monotonic())'; }
off0=$(clock_off)
bg wp env LD_PRELOAD="$T/slowsync.so" SLOW_SYNC_MS=2500 \
	SLOW_SYNC_LOG="$T/syncs" SLOW_SYNC_FAIL="$T/eio" \
	"$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
M=http://127.0.0.1:$L/metrics
polled() { for o in 61 62; do [ "$(metric_at "$M" "wattpath_target_up{target=\"n$o/bmc\",protocol=\"redfish\"}")" = 1 ] || return 1; done; }
wait_for 15 polled || fail "no first poll: $(tail -3 "$T/wp.log")"
sleep 4
note "fdatasync fails with EIO"
touch "$T/eio"
sleep 6
rm -f "$T/eio"
note "fdatasync works again"
sleep 8
alive "$PID_wp"
stop_bg wp 20
off1=$(clock_off)

[ -s "$T/syncs" ] || fail "the shim saw no fdatasync: not preloaded?"
off_main=$(awk '$1 != $2' "$T/syncs" | wc -l)
[ "$off_main" -ge 3 ] ||
	fail "$off_main fdatasync calls off the main thread: $(cat "$T/syncs")"
note "$(wc -l <"$T/syncs") fdatasync calls, $off_main off the main thread"
n=$(grep -c "journal: writes fail" "$T/wp.log")
[ "$n" = 1 ] || fail "$n 'journal: writes fail' lines (want 1): $(grep journal "$T/wp.log" | head -5)"
grep -q "journal: writes fail: .*fdatasync: Input/output error" "$T/wp.log" ||
	fail "the failure's reason: $(grep journal "$T/wp.log" | head -3)"
grep -q "journal: writes work again" "$T/wp.log" ||
	fail "no recovery line: $(grep journal "$T/wp.log" | head -3)"
n=$(grep -c fdatasync "$T/wp.log")
[ "$n" = 1 ] || fail "$n log lines name fdatasync (want 1): $(grep fdatasync "$T/wp.log" | head -5)"

"$WATTPATH" journal verify -c "$T/c.yaml" >"$T/verify.log" 2>&1 ||
	fail "journal verify: $(cat "$T/verify.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"
for o in 61 62; do
	$PY -c "import urllib.request as u; print(u.urlopen('http://127.0.0.$o:$P/_test/log').read().decode())" \
		>"$T/log$o.json" || fail "log $o"
done

$PY - "$T" "$off0" "$off1" <<'PYEOF' || fail "polls on a slow disk (kept in $T/j.csv)"
import csv, json, sys

T = sys.argv[1]
step = abs(float(sys.argv[3]) - float(sys.argv[2]))  # host clock step, s
rows = list(csv.DictReader(open(T + "/j.csv")))
for o in (61, 62):
    recs = {}
    for r in rows:
        if r["target"] == "n%d/bmc" % o:
            recs.setdefault(int(r["t_real_ns"]), r["status"])
    polls = sorted(recs.items())
    ok = [t / 1e9 for t, s in polls if s == "ok"]
    assert ok and len(ok) == len(polls), "n%d: failed polls: %s" % (o, polls)
    el = ok[-1] - ok[0]
    assert el >= 16, "n%d: only %.1f s of polls" % (o, el)
    assert abs(len(ok) - (el + 1)) <= 1 + step, "n%d: %d polls in %.1f s" % (o, len(ok), el)
    gaps = [b - a for a, b in zip(ok, ok[1:])]
    assert max(gaps) < 1.5 + step, "n%d: poll gap %.2f s" % (o, max(gaps))
    log = [x[0] for x in json.load(open("%s/log%d.json" % (T, o)))
           if x[1] == "GET" and not x[2].startswith("/_test")]
    late = []
    for t in ok[1:]:
        mine = [x for x in log if t - 0.05 <= x < t + 0.9]
        assert mine, "n%d: no request for the poll at %.3f" % (o, t)
        late.append(min(mine) - t)
    assert max(late) < 0.5 + step, "n%d: a poll's request came %.2f s late" % (o, max(late))
    print("n%d: %d polls in %.1f s, longest gap %.2f s, latest request %.0f ms" % (
        o, len(ok), el, max(gaps), 1000 * max(late)))
    v = [r for r in rows if r["target"] == "n%d/bmc" % o
         and r["series"] == "wall/energy" and r["status"] == "ok"]
    d = sum(float(r["delta"] or 0) for r in v[1:])
    c = float(v[-1]["cum"]) - float(v[0]["cum"])
    print("n%d: deltas %.1f J, cumulative rose %.1f J" % (o, d, c))
    assert abs(d - c) <= 1e-6 * max(c, 1), "n%d: deltas %.3f J, cumulative %.3f J" % (o, d, c)
PYEOF
exit 0
