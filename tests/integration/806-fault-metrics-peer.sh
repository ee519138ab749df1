#!/bin/sh
# fast
# Fault suite, a hostile /metrics peer (tests/peers/metrics_server.py): two
# honest dcgm-exporters and one in each fault mode, polled by `wattpath run`
# every second for ~10 s:
#   garbage hugeline endless (max_body 64 KiB) trickle longlength
#       shortlength  (answers that must fail the poll with a named error,
#       within its timeout)
#   stepback jump nan inf  (counters that must never count as energy)
# Checks: the honest targets' polls stay on time (no gap over 2.5 s, every
# one ok, their journal deltas add up to what the peer served); the daemon
# lives; no target's journal deltas or /metrics counter hold energy the peer
# did not serve (no jump, no whole counter from a step back, no NaN/Inf),
# nor does the report; each failing target journals a failed poll whose
# error names the fault, the value faults are named in the log.
# make soak: FAULT_RUN_S=120 (the run's length, default 10 s).
. "$(dirname "$0")/lib.sh"

P=$(free_port)
L=$(free_port)
F=$FIX/inband/dcgm_gh200_synth.txt
FAIL_MODES="garbage hugeline endless trickle longlength shortlength"
VALUE_MODES="stepback jump nan inf"
routes=""
for r in good1 good2 $FAIL_MODES $VALUE_MODES; do routes="$routes --route /$r=$F"; done
# 412337 mJ a scrape: the fixture's 412 W at one scrape a second
# shellcheck disable=SC2086
bg srv $PY "$ROOT/tests/peers/metrics_server.py" --port "$P" --step 412337 $routes
wait_tcp 127.0.0.1 "$P"
{
	echo "collector: {interval: 1s, data_dir: $T/data, listen: \"127.0.0.1:$L\"}"
	echo "nodes:"
	for r in good1 good2; do
		echo "  - {name: $r, gpu: {dcgm_exporter: \"http://127.0.0.1:$P/$r\"}}"
	done
	for m in $FAIL_MODES $VALUE_MODES; do
		# the endless body meets a 64 KiB cap long before the timeout
		mb=""
		[ $m = endless ] && mb=", max_body: 65536"
		echo "  - {name: $m, gpu: {dcgm_exporter: \"http://127.0.0.1:$P/fault/$m/$m\"$mb}}"
	done
} >"$T/c.yaml"
"$WATTPATH" check-config -c "$T/c.yaml" >"$T/check.log" 2>&1 ||
	fail "check-config: $(cat "$T/check.log")"
bg wp "$WATTPATH" run -c "$T/c.yaml"
wait_tcp 127.0.0.1 "$L"
sleep "${FAULT_RUN_S:-10}"
alive "$PID_wp"
curl -sf "http://127.0.0.1:$L/metrics" >"$T/metrics.txt" || fail "/metrics did not answer"
curl -sf "http://127.0.0.1:$P/count" >"$T/count.json" || fail "peer /count"
stop_bg wp
"$WATTPATH" journal export -c "$T/c.yaml" >"$T/j.csv" 2>"$T/j.err" ||
	fail "export: $(cat "$T/j.err")"

F=$(sed -n 2p "$T/j.csv" | cut -d, -f2 | cut -c1-10)
# from the first reading (a window before it is refused), 60 s at least:
# it outlasts the run, so figures may be null and the report exit 1
"$WATTPATH" report -c "$T/c.yaml" --from $((F + 1)) --to $((F + 61)) >"$T/r.json" \
	2>"$T/r.err"
rc=$?
[ $rc = 0 ] || { [ $rc = 1 ] && grep -q "no energy figure" "$T/r.err"; } ||
	fail "report: exit $rc: $(cat "$T/r.err")"
$PY - "$T/j.csv" "$T/metrics.txt" "$T/count.json" "$T/r.json" "${FAULT_RUN_S:-10}" <<'PYEOF' || fail "checks (kept in $T)"
import csv, json, math, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
metrics = open(sys.argv[2]).read()
counts = json.load(open(sys.argv[3]))
STEP_J = 412.337
# the report's 61 s window holds at most the run's scrapes (one a second)
MAX_J = STEP_J * (min(float(sys.argv[5]), 61) + 10)
err = []
def recs(t):
    """One (t_real, status, error) per poll record of target t."""
    seen = {}
    for r in rows:
        if r["target"] == t:
            seen.setdefault(r["t_real_ns"], (int(r["t_real_ns"]) / 1e9, r["status"], r["error"]))
    return sorted(seen.values())
def energy(t):
    return [r for r in rows if r["target"] == t and r["series"] == "gpu/0/energy"]
def counted(t):
    return sum(float(r["delta"] or 0) for r in energy(t))

