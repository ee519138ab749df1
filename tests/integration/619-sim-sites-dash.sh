#!/bin/sh
# The dashboard's Sites view (issue 21): three collectors with their own
# site.name over two simulated sites.  site-a (every 2 s) lists site-b and
# site-c in collector.peers; site-b polls its simulator once an hour, so
# its figures stand still between two requests; site-c polls site b's
# simulator every 2 s and is stopped half-way.
#   - /api/v1/sites: site-a's own row first and equal to its own
#     /api/v1/fleet (asked around it with no poll in between), site-b's
#     row equal to site-b's own /api/v1/fleet (asked until no poll of
#     site-b came between site-a's fetch and it), its snapshot time that
#     document's or earlier; the combined row is the sum
#     of the rows per boundary (wall, GPU, outlet, facility, IT: power and
#     energy), its output tokens the sum, its J per token the summed 15 min
#     energy over the summed 15 min tokens of the sites that have both,
#     its targets the sum;
#   - site-c stopped: its row says unreachable with the reason and the
#     time of its last answer, its figures null (never zero), the combined
#     figures partial (null), naming site-c, and site-c in unreachable;
#   - the /sites page (headless Chromium, dash_cdp.py, when there) shows
#     one row per site, this one first, site-c unreachable, and the
#     combined row; without Chromium the same HTML is checked as text;
#   - a reload without site-c drops its row (the fetchers started anew);
#   - collector.peers is checked by check-config (FILE:LINE).
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
command -v curl >/dev/null || skip "curl missing"
FA="--nodes 3 --racks 1 --pdus 2 --meters 2 --seed 31 --shape joules"
FB="--nodes 1 --racks 1 --pdus 1 --meters 2 --seed 41 --shape joules"
mkdir -p "$T/a" "$T/b"
sim_serve sima "$T/a/w.yaml" $FA --interval 1s
sim_serve simb "$T/b/w.yaml" $FB --interval 2s
PA=$(free_port); PB=$(free_port); PC=$(free_port)
while [ "$PB" = "$PA" ]; do PB=$(free_port); done
while [ "$PC" = "$PA" ] || [ "$PC" = "$PB" ]; do PC=$(free_port); done
# site(IN OUT NAME PORT DATA INTERVAL)
site() {
	sed -e "s|^site: .*|site: {name: $3, zone: FR}|" \
	    -e "s|^  listen: .*|  listen: 127.0.0.1:$4|" \
	    -e "s|^  data_dir: .*|  data_dir: \"$5\"|" \
	    -e "s|^  interval: .*|  interval: $6|" "$1" >"$2"
}
site "$T/a/w.yaml" "$T/a.yaml" site-a "$PA" "$T/a/data" 1s
site "$T/b/w.yaml" "$T/b.yaml" site-b "$PB" "$T/b/data" 30s
site "$T/b/w.yaml" "$T/c.yaml" site-c "$PC" "$T/c/data" 2s
sed -i "s|^collector:|collector:\n  peers:\n    - {name: site-b, url: \"http://127.0.0.1:$PB/\"}\n    - {name: site-c, url: \"http://127.0.0.1:$PC\", timeout: 1s}|" "$T/a.yaml"
for s in a b c; do
	"$WATTPATH" check-config -c "$T/$s.yaml" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log"; fail "config $s"; }
done

# check-config: the keys of collector.peers, FILE:LINE
bad() {	# bad NAME PEERS-LINE... MESSAGE
	n=$1; msg=$3
	sed "s|^collector:|collector:\n  peers:\n$2|" "$T/b.yaml" >"$T/bad-$n.yaml"
	"$WATTPATH" check-config -c "$T/bad-$n.yaml" >"$T/bad-$n.log" 2>&1 &&
		fail "bad peers $n passed"
	grep -q "bad-$n.yaml:[0-9]*:.*$msg" "$T/bad-$n.log" ||
		{ cat "$T/bad-$n.log"; fail "bad peers $n: no FILE:LINE '$msg'"; }
}
bad scheme "    - {name: x, url: \"127.0.0.1:1\"}" "needs its scheme: https://"
bad self "    - {name: site-b, url: \"https://127.0.0.1:1\"}" "own site.name"
bad twice "    - {name: x, url: \"https://127.0.0.1:1\"}\n    - {name: y, url: \"https://127.0.0.1:1\"}" "also peers\\[0\\]'s"
bad key "    - {name: x, url: \"https://127.0.0.1:1\", tiemout: 1s}" "unknown key 'tiemout'"
bad tls "    - {name: x, url: \"http://127.0.0.1:1\", insecure: true}" "for an https:// url"
bad noname "    - {url: \"https://127.0.0.1:1\"}" "name"

