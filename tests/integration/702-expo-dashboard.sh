#!/bin/sh
# The built-in dashboard on a running collector: HTML with inline SVG charts
# whose data paths hold the history (no script, no external resource),
# search (?q=), paging (?page=) and node selection (?node=) answered, the
# JSON API's node, targets and series documents, and a headless Chromium
# screenshot in which the charts' line colours are actually drawn.
. "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "chromium missing"
INTERVAL=1s
# RRD files written within 2 s (not 5 min): wattpath graph below finds them
EXTRA_COLLECTOR="  rrd_write_delay: 2s"
. "$ROOT/tests/integration/expo_fleet.sh"
get() { curl -sf "$BASE$1"; }
bg run "$WATTPATH" run -c "$T/w.yaml"
wait_tcp 127.0.0.1 "$LISTEN"
sleep 6		# a few history points (one per interval)
get / >"$T/d.html" || fail "GET /"
cat >"$T/h.py" <<'PYEOF'
import re, sys
h = open(sys.argv[1]).read()
err = []
if "<script" in h.lower(): err.append("script in dashboard")
if re.search(r'(src|href)="https?://', h): err.append("external resource")
svgs = h.count("<svg")
if svgs < 4: err.append("only %d svg charts" % svgs)
paths = re.findall(r'<path class="data"[^>]* d="([^"]*)"', h)
lines = [p for p in paths if p.count("L") >= 3]
if not lines: err.append("no line chart with >= 4 points: %r" % paths[:3])
for w in ("Fleet power by boundary", "PUE", "tokens per joule", "Wall-to-GPU", "Target health", "gpu-001"):
    if w not in h: err.append("missing %r" % w)
print("\n".join(err)); sys.exit(1 if err else 0)
PYEOF
$PY "$T/h.py" "$T/d.html" || fail "dashboard HTML"
get "/?q=nomatch" | grep -q "0 matching" || fail "search ?q=nomatch"
get "/?q=hgx" | grep -q "1 matching" || fail "search ?q=hgx"
get "/?page=99" | grep -q "page 1 of 1" || fail "paging clamps"
get "/?node=gpu-001" >/dev/null || fail "?node="
get "/?q=%3Cscript%3E" | grep -q "<script>" && fail "search text not escaped"
get /api/v1/nodes >"$T/n.json" || fail "api nodes"
[ "$(json_get "$T/n.json" 'd["nodes"][0]["boundaries"]["wall"]["power_w"]')" = 400.0 ] || fail "api wall power"
get /api/v1/nodes/gpu-001 >"$T/n1.json" || fail "api node"
[ "$(json_get "$T/n1.json" 'd["target_health"][0]["name"]')" = gpu-001/bmc ] || fail "api node targets"
curl -s -o /dev/null -w '%{http_code}' "$BASE/api/v1/nodes/nope" | grep -q 404 || fail "unknown node not 404"
get /api/v1/nodes/gpu%2D001 >/dev/null || fail "a percent-encoded node name"
for u in "/api/v1/nodes/gpu-001%00.json" "/api/v1/nodes/gpu-001%00" \
    "/api/v1/curves?node=nope" "/api/v1/curves?class=nope" \
    "/api/v1/curves?node=gpu-001%00x"; do
	c=$(curl -s -o "$T/nf.txt" -w '%{http_code}' "$BASE$u")
	[ "$c" = 404 ] || fail "$u answered $c, not 404: $(cat "$T/nf.txt")"
done
grep -q "no node named" "$T/nf.txt" || fail "the 404 does not say why: $(cat "$T/nf.txt")"
get /api/v1/targets >"$T/t.json" || fail "api targets"
[ "$(json_get "$T/t.json" 'd["up"]')" = 4 ] || fail "targets up"
get "/api/v1/series?target=pdu-1" >"$T/s.json" || fail "api series"
json_get "$T/s.json" '[s for s in d["series"] if s["series"]=="outlet/1/energy"][0]["cumulative"]' >/dev/null || fail "series cum"
curl -s -o /dev/null -w '%{http_code}' "$BASE/api/v1/report?from=garbage" | grep -q 400 || fail "bad from not 400"
get "/api/v1/report?from=$(($(date +%s) - 120))" >"$T/rep.json" || fail "api report"
json_get "$T/rep.json" 'd["window"]["seconds"]' >/dev/null || fail "report document"

# headless Chromium renders the page; the chart colours must be on screen
timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
	--no-first-run --disable-background-networking --disable-component-update \
	--disable-sync --user-data-dir="$T/chrome" --screenshot="$T/shot.png" \
	--window-size=1280,2000 "$BASE/" >"$T/chrome.log" 2>&1
[ -s "$T/shot.png" ] || { tail -5 "$T/chrome.log"; fail "no screenshot"; }
cat >"$T/png.py" <<'PYEOF'
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
i, idat = 8, b""
while i < len(b):
    n, t = struct.unpack(">I4s", b[i:i+8]); d = b[i+8:i+8+n]; i += 12 + n
    if t == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", d[:10])
    elif t == b"IDAT": idat += d
assert depth == 8 and ctype in (2, 6), "unexpected PNG type"
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat); stride = w * bpp
prev = bytearray(stride); pos = 0; rows = []
for y in range(h):
    f = raw[pos]; line = bytearray(raw[pos+1:pos+1+stride]); pos += 1 + stride
    for x in range(stride):
        a = line[x-bpp] if x >= bpp else 0; up = prev[x]; c = prev[x-bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + up) & 255
        elif f == 3: line[x] = (line[x] + ((a + up) >> 1)) & 255
        elif f == 4:
            p = a + up - c; pa, pb, pc = abs(p-a), abs(p-up), abs(p-c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    rows.append(line); prev = line
ink = red = blue = 0
for line in rows:
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x+1], line[x+2]
        if r < 235 or g < 235 or bl < 235: ink += 1
        if abs(r-214) < 40 and abs(g-39) < 40 and abs(bl-40) < 40: red += 1
        if abs(r-31) < 40 and abs(g-119) < 40 and abs(bl-180) < 40: blue += 1
print("size %dx%d ink %d red %d blue %d" % (w, h, ink, red, blue))
sys.exit(0 if ink > 20000 and red > 150 and blue > 150 else 1)
PYEOF
$PY "$T/png.py" "$T/shot.png" >&2 || fail "charts not drawn in the screenshot"
alive "$PID_run"

# wattpath graph on seconds of data: the finest archive's rows are a
# minute, so there may be none yet; then it says so, exit 1 and no image
# (never an empty chart as if it were the data).  Formats, held values
# and rrdcached: 713-graph-flush.
for f in png svg; do
	"$WATTPATH" graph -c "$T/w.yaml" --node gpu-001 -o "$T/g.$f" 2>"$T/g.err"
	rc=$?
	if [ $rc = 0 ]; then
		[ $f = svg ] && { grep -q "<svg" "$T/g.svg" || fail "graph svg content"; }
		[ $f = png ] && { head -c 8 "$T/g.png" | od -c | grep -q "P   N   G" || fail "graph output is not a PNG"; }
	else
		[ $rc = 1 ] && grep -q "no data" "$T/g.err" && [ ! -e "$T/g.$f" ] ||
			{ cat "$T/g.err"; fail "graph $f: exit $rc"; }
	fi
done
"$WATTPATH" graph -c "$T/w.yaml" --node nope -o "$T/x.png" 2>/dev/null && fail "graph of an unknown node succeeded"
exit 0
