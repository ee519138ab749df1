#!/usr/bin/python3
"""full.py - `make bench-full` (issue 24): the whole design load in one
wattpath, pinned to one CPU, against wattpath-sim on the other CPU.

  full.py [--wattpath BIN] [--sim BIN] [--nodes 10000] [--inband N]
          [--pdus 500] [--meters 50] [--window 120] [--warm 360] [--cpu 0]
          [--sim-cpu 1] [--shards N] [--keep]

Each node has a BMC (HTTPS, sessions where the simulator says so,
keep-alive, 10 s), a dcgm-exporter and an engine endpoint (HTTP, 10 s;
with --inband N only the first N nodes' are polled: a kept-alive
connection per endpoint, and a process may hold no more descriptors than
its open-file limit, `ulimit -Hn`);
PDUs of 48 outlets (SNMP v2c, 30 s) and Modbus meters (10 s).  The
simulator writes the configuration; only the collector block (data dir,
listen port, log level) and the PDUs' interval are changed.  After the
warm-up (every target up, then until --warm seconds: the first RRD
writes are spread over collector.rrd_write_delay, 5 minutes), over the
window: CPU of wattpath (utime + stime, all threads) as a share of its
one CPU, peak and current RSS, polls and failed polls by protocol (its
/metrics), journal bytes and RRD files written per second, and lateness:
/metrics is read every 30 s and each target's
wattpath_target_last_success_timestamp_seconds is compared with the
previous reading; the spacing of two successes minus the nearest whole
number of intervals is how late (or early) a poll came.  Reading /metrics
costs wattpath CPU too (it is in the share, and said).

With --shards N the fleet is split between N simulators and N wattpath
processes, every wattpath pinned to the same CPU and every simulator to
the other: the whole load still on one core, where one process may not
hold a connection per endpoint (30,550 at the design load; this
container's hard open-file limit is 20,000).  CPU, memory, journal and
RRD figures are the processes' sums.
"""
import argparse
import glob
import http.client
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (Proc, Procs, free_port_base, ...)

PDU_IV = 30
IV = 10
SCRAPE = 30


def log(msg):
    print(msg, flush=True)


def scrape(port):
    """{target: (protocol, polls, fails, last_success)} from /metrics."""
    url = "http://127.0.0.1:%d/metrics" % port
    t0 = time.time()
    for attempt in range(3):
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                text = r.read().decode("utf-8", "replace")
            break
        except http.client.HTTPException as e:
            # a response cut short (wattpath busy): read it again
            if attempt == 2:
                raise OSError("/metrics: %s" % e) from e
            time.sleep(1)
    took = time.time() - t0
    out = {}
    rx = re.compile(r'^wattpath_target_(polls_total|poll_failures_total|'
                    r'last_success_timestamp_seconds|up)'
                    r'\{[^}]*target="([^"]*)",protocol="([^"]*)"[^}]*\} (\S+)$')
    for line in text.splitlines():
        m = rx.match(line)
        if not m:
            continue
        proto = m.group(3)
        if proto == "inband":
            proto = "dcgm" if m.group(2).endswith("/gpu") else "engine"
        x = out.setdefault(m.group(2), {"proto": proto})
        x[m.group(1)] = float(m.group(4))
    return out, took, len(text)