for s in a b c; do
	bg "run_$s" "$WATTPATH" run -c "$T/$s.yaml"
done
A=http://127.0.0.1:$PA
B=http://127.0.0.1:$PB
for u in "$A" "$B" "http://127.0.0.1:$PC"; do
	wait_for 20 curl -sf -o /dev/null "$u/api/v1/fleet" || fail "$u not serving"
done
# history for the 15 min J/token of site-a and site-c; every target of
# site-b polled once (its 6th 25 s after the start)
sleep 28
for s in a b c; do eval alive "\$PID_run_$s"; done

check() {	# check PHASE: the figures of /api/v1/sites against the sites'
	$PY - "$1" "$A" "$B" <<'PYEOF'
import json, sys, time, urllib.request
phase, A, B = sys.argv[1:4]
get = lambda u: json.load(urllib.request.urlopen(u, timeout=10))
Q = ("wall", "gpu", "outlet", "facility", "it")
fails = []
def fig(doc, q):
    """power, energy of quantity q in a /api/v1/fleet document"""
    d = doc["boundaries"][q] if q in doc["boundaries"] else doc[q]
    return d["power_w"], d["energy_j"]
def eq(name, a, b, tol=0.0):
    ok = a is not None and b is not None and abs(a - b) <= tol * abs(b)
    if not ok:
        fails.append("%s: %r != %r" % (name, a, b))
def same_fleet(row, doc, who):
    for q in Q:
        p, e = fig(doc, q)
        eq("%s %s power" % (who, q), row["boundaries"][q]["power_w"], p)
        eq("%s %s energy" % (who, q), row["boundaries"][q]["energy_j"], e)
    for b in ("wall", "gpu", "outlet"):
        for k in ("energy_15m_j", "tokens_15m"):
            if row["boundaries"][b][k] != doc["boundaries"][b][k]:
                fails.append("%s %s %s: %r != %r" % (who, b, k,
                             row["boundaries"][b][k], doc["boundaries"][b][k]))
    eq("%s output tokens" % who, row["output_tokens"], doc["tokens"]["output"])
    if row["targets"] != {"up": doc["targets"]["up"], "down": doc["targets"]["down"]}:
        fails.append("%s targets %r vs %r" % (who, row["targets"], doc["targets"]))
    if row["nodes"] != doc["nodes"] or row["pue_15m"] != doc["pue_15m"]:
        fails.append("%s nodes or PUE differ" % who)
    if row["time"] is None or row["time"] > (f2 if who == "site-a" else doc)["time"]:
        fails.append("%s snapshot time %s after %s" % (who, row["time"], doc["time"]))
strip = lambda d: {k: v for k, v in d.items() if k != "time"}
def row_fig(r):
    return [(r["boundaries"][q]["power_w"], r["boundaries"][q]["energy_j"]) for q in Q] + \
        [(r["boundaries"][b]["energy_15m_j"], r["boundaries"][b]["tokens_15m"])
         for b in Q[:3]] + [r["output_tokens"], r["targets"]["up"], r["targets"]["down"]]
def doc_fig(d):
    return [fig(d, q) for q in Q] + \
        [(d["boundaries"][b]["energy_15m_j"], d["boundaries"][b]["tokens_15m"])
         for b in Q[:3]] + [d["tokens"]["output"], d["targets"]["up"], d["targets"]["down"]]
# site-a: its own row against its own fleet document, asked around it
# with no poll in between (figures equal before and after); site-b's row
# against site-b's document asked right after, until no poll of site-b
# fell between site-a's last fetch and that document
for attempt in range(60):
    f1, s, f2 = get(A + "/api/v1/fleet"), get(A + "/api/v1/sites"), get(A + "/api/v1/fleet")
    fb = get(B + "/api/v1/fleet")
    rb = s["sites"][1] if len(s["sites"]) > 1 else None
    if strip(f1) == strip(f2) and rb is not None and \
       row_fig(rb) == doc_fig(fb):
        break
    time.sleep(0.37)
else:
    sys.exit("no request saw site-a's and site-b's figures stand still")
rows = s["sites"]
names = [r["name"] for r in rows]
if names != ["site-a", "site-b", "site-c"]:
    sys.exit("rows: %r" % names)
ra, rb, rc = rows
if not ra["self"] or ra["reachable"] is not True or rb["self"]:
    fails.append("self flags: %r %r" % (ra["self"], rb["self"]))
same_fleet(ra, f1, "site-a")
if not rb["reachable"]:
    fails.append("site-b unreachable: %s" % rb["error"])
same_fleet(rb, fb, "site-b")
for q in ("wall", "gpu", "facility", "it"):
    if ra["boundaries"][q]["energy_j"] is None or rb["boundaries"][q]["energy_j"] is None:
        fails.append("no %s energy at a site" % q)
if ra["boundaries"]["wall"]["joules_per_token_15m"] is None:
    fails.append("site-a has no J/token over 15 min")
C = s["combined"]
if phase == "up":
    if not rc["reachable"] or rc["error"] is not None or C["unreachable"]:
        fails.append("site-c not reachable: %r" % rc)
else:
    if rc["reachable"] or not rc["error"] or rc["last_success"] is None:
        fails.append("site-c stopped but %r" % rc)
    for q in Q:
        if rc["boundaries"][q]["power_w"] is not None or rc["boundaries"][q]["energy_j"] is not None:
            fails.append("site-c stopped has %s figures (not null): %r" % (q, rc["boundaries"][q]))
    if rc["output_tokens"] is not None or rc["targets"]["up"] is not None:
        fails.append("site-c stopped has tokens or targets")
    if C["unreachable"] != ["site-c"]:
        fails.append("combined unreachable: %r" % C["unreachable"])
for q in Q:
    c = C["boundaries"][q]
    for k, m in (("power_w", "missing_power"), ("energy_j", "missing_energy")):
        have = [r["boundaries"][q][k] for r in rows]
        lack = [r["name"] for r in rows if r["boundaries"][q][k] is None]
        if c[m] != lack:
            fails.append("combined %s %s: %r, not %r" % (q, m, c[m], lack))
        if lack:
            if c[k] is not None or not c["partial"]:
                fails.append("combined %s %s with %r lacking: %r" % (q, k, lack, c))
        else:
            eq("combined %s %s" % (q, k), c[k], sum(have), 1e-12)
    if q in ("wall", "gpu", "outlet"):
        both = [r for r in rows if r["boundaries"][q]["energy_15m_j"] is not None
                and (r["boundaries"][q]["tokens_15m"] or 0) > 0]
        if c["joules_per_token_sites"] != len(both):
            fails.append("combined %s J/token over %d sites, not %d" %
                         (q, c["joules_per_token_sites"], len(both)))
        if both:
            eq("combined %s J/token" % q, c["joules_per_token_15m"],
               sum(r["boundaries"][q]["energy_15m_j"] for r in both) /
               sum(r["boundaries"][q]["tokens_15m"] for r in both), 1e-12)
tok = [r["output_tokens"] for r in rows]
if None in tok:
    if C["output_tokens"] is not None:
        fails.append("combined tokens with a site lacking them")
else:
    eq("combined output tokens", C["output_tokens"], sum(tok), 1e-12)
up = sum(r["targets"]["up"] for r in rows if r["reachable"])
down = sum(r["targets"]["down"] for r in rows if r["reachable"])
if C["targets"] != {"up": up, "down": down}:
    fails.append("combined targets %r, not %d/%d" % (C["targets"], up, down))
print("%s: wall %s W, %s J; J/token %s over %d sites; unreachable %r" % (phase,
      C["boundaries"]["wall"]["power_w"], C["boundaries"]["wall"]["energy_j"],
      C["boundaries"]["wall"]["joules_per_token_15m"],
      C["boundaries"]["wall"]["joules_per_token_sites"], C["unreachable"]))
if fails:
    print("FAILED:\n  " + "\n  ".join(fails)); sys.exit(1)
PYEOF
}
check up || fail "sites with every peer up"

