#!/bin/sh
# The dashboard's pages in headless Chromium (driven over the DevTools
# protocol by dash_cdp.py; Debian's /usr/bin/chromium, nothing downloaded):
# a node, a rack, a PDU, the fleet's history and the targets page, on a
# simulated fleet with six
# hours of history in its RRD files (wattpath-sim history) and the
# simulator serving it live, plus one node whose BMC is not there.  Every
# page loads without a console error or a failed load; the history chart
# shows what /api/v1/history says (each series' mean in the DOM equals the
# one in the response the page received, whose points from the RRD files
# equal the API's asked again for the same URL) and survives a restart of the collector (the
# same window gives the same numbers after it); the range picker's 6 h and
# custom windows ask for those windows; the rack page draws its capacity
# from racks:; the targets page lists the failing target with the API's
# reason and error; axes are clock times and W/kW/MW, never exponent
# notation or negative minutes.  Screenshots: $TEST_LOG_DIR (tests/run.sh
# keeps it beside the test's log), else $T.
. "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "chromium missing"
$PY -c 'import websocket' 2>/dev/null || skip "python3-websocket missing"
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
SHOTS=${TEST_LOG_DIR:-$T/shots}
mkdir -p "$SHOTS" || fail "mkdir $SHOTS"
FLEET="--nodes 4 --racks 2 --pdus 2 --meters 1 --seed 5"
NOW=$(date +%s)
"$SIM" history $FLEET --from $((NOW - 6 * 3600)) --to $((NOW - 60)) --step 10s \
	--data-dir "$T/data" --maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 ||
	{ cat "$T/h.log"; fail "sim history"; }
BASE=$(free_port_base 7)
LISTEN=$(free_port)
DEAD=$(free_port)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w0.yaml" \
	--maps-dir "$ROOT/etc" --interval 1s --listen-port "$LISTEN"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }
# one more node whose BMC nobody serves, and the racks' capacities
$PY - "$T/w0.yaml" "$T/w.yaml" "$DEAD" <<'PYEOF' || fail "config"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c["nodes"].append({"name": "gpu-dead", "class": "hgx-h100-8", "rack": "r1",
                   "bmc": {"url": "http://127.0.0.1:%s" % sys.argv[3],
                           "credentials": "bmc", "auth": "basic"}})
c["racks"] = [{"name": "r1", "capacity_w": 25000}, {"name": "r2", "capacity_w": 12000}]
yaml.safe_dump(c, open(sys.argv[2], "w"))
PYEOF
cd "$ROOT" || fail "cd"
"$WATTPATH" check-config -c "$T/w.yaml" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "check-config"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
wait_tcp 127.0.0.1 "$LISTEN" 20
U=http://127.0.0.1:$LISTEN
wait_for 20 sh -c "curl -sf $U/api/v1/targets | grep -q '\"up\":true'" || fail "no target up"
sleep 3
A=$((NOW - 5 * 3600)); B=$((NOW - 3600))
curl -sf "$U/api/v1/history?node=gpu-001&from=$A&to=$B" >"$T/before.json" || fail "api history"
for u in "/node/nope" "/rack/nope" "/pdu/nope" "/api/v1/history?node=nope"; do
	c=$(curl -s -o /dev/null -w '%{http_code}' "$U$u")
	[ "$c" = 404 ] || fail "$u answered $c, not 404"
done
for u in "/api/v1/history" "/api/v1/history?node=gpu-001&rack=r1" \
    "/api/v1/history?node=gpu-001&step=0.5s" "/api/v1/history?node=gpu-001&from=$B&to=$A"; do
	c=$(curl -s -o /dev/null -w '%{http_code}' "$U$u")
	[ "$c" = 400 ] || fail "$u answered $c, not 400"
done

