#!/bin/sh
# fast
# Fault suite, hostile values: test BMCs on 127.0.0.31-.35 that lie in what
# they answer, polled by `wattpath run` every second for ~10 s:
#   .31 energy jumps by 1e15 J mid-run while its power reads 5 kW (issue 26.1)
#   (all at 5 kW but .32)
#   .32 energy steps back 1 kJ on every other answer at 500 W (26.6)
#   .33 power reads 1e12 W, its energy counter right (26.9)
#   .34 vendor, model and firmware strings with CR, LF and ESC (26.7)
#   .35 honest, for comparison
# Checks: no step counted as energy that the trace did not draw (each BMC's
# journal deltas add up to the trace's integral over its readings within
# 2 %), the jump journaled as implausible and logged, no step back taken as a
# reset, the absurd power left out and the energy kept on every poll, no
# forged or escape-laden line in the log, the daemon alive throughout.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
L=$(free_port)
P=$(free_port 127.0.0.31)
rf() {
	_o=$1; _w=$2; shift 2
	bg "rf$_o" $PY "$PEER" --root "$FIX/redfish/synthetic-hgx" \
		--bind "127.0.0.$_o" --port "$P" --trace "$_w" "$@"
}
rf 31 5000
rf 32 500 --vfault stepback
rf 33 5000 --vfault absurdpower
rf 34 5000 --vfault evilstrings
rf 35 5000
for o in 31 32 33 34 35; do wait_tcp "127.0.0.$o" "$P"; done

{
	echo "collector: {interval: 1s, data_dir: $T/data, listen: \"127.0.0.1:$L\"}"
	echo "credentials: [{name: bmc, username: monitor, password_file: $T/pw}]"
	echo "nodes:"
	for o in 31 32 33 34 35; do
		echo "  - {name: n$o, bmc: {url: \"http://127.0.0.$o:$P\", credentials: bmc}}"
	done
} >"$T/c.yaml"
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"
bg wp "$WATTPATH" run -c "$T/c.yaml"
sleep 5
$PY -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.31:$P/_test/vfault?mode=jump', method='POST'))" ||
	fail "cannot set the jump"
sleep 6
alive "$PID_wp"
stop_bg wp
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"

$PY - "$T/j.csv" "$P" <<'PYEOF' || fail "journal checks (kept in $T/j.csv)"
import csv, json, sys, urllib.request
rows = list(csv.DictReader(open(sys.argv[1])))
P = sys.argv[2]
def wall(node):
    return [r for r in rows if r["target"] == node + "/bmc" and
            r["series"] == "wall/energy" and r["status"] == "ok"]
def trace(o, a, b):
    u = "http://127.0.0.%d:%s/_test/energy?from=%r&to=%r" % (o, P, a, b)
    return json.load(urllib.request.urlopen(u))["joules"]
err = []
for o in (31, 32, 33, 34, 35):
    w = wall("n%d" % o)
    if len(w) < 7:
        err.append("n%d: %d wall/energy readings" % (o, len(w)))
        continue
    got = sum(float(r["delta"] or 0) for r in w[1:])
    t0, t1 = int(w[0]["t_real_ns"]) / 1e9, int(w[-1]["t_real_ns"]) / 1e9
    want = trace(o, t0, t1)
    flags = {f for r in w for f in r["ctr_flags"].split("|") if f}
    print("n%d: %d readings, %.0f J counted, trace %.0f J, flags %s" % (
        o, len(w), got, want, sorted(flags)))
    if "reset" in flags:
        err.append("n%d: a reset: %s" % (o, flags))
    if o == 31:
        if "implausible" not in flags:
            err.append("n31: the jump is not flagged implausible")
        # the jump's interval is not counted: at most one interval short
        if not (want - 5000 * 1.6 - 0.01 * want <= got <= 1.01 * want):
            err.append("n31: %.0f J counted, trace %.0f J" % (got, want))
    elif o == 32:
        if "backstep" not in flags:
            err.append("n32: no step back seen")
        if abs(got - want) > 0.01 * want + 1000:
            err.append("n32: %.0f J counted, trace %.0f J" % (got, want))
    elif abs(got - want) > 0.02 * want:
        err.append("n%d: %.0f J counted, trace %.0f J" % (o, got, want))
p33 = [r for r in rows if r["target"] == "n33/bmc" and r["series"] == "wall/power"]
if p33:
    err.append("n33: the absurd power was kept: %s" % p33[0]["value"])
bad33 = [r for r in rows if r["target"] == "n33/bmc" and r["status"] != "ok"]
if len(bad33) > 1:
    err.append("n33: %d failed polls: %s" % (len(bad33), bad33[0]["error"]))
print("\n".join(err))
sys.exit(1 if err else 0)
PYEOF
grep -q "n31/bmc: wall/energy counter step .* not counted" "$T/wp.log" ||
	fail "the jump is not logged: $(grep n31 "$T/wp.log" | tail -3)"
grep -q "redfish n33/bmc: [0-9]* absurd value(s) left out" "$T/wp.log" ||
	fail "the absurd power is not logged: $(grep n33 "$T/wp.log" | tail -3)"
# one call, one line: nothing a device says starts a line or moves the cursor
grep -q '^wattpath: FORGED' "$T/wp.log" && fail "a forged log line"
if LC_ALL=C grep -q "$(printf '\033')" "$T/wp.log"; then fail "ESC in the log"; fi
if LC_ALL=C grep -q "$(printf '\r')" "$T/wp.log"; then fail "CR in the log"; fi
"$WATTPATH" probe "http://127.0.0.34:$P" --user monitor --password-file "$T/pw" \
	>"$T/probe.txt" 2>&1 || fail "probe n34: $(cat "$T/probe.txt")"
if LC_ALL=C grep -q "$(printf '\033')" "$T/probe.txt"; then fail "ESC in probe output"; fi
grep -q '^wattpath: FORGED' "$T/probe.txt" && fail "a forged line in probe output"
exit 0