eval "p=\$PID_run_c"; kill "$p"
wait_for 10 sh -c "! kill -0 $p" || fail "site-c did not stop"
wait_for 15 sh -c "curl -sf '$A/api/v1/sites' | grep -q '\"reachable\":false'" ||
	fail "site-c never reported unreachable"
check down || fail "sites with site-c stopped"
grep -q "peers: site site-c:" "$T/run_a.log" || fail "no log line for site-c down"

# the page
curl -sf "$A/sites" >"$T/sites.html" || fail "GET /sites"
for w in 'data-site="site-a" data-reachable="1"' 'data-site="site-b" data-reachable="1"' \
    'data-site="site-c" data-reachable="0"' 'class="combined" data-unreachable="1"' \
    'partial: none at site-c'; do
	grep -qF "$w" "$T/sites.html" || fail "/sites lacks $w"
done
grep -q 'href="/sites"' "$T/sites.html" || fail "no link to /sites"
curl -sf "$A/" | grep -q 'href="/sites"' || fail "the fleet page has no link to /sites"
CHROME=$(command -v chromium || command -v chromium-browser) || CHROME=
if [ -n "$CHROME" ] && $PY -c 'import websocket' 2>/dev/null; then
	SHOTS=${TEST_LOG_DIR:-$T/shots}
	timeout 120 $PY "$ROOT/tests/integration/dash_cdp.py" "$CHROME" "$SHOTS" \
		"sites=$A/sites" >"$T/cdp.json" 2>"$T/cdp.err" ||
		{ cat "$T/cdp.err"; fail "chromium"; }
	$PY - "$T/cdp.json" <<'PYEOF' || fail "the Sites page in Chromium"
