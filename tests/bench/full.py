#!/usr/bin/python3
"""full.py - `make bench-full` (issue 24): the whole design load in one
wattpath, pinned to one CPU, against wattpath-sim on the other CPU.

  full.py [--wattpath BIN] [--sim BIN] [--nodes 10000] [--inband N]
          [--pdus 500] [--meters 50] [--window 120] [--warm 360] [--cpu 0]
          [--sim-cpu 1] [--keep]

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


def run(a, procs, tmp):
    racks = max(1, -(-a.pdus // 2))
    simconf = os.path.join(tmp, "sim", "wattpath.yaml")
    os.makedirs(os.path.dirname(simconf))
    base = bench.free_port_base()
    sim = procs.start("sim", pin(a.sim_cpu) + [
        a.sim, "serve", "--nodes", str(a.nodes), "--racks", str(racks),
        "--pdus", str(a.pdus), "--meters", str(a.meters), "--shape",
        "joules", "--profile", "steady", "--port-base", str(base),
        "--config-out", simconf, "--interval", "%ds" % IV],
        os.path.join(tmp, "sim.log"))

    def ready():
        if not sim.alive():
            raise RuntimeError("wattpath-sim exited:\n" + sim.tail())
        with open(sim.logpath, "rb") as f:
            return b"wattpath-sim: config" in f.read()
    if not bench.wait_for(ready, 300, 0.5):
        raise RuntimeError("wattpath-sim not ready:\n" + sim.tail())
    data = os.path.join(tmp, "data")
    port = bench.free_tcp_port()
    conf = os.path.join(tmp, "wattpath.yaml")
    c = write_conf(simconf, conf, data, port, a.inband)
    npdu, nmeter = len(c.get("pdus") or []), len(c.get("meters") or [])
    nib = sum(1 for n in c["nodes"] if "gpu" in n)
    log("simulator: %d nodes (a BMC each; a dcgm-exporter and an engine on "
        "%d of them), %d PDUs x 48 outlets, %d meters, pid %d, CPU %s; "
        "open-file limit %d" %
        (len(c["nodes"]), nib, npdu, nmeter, sim.pid,
         a.sim_cpu if pin(a.sim_cpu) else "any",
         resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    wp = procs.start("wattpath", pin(a.cpu) + [a.wattpath, "run", "-c",
                                               conf],
                     os.path.join(tmp, "wattpath.log"))
    t0 = time.time()
    want = None
    while True:
        if not wp.alive():
            raise RuntimeError("wattpath exited:\n" + wp.tail())
        time.sleep(10)
        try:
            m, _, _ = scrape(port)
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
    c0, t0, s0 = wp.cpu(), time.time(), sim.cpu()
    j0 = dir_bytes(os.path.join(data, "journal", "**"))
    scr = []
    while time.time() - t0 < a.window:
        m, took, size = scrape(port)
        samples.append((time.time(), m))
        scr.append((took, size))
        time.sleep(max(0, SCRAPE - took))
    m, took, size = scrape(port)
    samples.append((time.time(), m))
    scr.append((took, size))
    c1, t1 = wp.cpu(), time.time()
    sim.cpu_window = sim.cpu() - s0
    j1 = dir_bytes(os.path.join(data, "journal", "**"))
    rrd_fresh = fresh(os.path.join(data, "**", "*.rrd"), t0)
    rrd_all = len(glob.glob(os.path.join(data, "**", "*.rrd"),
                            recursive=True))
    el = t1 - t0
    report(a, wp, samples, scr, c1 - c0, el, j1 - j0, rrd_fresh, rrd_all,
           sim)


def report(a, wp, samples, scr, cpu, el, jbytes, rrd_fresh, rrd_all, sim):
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
    log("window %.0f s; wattpath pinned to CPU %s" %
        (el, a.cpu if pin(a.cpu) else "(not pinned)"))
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
    log("  memory: peak RSS %.0f MiB, RSS now %.0f MiB" %
        (wp.hwm() / 1024, wp.status("VmRSS") / 1024))
    log("  journal: %.2f MB/s (%.0f MB in the window)" %
        (jbytes / el / 1e6, jbytes / 1e6))
    log("  RRD: %d of %d files written in the window, %.1f files/s" %
        (rrd_fresh, rrd_all, rrd_fresh / el))
    log("  simulator: %.1f %% of a CPU" % (100 * sim_cpu(sim, el)))


def sim_cpu(sim, el):
    return getattr(sim, "cpu_window", 0) / el if el else 0


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
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    nofile = bench.raise_nofile()
    # a kept-alive connection per BMC, dcgm-exporter and engine, a socket
    # per PDU and meter, journal, RRD and library files
    inband = a.nodes if a.inband is None else min(a.inband, a.nodes)
    need = a.nodes + 2 * inband + a.pdus + a.meters + 1000
    if need > nofile:
        sys.exit("full: %d nodes need about %d open files in wattpath (and "
                 "as many in the simulator); the limit here is %d: scale "
                 "down (--nodes %d fits)" % (a.nodes, need, nofile,
                                             (nofile - 1000 - a.pdus -
                                              a.meters) // 3))
    signal.signal(signal.SIGTERM, bench.on_signal)
    signal.signal(signal.SIGINT, bench.on_signal)
    log("# wattpath full load, %s: %d nodes, %d PDUs, %d meters" %
        (time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), a.nodes, a.pdus,
         a.meters))
    procs = bench.Procs()
    tmp = tempfile.mkdtemp(prefix="wattpath-full.")
    rc = 0
    try:
        run(a, procs, tmp)
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
