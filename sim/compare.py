#!/usr/bin/python3
"""compare.py - wattpath's figures against wattpath-sim's exact truth.

  compare.py TRUTH.json --report REPORT.json [--curve CURVE.json]
  compare.py TRUTH.json --journal JOURNAL.csv --from T --to T

With --report, reads `wattpath report --format json` and prints each
boundary's energy, J/token and PUE next to the truth with the error.
With --journal (used while the report is not available), integrates the
journal export itself: counters are interpolated linearly at the window
edges, gauges (power-only BMCs) integrated by the trapezoid rule.
Exit status 0; this is a display, the accuracy tests assert.
"""
import csv
import json
import sys

def err(meas, truth):
    if meas is None or truth in (None, 0):
        return "    n/a"
    return "%+7.3f%%" % (100.0 * (meas - truth) / truth)


def row(name, meas, truth, unit="J"):
    m = "%16.1f" % meas if meas is not None else "%16s" % "-"
    print("  %-22s %s %16.1f %s  %s" % (name, m, truth, err(meas, truth), unit))


def interp(pts, t):
    """Value of a piecewise-linear series at t, or None outside it."""
    if not pts or t < pts[0][0] or t > pts[-1][0]:
        return None
    for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
        if t0 <= t <= t1:
            return v0 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return pts[-1][1]


def counter_energy(pts, a, b):
    va, vb = interp(pts, a), interp(pts, b)
    return None if va is None or vb is None else vb - va


def gauge_energy(pts, a, b):
    if not pts or pts[0][0] > a or pts[-1][0] < b:
        return None
    grid = [a] + [t for t, _ in pts if a < t < b] + [b]
    return sum((t1 - t0) * (interp(pts, t0) + interp(pts, t1)) / 2
               for t0, t1 in zip(grid, grid[1:]))


def load_journal(path):
    series = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] not in ("ok", "0") or not r["series"]:
                continue
            if "crosscheck" in r["flags"]:
                continue
            if r["kind"] == "counter" and r["cum"] == "":
                continue
            key = (r["target"], r["series"])
            t = int(r["t_real_ns"]) / 1e9
            v = float(r["cum"] if r["kind"] == "counter" else r["value"])
            series.setdefault(key, {"b": r["boundary"], "k": r["kind"],
                                    "pts": []})["pts"].append((t, v))
    return series


def journal_figures(series, a, b):
    fig = {"gpu": 0.0, "wall": 0.0, "outlet": 0.0, "tokens": 0.0,
           "facility": None, "it": None}
    missing = []
    nodes = {}
    for (target, name), s in sorted(series.items()):
        s["pts"].sort()
        e = (counter_energy(s["pts"], a, b) if s["k"] == "counter"
             else gauge_energy(s["pts"], a, b))
        node = target.split("/")[0]
        if name == "tokens/output" and e is not None:
            fig["tokens"] += e
        elif s["b"] == "gpu" and name.endswith("/energy"):
            fig["gpu"] += e if e is not None else 0
            missing += [] if e is not None else [target + " " + name]
        elif s["b"] == "wall":
            nodes.setdefault(node, {})[s["k"]] = e
        elif s["b"] == "outlet" and name.endswith("/energy") and e:
            fig["outlet"] += e
        elif s["b"] == "facility" and name == "energy" and e is not None:
            role = "facility" if target.startswith("incomer") else (
                "it" if target.startswith("it-") else None)
            if role:
                fig[role] = (fig[role] or 0) + e
    for node, kinds in nodes.items():
        e = kinds.get("counter")
        if e is None:
            e = kinds.get("gauge")
        if e is None:
            missing.append(node + " wall")
        else:
            fig["wall"] += e
    fig["wall_nodes"] = len(nodes)
    return fig, missing


