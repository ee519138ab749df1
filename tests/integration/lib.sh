# lib.sh - sourced by tests/integration/NNN-topic.sh.
#
# Gives each test a private directory ($T), free ports on 127.0.0.x,
# peers started in the background with pidfiles and readiness waits, and
# cleanup on exit.  Only 127.0.0.0/8 is ever used.
#   WATTPATH      the binary under test (set by tests/run.sh)
#   ROOT          the repository root
#   PY            /usr/bin/python3 (Debian's modules: pymodbus, snmpsim)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WATTPATH=${WATTPATH:-$ROOT/build/wattpath}
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/wp-it.XXXXXX")
FIX=$ROOT/tests/fixtures
_pids=""

cleanup() {
	for p in $_pids; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for p in $_pids; do kill -9 "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
note() { echo "--- $*" >&2; }

# free_port [ADDR]: a TCP port nobody listens on now (ask the kernel).
free_port() {
	$PY - "${1:-127.0.0.1}" <<'PYEOF'
import socket, sys
s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1]); s.close()
PYEOF
}

# free_udp_port [ADDR]
free_udp_port() {
	$PY - "${1:-127.0.0.1}" <<'PYEOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((sys.argv[1], 0))
print(s.getsockname()[1]); s.close()
PYEOF
}

# free_port_base [N]: a port P with P..P+N-1 (default 6) free for TCP and UDP
# on 127.0.0.1, as wattpath-sim serve --port-base takes it.  Below the
# kernel's ephemeral range: a port free now but in that range can be taken
# by any outgoing connection before the simulator binds it.
free_port_base() {
	$PY - "${1:-6}" <<'PYEOF'
import random, socket, sys
n = int(sys.argv[1])
try:
    eph = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    eph = 32768
hi = max(eph - 16, 12000)
for _ in range(200):
    base = random.randrange(10000, hi, 8); socks = []
    try:
        for p in range(base, base + n):
            for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                s = socket.socket(socket.AF_INET, typ); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); break
    except OSError: pass
    finally:
        for s in socks: s.close()
PYEOF
}

# bg NAME CMD...: start CMD in the background, log to $T/NAME.log.
bg() {
	_name=$1; shift
	"$@" >"$T/$_name.log" 2>&1 &
	_pid=$!
	_pids="$_pids $_pid"
	echo "$_pid" >"$T/$_name.pid"
	eval "PID_$(echo "$_name" | tr -c 'A-Za-z0-9\n' _)=$_pid"
}

# wait_tcp HOST PORT [SECONDS]: until something accepts connections.
wait_tcp() {
	_n=$(( ${3:-20} * 10 ))
	while [ $_n -gt 0 ]; do
		$PY -c "import socket,sys; socket.create_connection(('$1',$2),0.5).close()" \
			2>/dev/null && return 0
		sleep 0.1; _n=$((_n - 1))
	done
	fail "nothing listening on $1:$2"
}

# wait_file PATH [SECONDS]
wait_file() {
	_n=$(( ${2:-20} * 10 ))
	while [ $_n -gt 0 ]; do
		[ -e "$1" ] && return 0
		sleep 0.1; _n=$((_n - 1))
	done
	fail "no $1 after ${2:-20}s"
}

# wait_for SECONDS CMD...: until CMD succeeds.
wait_for() {
	_n=$(( $1 * 10 )); shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1; _n=$((_n - 1))
	done
	return 1
}

# stop_bg NAME [SECONDS]: SIGTERM to what `bg NAME` started; fails unless
# it has exited within SECONDS (10), with status 0.
stop_bg() {
	[ -s "$T/$1.pid" ] || fail "stop_bg: nothing started as $1"
	_pid=$(cat "$T/$1.pid")
	kill -TERM "$_pid" 2>/dev/null
	wait_for "${2:-10}" sh -c "! kill -0 $_pid" ||
		fail "$1 did not stop within ${2:-10} s of SIGTERM"
	_rc=0; wait "$_pid" || _rc=$?
	_pids=$(echo " $_pids " | sed "s/ $_pid / /")	# not cleanup's
	[ $_rc -eq 0 ] || fail "$1 exited $_rc after SIGTERM: $(tail -5 "$T/$1.log")"
}