timeout 120 $PY "$ROOT/tests/integration/dash_cdp.py" "$CHROME" "$SHOTS" \
	"fleet=$U/" "node=$U/node/gpu-001" "node6h=$U/node/gpu-002#range=6h" \
	"custom=$U/node/gpu-003#from=$A&to=$B" "rack=$U/rack/r1" \
	"pdu=$U/pdu/pdu-r1-a" "history=$U/history#range=24h" "targets=$U/targets" >"$T/cdp.json" 2>"$T/cdp.err" ||
	{ cat "$T/cdp.err"; fail "chromium"; }
curl -sf "$U/api/v1/targets" >"$T/targets.json" || fail "api targets"
$PY - "$T/cdp.json" "$U" "$A" "$B" "$T/targets.json" <<'PYEOF' || fail "pages"
import json, re, sys, urllib.request
pages, U, A, B = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
targets = json.load(open(sys.argv[5]))
err = []
def api(path):
    return json.load(urllib.request.urlopen(U + path, timeout=30))
def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1, abs(b))
def mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None
TICK_W = re.compile(r"^\d+(\.\d+)? (W|kW|MW|GW)$")
TICK_T = re.compile(r"^([A-Z][a-z]{2} \d\d )?\d\d:\d\d(:\d\d)?$")
for name, p in pages.items():
    d = p["dom"]
    if p["errors"]:
        err.append("%s: %s" % (name, p["errors"]))
    if re.search(r"\d[eE][+-]\d", d["body"]) or "NaN" in d["body"]:
        err.append("%s: exponent notation or NaN on the page" % name)
    for t in d["ticks"]:
        if not (TICK_W.match(t) or TICK_T.match(t) or re.match(r"^\d+(\.\d+)?$", t)):
            err.append("%s: axis label %r" % (name, t))
    h = d["hist"]
    if name in ("fleet", "targets"):
        continue
    if h is None or h["state"] != "ready":
        err.append("%s: history not drawn: %r" % (name, h)); continue
    # the chart against the very document it was drawn from ...
    doc = p["hist_body"]
    if doc is None:
        err.append("%s: the page's history response not captured" % name); continue
    if len(d["summary"]) != len(doc["series"]) or not doc["series"]:
        err.append("%s: %d series in the DOM, %d in the API" % (name, len(d["summary"]), len(doc["series"])))
    for row, s in zip(d["summary"], doc["series"]):
        m = mean(s["power_w"])
        if row["series"] != s["name"] or m is None or not close(float(row["mean"]), m):
            err.append("%s: series %s mean %s, API %s mean %s" % (name, row["series"], row["mean"], s["name"], m))
    # ... and that document against the API asked again for the same URL:
    # the points the files held then are the same now (the newest ones,
    # read from the journal, move as the collector polls and writes)
    again = api(h["url"])
    upto = (doc["written_to"] or 0) - doc["step_s"]
    keep = [i for i, t in enumerate(doc["t"]) if t <= upto]
    if again["t"] != doc["t"] or len(keep) < 0.5 * len(doc["t"]):
        err.append("%s: asked again, %d points (%d from files), first %d" % (name, len(again["t"]), len(keep), len(doc["t"])))
    for s, z in zip(doc["series"], again["series"]):
        a = mean([s["power_w"][i] for i in keep])
        b = mean([z["power_w"][i] for i in keep])
        if s["name"] != z["name"] or (a is None) != (b is None) or (a is not None and not close(a, b, 1e-6)):
            err.append("%s: series %s mean %s from files, %s asked again" % (name, s["name"], a, b))
    if not [q for q in h["paths"] if q["d"].count("L") >= 3]:
        err.append("%s: no data path" % name)
    xs = [t for t in d["ticks"] if TICK_T.match(t)]
    if len(xs) < 3:
        err.append("%s: %d clock ticks" % (name, len(xs)))
    q = dict(kv.split("=") for kv in h["url"].split("?")[1].split("&"))
    span = int(q["to"]) - int(q["from"])
    want = {"node6h": 21600, "custom": B - A, "history": 86400}.get(name, 3600)
    if span != want or (name == "custom" and (int(q["from"]), int(q["to"])) != (A, B)):
        err.append("%s: window %s, want %d s" % (name, h["url"], want))
