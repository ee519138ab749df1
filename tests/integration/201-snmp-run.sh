#!/bin/sh
# snmp_pdu under the real collector: `wattpath run` (1 s interval) polls
# three PDUs of different vendors served by snmpsim from the recordings
# (Eaton over SNMPv3 authPriv, Liebert and Raritan over v2c), one PDU
# with no agent and one with a wrong SNMPv3 auth password.  While it runs the data files change under snmpsim (the
# file is swapped; snmpsim re-indexes it): the Liebert receptacle's
# Counter32 energy wraps, two Eaton outlet counters restart (one by value
# only, one with a new outletWhTimer), and Eaton outlet 24 disappears
# (rediscovery: the tables walked again, one row fewer).  The journal export must
# show the values as recorded x the MIB's scale, the wrap as a positive
# delta equal to the modular difference, resets with no negative delta,
# the dead agent failing alone (timeout) and the wrong password as an auth
# error while the others keep polling,
# and the device identity labels on every outlet/inlet sample.  Raritan
# outlet 2 reads an absurd power (4 MW) until the swap: left out, the rest
# of the PDU read, said once in the log (not once a poll), and its return
# said once too.
# fast
. "$(dirname "$0")/lib.sh"

command -v snmpsimd >/dev/null || skip "snmpsimd not installed (Debian snmpsim)"
ADDR=127.0.0.$(( ($$ % 200) + 20 ))
PORT=$(free_udp_port "$ADDR")
DEAD=$(free_udp_port "$ADDR")
LISTEN=$(free_port)
D=$T/data
mkdir -p "$D" "$T/cache" "$T/wp"
cp "$FIX/snmp/eatonpdu_2.snmprec" "$D/eaton-run.snmprec"
cp "$FIX/snmp/liebert_mph2rg.snmprec" "$D/liebert-run.snmprec"
sed 's/^\(1\.3\.6\.1\.4\.1\.13742\.6\.5\.4\.3\.1\.4\.1\.2\.5\)|66|.*/\1|66|4000000/' \
	"$FIX/snmp/raritan-pdu_px3.snmprec" >"$D/raritan-run.snmprec"
chmod -R a+rX "$T"
chmod 1777 "$T/cache"
SIMUSER=""
[ "$(id -u)" = 0 ] && SIMUSER="--process-user=nobody --process-group=nogroup"
bg snmpsim snmpsimd --data-dir="$D" --cache-dir="$T/cache" \
	--agent-udpv4-endpoint="$ADDR:$PORT" $SIMUSER \
	--v3-user=wpuser --v3-auth-key=authpass123 --v3-auth-proto=SHA256 \
	--v3-priv-key=privpass123 --v3-priv-proto=AES \
	--v3-user=wpother --v3-auth-key=authpass456 --v3-auth-proto=SHA256 \
	--v3-priv-key=privpass456 --v3-priv-proto=AES

secret_file "$T/com-raritan" raritan-run
secret_file "$T/com-liebert" liebert-run
secret_file "$T/com-dead" public
secret_file "$T/auth" authpass123
secret_file "$T/priv" privpass123
wait_for 30 "$WATTPATH" probe "snmp://$ADDR:$PORT" --community-file \
	"$T/com-raritan" --timeout 2s ||
	{ cat "$T/snmpsim.log" >&2; fail "snmpsim never answered"; }

# swap FILE: replace the data file by $FILE.new with a later mtime (snmpsim
# compares whole seconds) so that snmpsim re-indexes it on the next request.
SWAPS=0
swap() {
	SWAPS=$((SWAPS + 1))
	touch -d "@$(( $(date +%s) + 100 * SWAPS ))" "$1.new"
	chmod a+r "$1.new"
	mv "$1.new" "$1"
}

# The Liebert receptacle 1 energy becomes a Counter32 (0.1 kWh steps)
# counting a step every 2 s (180 kW: one step is the counter's quantum in
# a 1 s poll) that passes 2^32 (and wraps) WRAP_IN s from now.
WRAP_IN=6
NOW=$(date +%s)
INIT=$(( 4294967296 - (NOW + WRAP_IN) / 2 ))
sed "s/^\(1\.3\.6\.1\.4\.1\.476\.1\.42\.3\.8\.50\.20\.1\.85\.1\.2\.1\)|66|.*/\1|65:numeric|atime=1,initial=$INIT,rate=0.5,wrap=1,max=4294967296/" \
	"$FIX/snmp/liebert_mph2rg.snmprec" >"$D/liebert-run.snmprec.new"
