#!/bin/sh
# fast
# The ledger's day blocks (docs/ledger.md "Day blocks"): `wattpath-sim
# history` over two and a bit days, with two collector restarts on the
# second day (one after a 10-minute outage), writes a day block per closed
# UTC day; journal verify recomputes each from its hourly blocks; a report
# over whole days (curve step 1 h, as for windows of 7 days or more) takes
# the first whole day's block (disclosure ledger_days_used), not the
# second's (a restart's counter discontinuity and the outage's gap refuse
# its hours one by one, as without day blocks), and its figures are exactly
# those of the hourly blocks (WATTPATH_NO_LEDGER_DAYS=1) and, to rounding,
# of the raw journal; an edited day block is refused by
# the report (the hourly blocks are read instead) and by verify, as is a
# deleted, edited or reordered DAYS line; `wattpath ledger rebuild`
# restores the day blocks.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 4 --racks 1 --pdus 2 --meters 3 --seed 5"
A=1793311200		# 2026-10-29T22:00:00Z
Q=1793412000		# 2026-10-31T02:00:00Z: a restart
R=1793455200		# 2026-10-31T14:00:00Z: a restart after an outage
B=1793498400		# 2026-11-01T02:00:00Z
hist() {
	"$SIM" history $FLEET --from "$1" --to "$2" --step 30s \
	    --data-dir "$T/d" --maps-dir "$ROOT/etc" >>"$T/h.log" 2>&1 ||
	    { cat "$T/h.log"; fail "history $1 $2"; }
}
hist $A $Q
hist $((Q + 30)) $R
hist $((R + 600)) $B
C=$T/d/wattpath.yaml
printf 'report:\n  curve_step: 1h\n' >>"$C"
L=$T/d/ledger
cat "$L/DAYS"
[ "$(wc -l <"$L/DAYS")" = 3 ] ||
	fail "expected the day blocks of 10-29 (2 hours), 10-30 and 10-31"
[ -f "$L/20261030.wpd" ] && [ -f "$L/20261031.wpd" ] || fail "day block files"
"$WATTPATH" journal verify -c "$C" >"$T/v.log" 2>&1 ||
	{ cat "$T/v.log"; fail "journal does not verify"; }
cat "$T/v.log"
grep -q "^ledger .*: OK: .* 3 day blocks, 3 checked against their blocks" \
    "$T/v.log" || fail "day blocks not verified"

FROM=2026-10-29T00:00:00Z
TO=2026-11-01T02:00:00Z
rep() {		# output file, then environment assignments
	out=$1; shift
	env "$@" "$WATTPATH" report -c "$C" --period month --from $FROM \
	    --to $TO --format json >"$T/$out.json" 2>"$T/$out.err" ||
	    { cat "$T/$out.err"; fail "report $out"; }
	env "$@" "$WATTPATH" report -c "$C" --period month --from $FROM \
	    --to $TO --format csv >"$T/$out.csv" 2>>"$T/$out.err" ||
	    { cat "$T/$out.err"; fail "report $out csv"; }
	env "$@" "$WATTPATH" report -c "$C" --from 2026-10-30T00:00:00Z \
	    --to 2026-10-31T00:00:00Z --format json >"$T/$out.day.json" \
	    2>>"$T/$out.err" || { cat "$T/$out.err"; fail "report $out day"; }
}
rep days
rep hours WATTPATH_NO_LEDGER_DAYS=1
rep raw WATTPATH_NO_LEDGER=1 WATTPATH_NO_SUMMARIES=1

# the same document as from the hourly blocks but for the journal counts,
# and as the raw journal's, to floating-point rounding
PYTHONPATH="$ROOT/tests/integration" $PY - "$T" <<'PYEOF'
import csv, json, sys
from json_close import compare
T = sys.argv[1]
COUNTS = ("ledger_blocks_used", "ledger_days_used", "segments_read",
          "summaries_used")
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in COUNTS}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
def used(doc, key):
    n = [0]
    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == key:
                    n[0] += v
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(doc)
    return n[0]
