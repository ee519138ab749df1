#!/bin/sh
# 510-cli.sh - the command line a sysadmin expects (issue 19):
#   - `wattpath CMD --help` and `wattpath help CMD` print the usage of every
#     subcommand to stdout and exit 0; each option a command's source parses
#     is in its --help and in docs/wattpath.8;
#   - every form of time (ISO-8601 with and without zone, a day, a month, a
#     year, epoch seconds, now-D, today, yesterday) is accepted by report,
#     curve, graph and journal export, and the spans mean the same windows
#     as their epoch seconds (a fixed-seed simulator history, 2026-11-29
#     06:00-08:00 UTC);
#   - a bad value is named: "--from: cannot parse 'xyz'", exit 2;
#   - `run --once` exits 1 when every target failed;
#   - `report` refuses a window that starts before the first reading, and
#     exits 1 when the report has no figure at all, or when its output
#     could not be written (/dev/full).
# fast
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$WATTPATH")
SIM=${WATTPATH_SIM:-$BIN/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
MAN=$ROOT/docs/wattpath.8

# 1. help, for every command the synopsis lists
"$WATTPATH" help >"$T/help" 2>"$T/help.err" || fail "wattpath help"
cmds=$(sed -n 's/^.*wattpath \([a-z-]*\).*$/\1/p' "$T/help" | grep -v '^COMMAND$' | sort -u)
[ "$(echo "$cmds" | wc -l)" -ge 9 ] || fail "help lists: $cmds"
for c in $cmds; do
	"$WATTPATH" "$c" --help >"$T/h1" 2>"$T/h1.err"
	[ $? = 0 ] || fail "$c --help: exit not 0"
	[ -s "$T/h1.err" ] && fail "$c --help wrote to stderr: $(cat "$T/h1.err")"
	head -1 "$T/h1" | grep -q "^usage: wattpath $c" || fail "$c --help: $(head -2 "$T/h1")"
	"$WATTPATH" help "$c" >"$T/h2" || fail "help $c: exit not 0"
	cmp -s "$T/h1" "$T/h2" || fail "help $c differs from $c --help"
	"$WATTPATH" "$c" -h >"$T/h3" || fail "$c -h"
	cmp -s "$T/h1" "$T/h3" || fail "$c -h differs from $c --help"
done
"$WATTPATH" report -c x --help >"$T/h4" || fail "--help after other options"
"$WATTPATH" help nosuch >/dev/null 2>&1; [ $? = 2 ] || fail "help nosuch: not 2"

# every option each command's source parses: in its --help and the man page
opts_of() {	# source file: the long options of its option table(s)
	sed -n 's/^[[:space:]]*{ "\([a-z][a-z0-9-]*\)", [a-z_]*argument.*/\1/p' "$1"
	grep -o 'strcmp(a, "--[a-z-]*")' "$1" | sed 's/.*"--\([a-z-]*\)".*/\1/'
}
check_opts() {	# source commands...
	src=$ROOT/collector/cmd/$1
	shift
	: >"$T/hh"
	for c in "$@"; do "$WATTPATH" help "$c" >>"$T/hh"; done
	n=0
	for o in $(opts_of "$src"); do
		n=$((n + 1))
		grep -q -- "--$o\b" "$T/hh" || fail "$*: --$o is not in its --help"
		grep -q -- "Fl \\\\-$o\b" "$MAN" || fail "$*: --$o is not in wattpath(8)"
	done
	[ $n -gt 0 ] || fail "no options found in $src"
}
check_opts run_cmd.c run
check_opts conf_cmd.c check-config
check_opts probe_cmd.c probe
check_opts report_cmd.c report curve
check_opts graph_cmd.c graph
check_opts journal_cmd.c journal
check_opts drift_cmd.c calibrate drift
check_opts advise_cmd.c advise

# 2. a fixed history: 2026-11-29T06:00Z .. 08:00Z
TO=1795939200
FROM=$((TO - 7200))
D=$T/h
"$SIM" history --nodes 2 --racks 1 --pdus 1 --meters 1 --seed 3 \
	--from $FROM --to $TO --step 10s --data-dir "$D" \
	--maps-dir "$ROOT/etc" >"$T/sim.log" 2>&1 || { cat "$T/sim.log"; fail "history"; }
C=$D/wattpath.yaml
NODE=$(sed -n 's/^  - name: \(.*\)$/\1/p' "$C" | head -1)
[ -n "$NODE" ] || NODE=$(sed -n 's/^.*- *{ *name: \([^,}]*\).*/\1/p' "$C" | head -1)
ex() { "$WATTPATH" journal export -c "$C" "$@"; }
ex >"$T/all.csv" || fail "export"
[ "$(wc -l <"$T/all.csv")" -gt 100 ] || fail "export: $(wc -l <"$T/all.csv") lines"
same() {	# what: file file
	cmp -s "$2" "$3" || fail "$1: $(wc -l <"$2") vs $(wc -l <"$3") lines"
}
ex --from $((FROM + 1800)) --to $((FROM + 5400)) >"$T/e.csv" || fail "epoch"
[ "$(wc -l <"$T/e.csv")" -lt "$(wc -l <"$T/all.csv")" ] || fail "epoch window is everything"
ex --from 2026-11-29T06:30:00Z --to 2026-11-29T07:30:00Z >"$T/i.csv" || fail "ISO Z"
same "ISO with Z" "$T/e.csv" "$T/i.csv"
ex --from 2026-11-29T07:30:00+01:00 --to "2026-11-29 03:30-04:00" >"$T/i.csv" || fail "ISO zones"
same "ISO with zones" "$T/e.csv" "$T/i.csv"
ex --from 2026-11-29T06:30 --to 2026-11-29T07:30:00 >"$T/i.csv" || fail "ISO no zone"
same "ISO without zone (UTC)" "$T/e.csv" "$T/i.csv"
for span in 2026-11-29 2026-11 2026; do
	ex --from $span --to $span >"$T/s.csv" || fail "span $span"
	same "--from $span --to $span" "$T/all.csv" "$T/s.csv"
done
ex --from 2026-11-30 >"$T/s.csv" || fail "--from a later day"
[ "$(wc -l <"$T/s.csv")" = 1 ] || fail "--from 2026-11-30 exported records"
ex --from 2026-11-28 --to 2026-11-28 >"$T/s.csv" || fail "the day before"
[ "$(wc -l <"$T/s.csv")" = 1 ] || fail "--to 2026-11-28 reached the 29th"
for t in now now-1h now-1h30m today yesterday; do
	ex --from "$t" >/dev/null 2>"$T/e.err" || fail "journal export --from $t: $(cat "$T/e.err")"
done
ex --from yesterday --to now >/dev/null || fail "--from yesterday --to now"

# report and curve over the same window by day-relative spans and ISO
"$WATTPATH" report -c "$C" --from $((FROM + 600)) --to $((TO - 600)) >"$T/r1.json" ||
	fail "report epoch"
"$WATTPATH" report -c "$C" --from 2026-11-29T07:10+01:00 --to 2026-11-29T07:50Z \
	>"$T/r2.json" || fail "report ISO"
same "report epoch vs ISO" "$T/r1.json" "$T/r2.json"
"$WATTPATH" curve -c "$C" --node "$NODE" --from 2026-11-29T06:10Z --to 2026-11-29T07:50Z \
	>"$T/c.json" || fail "curve ISO"
# (under ASan: librrd's own asprintf leaks are suppressed by tests/lsan.supp
# only when the slow unwinder sees librrd's frames)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0" \
	"$WATTPATH" graph -c "$C" --node "$NODE" --from 2026-11-29T06:10Z --to 2026-11-29T07:50Z \
	-o "$T/g.svg" 2>"$T/g.err" || fail "graph ISO: $(cat "$T/g.err")"
[ -s "$T/g.svg" ] || fail "graph wrote no SVG"

# 3. a bad value is named, exit 2
bad() {	# expected-text command args...
	want=$1
	shift
	"$WATTPATH" "$@" >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc = 2 ] || fail "$*: exit $rc, want 2"
	grep -qF -- "$want" "$T/bad.err" || fail "$*: said $(cat "$T/bad.err")"
}
W="--from $FROM --to $TO"
bad "report: --from: cannot parse 'xyz'" report -c "$C" --from xyz --to now
bad "--to: cannot parse '2026-11-31'" report -c "$C" --from 2026-11 --to 2026-11-31
bad "--idle-from: cannot parse 'soon'" report -c "$C" $W --idle-from soon --idle-to now
bad "report: --runs: cannot parse '3x'" report -c "$C" $W --runs 3x
bad "--format: 'xml' is not" report -c "$C" $W --format xml
bad "--period: 'week' is not" report -c "$C" $W --period week
bad "curve: --step: cannot parse '5x'" curve -c "$C" --node "$NODE" $W --step 5x
bad "--from and --to go together" report -c "$C" --from $FROM
bad "graph: --to: cannot parse 'later'" graph -c "$C" --node "$NODE" --to later -o "$T/x.png"
bad "journal: --to: cannot parse 'now-'" journal export -c "$C" --to now-
bad "probe: --timeout: cannot parse 'abc'" probe http://127.0.0.1:9 --timeout abc
bad "--log-level: 'loud' is not" run -c "$C" --once --log-level loud

