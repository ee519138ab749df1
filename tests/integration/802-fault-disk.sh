#!/bin/sh
# fast
# Fault suite, a full disk (issue 26.8): data_dir on a 6 MiB tmpfs, two test
# BMCs polled every second; the disk is filled until the journal's next
# write fails (seconds: it needs a new page), then freed.
# While it is full: /healthz answers 503 naming the journal, /metrics says
# wattpath_storage_up{part="journal"} 0, the log has one line for the
# failure (not one per poll) with the system's reason, the polls go on;
# after it is freed: one "work again" line, /healthz ok, and the journal's
# deltas add up to its cumulative (the records the disk refused are in the
# next record's delta).  Needs root to mount the tmpfs.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
M=$T/mnt
mkdir -p "$M"
mount -t tmpfs -o size=6m tmpfs "$M" 2>"$T/mount.err" ||
	skip "cannot mount a tmpfs: $(cat "$T/mount.err")"
# the peers and the collector first (they hold the mount), then unmount
trap 'for p in $_pids; do kill -9 "$p" 2>/dev/null; done; sleep 0.3;
	umount "$M" 2>/dev/null; cleanup' EXIT INT TERM
PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
P=$(free_port 127.0.0.51)
L=$(free_port)
for o in 51 52; do
	bg "rf$o" $PY "$PEER" --root "$FIX/redfish/synthetic-hgx" \
		--bind "127.0.0.$o" --port "$P" --trace 2000
done
for o in 51 52; do wait_tcp "127.0.0.$o" "$P"; done
cat >"$T/c.yaml" <<EOF
collector: {interval: 1s, data_dir: $M/data, listen: "127.0.0.1:$L",
            rrd_write_delay: 0s}
credentials: [{name: bmc, username: monitor, password_file: $T/pw}]
nodes:
  - {name: n51, bmc: {url: "http://127.0.0.51:$P", credentials: bmc}}
  - {name: n52, bmc: {url: "http://127.0.0.52:$P", credentials: bmc}}
EOF
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
sleep 3
curl -fsS "http://127.0.0.1:$L/healthz" >/dev/null || fail "/healthz not ok at start"
note "filling the disk"
dd if=/dev/zero of="$M/fill" bs=64k 2>/dev/null
# a journal record is some 100 bytes: the write that needs a new page of
# the tmpfs fails within seconds (up to 30 s allowed)
n=0
while :; do
	code=$(curl -s -o "$T/h.txt" -w '%{http_code}' "http://127.0.0.1:$L/healthz")
	[ "$code" = 503 ] || [ $n -ge 30 ] && break
	sleep 1; n=$((n + 1))
done
note "healthz $code after ${n} s"
[ "$code" = 503 ] || fail "/healthz with a full disk: $code $(cat "$T/h.txt")"
grep -q "journal: failing since .*No space left on device" "$T/h.txt" ||
	fail "/healthz does not say why: $(cat "$T/h.txt")"
curl -fsS "http://127.0.0.1:$L/metrics" >"$T/m.txt" || fail "/metrics"
grep -q '^wattpath_storage_up{part="journal"} 0$' "$T/m.txt" ||
	fail "metrics: $(grep storage "$T/m.txt")"
alive "$PID_wp"
rm -f "$M/fill"
note "disk freed"
sleep 4
code=$(curl -s -o "$T/h2.txt" -w '%{http_code}' "http://127.0.0.1:$L/healthz")
[ "$code" = 200 ] || fail "/healthz after the disk was freed: $code $(cat "$T/h2.txt")"
stop_bg wp
n=$(grep -c "journal: writes fail" "$T/wp.log")
[ "$n" = 1 ] || fail "$n 'journal: writes fail' lines (want 1): $(grep journal "$T/wp.log" | head -5)"
grep -q "journal: writes fail: .*No space left on device" "$T/wp.log" ||
	fail "the failure's reason: $(grep journal "$T/wp.log" | head -3)"
grep -q "journal: writes work again" "$T/wp.log" || fail "no recovery line"
[ "$(grep -c 'store: RRD writes fail' "$T/wp.log")" -le 1 ] || fail "RRD failure logged more than once"
lines=$(wc -l <"$T/wp.log")
[ "$lines" -lt 40 ] || fail "the log flooded: $lines lines"
"$WATTPATH" journal verify -c "$T/c.yaml" >"$T/v.log" 2>&1 || fail "verify: $(cat "$T/v.log")"
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" || fail "export"
$PY - "$T/j.csv" <<'PYEOF' || fail "deltas do not add up to the cumulative"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["series"] == "wall/energy" and r["status"] == "ok"]
for n in ("n51/bmc", "n52/bmc"):
    v = [r for r in rows if r["target"] == n]
    d = sum(float(r["delta"] or 0) for r in v[1:])
    c = float(v[-1]["cum"]) - float(v[0]["cum"])
    print("%s: %d records, deltas %.1f J, cumulative rose %.1f J" % (n, len(v), d, c))
    assert abs(d - c) <= 1e-6 * max(c, 1), (d, c)
PYEOF
exit 0