def pct(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def dir_bytes(pattern):
    n = 0
    for p in glob.glob(pattern, recursive=True):
        try:
            n += os.stat(p).st_size
        except OSError:
            pass
    return n


def fresh(pattern, since):
    n = 0
    for p in glob.glob(pattern, recursive=True):
        try:
            if os.stat(p).st_mtime >= since:
                n += 1
        except OSError:
            pass
    return n


def pin(cpu):
    if cpu < 0 or shutil.which("taskset") is None or \
            os.cpu_count() < 2:
        return []
    return ["taskset", "-c", str(cpu)]


def write_conf(simconf, conf, data, port, inband=None):
    with open(simconf, encoding="utf-8") as f:
        c = yaml.load(f, Loader=getattr(yaml, "CSafeLoader",
                                        yaml.SafeLoader))
    c["collector"].update({"data_dir": data, "listen": "127.0.0.1:%d" % port,
                           "log_level": "warn", "interval": "%ds" % IV})
    for p in c.get("pdus") or []:
        p["interval"] = "%ds" % PDU_IV
    for n in (c["nodes"][inband:] if inband is not None else []):
        n.pop("gpu", None)
        n.pop("engines", None)
    with open(conf, "w", encoding="utf-8") as f:
        yaml.dump(c, f, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                  default_flow_style=None, sort_keys=False)
    return c


class Shard:
    """One simulator and the wattpath polling what it serves."""

    def __init__(self, k, nshards, nodes, inband, pdus, meters):
        self.k, self.nodes, self.inband = k, nodes, inband
        self.tag = " %d" % k if nshards > 1 else ""  # in what is logged
        self.pdus, self.meters = pdus, meters
        self.sim = self.wp = self.port = self.data = None
        self.dir = self.simconf = None


def split(total, k, n):
    """Part k of total split into n as evenly as can be."""
    return total // n + (1 if k < total % n else 0)


def start_sim(a, procs, tmp, sh):
    """Shard sh's simulator, started and ready (every simulator before any
    wattpath: its ports are chosen while no connection holds one)."""
    d = os.path.join(tmp, "shard%d" % sh.k) if a.shards > 1 else tmp
    simconf = os.path.join(d, "sim", "wattpath.yaml")
    os.makedirs(os.path.dirname(simconf))
    base = bench.free_port_base()
    racks = max(1, -(-sh.pdus // 2))
    sim = procs.start("sim%d" % sh.k, pin(a.sim_cpu) + [
        a.sim, "serve", "--nodes", str(sh.nodes), "--racks", str(racks),
        "--pdus", str(sh.pdus), "--meters", str(sh.meters), "--shape",
        "joules", "--profile", "steady", "--port-base", str(base),
        "--config-out", simconf, "--interval", "%ds" % IV],
        os.path.join(d, "sim.log"))

    def ready():
        if not sim.alive():
            raise RuntimeError("wattpath-sim exited:\n" + sim.tail())
        with open(sim.logpath, "rb") as f:
            return b"wattpath-sim: config" in f.read()
    if not bench.wait_for(ready, 300, 0.5):
        raise RuntimeError("wattpath-sim not ready:\n" + sim.tail())
    sh.sim, sh.dir, sh.simconf = sim, d, simconf


def start_wattpath(a, procs, sh):
    d, sim, simconf = sh.dir, sh.sim, sh.simconf
    sh.data = os.path.join(d, "data")
    sh.port = bench.free_tcp_port()
    conf = os.path.join(d, "wattpath.yaml")
    c = write_conf(simconf, conf, sh.data, sh.port, sh.inband)
    npdu, nmeter = len(c.get("pdus") or []), len(c.get("meters") or [])
    nib = sum(1 for n in c["nodes"] if "gpu" in n)
    log("simulator%s: %d nodes (a BMC each; a dcgm-exporter and an engine "
        "on %d of them), %d PDUs x 48 outlets, %d meters, pid %d, CPU %s; "
        "open-file limit %d" %
        (sh.tag, len(c["nodes"]), nib, npdu,
         nmeter, sim.pid, a.sim_cpu if pin(a.sim_cpu) else "any",
         resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    sh.wp = procs.start("wattpath%d" % sh.k, pin(a.cpu) + [
        a.wattpath, "run", "-c", conf], os.path.join(d, "wattpath.log"))


def scrape_all(shards):
    """scrape() of every shard, merged (target names are per shard)."""
    out, took, size = {}, 0.0, 0
    for sh in shards:
        m, t, n = scrape(sh.port)
        out.update({"%d/%s" % (sh.k, k): v for k, v in m.items()})
        took += t
        size += n
    return out, took, size


def run(a, procs, tmp, inband):
    shards = []
    for k in range(a.shards):
        nodes = split(a.nodes, k, a.shards)
        # the simulator puts one or two PDUs in a rack: a shard's are two
        # a rack (--pdus is even when split)
        pdus = a.pdus if a.shards == 1 else \
            2 * split(a.pdus // 2, k, a.shards)
        sh = Shard(k, a.shards, nodes,
                   min(nodes, split(inband, k, a.shards)), pdus,
                   split(a.meters, k, a.shards))
        start_sim(a, procs, tmp, sh)
        shards.append(sh)
    for sh in shards:
        start_wattpath(a, procs, sh)
    t0 = time.time()
    want = None
    while True:
        for sh in shards:
            if not sh.wp.alive():
                raise RuntimeError("wattpath%s exited:\n%s" % (
                    sh.tag, sh.wp.tail()))
        time.sleep(10)
        try:
            m, _, _ = scrape_all(shards)
        except OSError:
            continue
        up = sum(1 for x in m.values() if x.get("up") == 1)
        want = len(m)
        el = time.time() - t0
        if up == want and want and el >= a.warm:
            break
        if el > a.warm + 600:
            log("  warning: warm-up incomplete: %d of %d targets up" %
                (up, want))
            break
    log("warm-up %.0f s: %d targets, %d up" % (time.time() - t0, want, up))

    samples = []

    def cpu(procs_):
        return sum(p.cpu() for p in procs_)
    wps, sims = [sh.wp for sh in shards], [sh.sim for sh in shards]
    c0, t0, s0 = cpu(wps), time.time(), cpu(sims)
    jpat = [os.path.join(sh.data, "journal", "**") for sh in shards]
    j0 = sum(dir_bytes(p) for p in jpat)
    scr = []
    while time.time() - t0 < a.window:
        m, took, size = scrape_all(shards)
        samples.append((time.time(), m))
        scr.append((took, size))
        time.sleep(max(0, SCRAPE - took))
    m, took, size = scrape_all(shards)
    samples.append((time.time(), m))
    scr.append((took, size))
    c1, t1 = cpu(wps), time.time()
    sim_window = cpu(sims) - s0
    j1 = sum(dir_bytes(p) for p in jpat)
    rpat = [os.path.join(sh.data, "**", "*.rrd") for sh in shards]
    rrd_fresh = sum(fresh(p, t0) for p in rpat)
    rrd_all = sum(len(glob.glob(p, recursive=True)) for p in rpat)
    el = t1 - t0
    report(a, wps, samples, scr, c1 - c0, el, j1 - j0, rrd_fresh, rrd_all,
           sim_window)


def report(a, wps, samples, scr, cpu, el, jbytes, rrd_fresh, rrd_all,
           sim_window):
    first, last = samples[0][1], samples[-1][1]
    by = {}
    for t, x in last.items():
        b = by.setdefault(x["proto"], {"n": 0, "polls": 0, "fail": 0,
                                       "late": []})
        y = first.get(t, {})
        b["n"] += 1
        b["polls"] += x.get("polls_total", 0) - y.get("polls_total", 0)
        b["fail"] += (x.get("poll_failures_total", 0) -
                      y.get("poll_failures_total", 0))
    for (_, m0), (_, m1) in zip(samples, samples[1:]):
        for t, x in m1.items():
            y = m0.get(t)
            if y is None:
                continue
            s0 = y.get("last_success_timestamp_seconds", 0)
            s1 = x.get("last_success_timestamp_seconds", 0)
            if s0 <= 0 or s1 <= s0:
                continue
            iv = PDU_IV if x["proto"] == "snmp_pdu" else IV
            d = s1 - s0
            by[x["proto"]]["late"].append(d - iv * max(1, round(d / iv)))
    log("window %.0f s; wattpath%s pinned to CPU %s" %
        (el, " (%d processes, each polling its share)" % len(wps)
         if len(wps) > 1 else "", a.cpu if pin(a.cpu) else "(not pinned)"))
    log("  %-10s %7s %9s %6s %10s %10s %10s %10s" %
        ("protocol", "targets", "polls", "failed", "late p50", "p99",
         "max", "min"))
    for p, b in sorted(by.items()):
        lt = b["late"]
        log("  %-10s %7d %9.0f %6.0f %9.3fs %9.3fs %9.3fs %9.3fs" %
            (p, b["n"], b["polls"], b["fail"], pct(lt, 0.5), pct(lt, 0.99),
             max(lt) if lt else float("nan"),
             min(lt) if lt else float("nan")))
    log("  lateness: spacing of two successes of a target minus the nearest "
        "whole number of its intervals (%d samples of /metrics, %d s apart)"
        % (len(samples), SCRAPE))
    log("  CPU: %.1f s in %.0f s = %.1f %% of one core" %
        (cpu, el, 100 * cpu / el))
    log("  /metrics read %d times: %.2f s each on average, %.1f MB" %
        (len(scr), sum(x[0] for x in scr) / len(scr),
         scr[-1][1] / 1e6))
    log("  memory: peak RSS %.0f MiB, RSS now %.0f MiB%s" %
        (sum(p.hwm() for p in wps) / 1024,
         sum(p.status("VmRSS") for p in wps) / 1024,
         " (the processes' sum)" if len(wps) > 1 else ""))
    log("  journal: %.2f MB/s (%.0f MB in the window)" %
        (jbytes / el / 1e6, jbytes / 1e6))
    log("  RRD: %d of %d files written in the window, %.1f files/s" %
        (rrd_fresh, rrd_all, rrd_fresh / el))
    log("  simulator: %.1f %% of a CPU" % (100 * sim_window / el))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wattpath", default=os.path.join(ROOT, "build",
                                                       "wattpath"))
    ap.add_argument("--sim", default=os.path.join(ROOT, "build",
                                                  "wattpath-sim"))
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--inband", type=int, default=None,
                    help="poll the dcgm-exporter and engine of the first N "
                    "nodes only (default: every node's)")
    ap.add_argument("--pdus", type=int, default=500)
    ap.add_argument("--meters", type=int, default=50,
                    help="Modbus meters: the facility's three, then "
                    "sub-meters (the simulator serves up to 64)")
    ap.add_argument("--window", type=int, default=120)
    ap.add_argument("--warm", type=int, default=360)
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--sim-cpu", type=int, default=1)
    ap.add_argument("--shards", type=int, default=1,
                    help="split the fleet between N simulators and N "
                    "wattpath processes, all wattpaths on --cpu: where one "
                    "process's open-file limit is below the fleet's "
                    "connections")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if a.shards < 1 or a.shards > a.nodes:
        sys.exit("full: --shards must be 1 to --nodes")
    if a.shards > 1 and a.pdus % 2:
        sys.exit("full: with --shards, --pdus must be even (two a rack)")
    nofile = bench.raise_nofile()
    # a kept-alive connection per BMC, dcgm-exporter and engine, a socket
    # per PDU and meter, journal, RRD and library files
    inband = a.nodes if a.inband is None else min(a.inband, a.nodes)
    conns = a.nodes + 2 * inband + a.pdus + a.meters
    need = -(-conns // a.shards) + 1000
    if need > nofile and nofile <= 1000:
        sys.exit("full: the open-file limit here is %d: too low" % nofile)
    if need > nofile:
        sys.exit("full: %d nodes need about %d open files in each wattpath "
                 "(and as many in each simulator); the limit here is %d: "
                 "split the fleet (--shards %d) or scale down" %
                 (a.nodes, need, nofile, -(-conns // (nofile - 1000))))
    signal.signal(signal.SIGTERM, bench.on_signal)
    signal.signal(signal.SIGINT, bench.on_signal)
    log("# wattpath full load, %s: %d nodes, %d PDUs, %d meters%s" %
        (time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), a.nodes, a.pdus,
         a.meters, ", %d shards" % a.shards if a.shards > 1 else ""))
    procs = bench.Procs()
    tmp = tempfile.mkdtemp(prefix="wattpath-full.")
    rc = 0
    try:
        run(a, procs, tmp, inband)
    except (bench.Stop, RuntimeError, OSError) as e:
        log("full: %s" % e)
        rc = 1
    finally:
        procs.stop_all()
        if a.keep:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
