#!/bin/sh
# fast
# Golden documents: the report, curve and carbon CSV outputs of every
# report unit test and of the simulator's fixed-seed histories are byte
# for byte those recorded in tests/golden/expected/.  A refactoring of the
# report must not change a figure, a warning or a key's place; a change of
# behaviour updates the golden files in the same commit, on purpose:
#   WP_GOLDEN_UPDATE=1 tests/run.sh -k golden
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$WATTPATH")
SIM=${WATTPATH_SIM:-$BIN/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
UNIT=$BIN/tests/test_report
[ -x "$UNIT" ] || UNIT=$ROOT/build/tests/test_report
[ -x "$UNIT" ] || skip "no test_report built"
G=$ROOT/tests/golden
OUT=$T/out
mkdir -p "$OUT/unit"

# 1. every document the report unit tests print
WP_GOLDEN_DIR=$OUT/unit "$UNIT" >"$T/unit.log" 2>&1 ||
	{ cat "$T/unit.log"; fail "test_report"; }

# 2. fixed-seed simulator histories, with site data for carbon and cost
TO=1795939200
FROM=$((TO - 7200))
A=$((FROM + 600))
B=$((TO - 600))
history() {	# name fleet-options...
	d=$T/$1
	shift
	"$SIM" history "$@" --from $FROM --to $TO --step 10s --data-dir "$d" \
		--maps-dir "$ROOT/etc" >"$T/h.log" 2>&1 ||
		{ cat "$T/h.log"; fail "history $*"; }
	cp "$G/grid.csv" "$G/go.csv" "$G/prices.csv" "$d/"
	grep -v '^site:' "$d/wattpath.yaml" >"$d/c.yaml"
	cat "$G/site.yaml" >>"$d/c.yaml"
}
doc() {	# file command args... (stdout to $OUT/file, data dir as @DIR@)
	f=$1
	shift
	"$WATTPATH" "$@" >"$T/doc" 2>"$T/doc.err" ||
		{ cat "$T/doc.err"; fail "$*"; }
	sed "s|$T|@DIR@|g" "$T/doc" >"$OUT/$f"
}
history mix --nodes 16 --racks 2 --pdus 4 --meters 3 --seed 1
C=$T/mix/c.yaml
doc mix.json report -c "$C" --from $A --to $B
doc mix.md report -c "$C" --from $A --to $B --format md
doc mix.csv report -c "$C" --from $A --to $B --format csv
doc mix-carbon.csv report -c "$C" --from $A --to $B --carbon-csv -
doc mix-idle.json report -c "$C" --from $A --to $B \
	--idle-from $FROM --idle-to $((FROM + 300))
doc mix-runs.json report -c "$C" --from $A --to $B --runs 3
doc mix-day.json report -c "$C" --from $A --to $B --period hour
doc mix-plain.json report -c "$T/mix/wattpath.yaml" --from $A --to $B
doc mix-curve.json curve -c "$C" --class hgx-h100-8 --from $A --to $B
doc mix-curve.csv curve -c "$C" --node gpu-004 --from $A --to $B \
	--format csv --step 2m
doc mix-curve.svg curve -c "$C" --node gpu-003 --from $A --to $B \
	--format svg
history kwh --nodes 8 --racks 2 --pdus 4 --meters 3 --seed 9 --shape kwh \
	--profile bursty
C=$T/kwh/c.yaml
doc kwh.json report -c "$C" --from $A --to $B
doc kwh.md report -c "$C" --from $A --to $B --format md
history nometer --nodes 6 --racks 1 --pdus 2 --meters 0 --seed 4 \
	--shape watts
C=$T/nometer/c.yaml
printf '  pue: {value: 1.35, category: "1", period: "2025"}\n' >>"$C"
doc nometer.json report -c "$C" --from $A --to $B
doc nometer.md report -c "$C" --from $A --to $B --format md

# the build's commit (disclosure.wattpath) changes with every commit
find "$OUT" -type f | while read -r f; do
	sed -i -e 's/"commit":"[^"]*"/"commit":"@COMMIT@"/' \
	    -e 's/^disclosure\.wattpath\.commit,.*/disclosure.wattpath.commit,@COMMIT@/' \
	    -e 's/^\(wattpath [^ ]*\) (commit [^)]*)/\1 (commit @COMMIT@)/' "$f"
done

# 3. compare (or record)
if [ -n "${WP_GOLDEN_UPDATE:-}" ]; then
	rm -rf "$G/expected"
	cp -R "$OUT" "$G/expected"
	echo "golden documents recorded in tests/golden/expected"
	exit 0
fi
[ -d "$G/expected" ] || fail "no tests/golden/expected (WP_GOLDEN_UPDATE=1)"
diff -r -u "$G/expected" "$OUT" >"$T/diff" ||
	{ head -n 80 "$T/diff"; fail "documents differ from tests/golden/expected"; }
n=$(find "$OUT" -type f | wc -l)
echo "golden: $n documents identical"
