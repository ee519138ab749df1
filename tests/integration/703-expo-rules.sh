#!/bin/sh
# The shipped alert rules pass `promtool check rules` and their unit tests
# (`promtool test rules`); the Grafana dashboard
# is valid JSON whose every expression parses as PromQL (checked as
# recording rules by promtool) and names only metrics /metrics exposes
# (the families in docs/exposition.md, cross-checked against the source).
# fast
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || skip "promtool (Debian prometheus) missing"
promtool check rules "$ROOT/etc/prometheus/wattpath-alerts.yml" >"$T/r.log" 2>&1 ||
	{ cat "$T/r.log"; fail "promtool check rules"; }
grep -q "SUCCESS: 6 rules" "$T/r.log" || { cat "$T/r.log"; fail "expected 6 rules"; }
# Each rule's logic over long windows, grouped by (instance, site): the
# BMC-vs-PDU rule on energy over 15 min fires on a BMC that over-reads by
# 20 %, not on instantaneous readings that disagree while the energy agrees.
promtool test rules "$ROOT/tests/rules/wattpath-alerts.test.yml" >"$T/t.log" 2>&1 ||
	{ cat "$T/t.log"; fail "promtool test rules"; }
# every rule groups by (instance, site)
$PY - "$ROOT/etc/prometheus/wattpath-alerts.yml" <<'PYEOF' || fail "a rule not grouped by (instance, site)"
import re, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
bad = [r["alert"] for g in d["groups"] for r in g["rules"]
       if not re.search(r"\bby \(instance, site\b", r["expr"])]
print("\n".join(bad)); sys.exit(1 if bad else 0)
PYEOF
# the drift alert (issue 23) fires on an active pair only, with its deviation
cat >"$T/drift-test.yml" <<EOF2
rule_files: ["$ROOT/etc/prometheus/wattpath-alerts.yml"]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'wattpath_drift_active{pair="wall_outlet",name="gpu-002",a="wall",b="outlets"}'
        values: '0 0 1 1 1'
      - series: 'wattpath_drift_deviation{pair="wall_outlet",name="gpu-002",a="wall",b="outlets"}'
        values: '-0.01 -0.01 -0.48 -0.48 -0.48'
      - series: 'wattpath_drift_active{pair="pdu_inlet",name="pdu-1",a="outlets",b="inlet"}'
        values: '0 0 0 0 0'
      - series: 'wattpath_drift_deviation{pair="pdu_inlet",name="pdu-1",a="outlets",b="inlet"}'
        values: '0.001 0.001 0.001 0.001 0.001'
    alert_rule_test:
      - eval_time: 1m
        alertname: WattpathInstrumentDrift
        exp_alerts: []
      - eval_time: 3m
        alertname: WattpathInstrumentDrift
        exp_alerts:
          - exp_labels: {severity: warning, pair: wall_outlet, name: gpu-002, a: wall, b: outlets}
            exp_annotations:
              summary: "gpu-002: outlets/wall off its usual ratio by -48%"
              description: "The wall_outlet pair of gpu-002 measured energy ratios beyond the tolerance its instruments' accuracy allows for drift.persist windows in a row (wattpath_drift_ratio against wattpath_drift_usual_ratio): a drifting sensor, a dead outlet meter or a changed wiring.  \`wattpath calibrate\` lists the pairs."
EOF2
promtool test rules "$T/drift-test.yml" >"$T/dt.log" 2>&1 || { cat "$T/dt.log"; fail "promtool test rules: drift alert"; }
cat >"$T/g.py" <<'PYEOF'
import json, re, sys
root = sys.argv[1]
src = open(root + "/collector/expo/expo_metrics.c").read()
known = set(re.findall(r'"(wattpath_[a-z_]+)"', src))
d = json.load(open(root + "/etc/grafana/wattpath.json"))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
exprs += [v["query"]["query"] for v in d["templating"]["list"]]
err = []
if len(exprs) < 10: err.append("only %d expressions" % len(exprs))
rules = ["groups:", "  - name: grafana", "    rules:"]
for i, e in enumerate(exprs):
    names = set(re.findall(r'\bwattpath_[a-z_]+', e))
    if not names: err.append("no wattpath metric in %r" % e)
    for n in names - known: err.append("unknown metric %s in %r" % (n, e))
    if e.startswith("label_values"): continue
    rules.append("      - record: grafana:expr_%d" % i)
    rules.append("        expr: %s" % json.dumps(e.replace("$node", ".*").replace("$site", ".*")))
open(sys.argv[2], "w").write("\n".join(rules) + "\n")
for m in ("wattpath_node_energy_joules_total", "wattpath_node_power_watts", "wattpath_target_up",
          "wattpath_facility_pue", "wattpath_poll_duration_seconds"):
    if m not in known: err.append("metric %s not in expo_metrics.c" % m)
print("\n".join(err))
sys.exit(1 if err else 0)
PYEOF
$PY "$T/g.py" "$ROOT" "$T/grafana-rules.yml" || fail "grafana dashboard"
promtool check rules "$T/grafana-rules.yml" >"$T/g.log" 2>&1 || { cat "$T/g.log"; fail "grafana PromQL does not parse"; }
exit 0