bad, n = [], [0]
for f in ("json", "day.json"):
    d, h, r = (json.load(open("%s/%s.%s" % (T, w, f)))
               for w in ("days", "hours", "raw"))
    print("%s: day blocks used %d, hourly blocks %d (hourly path: %d)" % (
        f, used(d, "ledger_days_used"), used(d, "ledger_blocks_used"),
        used(h, "ledger_blocks_used")))
    if used(d, "ledger_days_used") < 1 or used(h, "ledger_days_used") != 0:
        bad.append((f, "day blocks not used, or used when told not to"))
    diff, k = compare(strip(d), strip(h))
    bad += [(f, "hourly") + x for x in diff]
    diff, k = compare(strip(d), strip(r), lambda p: "/warnings/" in p)
    bad += [(f, "raw") + x for x in diff]
    n[0] += k
if used(json.load(open(T + "/days.json")), "ledger_days_used") != 1:
    bad.append(("month", "expected 10-30 from its day block, not 10-31"))
def cells(path):
    def num(c):
        try:
            return float(c)
        except ValueError:
            return c
    return [[num(c) for c in r] for r in csv.reader(open(path))]
rows, hrows = cells(T + "/days.csv"), cells(T + "/hours.csv")
diff, k = compare(rows, hrows, tol=1e-6)	# the table's printed digits
if diff or len(rows) < 10:
    bad.append(("csv", "differs from the hourly blocks' table", diff[:3]))
m = json.load(open(T + "/days.json"))["months"]
if not [x for x in m if x["boundaries"]["wall"]["kwh"] and
        x["boundaries"]["gpu"]["kwh"] and x["tokens"]["output"]]:
    bad.append(("months", "no month with wall and GPU kWh and tokens"))
print("%d numbers compared with the raw journal's" % n[0])
for x in bad[:20]:
    print("DIFF", x)
sys.exit(1 if bad or n[0] < 20 else 0)
PYEOF
[ $? = 0 ] || fail "day blocks change the figures"

note "an edited day block: the report reads the hours, verify fails"
rm -rf "$T/x"; cp -a "$T/d" "$T/x"
sed -i "s#$T/d#$T/x#" "$T/x/wattpath.yaml"
$PY -c "import sys; p='$T/x/ledger/20261030.wpd'; b=bytearray(open(p,'rb').read()); b[300]^=1; open(p,'wb').write(b)"
"$WATTPATH" report -c "$T/x/wattpath.yaml" --period month --from $FROM \
    --to $TO --format json >"$T/x.json" 2>"$T/x.err" ||
	{ cat "$T/x.err"; fail "report with an edited day block"; }
grep -q "ledger block 20261030.wpd: does not match its DAYS line" "$T/x.err" ||
	{ cat "$T/x.err"; fail "edited day block not logged"; }
PYTHONPATH="$ROOT/tests/integration" $PY - "$T/x.json" "$T/days.json" \
    <<'PYEOF' || fail "edited day block"
import json, sys
from json_close import compare
x, d = (json.load(open(p)) for p in sys.argv[1:3])
days = sum(m["journal"]["ledger_days_used"] for m in x["months"] if "journal" in m)
for m in x["months"] + d["months"]:
    m.pop("journal", None)
diff, n = compare(x, d)
print("edited day block: %d day blocks taken, %d differences" % (days, len(diff)))
sys.exit(0 if days == 0 and not diff else 1)
PYEOF

