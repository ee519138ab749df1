#!/bin/sh
# fast
# `wattpath advise` refuses to advise from too few points (issue 23 §3):
# forty minutes at two power limits (300 and 400 W), then the same fleet
# without a sweep (one limit): each exits 1 saying how many limits it saw
# and that at least 3 are needed, with no advice in its JSON; windows
# across a change of the limit are left out; a window
# not in the class, an SLO without a request log and bad options are
# usage errors or refusals, never advice.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
BASE="--nodes 2 --racks 1 --pdus 1 --meters 3 --seed 4 --profile steady --shape joules"
TO=1795939200
FROM=$((TO - 2400))
"$SIM" history $BASE --cap-sweep 300:400:100 --cap-dwell 5m --from $FROM \
	--to $TO --step 10s --data-dir "$T/d" --maps-dir "$ROOT/etc" \
	>"$T/h.log" 2>&1 || { cat "$T/h.log"; fail "history"; }
C=$T/d/wattpath.yaml
rc=0
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	--format json >"$T/a.json" 2>"$T/a.err" || rc=$?
cat "$T/a.err"
[ "$rc" = 1 ] || fail "two limits: exit $rc, expected 1"
grep -q "no advice: 2 power limits with at least 2 windows" "$T/a.err" ||
	fail "two limits: the reason is not said"
grep -q "at least 3 are needed" "$T/a.err" || fail "the minimum is not said"
$PY - "$T/a.json" <<'PYEOF' || fail "two limits: the JSON"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["advice"] is None, a["advice"]
assert "2 power limits" in a["refused"], a["refused"]
assert [round(p["limit_w"]) for p in a["points"]] == [300, 400], a["points"]
assert all(p["windows"] == 4 for p in a["points"]), a["points"]
PYEOF
# windows that straddle every change of the limit are left out, counted
rc=0
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $((FROM + 150)) \
	--to $TO >"$T/g.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "(of 7 windows: 7 with the limit changing" "$T/g.txt" ||
	{ cat "$T/g.txt"; fail "straddling windows: exit $rc"; }
"$SIM" history $BASE --from $FROM --to $TO --step 10s --data-dir "$T/e" \
	--maps-dir "$ROOT/etc" >"$T/h2.log" 2>&1 || { cat "$T/h2.log"; fail "history 2"; }
rc=0
"$WATTPATH" advise -c "$T/e/wattpath.yaml" --class hgx-h100-8 --from $FROM \
	--to $TO >"$T/b.txt" 2>&1 || rc=$?
cat "$T/b.txt"
[ "$rc" = 1 ] || fail "one limit: exit $rc, expected 1"
grep -q "^no advice: 1 power limit with" "$T/b.txt" || fail "one limit: the reason"
grep -q "^advice:" "$T/b.txt" && fail "one limit: advice given"
rc=0
"$WATTPATH" advise -c "$C" --class nosuch --from $FROM --to $TO \
	>"$T/c.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "no node of class 'nosuch'" "$T/c.txt" ||
	{ cat "$T/c.txt"; fail "unknown class: exit $rc"; }
rc=0
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	--slo tpot_ms=25 >"$T/d.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "needs --requests" "$T/d.txt" ||
	{ cat "$T/d.txt"; fail "SLO without a request log: exit $rc"; }
rc=0
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	--slo tpot=25 >"$T/e.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "slo: cannot parse" "$T/e.txt" ||
	{ cat "$T/e.txt"; fail "bad --slo: exit $rc"; }
rc=0
"$WATTPATH" advise -c "$C" --class hgx-h100-8 --from $FROM --to $TO \
	--window 70s >"$T/f.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "under the 60 s a report needs" "$T/f.txt" ||
	{ cat "$T/f.txt"; fail "short window: exit $rc"; }
exit 0