swap "$D/liebert-run.snmprec"

cat >"$T/w.yaml" <<EOF
collector:
  interval: 1s
  timeout: 1s
  data_dir: $T/wp
  listen: 127.0.0.1:$LISTEN
  log_level: info
credentials:
  - {name: c-raritan, community_file: $T/com-raritan}
  - {name: c-liebert, community_file: $T/com-liebert}
  - {name: c-dead, community_file: $T/com-dead}
  # a user of its own: net-snmp keeps one set of keys per engine and user
  - {name: v3-bad, username: wpother, auth_protocol: SHA-256, auth_password_file: $T/auth,
     priv_protocol: AES, priv_password_file: $T/priv}
  - {name: v3, username: wpuser, auth_protocol: SHA-256, auth_password_file: $T/auth,
     priv_protocol: AES, priv_password_file: $T/priv}
pdus:
  - {name: pdu-eaton, address: "$ADDR:$PORT", profile: auto,
     snmp: {version: 3, credentials: v3, context: eaton-run, timeout: 300ms}}
  - {name: pdu-liebert, address: "$ADDR:$PORT", profile: liebert-gp-pdu,
     snmp: {version: 2c, credentials: c-liebert, timeout: 300ms}}
  - {name: pdu-raritan, address: "$ADDR:$PORT", profile: auto,
     snmp: {version: 2c, credentials: c-raritan, timeout: 300ms}}
  - {name: pdu-dead, address: "$ADDR:$DEAD", profile: eaton-epdu,
     snmp: {version: 2c, credentials: c-dead, timeout: 200ms, retries: 0}}
  - {name: pdu-badauth, address: "$ADDR:$PORT", profile: eaton-epdu,
     snmp: {version: 3, credentials: v3-bad, context: eaton-run, timeout: 200ms}}
site: {name: t, zone: FR}
EOF
"$WATTPATH" check-config -c "$T/w.yaml" >/dev/null 2>&1 ||
	{ "$WATTPATH" check-config -c "$T/w.yaml"; fail "check-config"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
sleep 4
alive "$PID_run"

# Eaton, second firmware state: outlet 3's counter drops (a user reset,
# same timer), outlet 5 restarts with a new outletWhTimer, outlet 24 is gone.
sed -e 's/^\(1\.3\.6\.1\.4\.1\.534\.6\.6\.7\.6\.5\.1\.4\.0\.3\)|66|.*/\1|66|1000/' \
    -e 's/^\(1\.3\.6\.1\.4\.1\.534\.6\.6\.7\.6\.5\.1\.4\.0\.5\)|66|.*/\1|66|10/' \
    -e 's/^\(1\.3\.6\.1\.4\.1\.534\.6\.6\.7\.6\.5\.1\.5\.0\.5\)|66|.*/\1|66|1700900000/' \
    -e '/^1\.3\.6\.1\.4\.1\.534\.6\.6\.7\.6\.[0-9.]*\.0\.24|/d' \
	"$FIX/snmp/eatonpdu_2.snmprec" >"$D/eaton-run.snmprec.new"
swap "$D/eaton-run.snmprec"
cp "$FIX/snmp/raritan-pdu_px3.snmprec" "$D/raritan-run.snmprec.new"
swap "$D/raritan-run.snmprec"
T_SWAP=$(date +%s)
# /metrics: PDU outlets, inlets and phases as wattpath_pdu_* {pdu,role,index}
$PY - "$LISTEN" >"$T/metrics" <<'PYEOF' || fail "GET /metrics"
import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())
PYEOF
grep -q '^wattpath_pdu_power_watts{site="t",pdu="pdu-eaton",role="outlet",index="1"} 80$' "$T/metrics" ||
	fail "no eaton outlet 1 power in /metrics: $(grep wattpath_pdu_power "$T/metrics" | head -3)"
grep -q '^wattpath_pdu_power_watts{site="t",pdu="pdu-eaton",role="inlet",index="1"} 1584$' "$T/metrics" ||
	fail "no eaton inlet power in /metrics"
grep -q '^wattpath_pdu_power_watts{site="t",pdu="pdu-eaton",role="phase",index="1"} ' "$T/metrics" ||
	fail "no eaton phase power in /metrics"
grep -q '^wattpath_pdu_energy_joules_total{site="t",pdu="pdu-eaton",role="inlet",index="1"} ' "$T/metrics" ||
	fail "no eaton inlet energy in /metrics"
