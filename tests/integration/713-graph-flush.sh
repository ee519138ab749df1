#!/bin/sh
# fast
# wattpath graph never draws partial data as real, and /api/v1/history
# reads what rrdcached holds.  On two hours of simulated history
# (wattpath-sim history): the format follows the extension or --format
# (PNG, SVG, PDF by their magic), an unknown one is refused; a window with
# no data exits 1 with a message and leaves no image; when one file holds
# later values than another (the collector writes each file's held values
# on its own schedule, collector.rrd_write_delay) the graph ends at the
# last value every file holds and says so; through rrdcached (values the
# daemon holds, never written) the graph and the history API flush the
# files first, so the held values are drawn.
. "$(dirname "$0")/lib.sh"
command -v rrdcached >/dev/null || skip "rrdcached missing"
command -v rrdtool >/dev/null || skip "rrdtool missing"
SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
# (under ASan: librrd's own asprintf leaks are suppressed by tests/lsan.supp
# only when the slow unwinder sees librrd's frames)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
NOW=$(date +%s)
END=$((NOW - 600 - NOW % 60))
"$SIM" history --nodes 1 --racks 1 --pdus 1 --meters 1 --seed 3 \
	--from $((END - 7200)) --to "$END" --step 10s --data-dir "$T/data" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "sim history"; }
L=$(free_port)
$PY - "$T/data/wattpath.yaml" "$T/w.yaml" "$L" "" <<'PYEOF' || fail "config"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c["collector"]["listen"] = "127.0.0.1:" + sys.argv[3]
if sys.argv[4]:
    c["collector"]["rrdcached"] = sys.argv[4]
yaml.safe_dump(c, open(sys.argv[2], "w"))
PYEOF
G="$WATTPATH graph -c $T/w.yaml --node gpu-001 --from $((END - 3600)) --to $END"
magic() { head -c 8 "$1" | od -An -c | tr -d ' \n'; }
$G -o "$T/g.png" 2>"$T/e" || { cat "$T/e"; fail "graph png"; }
magic "$T/g.png" | grep -q "PNG" || fail "g.png is not a PNG"
$G -o "$T/g.pdf" 2>"$T/e" || { cat "$T/e"; fail "graph pdf"; }
magic "$T/g.pdf" | grep -q "%PDF" || fail "g.pdf is not a PDF"
$G -o "$T/g.svg" 2>"$T/e" || { cat "$T/e"; fail "graph svg"; }
grep -q "<svg" "$T/g.svg" || fail "g.svg is not SVG"
$G -o "$T/g.img" --format svg 2>"$T/e" || { cat "$T/e"; fail "graph --format svg"; }
grep -q "<svg" "$T/g.img" || fail "--format svg did not give SVG"
$G -o "$T/g.png2" --format PDF 2>"$T/e" || { cat "$T/e"; fail "graph --format PDF"; }
magic "$T/g.png2" | grep -q "%PDF" || fail "--format PDF did not give a PDF"
$G -o "$T/g.img" 2>"$T/e"; rc=$?
[ $rc = 2 ] && grep -q "format" "$T/e" || fail "unknown extension: exit $rc: $(cat "$T/e")"
$G -o "$T/g.png" --format gif 2>"$T/e"; rc=$?
[ $rc = 2 ] && grep -q "png, svg or pdf" "$T/e" || fail "--format gif: exit $rc"
grep -q "drawn up to" "$T/e" && fail "a complete window said it was cut"

# no data in the window: exit 1, a message, no image
"$WATTPATH" graph -c "$T/w.yaml" --node gpu-001 --from $((END - 20 * 86400)) \
	--to $((END - 10 * 86400)) -o "$T/none.png" 2>"$T/e"; rc=$?
[ $rc = 1 ] && grep -q "no data" "$T/e" || fail "empty window: exit $rc: $(cat "$T/e")"
[ -e "$T/none.png" ] && fail "an empty window left an image"

