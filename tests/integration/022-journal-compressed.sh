#!/bin/sh
# 022-journal-compressed.sh - closed journal segments are compressed
# (zstd, docs/journal.md "Compressed segments") and the open one is plain;
# `journal verify` and `journal export` read them, with the same chain and
# the same CSV (record hashes included) as the same records left plain; a
# flipped byte or a cut in a compressed segment fails verify naming it.
# fast
. "$(dirname "$0")/lib.sh"

TJ=$(dirname "$WATTPATH")/tests/test_journal
[ -x "$TJ" ] || skip "no $TJ (make unit-bins)"

fixture() {	# fixture DIR [FORMAT]
	rm -rf "$1"
	WP_JOURNAL_FIXTURE=$1 WP_JOURNAL_FIXTURE_FORMAT=${2:-} "$TJ" >/dev/null 2>&1 ||
		fail "fixture $2"
}
J=$T/z
P=$T/p
rm -rf "$J"
WP_JOURNAL_FIXTURE=$J "$TJ" >/dev/null 2>&1 || fail "fixture"
fixture "$P" plain

note "segment kinds: closed compressed, open plain"
$PY - "$J" "$P" <<'PYEOF' || fail "segment headers"
import os, sys
for d, closed in ((sys.argv[1], 2), (sys.argv[2], 1)):
    segs = sorted(f for f in os.listdir(d) if f.endswith('.wpj'))
    assert len(segs) == 5, segs
    vers = [open(os.path.join(d, f), 'rb').read(5)[4] for f in segs]
    assert vers == [closed] * 4 + [1], (d, vers)
z = sum(os.path.getsize(os.path.join(sys.argv[1], f)) for f in os.listdir(sys.argv[1]) if f.endswith('.wpj'))
p = sum(os.path.getsize(os.path.join(sys.argv[2], f)) for f in os.listdir(sys.argv[2]) if f.endswith('.wpj'))
assert z < p, (z, p)
PYEOF

note "verify and export read them; the chain is the plain one's"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" || { cat "$T/v.out"; fail "verify"; }
grep -q 'OK: 5 segments, 30 records' "$T/v.out" || { cat "$T/v.out"; fail "verify summary"; }
cmp "$J/MANIFEST" "$P/MANIFEST" || fail "MANIFEST differs from the plain journal's"
"$WATTPATH" journal export --dir "$J" >"$T/z.csv" || fail "export"
"$WATTPATH" journal export --dir "$P" >"$T/p.csv" || fail "export plain"
cmp "$T/z.csv" "$T/p.csv" || fail "export differs from the plain journal's"
[ "$(wc -l <"$T/z.csv")" -eq 61 ] || fail "export rows"

note "a flipped byte in a compressed segment"
$PY - "$J/20251129T100100.wpj" <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0x20
open(sys.argv[1], 'wb').write(b)
PYEOF
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" && fail "flip not detected"
grep -q 'FAILED: segment 20251129T100100.wpj record' "$T/v.out" || { cat "$T/v.out"; fail "flip message"; }
"$WATTPATH" journal export --dir "$J" >/dev/null 2>&1 && fail "export of a damaged segment succeeded"

note "a compressed segment cut short is not a torn tail"
rm -rf "$J"
WP_JOURNAL_FIXTURE=$J "$TJ" >/dev/null 2>&1 || fail "fixture"
truncate -s -9 "$J/20251129T100200.wpj"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" && fail "cut not detected"
grep -q 'FAILED: segment 20251129T100200.wpj' "$T/v.out" || { cat "$T/v.out"; fail "cut message"; }
exit 0