note "a stale day: its blocks in LEDGER are not the ones it was made of"
# an hourly block dropped from LEDGER (the lines after it chained again)
# and its raw segment gone: DAYS' 10-30 no longer matches LEDGER's blocks
# of that day; the report reads the day hour by hour (without hour 12)
rm -rf "$T/x"; cp -a "$T/d" "$T/x"
sed -i "s#$T/d#$T/x#" "$T/x/wattpath.yaml"
rm "$T/x/journal/20261030T12.wpj" "$T/x/journal/20261030T12.wps"
( cd "$T/x/ledger" && rm 20261030T12.wpl && $PY - <<'EOF'
import hashlib
out, prev = [], bytes(32)
for l in open('LEDGER').read().splitlines():
    f = l.split()
    if f[1] == '20261030T12.wpj':
        continue
    line = ' '.join(f[:7])
    prev = hashlib.sha256(prev + line.encode()).digest()
    out.append(line + ' ' + prev.hex())
open('LEDGER', 'w').write('\n'.join(out) + '\n')
EOF
) || fail "stale day: setup"
for v in a b; do
	[ $v = b ] && export WATTPATH_NO_LEDGER_DAYS=1
	"$WATTPATH" report -c "$T/x/wattpath.yaml" --period month --from $FROM \
	    --to $TO --format json >"$T/s$v.json" 2>"$T/s.err" ||
		{ cat "$T/s.err"; fail "report with a stale day"; }
	unset WATTPATH_NO_LEDGER_DAYS
done
$PY - "$T/sa.json" "$T/sb.json" <<'PYEOF' || fail "stale day taken"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
days = sum(m["journal"]["ledger_days_used"] for m in a["months"] if "journal" in m)
for m in a["months"] + b["months"]:
    m.pop("journal", None)
print("day blocks taken with a stale DAYS:", days)
sys.exit(0 if days == 0 and a == b else 1)
PYEOF

tamper() {	# name, then a shell command run on a copy
	rm -rf "$T/x"; cp -a "$T/d" "$T/x"
	( cd "$T/x/ledger" && eval "$2" ) || fail "tamper $1: setup"
	if "$WATTPATH" journal verify --dir "$T/x/journal" >"$T/t.log" 2>&1; then
		cat "$T/t.log"; fail "tamper $1 not detected"
	fi
	grep "^ledger .*FAILED" "$T/t.log" || fail "tamper $1: no ledger failure"
}
tamper "day byte" "$PY -c \"p='20261030.wpd'; b=bytearray(open(p,'rb').read()); b[200]^=1; open(p,'wb').write(b)\""
tamper "day count" "sed -i '2s/^\(day [^ ]* [0-9]*\) \([0-9]*\)/\1 1\2/' DAYS"
tamper "last day deleted" "sed -i '\$d' DAYS"
tamper "first day deleted" "sed -i '1d' DAYS"
tamper "days reordered" "tac DAYS >D2 && mv D2 DAYS"
# a day block and its line made consistently of other bytes: only the
# recomputation from the hourly blocks sees it
tamper "day rewritten" "$PY - <<'EOF'
import hashlib
p = '20261030.wpd'
b = bytearray(open(p, 'rb').read())
lines = open('DAYS').read().splitlines()
f = lines[1].split()
body = bytes(b[:-32])
body = body[:-8] + bytes([body[-8] ^ 1]) + body[-7:]	# a span's vsum
trailer = hashlib.sha256(bytes.fromhex(f[5]) + body).digest()
open(p, 'wb').write(body + trailer)
f[6] = hashlib.sha256(body + trailer).hexdigest()
prev = bytes(32)
out = []
for i, l in enumerate(lines):
    g = f if i == 1 else l.split()
    line = ' '.join(g[:7])
    prev = hashlib.sha256(prev + line.encode()).digest()
    out.append(line + ' ' + prev.hex())
open('DAYS', 'w').write('\n'.join(out) + '\n')
EOF"
grep -q "does not match its blocks" "$T/t.log" || fail "rewritten day: wrong reason"

note "rebuild restores the day blocks"
rm -rf "$T/x"; cp -a "$T/d" "$T/x"
rm "$T/x/ledger/DAYS" "$T/x/ledger/"*.wpd
"$WATTPATH" ledger rebuild --dir "$T/x/journal" >"$T/rb.log" 2>&1 ||
	{ cat "$T/rb.log"; fail "rebuild"; }
cat "$T/rb.log"
grep -q "; 3 day blocks" "$T/rb.log" || fail "day blocks not rebuilt"
cmp "$T/x/ledger/DAYS" "$L/DAYS" || fail "rebuilt DAYS differs"
cmp "$T/x/ledger/20261031.wpd" "$L/20261031.wpd" || fail "rebuilt day differs"
echo "ok"