grep -q '^wattpath_pdu_apparent_power_voltamperes{site="t",pdu="pdu-eaton",role="inlet",index="1"} ' "$T/metrics" ||
	fail "no eaton inlet VA in /metrics"
grep -q '^# TYPE wattpath_pdu_energy_joules_total counter$' "$T/metrics" || fail "metric type"
sleep 5
alive "$PID_run"
stop_bg run
"$WATTPATH" journal export -c "$T/w.yaml" >"$T/j.csv" || fail "journal export"
"$WATTPATH" journal verify -c "$T/w.yaml" >/dev/null || fail "journal verify"

cat >"$T/check.py" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t_swap = int(sys.argv[2]) * 10**9
err = []
def ser(t, s):
    return [r for r in rows if r["target"] == t and r["series"] == s and r["status"] == "ok"]
def polls(t, status):
    return sorted({r["t_real_ns"] for r in rows if r["target"] == t and r["status"] == status})
def first(t, s):
    v = ser(t, s)
    return float(v[0]["value"]) if v else None

# every live PDU polled all along; the dead one failed alone, by timeout
for t in ("pdu-eaton", "pdu-liebert", "pdu-raritan"):
    n = len(polls(t, "ok"))
    if n < 7: err.append("%s: only %d ok polls" % (t, n))
    bad = polls(t, "transient") + polls(t, "protocol") + polls(t, "auth")
    if len(bad) > 1: err.append("%s: %d failed polls" % (t, len(bad)))
if polls("pdu-dead", "ok"): err.append("dead PDU has ok polls")
o2 = ser("pdu-raritan", "outlet/2/power")
if not o2 or [r for r in o2 if int(r["t_real_ns"]) < t_swap - 10**9 or float(r["value"]) > 30000]:
    err.append("raritan outlet 2 power: %s" % [(r["t_real_ns"], r["value"]) for r in o2])
if not ser("pdu-raritan", "outlet/2/energy"): err.append("raritan outlet 2: its energy lost too")
dead = [r for r in rows if r["target"] == "pdu-dead"]
if len(dead) < 3 or not all("timeout" in r["error"] for r in dead):
    err.append("dead PDU: %d rows, errors %s" % (len(dead), {r["error"] for r in dead}))

# a wrong SNMPv3 auth password is an auth error, not a timeout
ba = [r for r in rows if r["target"] == "pdu-badauth"]
if not ba or not all(r["status"] == "auth" and "SNMPv3 authentication failed" in r["error"] for r in ba):
    err.append("bad v3 password: %s" % {(r["status"], r["error"]) for r in ba})

# values: the recording x the MIB's scale
want = {("pdu-eaton", "outlet/1/power"): 80, ("pdu-eaton", "outlet/1/energy"): 785621 * 3600,
        ("pdu-eaton", "outlet/3/power"): 140, ("pdu-eaton", "inlet/1/power"): 1584,
        ("pdu-liebert", "outlet/8/power"): 74, ("pdu-liebert", "outlet/8/energy"): 1765 * 360000,
        ("pdu-raritan", "inlet/1/energy"): 74057676 * 3600}
for (t, s), v in want.items():
    got = first(t, s)
    if got is None or abs(got - v) > 1e-9 * v: err.append("%s %s: %s, want %s" % (t, s, got, v))
for t, n in (("pdu-eaton", 24), ("pdu-raritan", 24), ("pdu-liebert", 8)):
    outs = {r["series"].split("/")[1] for r in rows if r["target"] == t and r["series"].startswith("outlet/")}
    if len(outs) < n: err.append("%s: %d outlets" % (t, len(outs)))
for r in rows:
    if r["status"] != "ok" or not r["series"]: continue
    q = r["series"].split("/")
    if q[0] in ("outlet", "inlet"):
        b = "outlet" if q[0] == "outlet" else "pdu"
        if r["boundary"] != b: err.append("%s %s: boundary %s" % (r["target"], r["series"], r["boundary"]))
        if r["quantity"] == "energy" and r["kind"] != "counter": err.append("%s %s kind" % (r["target"], r["series"]))
        if r["delta"] and float(r["delta"]) < 0: err.append("%s %s: negative delta %s" % (r["target"], r["series"], r["delta"]))
        lab = dict(x.split("=", 1) for x in r["labels"].split(";") if "=" in x)
        for k in ("sysdescr", "profile", "vendor"):
            if not lab.get(k): err.append("%s %s: no %s label (%s)" % (r["target"], r["series"], k, r["labels"])); break
