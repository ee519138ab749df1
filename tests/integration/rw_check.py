"""rw_check.py KIND URL FINAL SENT OUTAGE PORT - the samples a remote-write
receiver holds after tests/integration/remote_write.sh's run.

KIND vm (VictoriaMetrics: /api/v1/export, raw) or prom (Prometheus: a
range selector over the run, raw).  Checks: the receiver holds exactly
SENT samples (the collector's count of samples taken with a 2xx); no
series has two samples at one time; the batches (one timestamp each) are
one interval apart across the outage, none missing; every energy and token
series, once there, is in every later batch; wattpath_build_info is in
every batch; every series carries the sender's instance label (this
host:PORT, the collector's listen port); and the last value of every
energy and token series equals the final /metrics (FINAL) to the printed
digits.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

KIND, URL, FINAL, SENT, OUTAGE, LISTEN = sys.argv[1], sys.argv[2], \
    sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
INTERVAL = 1.0
FIGURES = re.compile(r"^wattpath_(node_energy_joules_total|tokens_total|"
                     r"facility_energy_joules_total|pdu_energy_joules_total)$")
err = []


def get(path, **q):
    u = URL + path + ("?" + urllib.parse.urlencode(q) if q else "")
    return urllib.request.urlopen(u, timeout=30).read().decode()


INSTANCES = set()


def key(labels):
    """The series' labels but instance (the sender's, on every series;
    /metrics has none), which is noted."""
    INSTANCES.add(labels.get("instance"))
    return tuple(sorted((k, v) for k, v in labels.items()
                        if v != "" and k != "instance"))


def samples():
    """{series key: [(ms, value)]}, every sample the receiver holds."""
    out = {}
    if KIND == "vm":
        get("/internal/force_flush")
        time.sleep(1)
        for line in get("/api/v1/export",
                        **{"match[]": '{__name__=~"wattpath_.+|process_.+"}'}).splitlines():
            d = json.loads(line)
            out.setdefault(key(d["metric"]), []).extend(
                zip(d["timestamps"], d["values"]))
    else:
        d = json.loads(get("/api/v1/query", query='{__name__=~"wattpath_.+|process_.+"}[1h]',
                           time="%.3f" % time.time()))
        for r in d["data"]["result"]:
            out.setdefault(key(r["metric"]), []).extend(
                (round(float(t) * 1000), float(v)) for t, v in r["values"])
    for k in out:
        out[k].sort()
    return out


def parse_final():
    """{series key: value} of the energy and token series in FINAL."""
    out = {}
    lab = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in open(FINAL):
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$", line.strip())
        if not m or not FIGURES.match(m.group(1)):
            continue
        labels = {k: v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
                  for k, v in lab.findall(m.group(2) or "")}
        labels["__name__"] = m.group(1)
        out[key(labels)] = float(m.group(3))
    return out


s = samples()
inst = INSTANCES
INSTANCES = set()
if len(inst) != 1 or None in inst or "" in inst or not list(inst)[0].endswith(":" + LISTEN):
    err.append("series' instance labels %r, not one host:%s" % (sorted(map(str, inst)), LISTEN))
total = sum(len(v) for v in s.values())
print("--- %d series, %d samples held, %d sent" % (len(s), total, SENT), file=sys.stderr)
if total != SENT:
    err.append("the receiver holds %d samples, the collector sent %d" % (total, SENT))
batches = sorted({t for v in s.values() for t, _ in v})
for k, v in s.items():
    ts = [t for t, _ in v]
    if len(set(ts)) != len(ts):
        err.append("%s: a sample twice at one time" % dict(k))
gaps = [(b - a) / 1000 for a, b in zip(batches, batches[1:])]
span = (batches[-1] - batches[0]) / 1000 if batches else 0
print("--- %d batches over %.1f s, largest gap %.2f s" % (
      len(batches), span, max(gaps or [0])), file=sys.stderr)
if not gaps or max(gaps) > 1.9 * INTERVAL:
    err.append("a batch is missing: gap of %.2f s" % max(gaps or [0]))
if span < OUTAGE + 5:
    err.append("the run is %.1f s, not across the outage" % span)
index = {t: i for i, t in enumerate(batches)}
for k, v in s.items():
    d = dict(k)
    if d["__name__"] == "wattpath_build_info" and len(v) != len(batches):
        err.append("wattpath_build_info in %d of %d batches" % (len(v), len(batches)))
    if FIGURES.match(d["__name__"]):
        i = [index[t] for t, _ in v]
        if i != list(range(i[0], i[0] + len(i))) or i[-1] != len(batches) - 1:
            err.append("%s: missing from a batch after it appeared" % d)
final = parse_final()
if len(final) < 20:
    err.append("only %d energy and token series in /metrics" % len(final))
for k, want in final.items():
    if k not in s:
        err.append("%s: not in the receiver" % dict(k))
        continue
    got = s[k][-1][1]
    if abs(got - want) > 1e-9 * abs(want) + 1e-6:
        err.append("%s: %r there, %r in /metrics" % (dict(k), got, want))
print("--- %d energy and token series equal /metrics" % len(final), file=sys.stderr)
if err:
    sys.exit("\n".join(err[:20]))
