#!/bin/sh
# 021-journal-tamper.sh - `wattpath journal verify` and `journal export`
# on a real journal (written by test_journal's fixture mode: 30 polls in
# five 60 s segments): intact -> exit 0; an edited byte, a deleted middle
# segment, swapped segments or an edited MANIFEST -> exit 1 naming the
# place; a torn tail -> still OK with a note; CSV parses with Python's csv.
# fast
. "$(dirname "$0")/lib.sh"

TJ=$(dirname "$WATTPATH")/tests/test_journal
[ -x "$TJ" ] || skip "no $TJ (make unit-bins)"

fresh() {	# fresh DIR: a new fixture journal
	rm -rf "$1"
	WP_JOURNAL_FIXTURE=$1 "$TJ" >/dev/null 2>&1 || fail "fixture"
}
J=$T/j
fresh "$J"

note "intact"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" || { cat "$T/v.out"; fail "verify intact"; }
grep -q 'OK: 5 segments, 30 records' "$T/v.out" || { cat "$T/v.out"; fail "summary"; }

note "export CSV"
"$WATTPATH" journal export --dir "$J" >"$T/all.csv" || fail "export"
"$WATTPATH" journal export --dir "$J" --from 2025-11-29T10:01:00Z \
	--to 2025-11-29T10:02:00Z >"$T/range.csv" || fail "export range"
$PY - "$T/all.csv" "$T/range.csv" <<'PYEOF' || fail "CSV content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
assert len(rows) == 60, len(rows)              # 30 polls x 2 values
r = rows[2]
assert r['target'] == 'gpu-001/bmc' and r['series'] == 'wall/energy', r
assert r['t_real'] == '2025-11-29T10:00:10.000000000Z', r['t_real']
assert r['t_real_ns'] == '1764410410000000000'
assert r['unit'] == 'J' and r['raw_unit'] == 'kWh' and r['kind'] == 'counter'
assert float(r['delta']) == 5000 and float(r['cum']) == 5000
assert len(r['record_hash']) == 64 and r['record_hash'] == rows[3]['record_hash']
assert rows[0]['ctr_flags'] == 'discont'
assert rows[3]['labels'] == '' and rows[3]['unit'] == 'W'
hashes = [x['record_hash'] for x in rows[::2]]
assert len(set(hashes)) == 30
rng = list(csv.DictReader(open(sys.argv[2], newline='')))
assert len(rng) == 12, len(rng)                # 6 polls in [10:01, 10:02)
assert rng[0]['t_real'].startswith('2025-11-29T10:01:00'), rng[0]['t_real']
PYEOF

note "edited byte"
seg=$J/20251129T100100.wpj
$PY - "$seg" <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 0x04
open(sys.argv[1], 'wb').write(b)
PYEOF
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" && fail "edit not detected"
grep -q 'FAILED: segment 20251129T100100.wpj record' "$T/v.out" || { cat "$T/v.out"; fail "edit message"; }

note "deleted middle segment"
fresh "$J"
rm "$J/20251129T100200.wpj"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" && fail "deletion not detected"
grep -q 'missing' "$T/v.out" || { cat "$T/v.out"; fail "deletion message"; }

note "swapped segments"
fresh "$J"
mv "$J/20251129T100100.wpj" "$T/x"; mv "$J/20251129T100200.wpj" "$J/20251129T100100.wpj"
mv "$T/x" "$J/20251129T100200.wpj"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" && fail "swap not detected"

note "edited MANIFEST"
fresh "$J"
sed -i '2s/ 6 / 7 /' "$J/MANIFEST"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" && fail "manifest edit not detected"
grep -q 'MANIFEST line 2' "$T/v.out" || { cat "$T/v.out"; fail "manifest message"; }

note "torn tail is tolerated"
fresh "$J"
last=$J/20251129T100400.wpj
truncate -s -20 "$last"
"$WATTPATH" journal verify --dir "$J" >"$T/v.out" || { cat "$T/v.out"; fail "torn tail"; }
grep -q 'OK: 5 segments, 29 records' "$T/v.out" && grep -q '^note: .*torn' "$T/v.out" ||
	{ cat "$T/v.out"; fail "torn tail summary"; }

note "usage errors"
"$WATTPATH" journal verify >/dev/null 2>&1; [ $? = 2 ] || fail "usage exit 2"
"$WATTPATH" journal export --dir "$J" --from nonsense >/dev/null 2>&1; [ $? = 2 ] || fail "bad time"
"$WATTPATH" journal verify --dir "$T/nope" >/dev/null 2>&1 && fail "missing dir verified"

note "-c FILE finds <data_dir>/journal"
fresh "$T/data/journal"
cat >"$T/wattpath.yaml" <<EOC
collector:
  interval: 10s
  data_dir: $T/data
nodes: []
EOC
"$WATTPATH" journal verify -c "$T/wattpath.yaml" >"$T/v.out" 2>&1 || { cat "$T/v.out"; fail "verify -c"; }
grep -q 'OK: 5 segments' "$T/v.out" || { cat "$T/v.out"; fail "verify -c summary"; }
exit 0
