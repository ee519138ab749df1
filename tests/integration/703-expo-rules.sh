#!/bin/sh
# The shipped alert rules pass `promtool check rules` and their unit tests
# (`promtool test rules`); the Grafana dashboard
# is valid JSON whose every expression parses as PromQL (checked as
# recording rules by promtool, every variable substituted) and names only
# metrics /metrics exposes (the families in docs/exposition.md, cross-checked
# against the source); its variables (datasource, site, instance, class,
# node) are chained, every panel reads ${datasource} and filters by them,
# and its J/token and tokens/J panels are the PromQL docs/exposition.md
# documents, with the variables' matchers added.
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
err = []
DS = {"type": "prometheus", "uid": "${datasource}"}
# variables: a datasource one, then site, instance, class, node, chained
vs = d["templating"]["list"]
names = [v["name"] for v in vs]
if names != ["datasource", "site", "instance", "class", "node"]:
    err.append("variables %r, not datasource, site, instance, class, node" % names)
byname = {v["name"]: v for v in vs}
ds = byname.get("datasource", {})
if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
    err.append("no datasource variable of prometheus")
chain = {"site": [], "instance": ["site"], "class": ["site", "instance"],
         "node": ["site", "instance", "class"]}
qvars = [v for v in vs if v["type"] == "query"]
for v in qvars:
    q = v["query"]["query"]
    if not q.startswith("label_values(") or not q.endswith(", %s)" % v["name"]):
        err.append("variable %s: %r is not label_values(..., %s)" % (v["name"], q, v["name"]))
    for up in chain.get(v["name"], []):
        if '%s=~"$%s"' % (up, up) not in q:
            err.append("variable %s does not filter by $%s" % (v["name"], up))
    if v.get("datasource") != DS:
        err.append("variable %s datasource %r" % (v["name"], v.get("datasource")))
if "__inputs" in d or "DS_PROMETHEUS" in json.dumps(d):
    err.append("a fixed data source (__inputs, DS_PROMETHEUS) left")
# every panel and target on ${datasource}
for p in d["panels"]:
    if p.get("datasource") != DS:
        err.append("panel %r datasource %r" % (p["title"], p.get("datasource")))
    for t in p.get("targets", []):
        if t.get("datasource") != DS:
            err.append("panel %r target %s datasource %r" % (p["title"], t["refId"], t.get("datasource")))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
exprs += [v["query"]["query"] for v in qvars]
if len(exprs) < 10: err.append("only %d expressions" % len(exprs))
# each panel selector filters by $site and $instance; on node series by
# $class too (not the rack panel: a rack's power is all its classes')
for p in d["panels"]:
    for t in p.get("targets", []):
        for m, sel in re.findall(r'\b(wattpath_[a-z_]+)\{([^{}]*)\}', t["expr"]):
            want = ["site", "instance"]
            if m.startswith("wattpath_node_") and not p["title"].startswith("Rack power"):
                want.append("class")
            for w in want:
                if '%s=~"$%s"' % (w, w) not in sel:
                    err.append("panel %r: %s{%s} not filtered by $%s" % (p["title"], m, sel, w))
        if re.search(r'\bwattpath_[a-z_]+(\[|\)|\s)', t["expr"]):
            err.append("panel %r: a selector without the variables in %r" % (p["title"], t["expr"]))
# J/token and tokens/J, and the coverage beside them: exactly the PromQL
# of docs/exposition.md with the variables' matchers added
doc = open(root + "/docs/exposition.md").read()
sec = doc[doc.index("### PromQL"):]
sec = sec[:sec.index("\n#")] if "\n#" in sec else sec
rows = dict(re.findall(r"^\| ([a-zA-Z][^|]*?) \| `([^`]*)` \|$", sec, re.M))
def strip(e):
    def sel(mo):
        ms = [m.strip() for m in mo.group(1).split(",") if not re.match(r'\s*\w+=~"\$\w+"\s*$', m)]
        return "{%s}" % ", ".join(ms) if ms else ""
    return re.sub(r"\{([^{}]*)\}", sel, e)
panel = {p["title"]: p for p in d["panels"]}
for title, row in (("Output tokens per joule by boundary (covered nodes), with coverage",
                    "output tokens per joule by boundary"),
                   ("Joules per output token by boundary (covered nodes), with coverage",
                    "joules per output token by boundary")):
    if title not in panel: err.append("no panel %r" % title); continue
    t = panel[title]["targets"]
    if row not in rows: err.append("docs/exposition.md has no PromQL row %r" % row); continue
    if strip(t[0]["expr"]) != rows[row]:
        err.append("panel %r is not the documented %r:\n  %s\n  %s" % (title, row, strip(t[0]["expr"]), rows[row]))
    if len(t) < 2 or strip(t[1]["expr"]) != rows["coverage by boundary"]:
        err.append("panel %r: no fleet coverage beside it" % title)
for title in ("Fleet power by boundary (from energy, each node once)", "PUE (15 min)",
              "Wall-to-GPU ratio by class (nodes with both)",
              "Rack power (wall, each node once) against capacity", "Targets up", "Targets down"):
    if title not in panel: err.append("no panel %r" % title)
if "wattpath_rack_capacity_watts" not in json.dumps(panel.get(
        "Rack power (wall, each node once) against capacity", {})):
    err.append("the rack panel has no capacity")
ids = [p["id"] for p in d["panels"]]
if len(set(ids)) != len(ids): err.append("panel ids repeat")
rules = ["groups:", "  - name: grafana", "    rules:"]
var_re = re.compile(r"\$\{?(%s)\}?" % "|".join(names))
for i, e in enumerate(exprs):
    names_e = set(re.findall(r'\bwattpath_[a-z_]+', e))
    if not names_e: err.append("no wattpath metric in %r" % e)
    for n in names_e - known: err.append("unknown metric %s in %r" % (n, e))
    if e.startswith("label_values"): continue
    sub = var_re.sub(".*", e)
    if "$" in sub: err.append("an undeclared variable in %r" % e)
    rules.append("      - record: grafana:expr_%d" % i)
    rules.append("        expr: %s" % json.dumps(sub))
open(sys.argv[2], "w").write("\n".join(rules) + "\n")
for m in ("wattpath_node_energy_joules_total", "wattpath_node_power_watts", "wattpath_target_up",
          "wattpath_facility_pue", "wattpath_poll_duration_seconds", "wattpath_rack_capacity_watts"):
    if m not in known: err.append("metric %s not in expo_metrics.c" % m)
print("\n".join(err))
sys.exit(1 if err else 0)
PYEOF
$PY "$T/g.py" "$ROOT" "$T/grafana-rules.yml" || fail "grafana dashboard"
promtool check rules "$T/grafana-rules.yml" >"$T/g.log" 2>&1 || { cat "$T/g.log"; fail "grafana PromQL does not parse"; }
exit 0
