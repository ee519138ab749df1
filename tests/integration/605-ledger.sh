#!/bin/sh
# fast
# The long-term ledger (docs/ledger.md): `wattpath-sim history` over a month
# boundary, with two collector restarts (one after a 5-minute outage) and the
# simulator's counter resets, writes a ledger block per closed segment; the
# journal and the ledger verify; the raw segments of the report's whole
# window then expire (MANIFEST "expire" lines, as the collector writes
# them) and `wattpath report --period month` from the ledger equals the
# raw-only report to rounding; verify still passes; an edited, deleted or
# reordered ledger entry is detected; `wattpath ledger rebuild` restores it.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 4 --racks 1 --pdus 2 --meters 3 --seed 9"
A=1793476800		# 2026-10-31T20:00:00Z
M=1793494800		# 2026-11-01T01:00:00Z
B=1793505600		# 2026-11-01T04:00:00Z
hist() {
	"$SIM" history $FLEET --from "$1" --to "$2" --step 10s \
	    --data-dir "$T/d" --maps-dir "$ROOT/etc" >>"$T/h.log" 2>&1 ||
	    { cat "$T/h.log"; fail "history $1 $2"; }
}
hist $A $((A + 1800))
hist $((A + 2100)) $M		# restart after a 5-minute outage
hist $((M + 10)) $B		# restart
C=$T/d/wattpath.yaml
"$WATTPATH" journal verify -c "$C" >"$T/v.log" 2>&1 ||
	{ cat "$T/v.log"; fail "journal does not verify"; }
cat "$T/v.log"
grep -q "^ledger .*: OK: [1-9][0-9]* blocks" "$T/v.log" || fail "no ledger verified"

FROM=2026-10-31T21:00:00Z
TO=2026-11-01T03:00:00Z
for f in json csv md; do
	WATTPATH_NO_LEDGER=1 WATTPATH_NO_SUMMARIES=1 "$WATTPATH" report -c "$C" \
	    --period month --from $FROM --to $TO --format $f >"$T/raw.$f" \
	    2>"$T/raw.err" || { cat "$T/raw.err"; fail "raw-only report"; }
done
head -3 "$T/raw.csv"
grep -q "^month,start,end,partial,scope,boundary,kwh," "$T/raw.csv" ||
	fail "no CSV header"
[ "$(grep -c '^2026-1[01],.*,true,site,' "$T/raw.csv")" = 8 ] ||
	fail "expected 2 partial months x 4 boundaries of site rows"
grep -q "| 2026-10 | partial |" "$T/raw.md" || fail "Markdown table"

"$WATTPATH" report -c "$C" --period year --from 2026 --format json \
    >"$T/year.json" 2>"$T/year.err" || { cat "$T/year.err"; fail "year"; }
$PY - "$T/year.json" <<'PYEOF' || fail "year table"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["months"]
assert len(m) == 12, len(m)
have = [x["start"][:7] for x in m if x["boundaries"]["wall"]["kwh"]]
assert have == ["2026-10", "2026-11"], have
assert all(x["partial"] for x in m)
assert sum(1 for x in m if x.get("no_data")) == 10
tot = d["total"]["boundaries"]["wall"]["kwh"]
assert abs(tot - sum(x["boundaries"]["wall"]["kwh"] or 0 for x in m)) < 1e-6
assert d["window"]["data_start"].startswith("2026-10-31T21:00")
print("year: %.3f wall kWh in 2 partial months" % tot)
PYEOF

note "raw segments before 03:00 expire"
cp -a "$T/d" "$T/keep"
$PY - "$T/d/journal" <<'PYEOF' || fail "expiry"
import hashlib, os, sys
d = sys.argv[1]
lines = open(d + "/MANIFEST").read().splitlines()
last = bytes.fromhex(lines[-1].split()[-1])
closed = {}
for l in lines:
    f = l.split()
    if f[0] == "close":
        closed[f[1]] = f[2:5]
    elif f[0] == "expire":
        closed.pop(f[1], None)
out = []
for name in sorted(closed):
    if name >= "20261101T03.wpj":
        continue
    body = "expire %s %s %s %s" % (name, *closed[name])
    last = hashlib.sha256(last + body.encode()).digest()
    out.append(body + " " + last.hex() + "\n")
    for ext in (".wpj", ".wps"):
        os.unlink(os.path.join(d, name[:-4] + ext))
open(d + "/MANIFEST", "a").write("".join(out))
print("expired %d segments" % len(out))
PYEOF
"$WATTPATH" journal verify -c "$C" >"$T/v2.log" 2>&1 ||
	{ cat "$T/v2.log"; fail "journal+ledger do not verify after expiry"; }
cat "$T/v2.log"
grep -q "[1-9][0-9]* expired segments" "$T/v2.log" || fail "nothing expired"
"$WATTPATH" report -c "$C" --period month --from $FROM --to $TO \
    --format json >"$T/led.json" 2>"$T/led.err" ||
	{ cat "$T/led.err"; fail "ledger report"; }
"$WATTPATH" report -c "$C" --period month --from $FROM --to $TO \
    --format csv >"$T/led.csv" 2>>"$T/led.err" || fail "ledger csv"