node = pages["node"]["dom"]
live = {r["boundary"]: r for r in node["live"]}
n = api("/api/v1/nodes/gpu-001")
for b in ("wall", "gpu", "outlet"):
    if n["boundaries"][b]["power_w"] is None or live[b]["power"] == "":
        err.append("node: no live %s power" % b)
if not any(r["jpt"] for r in node["jpt"]):
    err.append("node: no J/token")
if not [t for t in node["targets"] if t["target"] == "gpu-001/bmc"]:
    err.append("node: its targets not listed")
fleet = [r["series"] for r in pages["history"]["dom"]["summary"]]
if "wall" not in fleet or not [x for x in fleet if x.startswith("meter incomer-1")]:
    err.append("history: fleet series %r" % fleet)
rack = pages["rack"]["dom"]
if rack["hist"]["capacity"] != "25000.000" or rack["hist"]["capacity_line"] != 1:
    err.append("rack: capacity %r" % rack["hist"]["capacity"])
if not [r for r in rack["summary"] if "phase" in r["series"] or "inlet" in r["series"]]:
    err.append("rack: no PDU phase or inlet series: %r" % [r["series"] for r in rack["summary"]])
down = [t for t in targets["targets"] if not t["up"]]
shown = {r["target"]: r for r in pages["targets"]["dom"]["targets"] if r["up"] == "0"}
if not down or "gpu-dead/bmc" not in shown:
    err.append("targets: gpu-dead/bmc not listed as failing")
for t in down:
    r = shown.get(t["name"])
    if r is None or r["reason"] != t["reason"] or t["error"] not in r["cells"]:
        err.append("targets: %s shown %r, API %s %r" % (t["name"], r, t["reason"], t["error"]))
print("\n".join(err)); sys.exit(1 if err else 0)
PYEOF
for s in fleet node node6h custom rack pdu history targets; do
	[ -s "$SHOTS/$s.png" ] || fail "no screenshot of $s"
done
note "screenshots in $SHOTS"

# the minutes the collector still holds (rrd_write_delay, 5 min) are read
# from the journal: the history goes on past the files' end to the present
$PY - "$U" <<'PYEOF' || fail "the history's tail from the journal"
import json, sys, time, urllib.request
for _ in range(20):
    now = int(time.time())
    d = json.load(urllib.request.urlopen("%s/api/v1/history?node=gpu-001&from=%d&to=%d&step=2s"
                                         % (sys.argv[1], now - 600, now), timeout=30))
    wall = [s for s in d["series"] if s["name"] == "wall"][0]["power_w"]
    late = [v for t, v in zip(d["t"], wall) if t > d["written_to"]]
    if d["written_to"] < d["to"] - 60 and d["journal_points"] > 0 and late and \
            None not in late[-3:]:
        sys.exit(0)
    time.sleep(0.5)
sys.exit("files end %s, %d points from the journal, last %r, %r" % (
    d["written_to"], d["journal_points"], late[-5:], d.get("journal_error")))
PYEOF

# history is in the RRD files: the same window after a restart
stop_bg run 20
bg run2 "$WATTPATH" run -c "$T/w.yaml"
wait_tcp 127.0.0.1 "$LISTEN" 20
curl -sf "$U/api/v1/history?node=gpu-001&from=$A&to=$B" >"$T/after.json" || fail "api history after restart"
$PY - "$T/before.json" "$T/after.json" <<'PYEOF' || fail "history after a restart"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sa = {s["name"]: s["power_w"] for s in a["series"]}
sb = {s["name"]: s["power_w"] for s in b["series"]}
known = sum(1 for v in sa.get("wall", []) if v is not None)
if known < 0.9 * len(a["t"]) or sa != sb or a["t"] != b["t"]:
    sys.exit("before %d known of %d; equal %s" % (known, len(a["t"]), sa == sb))
PYEOF
exit 0