# alive PID: the daemon is still running.
alive() { kill -0 "$1" 2>/dev/null || fail "process $1 died"; }

# json_get FILE EXPR: evaluate a Python expression on the JSON in FILE
# (bound to d); prints the result.
json_get() {
	$PY -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# approx A B REL: |A-B| <= REL*|B|
approx() {
	$PY -c "import sys; a,b,r=map(float,sys.argv[1:4]); sys.exit(0 if abs(a-b)<=r*abs(b)+1e-12 else 1)" "$1" "$2" "$3"
}

# sim_serve NAME CONFIG ARGS...: the simulator ($SIM) serving the fleet of
# ARGS (serve's flags) on a fresh port base, logging to $T/NAME.log, its
# config for wattpath written to CONFIG; returns once that config is there.
sim_serve() {
	_sn=$1 _sc=$2; shift 2
	bg "$_sn" "$SIM" serve "$@" --port-base "$(free_port_base 6)" \
		--config-out "$_sc" --maps-dir "$ROOT/etc"
	wait_for 20 grep -q "^wattpath-sim: config" "$T/$_sn.log" ||
		{ cat "$T/$_sn.log"; fail "simulator $_sn not ready"; }
}

# metric_at URL SERIES: the value of SERIES (name with its labels, exactly as
# exposed) in the text exposition at URL, or "none".
metric_at() {
	$PY - "$1" "$2" <<'PYEOF'
import sys, urllib.request
body = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
v = [l.rsplit(" ", 1)[1] for l in body.splitlines() if l.startswith(sys.argv[2] + " ")]
print(v[0] if v else "none")
PYEOF
}

# test_ca [N]: a test CA ($T/caN.pem, its key $T/caN.key, named
# wp-test-caN) and a server certificate for 127.0.0.1 signed by it
# ($T/srvN.pem, its key $T/srvN.key, 0600).
test_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		-subj "/CN=wp-test-ca${1:-}" -keyout "$T/ca${1:-}.key" \
		-out "$T/ca${1:-}.pem" >/dev/null 2>&1 || fail "openssl ca ${1:-}"
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
		-keyout "$T/srv${1:-}.key" -out "$T/srv${1:-}.csr" \
		>/dev/null 2>&1 || fail "openssl csr ${1:-}"
	printf 'subjectAltName=IP:127.0.0.1\n' >"$T/ext"
	openssl x509 -req -in "$T/srv${1:-}.csr" -CA "$T/ca${1:-}.pem" \
		-CAkey "$T/ca${1:-}.key" -CAcreateserial -days 2 \
		-extfile "$T/ext" -out "$T/srv${1:-}.pem" >/dev/null 2>&1 ||
		fail "openssl sign ${1:-}"
	chmod 600 "$T/srv${1:-}.key"
}

# secret_file PATH CONTENT: a private (0600) secrets file.
secret_file() {
	( umask 077; printf '%s\n' "$2" >"$1" )
}

# prom_start RULES TARGET...: a real Prometheus (Debian prometheus) scraping
# the targets (host:port) every second, with the rule file RULES ("" none),
# evaluated every second; its port in PP once it listens.
prom_start() {
	_rules=$1; shift
	PP=$(free_port)
	{
		echo "global: {scrape_interval: 1s, evaluation_interval: 1s}"
		[ -z "$_rules" ] || echo "rule_files: [\"$_rules\"]"
		echo "scrape_configs:"
		echo "  - job_name: wattpath"
		printf '    static_configs: [{targets: ['
		_sep=
		for _t in "$@"; do printf '%s"%s"' "$_sep" "$_t"; _sep=", "; done
		echo ']}]'
	} >"$T/prom.yml"
	bg prom prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
		--web.listen-address=127.0.0.1:$PP --log.level=warn
	wait_tcp 127.0.0.1 "$PP" 30
}
