#!/bin/sh
# fast
# systemd credentials as a secrets source: the simulated fleet's config with
# every secret given as *_credential: NAME, read from $CREDENTIALS_DIRECTORY
# as systemd fills it for LoadCredential= (files 0400 or 0440, the directory
# 0500).  check-config refuses it without the variable, with a file open to
# others, or with a directory others may write to; with it, check-config
# passes and `run --once` polls every BMC and PDU with those secrets (the
# journal has ok readings of each), and no log line holds a secret.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FLEET="--nodes 3 --racks 1 --pdus 2 --meters 1 --seed 21 --shape joules"
BASE=$(free_port_base)
bg sim "$SIM" serve $FLEET --port-base "$BASE" --config-out "$T/w.yaml" \
	--maps-dir "$ROOT/etc"
wait_for 20 grep -q "^wattpath-sim: config" "$T/sim.log" ||
	{ cat "$T/sim.log"; fail "simulator not ready"; }

CD=$T/run/credentials/wattpath.service
mkdir -p "$CD"
cp "$T/secrets/bmc" "$CD/bmc"
cp "$T/secrets/community" "$CD/pdu-community"
chmod 0400 "$CD/bmc"
chmod 0440 "$CD/pdu-community"	# systemd's ACL mask shows as group read
chmod 0500 "$CD"
sed -e 's|password_file: "[^"]*"|password_credential: bmc|' \
    -e 's|community_file: "[^"]*"|community_credential: pdu-community|' \
    "$T/w.yaml" >"$T/c.yaml"
grep -q password_file "$T/c.yaml" && fail "a password_file is left"
[ "$(grep -c '_credential:' "$T/c.yaml")" = 2 ] || fail "no credentials in config"

# Without $CREDENTIALS_DIRECTORY: an error at the credential's line.
env -u CREDENTIALS_DIRECTORY "$WATTPATH" check-config -c "$T/c.yaml" \
	>"$T/no.log" 2>&1 && fail "check-config passed without CREDENTIALS_DIRECTORY"
grep -q "c.yaml:[0-9]*: credential bmc: password_credential bmc: .CREDENTIALS_DIRECTORY is not set" \
	"$T/no.log" || { cat "$T/no.log"; fail "no message for the unset variable"; }

# A credential file others may read, a directory others may write to.
chmod 0700 "$CD"; chmod 0404 "$CD/bmc"
CREDENTIALS_DIRECTORY=$CD "$WATTPATH" check-config -c "$T/c.yaml" \
	>"$T/open.log" 2>&1 && fail "a world-readable credential passed"
grep -q "credential file $CD/bmc is open to others" "$T/open.log" ||
	{ cat "$T/open.log"; fail "no message for the open credential"; }
chmod 0400 "$CD/bmc"; chmod 0777 "$CD"
CREDENTIALS_DIRECTORY=$CD "$WATTPATH" check-config -c "$T/c.yaml" \
	>"$T/dir.log" 2>&1 && fail "a world-writable credentials directory passed"
grep -q "writable by group or others" "$T/dir.log" ||
	{ cat "$T/dir.log"; fail "no message for the open directory"; }
chmod 0500 "$CD"

# As systemd starts it: check-config, then one poll of everything.
CREDENTIALS_DIRECTORY=$CD "$WATTPATH" check-config -c "$T/c.yaml" \
	>"$T/check.log" 2>&1 || { cat "$T/check.log"; fail "check-config"; }
CREDENTIALS_DIRECTORY=$CD "$WATTPATH" run --once -c "$T/c.yaml" \
	>"$T/run.log" 2>&1 || { cat "$T/run.log"; fail "run --once"; }
"$WATTPATH" journal export --dir "$T/data/journal" >"$T/j.csv" 2>"$T/j.err" ||
	{ cat "$T/j.err"; fail "journal export"; }
for t in gpu-001/bmc gpu-002/bmc gpu-003/bmc pdu-r1-a pdu-r1-b; do
	grep -q "^[^,]*,[^,]*,$t,ok," "$T/j.csv" ||
		{ cat "$T/run.log"; fail "no ok reading of $t"; }
done
for f in bmc pdu-community; do
	s=$(cat "$CD/$f")
	grep -rqF -- "$s" "$T/run.log" "$T/check.log" "$T/no.log" "$T/open.log" &&
		fail "the secret $f was logged"
done
alive "$PID_sim"
exit 0