for g in ("good1", "good2"):
    p = recs(g + "/gpu")
    gaps = [b[0] - a[0] for a, b in zip(p, p[1:])]
    bad = [x for x in p if x[1] != "ok"]
    e = energy(g + "/gpu")
    print("%s: %d polls, max gap %.2f s, %d failed, %.0f J counted" % (
        g, len(p), max(gaps or [0]), len(bad), counted(g + "/gpu")))
    if len(p) < 8:
        err.append("%s: %d polls in 10 s" % (g, len(p)))
    if gaps and max(gaps) > 2.5:
        err.append("%s: a %.2f s gap between polls" % (g, max(gaps)))
    if bad:
        err.append("%s: failed polls: %s" % (g, bad[0]))
    if len(e) >= 2:
        served = float(e[-1]["value"]) - float(e[0]["value"])
        if abs(counted(g + "/gpu") - served) > 1e-6 * served + 1e-3:
            err.append("%s: %.3f J counted, %.3f J served" % (g, counted(g + "/gpu"), served))

want = {"garbage": "expected a metric name", "hugeline": "longer than",
        "endless": "body over 65536 bytes", "trickle": "no answer within",
        "longlength": "no answer within", "shortlength": "truncated"}
for m, pat in want.items():
    p = recs(m + "/gpu")
    failed = [x for x in p if x[1] != "ok"]
    print("%s: %d polls, %d failed: %s" % (m, len(p), len(failed), failed[0][2] if failed else ""))
    if not failed:
        err.append("%s: no failed poll journaled" % m)
    elif not re.search(pat, failed[0][2], re.I):
        err.append("%s: error %r names no %s" % (m, failed[0][2], pat))
    if any(x[1] == "ok" for x in p):
        err.append("%s: a poll taken as ok" % m)
    if counted(m + "/gpu") != 0:
        err.append("%s: %.0f J counted" % (m, counted(m + "/gpu")))

for m in ("stepback", "jump", "nan", "inf"):
    t = m + "/gpu"
    e = energy(t)
    got = counted(t)
    n = counts.get("/" + m, 0)
    flags = sorted({f for r in e for f in r["ctr_flags"].split("|") if f})
    print("%s: %d energy readings, %.0f J counted, %d scrapes, flags %s" % (m, len(e), got, n, flags))
    # never more than the peer's honest counter moved over all its scrapes
    if not (0 <= got <= STEP_J * (n + 1)):
        err.append("%s: %.0f J counted, at most %.0f J served" % (m, got, STEP_J * (n + 1)))
    if any(not math.isfinite(float(r["value"])) for r in e):
        err.append("%s: a non-finite energy journaled" % m)
    if "reset" in flags:
        err.append("%s: taken as a reset: %s" % (m, flags))
    if m == "jump" and e and "implausible" not in flags:
        err.append("jump: the step is not flagged implausible")
    if m in ("nan", "inf") and e:
        err.append("%s: %d energy readings journaled" % (m, len(e)))

# the report over a window holding the run: no node's energy beyond what
# was served (the window is wider than the run: coverage may leave it null)
rep = json.load(open(sys.argv[4]))
for node in rep["nodes"]:
    for b, v in node["boundaries"].items():
        e = v["energy_j"]
        if e is not None and not (0 <= e <= MAX_J):
            err.append("report: node %s %s energy %r J" % (node["name"], b, e))
for b, v in rep["boundaries"].items():
    e = v["energy_j"]
    if e is not None and not (0 <= e <= MAX_J * len(rep["nodes"])):
        err.append("report: %s energy %r J" % (b, e))

# the live counters: nothing near the 1e15 J jump or a whole counter added
for line in metrics.splitlines():
    mm = re.match(r'(wattpath_\w*(?:energy|joules)\w*)\{([^}]*)\} (\S+)', line)
    if mm and "total" in mm.group(1):
        v = float(mm.group(3))
        if not math.isfinite(v) or v > 1e12:
            err.append("/metrics: %s" % line)
print("\n".join(err))
sys.exit(1 if err else 0)
PYEOF
# the value faults are named in the log, once per fault
for m in nan inf; do
	grep -q "$m/gpu: .*ENERGY_CONSUMPTION is not a finite number" "$T/wp.log" ||
		fail "$m: not logged: $(grep "$m/gpu" "$T/wp.log" | head -3)"
done
grep -q "jump/gpu: gpu/0/energy counter step .* not counted" "$T/wp.log" ||
	fail "the jump is not logged: $(grep jump/gpu "$T/wp.log" | head -3)"
[ "$(grep -c . "$T/wp.log")" -lt 100 ] || fail "the log floods: $(wc -l <"$T/wp.log") lines"
alive "$PID_srv"
exit 0
