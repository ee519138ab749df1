#!/bin/sh
# Redfish bad input: each fault mode of the test server gives a clear error,
# exit non-zero, no bogus source, within the timeout; sessions are logged
# out even then.  A slow BMC (hang) does not stall a probe beyond its timeout.
. "$(dirname "$0")/lib.sh"

PEER=$ROOT/tests/peers/redfish_server.py
secret_file "$T/pw" secret
PORT=$(free_port)
bg rf $PY "$PEER" --root "$FIX/redfish/dmtf-rackmount1" --port "$PORT" --trace 300
wait_tcp 127.0.0.1 "$PORT"
URL=http://127.0.0.1:$PORT

setfault() {
	$PY -c "import urllib.request as u; u.urlopen(u.Request('$URL/_test/fault?mode=$1&path=${2:-/redfish/v1/Chassis}', method='POST'))"
}
stats() {
	$PY -c "import json,urllib.request as u; print(json.load(u.urlopen('$URL/_test/stats'))['$1'])"
}

for mode in malformed truncated html redirect oversized 5xx trickle hang; do
	note "fault $mode"
	setfault $mode
	start=$(date +%s)
	rc=0
	timeout 60 "$WATTPATH" probe "$URL" --json --user monitor \
		--password-file "$T/pw" >"$T/$mode.json" 2>"$T/$mode.err" || rc=$?
	[ $rc -ne 0 ] || fail "$mode: probe succeeded on a broken BMC"
	[ $rc -ne 124 ] || fail "$mode: probe hung"
	[ $rc -lt 128 ] || fail "$mode: probe crashed (rc $rc)"
	el=$(( $(date +%s) - start ))
	[ $el -le 30 ] || fail "$mode: took ${el}s"
	[ -s "$T/$mode.err" ] || fail "$mode: no message"
	grep -q "no power or energy source" "$T/$mode.err" || \
		fail "$mode: unclear error: $(cat "$T/$mode.err")"
	case $mode in
	malformed) grep -qi "malformed JSON" "$T/$mode.err" || fail "no 'malformed'" ;;
	truncated) grep -qi "truncated" "$T/$mode.err" || fail "no 'truncated'" ;;
	html) grep -qi "HTML" "$T/$mode.err" || fail "no 'HTML'" ;;
	oversized) grep -qi "over" "$T/$mode.err" || fail "no size message" ;;
	5xx) grep -q "503" "$T/$mode.err" || fail "no 503" ;;
	esac
	[ "$(stats open)" = 0 ] || fail "$mode: session left open"
done

note "service root broken: one clear line"
setfault malformed /redfish
if "$WATTPATH" probe "$URL" --user monitor --password-file "$T/pw" \
	>/dev/null 2>"$T/root.err"; then fail "root malformed accepted"; fi
grep -q "service root" "$T/root.err" || fail "root: $(cat "$T/root.err")"

note "wrong password: auth error, nothing created"
setfault none
secret_file "$T/bad" wrong
if "$WATTPATH" probe "$URL" --user monitor --password-file "$T/bad" \
	>/dev/null 2>"$T/auth.err"; then fail "bad password accepted"; fi
grep -qi "refused\|401" "$T/auth.err" || fail "auth: $(cat "$T/auth.err")"
[ "$(stats open)" = 0 ] || fail "session open after refused login"
exit 0
