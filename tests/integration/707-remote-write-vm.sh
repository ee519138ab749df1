#!/bin/sh
# Remote write to a real VictoriaMetrics (Debian victoria-metrics) through a
# receiver outage of a few seconds: every sample of every interval arrives
# exactly once, in order, and the figures queried there equal /metrics
# (tests/integration/remote_write.sh, rw_check.py).  VictoriaMetrics keeps
# a sample sent twice as two, so a batch resent after a 2xx shows here.
. "$(dirname "$0")/lib.sh"
command -v victoria-metrics >/dev/null || skip "victoria-metrics missing"
RECV_KIND=vm
RECV_WRITE=/api/v1/write
recv_start() {
	bg recv victoria-metrics -storageDataPath="$T/recv" \
		-httpListenAddr="127.0.0.1:$RECV_PORT" -loggerLevel=ERROR \
		-retentionPeriod=100y
}
. "$(dirname "$0")/remote_write.sh"
exit 0
