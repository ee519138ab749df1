#!/bin/sh
# fast
# collector.shard: three collectors, each with {index: I, count: 3} over one
# inventory (a simulated fleet of 9 nodes, 6 PDUs, 2 meters), poll it exactly
# once between them: `check-config -v` lists disjoint target sets whose union
# is the whole fleet, a node's BMC, GPU and engine targets in one shard; after
# one `run --once` of each (own data_dir) every target has ok readings in
# exactly one shard's journal.  Adding a node to the inventory moves no other
# target; a fourth collector (count: 4) takes targets only from the three.
# A bad shard (index >= count, a missing key) is a FILE:LINE error.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 9 --racks 3 --pdus 6 --meters 2 --seed 31 --shape joules"
BASE=$(free_port_base)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }

# shard_conf IN OUT I N [DATA]: IN with collector.shard {I, N} (and data_dir)
shard_conf() {
	sed -e "s|^collector:|collector:\n  shard: {index: $3, count: $4}|" \
	    -e "s|^  data_dir: .*|  data_dir: \"${5:-$T/d$3}\"|" "$1" >"$2"
}
# targets CONF: the target names check-config -v lists, sorted
targets() {
	"$WATTPATH" check-config -v -c "$1" 2>"$T/tg.err" |
		awk '/^  [^ ]/ {print $1}' | sort
}
"$WATTPATH" check-config -v -c "$T/w.yaml" >/dev/null 2>&1 || fail "fleet config"
targets "$T/w.yaml" >"$T/all"
[ "$(wc -l <"$T/all")" -ge 30 ] || fail "only $(wc -l <"$T/all") targets in the fleet"
for i in 0 1 2; do
	shard_conf "$T/w.yaml" "$T/s$i.yaml" $i 3
	targets "$T/s$i.yaml" >"$T/t$i"
	[ -s "$T/t$i" ] || { cat "$T/tg.err"; fail "shard $i owns nothing"; }
	note "shard $i: $(wc -l <"$T/t$i") targets"
done
sort "$T/t0" "$T/t1" "$T/t2" >"$T/union"
cmp -s "$T/union" "$T/all" || { diff "$T/union" "$T/all"; fail "shards do not cover the fleet once"; }
# a node's targets stay together
for i in 0 1 2; do
	for n in $(sed -n 's|/.*||p' "$T/t$i" | sort -u); do
		[ "$(grep -c "^$n/" "$T/all")" = "$(grep -c "^$n/" "$T/t$i")" ] ||
			fail "node $n is split across shards"
	done
done

# Poll: each shard once; each target's readings in exactly one journal.
for i in 0 1 2; do
	"$WATTPATH" run --once -c "$T/s$i.yaml" >"$T/run$i.log" 2>&1 ||
		{ cat "$T/run$i.log"; fail "run --once of shard $i"; }
	"$WATTPATH" journal export --dir "$T/d$i/journal" 2>"$T/j.err" |
		awk -F, 'NR > 1 && $4 == "ok" {print $3}' | sort -u >"$T/j$i" ||
		fail "journal export $i"
	cmp -s "$T/j$i" "$T/t$i" ||
		{ diff "$T/j$i" "$T/t$i"; fail "shard $i polled other than its targets"; }
done
sort "$T/j0" "$T/j1" "$T/j2" | uniq -d >"$T/dup"
[ -s "$T/dup" ] && fail "polled by two shards: $(cat "$T/dup")"

# A new node moves no other target.
awk '/^nodes:/ {print; print "  - {name: zz-new-node, bmc: {url: \"https://127.1.0.200:1\", credentials: bmc}}"; next} {print}' \
	"$T/w.yaml" >"$T/w2.yaml"
for i in 0 1 2; do
	shard_conf "$T/w2.yaml" "$T/n$i.yaml" $i 3
	targets "$T/n$i.yaml" | grep -v '^zz-new-node/' >"$T/u$i"
	cmp -s "$T/u$i" "$T/t$i" || fail "adding a node moved targets of shard $i"
done
# A fourth collector takes targets only from the others, none move between them.
for i in 0 1 2 3; do
	shard_conf "$T/w.yaml" "$T/f$i.yaml" $i 4
	targets "$T/f$i.yaml" >"$T/v$i"
done
[ -s "$T/v3" ] || fail "the fourth shard owns nothing"
for i in 0 1 2; do
	[ -z "$(comm -13 "$T/t$i" "$T/v$i")" ] || fail "shard $i gained targets at count 4"
done

# Bad shards are errors at their line.
printf 'collector:\n  shard: {index: 3, count: 3}\n' >"$T/bad1.yaml"
"$WATTPATH" check-config -c "$T/bad1.yaml" >"$T/bad1.log" 2>&1 && fail "index 3 of 3 passed"
grep -q "bad1.yaml:2: collector: shard: index 3 must be below count 3" "$T/bad1.log" ||
	{ cat "$T/bad1.log"; fail "no message for index >= count"; }
printf 'collector:\n  shard: {count: 3, nodes: 1}\n' >"$T/bad2.yaml"
"$WATTPATH" check-config -c "$T/bad2.yaml" >"$T/bad2.log" 2>&1 && fail "no index passed"
grep -q "needs index and count" "$T/bad2.log" && grep -q "unknown key 'nodes'" "$T/bad2.log" ||
	{ cat "$T/bad2.log"; fail "no message for a bad shard mapping"; }
alive "$PID_sim"
exit 0
