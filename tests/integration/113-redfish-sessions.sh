#!/bin/sh
# Redfish session slots are never exhausted: open sessions counted on the
# test BMC (which has only 2 slots) across
#   1. a run and SIGTERM (deleted at exit),
#   2. SIGHUP with the config unchanged (the session is kept, none created),
#   3. SIGHUP with the BMC block changed: a poll setting (timeout) keeps
#      the BMC's session; other credentials delete it and make one new,
#   4. session expiry on the BMC (401 -> one new login, polls go on),
#   5. SIGKILL then restart (the stale session is deleted before the new
#      login: the DELETE reaches the BMC before the POST),
#   6. a login slower than the poll timeout (left to finish: one session,
#      used by the next polls, none leaked),
#   7. reload/kill loops: the BMC never refuses a login for want of a slot
#      and never holds more than one of ours,
#   8. a BMC that answers 401 to every request with a session it holds (the
#      old session is deleted before each re-login: one open at a time,
#      none after SIGTERM; issue 26.5),
#   9. SIGKILL, then a restart with the node renamed: the session is kept
#      per BMC and user, so the one the crash left is still deleted.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
L=$(free_port)
P=$(free_port 127.0.0.21)
bg rf $PY "$PEER" --root "$FIX/redfish/dmtf-rackmount1" --bind 127.0.0.21 \
	--port "$P" --trace 500 --max-sessions 2
wait_tcp 127.0.0.21 "$P"
URL=http://127.0.0.21:$P

st() {	# KEY: a figure of the BMC's /_test/stats
	$PY -c "import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['$1'])"
}
post() {	# PATH
	$PY -c "import urllib.request as u; u.urlopen(u.Request('$URL$1', method='POST'))"
}
secret_file "$T/pw2" secret
# backoff_max 2s: after step 8's seconds of failures the next poll is at most
# 2 s away, so "polls go on" is judged on recovery, not on how far the
# doubling backoff had grown on a loaded machine.
conf() {	# EXTRA [CREDENTIAL]: BMC block extras, credential name
	cat >"$T/c.yaml" <<YAML
collector: {interval: 1s, backoff_max: 2s, data_dir: $T/data, log_level: debug, listen: "127.0.0.1:$L"}
credentials:
  - {name: bmc, username: monitor, password_file: $T/pw}
  - {name: bmc2, username: monitor, password_file: $T/pw2}
nodes:
  - {name: n1, bmc: {url: "$URL", credentials: ${2:-bmc}$1}}
YAML
}
start() {
	bg "wp$1" "$WATTPATH" run -c "$T/c.yaml"
	eval "WP=\$PID_wp$1"
}
stop() {	# SIGNAL
	kill "-$1" "$WP"
	wait_for 10 sh -c "! kill -0 $WP" || fail "run did not stop on SIG$1"
	_rc=0; wait "$WP" || _rc=$?
	[ "$1" = KILL ] || [ $_rc -eq 0 ] || fail "run exited $_rc after SIG$1"
}
gets_grow() {	# polls are going on: GETs served keep growing
	_g=$(st gets)
	wait_for 5 sh -c "[ \$($PY -c \"import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['gets'])\") -gt $((_g + 2)) ]" ||
		fail "$1: polls stopped (gets stay at $_g)"
}
expect() {	# WHAT OPEN CREATED
	[ "$(st open)" = "$2" ] || fail "$1: $(st open) sessions open, want $2"
	[ "$(st created)" = "$3" ] || fail "$1: $(st created) created, want $3"
}

note "1. run, then SIGTERM"
conf ""
start 1
wait_for 10 sh -c "[ \$($PY -c \"import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['open'])\") = 1 ]" ||
	fail "no session after 10 s: $(tail -5 "$T/wp1.log")"
gets_grow "run"
expect "running" 1 1
ls "$T/data/state/"redfish-session-* >/dev/null 2>&1 || fail "no session state file"
stop TERM
expect "after SIGTERM" 0 1
ls "$T/data/state/"redfish-session-* >/dev/null 2>&1 && fail "state file left after logout"

note "2. SIGHUP, config unchanged: same session"
start 2
wait_for 10 sh -c "grep -q 'logged in' '$T/wp2.log'" || fail "no login"
gets_grow "before reload"
kill -HUP "$WP"
wait_for 5 grep -q "reloaded" "$T/wp2.log" || fail "no reload: $(tail -3 "$T/wp2.log")"
gets_grow "after reload"
expect "unchanged reload" 1 2

note "3a. SIGHUP, timeout changed: the BMC's session is kept"
conf ", timeout: 700ms"
kill -HUP "$WP"
wait_for 5 sh -c "[ \$(grep -c reloaded '$T/wp2.log') = 2 ]" || fail "no second reload"
gets_grow "after a changed timeout"
[ "$(st deleted)" = 1 ] || fail "session deleted for a changed timeout ($(st deleted) deleted)"
expect "timeout changed" 1 2