def print_table(fig, truth):
    tt = truth["totals"]
    tok = tt["tokens_output"]
    print("  %-22s %16s %16s %8s" % ("figure", "wattpath", "truth", "error"))
    row("GPU energy", fig.get("gpu"), tt["gpu_j"])
    row("wall energy", fig.get("wall"), tt["wall_j"])
    if truth["pdus"] and fig.get("outlet"):
        row("outlet energy", fig.get("outlet"), tt["outlet_j"])
    if fig.get("it") is not None:
        row("IT energy (UPS out)", fig["it"], tt["it_j"])
    if fig.get("facility") is not None:
        row("facility energy", fig["facility"], tt["facility_j"])
    row("output tokens", fig.get("tokens"), tok, "tokens")
    if fig.get("tokens"):
        for b, key in (("gpu", "gpu_j"), ("wall", "wall_j"),
                       ("facility", "facility_j")):
            m = fig.get(b if b != "facility" else "facility")
            if m:
                print("  %-22s %16.5f %16.5f %s  J/token" % (
                    "J/token at " + b, m / fig["tokens"], tt[key] / tok,
                    err(m / fig["tokens"], tt[key] / tok)))
    if fig.get("facility") and fig.get("it"):
        pue = fig["facility"] / fig["it"]
        print("  %-22s %16.4f %16.4f %s" % ("PUE", pue, truth["pue"],
                                             err(pue, truth["pue"])))


def node_truth(truth):
    return {n["name"]: n for n in truth["nodes"]}


def report_table(rep, truth):
    """Each report figure, the truth, the error and the bound it states."""
    tt = truth["totals"]
    tok = tt["tokens_output"]
    nt = node_truth(truth)
    b = rep.get("boundaries", {})
    print("  %-24s %15s %15s %9s %9s" % ("figure", "wattpath", "truth",
                                        "error", "bound"))

    def line(name, meas, tru, bound=None, fmt="%15.1f"):
        m = fmt % meas if meas is not None else "%15s" % "-"
        e = err(meas, tru)
        bd = ("%8.3f%%" % (100 * bound)) if bound is not None else "        "
        flag = ""
        if meas is not None and bound is not None and tru:
            flag = "  ok" if abs(meas - tru) <= bound * abs(tru) + 1e-9 \
                else "  OUTSIDE BOUND"
        print("  %-24s %s %s %s %s%s" % (name, m, fmt % tru, e, bd, flag))

    # The facility boundary is wall energy x PUE (docs/report.md): its
    # truth is the nodes' wall truth x the true PUE, not the site total.
    def node_true(nm, bn):
        n = nt[nm]
        if bn == "outlet":
            return sum(o["j"] for o in n["outlets"])
        if bn == "facility":
            return n["wall_j"] * truth["pue"]
        return n[bn + "_j"]

    covered = {}
    for bn in ("gpu", "wall", "outlet", "facility"):
        x = b.get(bn) or {}
        if bn == "outlet" and not truth["pdus"]:
            continue
        got = [n["name"] for n in rep.get("nodes", [])
               if (n["boundaries"].get(bn) or {}).get("energy_j") is not None]
        if x.get("energy_j") is None:
            print("  %-24s %15s (%s)" % ("%s energy (J)" % bn, "-",
                                        x.get("method", "none")))
            continue
        # A boundary covering part of the fleet: the truth of those nodes.
        part = x.get("nodes_counted", len(nt)) < len(nt)
        tru = sum(node_true(nm, bn) for nm in (got if part else nt))
        covered[bn] = (tru, part)
        short = {"counter": "ctr", "gauge-estimated": "gauge",
                 "modeled": "model"}
        label = "%s energy (%s)" % (bn, "%d/%d nodes" % (len(got), len(nt))
                                   if part else "+".join(
                                       short.get(m, m) for m in
                                       x.get("method", "?").split("+")))
        line(label, x["energy_j"], tru, x.get("instrument_bound_rel"))
    pue = rep.get("pue") or {}
    if pue.get("it_energy_j") is not None:
        line("IT energy (meter, J)", pue["it_energy_j"], tt["it_j"])
    if pue.get("facility_energy_j") is not None:
        line("facility meter (J)", pue["facility_energy_j"], tt["facility_j"])
    out = (rep.get("tokens") or {}).get("output")
    line("output tokens", out, tok)
    for bn in ("gpu", "wall", "outlet", "facility"):
        x = b.get(bn) or {}
        if x.get("j_per_output_token") is None or bn not in covered:
            continue
        tru, part = covered[bn]
        ttok = tok
        if part:    # the covered nodes' own tokens
            ttok = sum(nt[n["name"]]["tokens_output"]
                       for n in rep.get("nodes", [])
                       if (n["boundaries"].get(bn) or {}).get("energy_j")
                       is not None)
        line("J/token at %s%s" % (bn, " (covered)" if part else ""),
             x["j_per_output_token"], tru / ttok,
             x.get("instrument_bound_rel"), "%15.5f")
    if rep.get("wall_to_gpu_ratio") is not None:
        line("wall/GPU ratio", rep["wall_to_gpu_ratio"],
             truth["wall_over_gpu"], None, "%15.4f")
    if pue.get("value") is not None:
        line("PUE", pue["value"], truth["pue"], None, "%15.4f")
    # Carbon: the report's intensity applied to the true energy (the
    # simulator has no grid; the error is the energy's).
    loc = (rep.get("carbon") or {}).get("location") or {}
    for bn in ("wall", "facility"):
        c = loc.get(bn) or {}
        if c.get("kg") is not None and c.get("kwh") and bn in covered:
            line("carbon at %s (kgCO2e)" % bn, c["kg"],
                 covered[bn][0] / 3.6e6 * c["kg"] / c["kwh"],
                 (b.get(bn) or {}).get("instrument_bound_rel"), "%15.4f")


