#!/bin/sh
# deps.sh - install the Debian packages wattpath needs to build, test and
# demo, if any is missing.  As root it runs apt-get (after apt-get update
# when a package is not found); otherwise it prints the exact command.
# Usage: scripts/deps.sh [build|check|demo|bench|deb]
# deb: what `make deb` and `make deb-test` need (debhelper, lintian); not in
# the check set.
# check: python3-websocket drives headless Chromium over the DevTools
# protocol (712-dash-pages). clang with libclang-rt-dev, whose libclang-rt-14-dev (Debian 12)
# carries libFuzzer and the sanitizer runtimes: without it 490-fuzz-short
# skips, which fails make check.
set -u
build="gcc make pkg-config libcurl4-openssl-dev libjson-c-dev libsnmp-dev \
libmodbus-dev librrd-dev libssl-dev libyaml-dev libmicrohttpd-dev libgnutls28-dev \
libzstd-dev libprotobuf-c-dev protobuf-c-compiler libsnappy-dev zlib1g-dev"
check="$build python3 libcmocka-dev rrdtool rrdcached snmpsim snmp python3-pymodbus \
socat python3-yaml python3-serial-asyncio openssl curl clang libclang-rt-dev prometheus \
chromium python3-websocket procps psmisc victoria-metrics protobuf-compiler"
demo="$build rrdtool openssl curl python3"
bench="$check collectd-core libyajl2 prometheus-snmp-exporter"
deb="$build debhelper dpkg-dev fakeroot lintian libcmocka-dev"
case "${1:-check}" in
build) want=$build ;;
demo) want=$demo ;;
bench) want=$bench ;;
deb) want=$deb ;;
*) want=$check ;;
esac
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "wattpath: missing packages; run as root:" >&2
	echo "$cmd"
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $cmd >/dev/null 2>&1; then
	apt-get update -q >/dev/null 2>&1
	$cmd >/dev/null || { echo "deps: apt-get failed" >&2; exit 1; }
fi