# the wall file holds 5 minutes more than the GPU files (as when the
# collector has written one file's held values and not yet the others'):
# the graph ends where every file has data, and says so
W=$T/data/rrd/gpu-001_bmc/wall.rrd
GPU=$T/data/rrd/gpu-001_gpu/gpu_0_energy.rrd
[ -f "$W" ] && [ -f "$GPU" ] || fail "no RRD files: $(ls -R "$T/data/rrd" | head)"
LAST=$(rrdtool last "$GPU")
E0=$(rrdtool lastupdate "$W" | awk 'NR==3 {print $3}')
i=1; args=""
while [ $i -le 30 ]; do args="$args $((LAST + 10 * i)):5000:$((E0 + 50000000 * i))"; i=$((i + 1)); done
rrdtool update "$W" $args || fail "rrdtool update"
"$WATTPATH" graph -c "$T/w.yaml" --node gpu-001 --from $((END - 3600)) \
	--to $((END + 600)) -o "$T/cut.png" 2>"$T/e" || { cat "$T/e"; fail "graph cut"; }
want=$($PY -c "import datetime,sys; print(datetime.datetime.fromtimestamp($LAST, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S'))")
grep -q "drawn up to $want" "$T/e" || fail "not cut at the GPU files' $want: $(cat "$T/e")"

# through rrdcached: values the daemon holds are flushed and drawn
S=$T/rrdc.sock
mkdir -p "$T/rrdj" || fail "mkdir"
bg rrdc rrdcached -g -l "unix:$S" -w 3600 -z 1 -j "$T/rrdj" -p "$T/rrdc.pid"
wait_for 10 test -S "$S" || { cat "$T/rrdc.log"; fail "rrdcached"; }
L2=$(rrdtool last "$W")
i=1; args=""
E1=$(rrdtool lastupdate "$W" | awk 'NR==3 {print $3}')
while [ $i -le 30 ]; do args="$args $((L2 + 10 * i)):6000:$((E1 + 60000000 * i))"; i=$((i + 1)); done
rrdtool update --daemon "unix:$S" "$W" $args || fail "rrdtool update --daemon"
[ "$(rrdtool last "$W")" = "$L2" ] || fail "rrdcached wrote the values at once (-w 3600)"
$PY - "$T/data/wattpath.yaml" "$T/wc.yaml" "$L" "unix:$S" <<'PYEOF' || fail "config"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c["collector"]["listen"] = "127.0.0.1:" + sys.argv[3]
c["collector"]["rrdcached"] = sys.argv[4]
yaml.safe_dump(c, open(sys.argv[2], "w"))
PYEOF
# the history API through the daemon first: it flushes the wall file
bg run "$WATTPATH" run -c "$T/wc.yaml"
wait_tcp 127.0.0.1 "$L" 20
curl -sf "http://127.0.0.1:$L/api/v1/history?node=gpu-001&from=$((L2 - 600))&to=$((L2 + 300))&step=60s" \
	>"$T/hist.json" || fail "api history"
$PY - "$T/hist.json" "$L2" <<'PYEOF' || fail "history through rrdcached"
import json, sys
d = json.load(open(sys.argv[1])); l2 = int(sys.argv[2])
wall = [s for s in d["series"] if s["name"] == "wall"][0]
after = [v for t, v in zip(d["t"], wall["power_w"]) if t > l2 + 60 and t <= l2 + 300]
if "rrdcached" not in d["source"] or wall["written_to"] != l2 + 300 or not after or \
        any(v is None or abs(v - 6000) > 1 for v in after):
    sys.exit("source %s written_to %s (want %d) after %r" % (d["source"], wall["written_to"], l2 + 300, after))
PYEOF
[ "$(rrdtool last "$W")" = $((L2 + 300)) ] || fail "the API did not flush the daemon's values"
stop_bg run
# and wattpath graph through the daemon: flushed, drawn, not cut
rrdtool update --daemon "unix:$S" "$W" "$((L2 + 310)):7000:$((E1 + 1900000000))" || fail "update"
"$WATTPATH" graph -c "$T/wc.yaml" --node gpu-001 --from $((L2 - 600)) --to $((L2 + 310)) \
	-o "$T/d.png" 2>"$T/e" || { cat "$T/e"; fail "graph through rrdcached"; }
[ "$(rrdtool last "$W")" = $((L2 + 310)) ] || fail "graph did not flush the daemon's values"
grep -q "drawn up to" "$T/e" && fail "graph through rrdcached was cut: $(cat "$T/e")"
exit 0