want_lab = {"pdu-eaton": ("eaton-epdu", "Eaton", "ePDU MA 36U-C"),
            "pdu-liebert": ("liebert-gp-pdu", "Liebert", "ZeroU16Port"),
            "pdu-raritan": ("raritan-pdu2", "Raritan", "Raritan PDU")}
for t, (p, v, d) in want_lab.items():
    e = ser(t, "inlet/1/power")
    lab = e[0]["labels"] if e else ""
    if "profile=%s" % p not in lab or "vendor=%s" % v not in lab or "sysdescr=%s" % d not in lab:
        err.append("%s labels: %s" % (t, lab))

# the Liebert Counter32 wrapped: one positive delta = modular difference
e = ser("pdu-liebert", "outlet/1/energy")
wraps = 0
for a, b in zip(e, e[1:]):
    ra, rb = float(a["raw_value"]), float(b["raw_value"])
    want_d = ((rb - ra) % 2**32) * 360000
    d = float(b["delta"] or 0)
    if abs(d - want_d) > 1e-6 * max(want_d, 1): err.append("liebert delta %s, want %s (%s -> %s)" % (d, want_d, ra, rb))
    if rb < ra:
        wraps += 1
        if "wrapped" not in b["ctr_flags"]: err.append("wrap without the wrapped flag: %s" % b["ctr_flags"])
        if not 0 < d < 30 * 360000: err.append("wrap delta %s" % d)
if wraps != 1: err.append("liebert: %d wraps (values %s)" % (wraps, [x["raw_value"] for x in e]))

# Eaton outlets 3 and 5 restarted: reset, never negative; outlet 5's 10 Wh
# is counted as the energy since the restart, outlet 3's 1 kWh is not (at
# its 140 W that is hours, not the second since the last reading): no
# whole counter added on a doubtful step, flagged implausible
for o, new, delta in ((3, 1000, 0), (5, 10, 10 * 3600)):
    e = ser("pdu-eaton", "outlet/%d/energy" % o)
    after = [r for r in e if int(r["t_real_ns"]) > t_swap and float(r["raw_value"]) == new]
    if not after: err.append("outlet %d: no reading after the reset" % o); continue
    r = after[0]
    if "reset" not in r["ctr_flags"] or abs(float(r["delta"] or 0) - delta) > 1e-6 or \
            ("implausible" in r["ctr_flags"]) != (delta == 0):
        err.append("outlet %d reset: flags %s delta %s" % (o, r["ctr_flags"], r["delta"]))
    if [x for x in after[1:] if float(x["delta"] or 0) != 0 or "reset" in x["ctr_flags"]]:
        err.append("outlet %d: deltas after the reset" % o)
# outlet 24 vanished: it stops, the others go on
o24 = ser("pdu-eaton", "outlet/24/power")
o1 = ser("pdu-eaton", "outlet/1/power")
if not o24 or int(o24[-1]["t_real_ns"]) > t_swap + 3 * 10**9: err.append("outlet 24 still read")
if len([r for r in o1 if int(r["t_real_ns"]) > int(o24[-1]["t_real_ns"] if o24 else 0)]) < 3:
    err.append("eaton stopped after the table change")
print("\n".join(err))
sys.exit(1 if err else 0)
PYEOF
$PY "$T/check.py" "$T/j.csv" "$T_SWAP" || { tail -30 "$T/run.log" >&2; fail "journal checks"; }
grep -q "pdu-eaton: table changed size: 26 -> 25 rows" "$T/run.log" ||
	{ tail -30 "$T/run.log" >&2; fail "no rediscovery logged"; }
grep -q "profile auto: eaton-epdu" "$T/run.log" || fail "profile auto not logged"
n=$(grep -c "snmp_pdu pdu-raritan: 1 value(s) left out; first: outlet/2 power: absurd" "$T/run.log")
[ "$n" = 1 ] || { grep "pdu-raritan" "$T/run.log" | tail >&2; fail "absurd outlet power logged $n times, want once"; }
n=$(grep -c "snmp_pdu pdu-raritan: every value read again" "$T/run.log")
[ "$n" = 1 ] || { grep "pdu-raritan" "$T/run.log" | tail >&2; fail "outlet power back logged $n times, want once"; }
exit 0