note "3b. SIGHUP, credentials changed: old deleted, one new"
conf ", timeout: 700ms" bmc2
kill -HUP "$WP"
wait_for 5 sh -c "[ \$(grep -c reloaded '$T/wp2.log') = 3 ]" || fail "no third reload"
gets_grow "after changed credentials"
wait_for 5 sh -c "[ \$($PY -c \"import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['deleted'])\") = 2 ]" ||
	fail "old session not deleted on reload ($(st deleted) deleted)"
expect "credentials changed" 1 3

note "4. the BMC drops the session: 401, one new login"
post /_test/expire
wait_for 5 grep -q "session expired (401)" "$T/wp2.log" || fail "no re-login message"
gets_grow "after expiry"
expect "after expiry" 1 4
[ "$(st refused)" = 0 ] || fail "a login was refused"

note "5. SIGKILL, restart: stale session deleted first"
old=$(ls "$T/data/state/"redfish-session-*) || fail "no state file"
sid=$(sed -n 2p "$old")
stop KILL
expect "after SIGKILL" 1 4
start 5
wait_for 10 sh -c "grep -q 'logged in' '$T/wp5.log'" || fail "no login after restart"
gets_grow "after restart"
expect "after restart" 1 5
grep -q "deleted the session a previous run left" "$T/wp5.log" || fail "no stale delete logged"
$PY - "$URL" "$sid" <<'PYEOF' || fail "stale session not deleted before the new login"
import json, sys, urllib.request as u
log = json.load(u.urlopen(sys.argv[1] + "/_test/log"))
d = [i for i, x in enumerate(log) if x[1] == "DELETE" and x[2].endswith(sys.argv[2])]
p = [i for i, x in enumerate(log) if x[1] == "POST"]
assert d and d[0] < p[-1], (d, p[-3:])
PYEOF
stop TERM
expect "after restart and SIGTERM" 0 5

note "6. login slower than the poll timeout (0.8 s): left to finish"
post "/_test/fault?mode=slowlogin"
start 6
sleep 5
post "/_test/fault?mode=none"
gets_grow "after a slow login"
expect "slow login" 1 6
grep -q "logged in" "$T/wp6.log" || fail "slow login not completed"
stop TERM
expect "slow login, SIGTERM" 0 6

note "7. reload/kill loops: never more than one session, never refused"
c0=$(st created)
start 7
for i in 1 2 3; do
	wait_for 10 sh -c "grep -q 'logged in' '$T/wp$((6 + i)).log'" || fail "loop $i: no login"
	conf ", timeout: ${i}00ms"
	kill -HUP "$WP"
	sleep 1.5
	stop KILL
	start $((7 + i))
done
gets_grow "after loops"
stop TERM
[ "$(st open)" = 0 ] || fail "loops: $(st open) left open"
[ "$(st refused)" = 0 ] || fail "loops: $(st refused) logins refused (slots exhausted)"
[ "$(st peak_open)" -le 1 ] || fail "loops: $(st peak_open) sessions open at once"
note "created $(( $(st created) - c0 )) sessions in the loops, peak $(st peak_open) open"

note "8. a BMC that answers 401 to a session it still holds: one open at a time"
start 11
wait_for 10 sh -c "grep -q 'logged in' '$T/wp11.log'" || fail "8: no login"
c0=$(st created)
post "/_test/fault?mode=401"
i=0
while [ $i -lt 8 ]; do
	sleep 1
	i=$((i + 1))
	[ "$(st open)" -le 1 ] || fail "8: $(st open) sessions open after $i s of 401s"
done
[ $(( $(st created) - c0 )) -ge 2 ] || fail "8: no re-login tried ($(( $(st created) - c0 )) created)"
post "/_test/fault?mode=none"
gets_grow "after the 401s"
stop TERM
[ "$(st open)" = 0 ] || fail "8: $(st open) left open after SIGTERM"
note "8: $(( $(st created) - c0 )) logins during the 401s, never more than one open"

note "9. SIGKILL, the node renamed, restart: the session it left is deleted"
start 12
wait_for 10 sh -c "grep -q 'logged in' '$T/wp12.log'" || fail "9: no login"
stop KILL
[ "$(st open)" = 1 ] || fail "9: $(st open) open after SIGKILL, want 1"
sed 's/name: n1,/name: renamed-n1,/' "$T/c.yaml" >"$T/c2.yaml" && mv "$T/c2.yaml" "$T/c.yaml"
start 13
wait_for 10 grep -q "deleted the session a previous run left" "$T/wp13.log" ||
	fail "9: the renamed node did not delete the old session: $(tail -3 "$T/wp13.log")"
gets_grow "after the rename"
[ "$(st open)" = 1 ] || fail "9: $(st open) open after the rename, want 1"
stop TERM
[ "$(st open)" = 0 ] || fail "9: $(st open) left open"
exit 0
