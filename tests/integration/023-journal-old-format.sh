#!/bin/sh
# 023-journal-old-format.sh - a journal written before version-2 records
# (version-1 frames, plain segments: test_journal's fixture in "v1" mode)
# still verifies and exports the same rows as today's journal of the same
# polls; `ledger rebuild` builds its ledger from it; a byte edited in an old
# segment still fails verify with the record named.
# fast
. "$(dirname "$0")/lib.sh"

TJ=$(dirname "$WATTPATH")/tests/test_journal
[ -x "$TJ" ] || skip "no $TJ (make unit-bins)"

O=$T/old
N=$T/new
WP_JOURNAL_FIXTURE=$O WP_JOURNAL_FIXTURE_FORMAT=v1 "$TJ" >/dev/null 2>&1 || fail "v1 fixture"
WP_JOURNAL_FIXTURE=$N "$TJ" >/dev/null 2>&1 || fail "fixture"

note "old segments: plain, version-1 frames"
$PY - "$O" <<'PYEOF' || fail "old fixture is not version 1"
import os, sys
d = sys.argv[1]
for f in sorted(x for x in os.listdir(d) if x.endswith('.wpj')):
    b = open(os.path.join(d, f), 'rb').read(64)
    assert b[4] == 1 and b[56:58] == b'WJ' and b[58] == 1, (f, b[4], b[58])
PYEOF

note "verify and export"
"$WATTPATH" journal verify --dir "$O" >"$T/v.out" || { cat "$T/v.out"; fail "verify old"; }
grep -q 'OK: 5 segments, 30 records' "$T/v.out" || { cat "$T/v.out"; fail "verify summary"; }
"$WATTPATH" journal export --dir "$O" >"$T/o.csv" || fail "export old"
"$WATTPATH" journal export --dir "$N" >"$T/n.csv" || fail "export new"
$PY - "$T/o.csv" "$T/n.csv" <<'PYEOF' || fail "old and new rows differ"
import csv, sys
o = list(csv.DictReader(open(sys.argv[1], newline='')))
n = list(csv.DictReader(open(sys.argv[2], newline='')))
assert len(o) == 60 and len(n) == 60, (len(o), len(n))
for a, b in zip(o, n):
    a.pop('record_hash'); b.pop('record_hash')   # other bytes, other chain
    assert a == b, (a, b)
PYEOF

note "ledger rebuild from old segments"
"$WATTPATH" ledger rebuild --dir "$O" >"$T/l.out" 2>&1 || { cat "$T/l.out"; fail "ledger rebuild"; }
"$WATTPATH" journal verify --dir "$O" >"$T/v.out" || { cat "$T/v.out"; fail "verify after rebuild"; }
grep -q '^ledger .*OK' "$T/v.out" || { cat "$T/v.out"; fail "ledger not verified"; }

note "an edited byte in an old segment"
$PY - "$O/20251129T100100.wpj" <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 0x04
open(sys.argv[1], 'wb').write(b)
PYEOF
"$WATTPATH" journal verify --dir "$O" >"$T/v.out" && fail "edit not detected"
grep -q 'FAILED: segment 20251129T100100.wpj record' "$T/v.out" || { cat "$T/v.out"; fail "edit message"; }
exit 0
