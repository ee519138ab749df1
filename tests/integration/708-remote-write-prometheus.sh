#!/bin/sh
# Remote write to a real Prometheus with --web.enable-remote-write-receiver
# through a receiver outage of a few seconds: every sample arrives exactly
# once, in order (Prometheus refuses a sample older than its series' last
# one, so a batch sent out of order would be lost), and the figures queried
# there equal /metrics (tests/integration/remote_write.sh, rw_check.py);
# and a reload that changes the receiver's settings in between (RELOAD):
# Prometheus takes a batch sent again as the same samples, so the count
# stays exact even if the old sender's last request had got through.
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "prometheus missing"
RECV_KIND=prom
RELOAD=1
RECV_WRITE=/api/v1/write
printf 'global: {scrape_interval: 1m}\n' >"$T/prom.yml"
recv_start() {
	bg recv prometheus --config.file="$T/prom.yml" \
		--storage.tsdb.path="$T/recv" --web.enable-remote-write-receiver \
		--web.listen-address="127.0.0.1:$RECV_PORT" --log.level=warn
}
. "$(dirname "$0")/remote_write.sh"
exit 0
