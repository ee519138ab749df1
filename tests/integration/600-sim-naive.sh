#!/bin/sh
# fast
# The seed's bursty cycle (4 s at 700 W, 11 s at 300 W per GPU): the truth
# is exact (6,100 J per cycle), sampling the power gauge every 15 s and
# multiplying by time misses it by tens of percent (+72 % when the scrape
# lands in the burst, -26 % in the lull), while differencing the mJ energy
# counter at the same scrapes is exact.  wattpath-sim alone, no collector.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
ONE="--nodes 1 --racks 1 --pdus 0 --meters 0 --profile seed --seed 3"
FROM=1764410400
TO=$((FROM + 300))

# Truth: 20 whole cycles of GPU 0 are exactly 20 x 6100 J.
"$SIM" truth $ONE --from $FROM --to $TO --json >"$T/truth.json" ||
	fail "truth failed"
E=$(json_get "$T/truth.json" 'd["nodes"][0]["gpus_j"][0]')
approx "$E" 122000 1e-9 || fail "GPU 0 energy over 20 cycles is $E, not 122000 J"
# The same window from any phase: truth is additive over sub-windows.
A=$(( FROM + 77 ))
"$SIM" truth $ONE --from $FROM --to $A --json >"$T/t1.json" || fail "truth 1"
"$SIM" truth $ONE --from $A --to $TO --json >"$T/t2.json" || fail "truth 2"
SUM=$($PY -c "import json; a=json.load(open('$T/t1.json')); b=json.load(open('$T/t2.json')); print(a['totals']['facility_j']+b['totals']['facility_j'])")
W=$(json_get "$T/truth.json" 'd["totals"]["facility_j"]')
approx "$SUM" "$W" 1e-9 || fail "facility truth not additive: $SUM vs $W"

# Meters past the facility's three are sub-meters (role other) that split
# the IT meter's energy evenly; past 64 the option is refused.
"$SIM" truth --nodes 4 --racks 1 --pdus 0 --meters 7 --from $FROM --to $TO \
	--json >"$T/meters.json" || fail "truth with 7 meters failed"
$PY - "$T/meters.json" <<'PYEOF' || fail "sub-meters do not split the IT energy"
import json, sys
m = json.load(open(sys.argv[1]))["meters"]
assert [x["role"] for x in m] == ["facility_total", "it_total", "cooling"] + ["other"] * 4, m
assert [x["name"] for x in m[3:]] == ["submeter-%02d" % i for i in range(1, 5)], m
it = m[1]["j"]
assert it > 0 and all(abs(x["j"] - it / 4) <= 1e-9 * it for x in m[3:]), m
PYEOF
"$SIM" truth --nodes 4 --racks 1 --pdus 0 --meters 65 --from $FROM --to $TO \
	>/dev/null 2>&1
[ $? -ne 0 ] || fail "--meters 65 accepted"

"$SIM" naive $ONE --from $FROM --to $TO --every 15 >"$T/naive.json" ||
	fail "naive failed"
cat "$T/naive.json" | head -3
MAX=$(json_get "$T/naive.json" 'd["naive_err_max"]')
MIN=$(json_get "$T/naive.json" 'd["naive_err_min"]')
CTR=$(json_get "$T/naive.json" 'd["counter_err_max_abs"]')
note "naive error from +$MAX to $MIN, counter error $CTR"
approx "$MAX" 0.7213 0.01 || fail "naive overstatement $MAX, expected ~+72 %"
approx "$MIN" -0.2623 0.01 || fail "naive understatement $MIN, expected ~-26 %"
$PY -c "import sys; sys.exit(0 if $CTR < 1e-6 else 1)" ||
	fail "counter integration off by $CTR"

# Bad input is refused with a usage error, not a crash.
"$SIM" truth $ONE --from $TO --to $FROM >/dev/null 2>&1
[ $? -eq 2 ] || fail "reversed window accepted"
"$SIM" truth --nodes 0 --from $FROM --to $TO >/dev/null 2>&1
[ $? -ne 0 ] || fail "--nodes 0 accepted"
"$SIM" truth --profile nosuch --from $FROM --to $TO >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown profile accepted"
"$SIM" naive $ONE --from $FROM --to $((FROM + 20)) >/dev/null 2>&1
[ $? -eq 2 ] || fail "window shorter than two scrapes accepted"
exit 0