PYTHONPATH="$ROOT/tests/integration" $PY - "$T/raw.json" "$T/led.json" \
    "$T/raw.csv" "$T/led.csv" <<'PYEOF'
import csv, json, sys
from json_close import compare
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
import re
def reasons(doc):	# warnings compared by their refusal reason
    for m in doc["months"]:
        m["warnings"] = [re.sub(r"\): .*", ")", w) for w in m.get("warnings", [])]
        m.pop("journal", None)	# where the figures came from differs
reasons(a); reasons(b)
bad, numbers = compare(a, b)
ra = list(csv.reader(open(sys.argv[3])))
rb = list(csv.reader(open(sys.argv[4])))
if len(ra) != len(rb) or len(ra) < 10:
    bad.append(("csv rows", len(ra), len(rb)))
if not [m for m in a["months"] if m["boundaries"]["wall"]["kwh"] and
        m["boundaries"]["gpu"]["kwh"] and m["tokens"]["output"]]:
    bad.append(("months", "no month with wall and GPU kWh and tokens"))
print("%d numbers compared" % numbers)
for x in bad[:20]:
    print("DIFF", x)
sys.exit(1 if bad or numbers < 20 else 0)
PYEOF
[ $? = 0 ] || fail "ledger report differs from the raw-only report"
grep -q "raw journal records at a window edge have expired" "$T/led.json" &&
	fail "an hour-aligned window snapped an edge"

note "tamper: edited, deleted, reordered ledger entries"
L=$T/d/ledger
tamper() {	# name, then a shell command run on a copy
	rm -rf "$T/x"; cp -a "$T/d" "$T/x"
	( cd "$T/x/ledger" && eval "$2" ) || fail "tamper $1: setup"
	if "$WATTPATH" journal verify --dir "$T/x/journal" >"$T/t.log" 2>&1; then
		cat "$T/t.log"; fail "tamper $1 not detected"
	fi
	grep "^ledger .*FAILED" "$T/t.log" || fail "tamper $1: no ledger failure"
}
B1=$(sed -n 2p "$L/LEDGER" | awk '{print $2}' | sed 's/\.wpj$/.wpl/')
tamper "block byte" "$PY -c \"import sys; p='$B1'; b=bytearray(open(p,'rb').read()); b[200]^=1; open(p,'wb').write(b)\""
tamper "index count" "sed -i '2s/ 6120 / 6121 /' LEDGER"
tamper "line deleted" "sed -i '2d' LEDGER"
tamper "last deleted" "sed -i '\$d' LEDGER"
tamper "reordered" "awk 'NR==2{h=\$0;next} NR==3{print;print h;next} {print}' LEDGER >L2 && mv L2 LEDGER"
tamper "block replaced" "cp \$(sed -n 3p LEDGER | awk '{print \$2}' | sed 's/wpj\$/wpl/') $B1"

note "rebuild from the raw journal"
rm -rf "$T/x"; cp -a "$T/keep" "$T/x"
sed -i '$d' "$T/x/ledger/LEDGER"
"$WATTPATH" journal verify --dir "$T/x/journal" >/dev/null 2>&1 &&
	fail "dropped block not detected"
"$WATTPATH" ledger rebuild --dir "$T/x/journal" >"$T/rb.log" 2>&1 ||
	{ cat "$T/rb.log"; fail "rebuild"; }
cat "$T/rb.log"
"$WATTPATH" journal verify --dir "$T/x/journal" >"$T/v3.log" 2>&1 ||
	{ cat "$T/v3.log"; fail "rebuilt ledger does not verify"; }
note "a crash between a segment's close and its block: caught up at open"
rm -rf "$T/y"; cp -a "$T/keep" "$T/y"
LAST=$(tail -n 1 "$T/y/ledger/LEDGER" | awk '{print $2}')
sed -i '$d' "$T/y/ledger/LEDGER"
rm "$T/y/ledger/${LAST%.wpj}.wpl"
"$SIM" history $FLEET --from $((B + 10)) --to $((B + 20)) --step 10s \
    --data-dir "$T/y" --maps-dir "$ROOT/etc" >"$T/y.log" 2>&1 ||
	{ cat "$T/y.log"; fail "history after the crash"; }
grep -q "block(s) written after a crash" "$T/y.log" ||
	{ cat "$T/y.log"; fail "no catch-up logged"; }
tail -n 1 "$T/y/ledger/LEDGER" | grep -q " $LAST " || fail "block not caught up"
"$WATTPATH" journal verify --dir "$T/y/journal" >"$T/v4.log" 2>&1 ||
	{ cat "$T/v4.log"; fail "caught-up ledger does not verify"; }
# rebuild after expiry keeps the blocks whose raw segments are gone
"$WATTPATH" ledger rebuild -c "$C" >"$T/rb2.log" 2>&1 ||
	{ cat "$T/rb2.log"; fail "rebuild after expiry"; }
grep -q "kept [1-9]" "$T/rb2.log" || { cat "$T/rb2.log"; fail "no block kept"; }
"$WATTPATH" journal verify -c "$C" >/dev/null 2>&1 || fail "verify after rebuild"
echo "ok"