import json, sys
p = json.load(open(sys.argv[1]))["sites"]
err = list(p["errors"])
rows = p["dom"]["sites"]
names = [r.get("site") for r in rows]
if names != ["site-a", "site-b", "site-c", None]:
    err.append("rows %r" % names)
else:
    if [r["reachable"] for r in rows[:3]] != ["1", "1", "0"]:
        err.append("reachable %r" % [r["reachable"] for r in rows[:3]])
    if "unreachable" not in rows[2]["cells"][1] or "combined (3 sites)" not in rows[3]["cells"][0]:
        err.append("cells %r %r" % (rows[2]["cells"][:2], rows[3]["cells"][:2]))
    if "kWh" not in rows[0]["cells"][5] or "W" not in rows[1]["cells"][4]:
        err.append("site cells %r" % rows[0]["cells"])
print("chromium: %d rows, errors %r" % (len(rows), p["errors"]))
if err:
    print("FAILED: %r" % err); sys.exit(1)
PYEOF
else
	echo "no chromium/python3-websocket: the page checked as HTML only"
fi
# a reload (SIGHUP) without site-c: two rows, nothing partial any more
sed -i '/name: site-c/d' "$T/a.yaml"
cat >"$T/two.py" <<'PYEOF'
import json, sys, urllib.request
d = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/sites", timeout=10))
w = d["combined"]["boundaries"]["wall"]
sys.exit(not ([r["name"] for r in d["sites"]] == ["site-a", "site-b"] and
              d["combined"]["unreachable"] == [] and not w["partial"] and
              abs(w["energy_j"] - sum(r["boundaries"]["wall"]["energy_j"]
                                      for r in d["sites"])) <= 1e-9 * w["energy_j"]))
PYEOF
eval "kill -HUP \$PID_run_a"
wait_for 15 $PY "$T/two.py" "$A" || fail "the reload did not drop site-c"
grep -q "peers: the list changed" "$T/run_a.log" || fail "no log line for the new peers"
for s in a b; do eval alive "\$PID_run_$s"; done
# site-a stops cleanly (its peers' fetches freed; under ASan, no report)
eval "p=\$PID_run_a"; kill "$p"
wait_for 15 sh -c "! kill -0 $p" || fail "site-a did not stop"
! grep -E "Sanitizer|runtime error" "$T/run_a.log" || fail "sanitizer report in site-a's log"
alive "$PID_sima"
alive "$PID_simb"
exit 0
