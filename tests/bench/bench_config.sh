#!/bin/sh
# bench_config.sh - check-config on 10,000, 50,000 and 100,000 nodes (a
# nodes CSV: a BMC, a dcgm-exporter and a PDU outlet each; 24 nodes per
# PDU, one named profile), run by tests/bench/run.sh.  Prints the time of
# each and the ratio to the 10,000-node time: linear means 5 and 10.
set -u
WATTPATH=${WATTPATH:-build/wattpath}
D=$(mktemp -d "${TMPDIR:-/tmp}/wp-bench-config.XXXXXX")
trap 'rm -rf "$D"' EXIT
gen() {	# N
	/usr/bin/python3 - "$1" "$D/c$1" <<'PYEOF'
import sys
n, base = int(sys.argv[1]), sys.argv[2]
with open(base + ".csv", "w") as f:
    f.write("name,class,rack,bmc_url,bmc_credentials,bmc_auth,outlets,"
            "dcgm_exporter,engine_url,engine_kind\n")
    for i in range(n):
        a = "10.%d.%d.%d" % ((i >> 16) & 255, (i >> 8) & 255, i & 255)
        f.write("gpu-%06d,hgx,r%d,https://%s,bmc,session,pdu-%d:%d,"
                "http://%s:9400/metrics,,\n" % (i, i // 240, a, i // 24,
                                               i % 24 + 1, a))
with open(base + ".yaml", "w") as f:
    f.write("credentials:\n  - {name: bmc, username: u, password_env: B}\n"
            "  - {name: com, community_env: C}\npdus:\n")
    for p in range(n // 24 + 1):
        f.write('  - {name: pdu-%d, address: "10.200.%d.%d", profile: '
                'raritan-pdu2, snmp: {version: 2c, credentials: com}}\n'
                % (p, p // 256, p % 256))
    f.write("nodes_csv: %s.csv\n" % base.rsplit("/", 1)[1])
PYEOF
}
t10=0
for n in 10000 50000 100000; do
	gen $n
	t0=$(date +%s.%N)
	B=x C=y "$WATTPATH" check-config -c "$D/c$n.yaml" >/dev/null ||
		{ echo "check-config failed at $n nodes"; exit 1; }
	t=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
	[ $n = 10000 ] && t10=$t
	printf "check-config %6d nodes (%6d targets): %6.2f s, x%.1f the 10,000-node time\n" \
		$n $((2 * n + n / 24 + 1)) "$t" "$(awk "BEGIN { print $t / $t10 }")"
done