def models_table(rep, truth):
    """Per model (--shared): the report's split against the truth's."""
    rm = {m["name"]: m for m in rep.get("models") or []}
    print("  %-30s %15s %15s %9s" % ("model figure", "wattpath", "truth",
                                    "error"))
    for m in truth.get("models") or []:
        x = rm.get(m["name"])
        if x is None:
            print("  %-30s %15s" % (m["name"], "absent"))
            continue
        b = x["boundaries"]
        rows = [("gpu J", b["gpu"]["energy_j"], m["gpu_j"]),
                ("wall J", b["wall"]["energy_j"], m["wall_j"])]
        if m.get("outlet_j") is not None:
            rows.append(("outlet J", b["outlet"]["energy_j"], m["outlet_j"]))
        if not x["unallocated"]:
            rows.append(("output tokens", x["tokens"]["output"],
                         m["tokens_output"]))
            if m["tokens_output"]:
                rows.append(("J/token at wall",
                             b["wall"]["j_per_output_token"],
                             m["wall_j"] / m["tokens_output"]))
        for what, got, want in rows:
            g = "%15.5g" % got if got is not None else "%15s" % "-"
            print("  %-30s %s %15.5g %s" % (m["name"] + " " + what, g, want,
                                           err(got, want)))


def curve_table(cur, truth):
    """The report's class wall/GPU curve against the model's, by load bin."""
    bins = (cur.get("class_curve") or {}).get("bins") or []
    model = truth.get("wall_gpu_curve") or []
    print("  %-12s %8s %10s %10s %9s" % ("GPU load", "samples", "wattpath",
                                        "model", "error"))
    for b in bins:
        if not b.get("count") or not model or b.get("gpu_w") is None:
            continue
        load = b["gpu_w"] / (8 * 700.0)     # node GPU power / 8 x 700 W
        m = min(model, key=lambda x: abs(x["load"] - load))["ratio"]
        print("  %4.2f-%4.2f    %8d %10.4f %10.4f %s" % (
            b["load_from"], b["load_to"], b["count"], b["ratio"], m,
            err(b["ratio"], m)))


def main(argv):
    truth = json.load(open(argv[1]))
    print("== against the simulator's truth (%s .. %s, %.1f s)" % (
        truth["from"], truth["to"], truth["seconds"]))
    if "--report" in argv:
        rep = json.load(open(argv[argv.index("--report") + 1]))
        report_table(rep, truth)
        if truth.get("models"):
            print("== per model (%s), against the truth split by the same "
                  "rule" % ((rep.get("attribution") or {}).get("rule")))
            models_table(rep, truth)
        if "--curve" in argv:
            print("== wall-to-GPU curve (class hgx-h100-8) against the model "
                  "at each bin's mean GPU power (bursty nodes' averages mix "
                  "loads, so they sit off the constant-load model)")
            curve_table(json.load(open(argv[argv.index("--curve") + 1])),
                        truth)
        return 0
    path = argv[argv.index("--journal") + 1]
    a = float(argv[argv.index("--from") + 1])
    b = float(argv[argv.index("--to") + 1])
    fig, missing = journal_figures(load_journal(path), a, b)
    print_table(fig, truth)
    if missing:
        print("  (no usable data for: %s)" % ", ".join(missing[:8]) +
              (" ..." if len(missing) > 8 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
