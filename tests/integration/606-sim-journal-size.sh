#!/bin/sh
# 606-sim-journal-size.sh - the raw journal on a diet (issue 20): a day of
# the simulator's default fleet (`wattpath-sim history --days 1 --step 10s
# --nodes 16`, written through the collector's ingest) keeps its whole
# journal/ folder (segments, summaries, MANIFEST) within 200 bytes per poll;
# its closed segments are compressed and the open one plain; it verifies,
# `ledger rebuild` recomputes the ledger from the compressed segments and
# verifies, and a report reads it.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
"$SIM" history --days 1 --step 10s --nodes 16 --data-dir "$T/d" \
	--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }
cat "$T/h.log"
POLLS=$(sed -n 's/.*at 10 s steps: \([0-9]*\) polls.*/\1/p' "$T/h.log")
[ -n "$POLLS" ] && [ "$POLLS" -gt 100000 ] || fail "poll count from the history log: '$POLLS'"

$PY - "$T/d/journal" "$POLLS" <<'PYEOF' || fail "journal size or segment kinds"
import os, sys
d, polls = sys.argv[1], int(sys.argv[2])
files = os.listdir(d)
total = sum(os.path.getsize(os.path.join(d, f)) for f in files)
segs = sorted(f for f in files if f.endswith('.wpj'))
vers = [open(os.path.join(d, f), 'rb').read(5)[4] for f in segs]
print("journal/: %d bytes, %d polls: %.1f bytes per poll; %d segments" %
      (total, polls, total / polls, len(segs)))
assert len(segs) >= 24, segs
assert vers[:-1] == [2] * (len(segs) - 1) and vers[-1] == 1, vers
assert total / polls <= 200, total / polls
PYEOF

"$WATTPATH" journal verify -c "$T/d/wattpath.yaml" >"$T/v.log" 2>&1 ||
	{ cat "$T/v.log"; fail "journal does not verify"; }
grep -q "records, 0 expired" "$T/v.log" || { cat "$T/v.log"; fail "verify summary"; }
"$WATTPATH" ledger rebuild -c "$T/d/wattpath.yaml" >"$T/l.log" 2>&1 ||
	{ cat "$T/l.log"; fail "ledger rebuild"; }
"$WATTPATH" journal verify -c "$T/d/wattpath.yaml" >"$T/v.log" 2>&1 ||
	{ cat "$T/v.log"; fail "verify after rebuild"; }
grep -q '^ledger .*OK' "$T/v.log" || { cat "$T/v.log"; fail "ledger not verified"; }

FIRST=$(ls "$T/d/journal" | grep '\.wpj$' | sed -n 2p)
A=$($PY -c "import calendar,time,sys; print(calendar.timegm(time.strptime(sys.argv[1][:11], '%Y%m%dT%H')))" "$FIRST")
B=$((A + 12 * 3600))
"$WATTPATH" report -c "$T/d/wattpath.yaml" --from $A --to $B --format json \
	>"$T/r.json" 2>"$T/r.err" || { cat "$T/r.err"; fail "report"; }
$PY - "$T/r.json" <<'PYEOF' || fail "report content"
import json, sys
r = json.load(open(sys.argv[1]))
e = r["boundaries"]["gpu"].get("energy_j")
assert e and e > 0, r["boundaries"]["gpu"]
PYEOF
exit 0