# 4. report: a window before the first reading is refused; no figure: 1
"$WATTPATH" report -c "$C" --from $((FROM - 7200)) --to $((FROM + 600)) \
	>"$T/b.json" 2>"$T/b.err"
[ $? = 1 ] || fail "a window before the data: not exit 1"
grep -q "before the first reading" "$T/b.err" || fail "before: $(cat "$T/b.err")"
[ -s "$T/b.json" ] && fail "a refused window printed a document"
"$WATTPATH" report -c "$C" --from $((TO + 3600)) --to $((TO + 7200)) \
	>"$T/n.json" 2>"$T/n.err"
[ $? = 1 ] || fail "a report with no figure: not exit 1"
grep -q "no energy figure" "$T/n.err" || fail "no figure: $(cat "$T/n.err")"
# a report that could not be written (a full disk) is not exit 0
if [ -w /dev/full ]; then
	"$WATTPATH" report -c "$C" --from $((FROM + 600)) --to $((TO - 600)) \
		>/dev/full 2>"$T/full.err"
	[ $? = 1 ] || fail "a report written to a full disk: not exit 1"
	grep -q "cannot write the output" "$T/full.err" ||
		fail "full disk: $(cat "$T/full.err")"
	"$WATTPATH" check-config -c "$C" >/dev/full 2>"$T/full.err" &&
		fail "check-config written to a full disk: exit 0"
	grep -q "cannot write the output" "$T/full.err" ||
		fail "check-config, full disk: $(cat "$T/full.err")"
fi

# 5. run --once: every target failed -> 1
P=$(free_port)
cat >"$T/dead.yaml" <<YAML
collector: {interval: 2s, timeout: 1s, data_dir: $T/dead}
nodes:
  - name: n1
    bmc: {url: http://127.0.0.1:$P, auth: none}
YAML
timeout 30 "$WATTPATH" run -c "$T/dead.yaml" --once >"$T/dead.log" 2>&1
rc=$?
[ $rc = 1 ] || fail "run --once, every target down: exit $rc, want 1 ($(tail -3 "$T/dead.log"))"
grep -q "every target failed" "$T/dead.log" || fail "run --once: $(tail -3 "$T/dead.log")"
echo "cli: help for $(echo $cmds | wc -w) commands, time forms, bad values, --once, refusals ok"
