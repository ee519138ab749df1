#!/usr/bin/python3
"""bench.py - the collector benchmarks of `make bench` (issues 3 and 4):
wattpath against collectd on the same simulated devices, in one run.

  bench.py [--wattpath BIN] [--sim BIN] [--sizes 1000,5000] [--pdus 200]
           [--interval 10] [--window 4] [--only redfish,snmp] [--no-rrdcached]
           [--fsync segment|none] [--no-remote-write] [--no-collectd] [--keep]

One `wattpath-sim serve` plays every device: BMCs over HTTPS with sessions
(one per 127.1.x.y address, one port, one certificate whose subjectAltName
lists every address) and Raritan PDUs (48 outlets) over SNMP v2c.  For each
Redfish size the same BMCs are polled at the same time by
  - wattpath writing RRD files itself (librrd),
  - wattpath through rrdcached (unless --no-rrdcached),
  - wattpath with collector.remote_write to a receiver in this process
    that counts the bytes it is sent (unless --no-remote-write): the CPU
    remote write adds per sample, beside plain polling, and its bytes on
    the wire per sample,
  - collectd's curl_json plugin into its rrdtool plugin,
and the SNMP PDUs by wattpath (librrd) and collectd's snmp plugin.  After a
warm-up (every target logged in, polled and its RRD files created, then one
more interval), CPU time (utime + stime of each process, all its threads)
is read at two points `window` intervals apart; polls in between come from
wattpath's own counters (/metrics, read before the first and after the
second CPU reading) and, for collectd, are N per interval (checked against
the RRD files it updated in the last interval).  Peak RSS is VmHWM at the
end, per target after subtracting VmHWM of the same program with nothing
to poll.  Everything runs on 127.0.0.0/8; every process started here is
stopped on exit.
"""
import argparse
import glob
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(HERE, "gen.py")
TICK = os.sysconf("SC_CLK_TCK")
OUTLETS = 48

# Targets (issues 3 and 4).
RF_CPU_MS = 0.1         # ms of CPU per BMC poll, store included
RF_MEM_KIB = 64         # KiB per BMC
RATIO = 5.0             # at least 5x below collectd
EXPORTER_RATIO = 3.0    # at least 3x below snmp_exporter + Prometheus
FLOOR_RATIO = 1.5       # at most 1.5x the floor (issue 24)


class Stop(Exception):
    pass


def on_signal(sig, _frame):
    raise Stop("signal %d" % sig)


def log(msg):
    print(msg, flush=True)


class Proc:
    """A process started here; stopped by Procs.stop_all."""

    def __init__(self, name, argv, logpath, env=None):
        self.name = name
        self.logpath = logpath
        self.logf = open(logpath, "wb")
        self.p = subprocess.Popen(argv, stdout=self.logf,
                                  stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, env=env)
        self.pid = self.p.pid

    def alive(self):
        return self.p.poll() is None

    def cpu(self):
        """utime + stime in seconds (all threads)."""
        with open("/proc/%d/stat" % self.pid, encoding="ascii") as f:
            s = f.read()
        fields = s[s.rindex(")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def status(self, key):
        with open("/proc/%d/status" % self.pid, encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return 0

    def hwm(self):
        return self.status("VmHWM")

    def tail(self, n=5):
        try:
            with open(self.logpath, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
            return "\n".join("    " + x for x in lines[-n:])
        except OSError:
            return ""

    def stop(self, grace):
        if self.alive():
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(grace)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.logf.close()


class Procs:
    def __init__(self):
        self.all = []

    def start(self, *a, **kw):
        p = Proc(*a, **kw)
        self.all.append(p)
        return p

    def stop(self, procs, grace=20):
        for p in procs:
            if p.alive():
                p.p.send_signal(signal.SIGTERM)
        for p in procs:
            p.stop(grace)
            if p in self.all:
                self.all.remove(p)

    def stop_all(self):
        self.stop(list(reversed(self.all)), grace=10)


def meminfo(key):
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def free_tcp_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def free_port_base():
    """P with TCP P..P+3 and UDP P+4 free on every address (the simulator
    binds the wildcard address and tells devices apart by local address)."""
    for _ in range(200):
        base = 20000 + (os.getpid() * 7919 + int(time.time() * 1000)) % 30000
        base -= base % 8
        ok = True
        socks = []
        try:
            for i in range(5):
                kind = socket.SOCK_DGRAM if i == 4 else socket.SOCK_STREAM
                s = socket.socket(socket.AF_INET, kind)
                socks.append(s)
                s.bind(("0.0.0.0", base + i))
        except OSError:
            ok = False
        for s in socks:
            s.close()
        if ok:
            return base
        time.sleep(0.01)
    raise RuntimeError("no free port range")


def wait_for(pred, timeout, step=0.5):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def metrics(port):
    """Sums of wattpath's target counters from /metrics."""
    url = "http://127.0.0.1:%d/metrics" % port
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return None
    out = {"up": 0.0, "polls": 0.0, "fail": 0.0, "targets": 0, "rw_sent": 0.0}
    names = {"wattpath_target_up": "up",
             "wattpath_target_polls_total": "polls",
             "wattpath_target_poll_failures_total": "fail"}
    for line in text.splitlines():
        if line.startswith("wattpath_remote_write_samples_total{") and \
                'result="sent"' in line:
            out["rw_sent"] += float(line.split()[-1])
        m = re.match(r"^(wattpath_target_[a-z_]+)\{[^}]*\} (\S+)$", line)
        if m and m.group(1) in names:
            out[names[m.group(1)]] += float(m.group(2))
            if m.group(1) == "wattpath_target_up":
                out["targets"] += 1
    return out


class Sink:
    """A remote-write receiver that takes every request (204) and counts
    what came over the wire: request line, headers and body bytes."""

    def __init__(self):
        import http.server
        import threading
        sink = self
        self.lock = threading.Lock()
        self.requests = self.body = self.wire = 0

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(n)
                head = len(self.requestline) + 2 + len(str(self.headers)) + 2
                with sink.lock:
                    sink.requests += 1
                    sink.body += len(body)
                    sink.wire += head + len(body)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass
        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = "http://127.0.0.1:%d/api/v1/write" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def counts(self):
        with self.lock:
            return self.requests, self.body, self.wire

    def close(self):
        self.srv.shutdown()


def exporter_counts(port):
    """snmp_exporter's own counters: scrapes done and SNMP request errors."""
    url = "http://127.0.0.1:%d/metrics" % port
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return None
    out = {"polls": 0.0, "fail": 0.0}
    for line in text.splitlines():
        if line.startswith("snmp_collection_duration_seconds_count"):
            out["polls"] += float(line.split()[-1])
        elif line.startswith("snmp_request_errors_total"):
            out["fail"] += float(line.split()[-1])
    return out


def prom_up(port):
    """How many of Prometheus's targets were up at their last scrape."""
    url = ("http://127.0.0.1:%d/api/v1/query?query=sum(up)" % port)
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return None
    m = re.search(r'"value":\[[0-9.]+,"([0-9.]+)"\]', text)
    return float(m.group(1)) if m else 0.0


def floor_counts(path):
    try:
        with open(path, encoding="ascii") as f:
            ok, fail = f.read().split()
        return {"polls": float(ok), "fail": float(fail)}
    except (OSError, ValueError):
        return None


def gen(*args):
    subprocess.run([sys.executable, GEN] + [str(a) for a in args],
                   check=True)


def fresh_files(d, since):
    n = 0
    for path in glob.glob(os.path.join(d, "**", "*.rrd"), recursive=True):
        try:
            if os.stat(path).st_mtime >= since:
                n += 1
        except OSError:
            pass
    return n


def all_files(d):
    return len(glob.glob(os.path.join(d, "**", "*.rrd"), recursive=True))


def prog_of(name, unit):
    """The baseline a process's memory is taken against."""
    for p in ("wattpath", "floor", "snmp_exporter", "prometheus"):
        if p in name:
            return p
    return "collectd-" + ("curl_json" if unit == "BMC" else "snmp")


class Bench:
    def __init__(self, a):
        self.a = a
        self.procs = Procs()
        self.tmp = tempfile.mkdtemp(prefix="wattpath-bench.")
        self.sim = None
        self.simconf = os.path.join(self.tmp, "sim", "wattpath.yaml")
        self.types = os.path.join(self.tmp, "types.db")
        with open(self.types, "w", encoding="ascii") as f:
            f.write("pdu_sensor\tpower:GAUGE:0:U, energy:DERIVE:0:U\n")
        self.base = {}
        self.counted = []       # floor, snmp_exporter: p.counter()
        self.helpers = []       # Prometheus: CPU and memory, no counts
        self.cd_kib = 0         # collectd's KiB per BMC, last size run
        self.cd_n = 0
        self.cd_ms = 0

    # ---- processes ----
    def start_sim(self):
        nodes = max(self.a.sizes + [1])
        pdus = self.a.pdus if "snmp" in self.a.only else 0
        racks = max(1, -(-nodes // OUTLETS))
        if pdus:
            # 48 outlets per PDU: as many racks as 48 nodes fill, two PDUs
            # (A and B feeds) per rack.
            racks = max(racks, -(-pdus // 2))
            nodes = max(nodes, racks * OUTLETS - (OUTLETS - 1))
            pdus = racks * 2
        os.makedirs(os.path.dirname(self.simconf))
        base = free_port_base()
        argv = [self.a.sim, "serve", "--nodes", nodes, "--racks", racks,
                "--pdus", pdus, "--meters", 0, "--shape", "joules",
                "--profile", "steady", "--port-base", base,
                "--config-out", self.simconf,
                "--interval", "%ds" % self.a.interval]
        if not pdus:
            argv.append("--no-snmp")
        self.sim = self.procs.start("sim", [str(x) for x in argv],
                                    os.path.join(self.tmp, "sim.log"))

        def ready():
            if not self.sim.alive():
                raise RuntimeError("wattpath-sim exited:\n" + self.sim.tail())
            with open(self.sim.logpath, "rb") as f:
                return b"wattpath-sim: config" in f.read()
        if not wait_for(ready, 120, 0.2):
            raise RuntimeError("wattpath-sim not ready:\n" + self.sim.tail())
        log("simulator: %d BMCs, %d PDUs x %d outlets (%d racks), pid %d, "
            "ports %d..%d" % (nodes, pdus, OUTLETS, racks, self.sim.pid,
                              base, base + 4))

    def wattpath(self, tag, what, n, rrdcached=None, fsync=None, rw=None,
                 binary=None):
        d = os.path.join(self.tmp, tag)
        os.makedirs(d)
        conf = os.path.join(self.tmp, tag + ".yaml")
        port = free_tcp_port()
        args = ["wattpath", self.simconf, conf, "--what", what, "--n", n,
                "--data", d, "--listen", port, "--interval",
                self.a.interval, "--maps-dir", os.path.join(ROOT, "etc")]
        if rrdcached:
            args += ["--rrdcached", rrdcached]
        if fsync:
            args += ["--fsync", fsync]
        if rw:
            args += ["--remote-write", rw]
        gen(*args)
        p = self.procs.start(tag, [binary or self.a.wattpath, "run", "-c",
                                   conf],
                             os.path.join(self.tmp, tag + ".log"))
        p.port = port
        p.data = d
        return p

    def collectd(self, tag, what, n):
        d = os.path.join(self.tmp, tag)
        os.makedirs(d)
        conf = os.path.join(self.tmp, tag + ".conf")
        gen("collectd", self.simconf, conf, "--what", what, "--n", n,
            "--data", d, "--interval", self.a.interval,
            "--pidfile", os.path.join(d, "collectd.pid"),
            "--typesdb", self.types)
        p = self.procs.start(tag, ["collectd", "-f", "-C", conf],
                             os.path.join(self.tmp, tag + ".log"))
        p.data = d
        return p

    def floor(self, tag, what, n):
        """tests/bench/floor.c on the same targets (the floor)."""
        d = os.path.join(self.tmp, tag)
        os.makedirs(d)
        targets = os.path.join(d, "targets.txt")
        gen("floor", self.simconf, targets, "--what", what, "--n", n)
        p = self.procs.start(tag, [self.a.floor, what, targets,
                                   str(self.a.interval),
                                   os.path.join(d, "stats")],
                             os.path.join(self.tmp, tag + ".log"))
        p.stats = os.path.join(d, "stats")
        return p

    def snmp_exporter(self, tag, n):
        """prometheus-snmp-exporter and a Prometheus scraping it for each
        of n PDUs every interval (storing what it scrapes in its TSDB)."""
        d = os.path.join(self.tmp, tag)
        os.makedirs(d)
        port, pport = free_tcp_port(), free_tcp_port()
        gen("snmp_exporter", self.simconf, d, "--n", n, "--interval",
            self.a.interval, "--listen", port)
        e = self.procs.start(tag + "-snmp_exporter", [
            "prometheus-snmp-exporter", "--config.file=" +
            os.path.join(d, "snmp.yml"), "--log.level=warn",
            "--web.listen-address=127.0.0.1:%d" % port],
            os.path.join(self.tmp, tag + "-snmp_exporter.log"))
        pr = self.procs.start(tag + "-prometheus", [
            "prometheus", "--config.file=" + os.path.join(d,
                                                          "prometheus.yml"),
            "--storage.tsdb.path=" + os.path.join(d, "tsdb"),
            "--web.listen-address=127.0.0.1:%d" % pport, "--log.level=warn"],
            os.path.join(self.tmp, tag + "-prometheus.log"))
        e.port, pr.port = port, pport
        return e, pr

    def rrdcached(self, tag):
        d = os.path.join(self.tmp, tag)
        os.makedirs(d)
        sock = os.path.join(d, "rrdcached.sock")
        os.makedirs(os.path.join(d, "journal"))
        p = self.procs.start(tag, ["rrdcached", "-g", "-l", "unix:" + sock,
                                   "-j", os.path.join(d, "journal"),
                                   "-p", os.path.join(d, "pid"),
                                   "-w", "300", "-z", "60"],
                             os.path.join(self.tmp, tag + ".log"))
        if not wait_for(lambda: os.path.exists(sock) or not p.alive(), 20,
                        0.1) or not p.alive():
            raise RuntimeError("rrdcached did not start:\n" + p.tail())
        return p, "unix:" + sock

    # ---- baselines: the same programs with nothing to poll, and (Redfish)
    # polling one BMC: what polling costs once, whatever the fleet (the
    # library code that TLS, libcurl, json-c and librrd touch, OpenSSL's
    # provider tables), is not a cost per BMC ----
    def baselines(self):
        self.a.interval = self.a.rf_interval
        ps = [self.wattpath("base-wattpath", "redfish", 0)]
        if "redfish" in self.a.only:
            ps.append(self.collectd("base-collectd-curl_json", "redfish", 0))
            ps.append(self.wattpath("base1-wattpath", "redfish", 1))
            ps.append(self.collectd("base1-collectd-curl_json", "redfish", 1))
        if "snmp" in self.a.only:
            ps.append(self.collectd("base-collectd-snmp", "snmp", 0))
            if self.a.exporter:
                ps.extend(self.snmp_exporter("base", 0))
        time.sleep(5 if "redfish" not in self.a.only else
                   3 * self.a.interval + 5)
        for p in ps:
            if not p.alive():
                raise RuntimeError("%s exited:\n%s" % (p.name, p.tail()))
            self.base[p.name] = p.hwm()
        self.procs.stop(ps)
        log("baselines (peak RSS; base: nothing to poll, base1: one BMC "
            "polled for 3 intervals): " + ", ".join(
                "%s %.1f MiB" % (k, v / 1024) for k, v in self.base.items()))

    # ---- one comparison ----
    def warm(self, wps, cds, n, files_per_target, wp_files_per_target):
        """Until every wattpath has polled all n targets successfully and
        every collector has created its files, then one more interval.
        wattpath with librrd creates a file at its first write, which is
        spread over collector.rrd_write_delay (5 min) after its first
        value: the steady state comes after that."""
        iv = self.a.interval
        limit = max(6 * iv, 60 + n * 0.02) + 330

        def done():
            for p in wps + cds + self.counted + self.helpers:
                if not p.alive():
                    raise RuntimeError("%s exited:\n%s" % (p.name, p.tail()))
            for p in wps:
                m = metrics(p.port)
                if m is None or m["targets"] < n or m["up"] < n:
                    return False
            for p in self.counted:
                m = p.counter()
                if m is None or m["polls"] < n:
                    return False
                if getattr(p, "prom", None) and prom_up(p.prom.port) != n:
                    return False
            return (all(all_files(p.data) >= wp_files_per_target * n
                        for p in wps) and
                    all(all_files(p.data) >= files_per_target * n
                        for p in cds))
        t0 = time.time()
        ok = wait_for(done, limit, 1.0)
        if not ok:
            log("  warning: warm-up incomplete after %.0f s" % limit)
            for p in wps:
                m = metrics(p.port)
                log("    %s: %s" % (p.name, m))
            for p in wps + cds:
                log("    %s: %d RRD files" % (p.name, all_files(p.data)))
            for p in self.counted:
                log("    %s: %s" % (p.name, p.counter()))
        time.sleep(iv)
        return time.time() - t0

    def measure(self, wps, cds, others):
        """CPU over `window` intervals; poll counts of wattpath."""
        iv = self.a.interval
        window = self.a.window * iv
        m0 = {p.name: metrics(p.port) for p in wps}
        k0 = {p.name: p.counter() for p in self.counted}
        everyone = wps + cds + others + self.counted + self.helpers
        c0 = {p.name: p.cpu() for p in everyone}
        t0 = time.time()
        time.sleep(window)
        c1 = {p.name: p.cpu() for p in everyone}
        t1 = time.time()
        m1 = {p.name: metrics(p.port) for p in wps}
        k1 = {p.name: p.counter() for p in self.counted}
        fresh = {p.name: fresh_files(p.data, t1 - iv) for p in cds}
        hwm = {p.name: p.hwm() for p in everyone}
        out = {"elapsed": t1 - t0, "cpu": {}, "polls": {}, "fail": {},
               "hwm": hwm, "fresh": fresh}
        for p in everyone:
            out["cpu"][p.name] = c1[p.name] - c0[p.name]
        for p in wps:
            if m0[p.name] is None or m1[p.name] is None:
                raise RuntimeError("%s: no /metrics" % p.name)
            out["fail"][p.name] = m1[p.name]["fail"] - m0[p.name]["fail"]
            out.setdefault("rw_sent", {})[p.name] = (m1[p.name]["rw_sent"] -
                                                     m0[p.name]["rw_sent"])
            # Successful polls: a failed one read nothing.
            out["polls"][p.name] = (m1[p.name]["polls"] -
                                    m0[p.name]["polls"] - out["fail"][p.name])
        for p in self.counted:
            if k0[p.name] is None or k1[p.name] is None:
                raise RuntimeError("%s: no poll counts" % p.name)
            out["fail"][p.name] = k1[p.name]["fail"] - k0[p.name]["fail"]
            out["polls"][p.name] = k1[p.name]["polls"] - k0[p.name]["polls"]
        for p in self.helpers:
            if getattr(p, "prom_of", None):
                out["prom_up"] = prom_up(p.port)
        if self.a.profile:
            self.profile(wps[0])
        return out

    def profile(self, p):
        """perf on one wattpath after the window (so it does not count),
        its top symbols on stdout: where the rest of the floor goes."""
        if shutil.which("perf") is None:
            log("  profile: perf not installed")
            return
        data = os.path.join(self.tmp, p.name + ".perf")
        rec = subprocess.run(["perf", "record", "-q", "-F", "2999", "-g",
                              "-o", data, "-p", str(p.pid), "--", "sleep",
                              str(self.a.profile)], capture_output=True,
                             check=False)
        if rec.returncode != 0:
            log("  profile: perf record failed: %s" %
                rec.stderr.decode("utf-8", "replace").strip()[-200:])
            return
        # self time by library and by function, then time with callees
        # (inclusive: where a poll's CPU goes, e.g. journal vs RRD)
        for sort, ch, top in (("dso", "--no-children", 25),
                              ("dso,sym", "--no-children", 25),
                              ("sym", "--children", 60)):
            rep = subprocess.run(["perf", "report", "-i", data, "--stdio",
                                  ch, "-g", "none",
                                  "--sort", sort, "--percent-limit", "1.5"],
                                 capture_output=True, check=False)
            lines = [x for x in rep.stdout.decode("utf-8", "replace")
                     .splitlines() if x.strip() and not x.startswith("#")]
            log("  profile of %s (%d s, perf, by %s%s):" %
                (p.name.split("-", 1)[1], self.a.profile, sort,
                 ", with callees" if ch == "--children" else ""))
            for x in lines[:top]:
                log("    " + x.strip())

    def redfish(self, n):
        self.a.interval = self.a.rf_interval
        iv = self.a.interval
        log("\n== Redfish: %d BMCs, HTTPS keep-alive, interval %d s ==" %
            (n, iv))
        tag = "rf%d" % n
        wps = [self.wattpath(tag + "-wattpath", "redfish", n)]
        others = [self.sim]
        rc = None
        if not self.a.no_rrdcached and n <= self.a.rrdcached_max:
            rc, spec = self.rrdcached(tag + "-rrdcached")
            wps.append(self.wattpath(tag + "-wattpath-rrdcached", "redfish",
                                     n, spec))
            others.append(rc)
        if self.a.fsync:
            wps.append(self.wattpath(tag + "-wattpath-fsync-" +
                                     self.a.fsync, "redfish", n,
                                     fsync=self.a.fsync))
        if self.a.ab:
            wps.append(self.wattpath(tag + "-wattpath-ab", "redfish", n,
                                     binary=self.a.ab))
        sink = None
        if self.a.remote_write:
            sink = Sink()
            wps.append(self.wattpath(tag + "-wattpath-remote-write",
                                     "redfish", n, rw=sink.url))
        cds = []
        need = self.cd_kib * n if self.cd_kib else 0
        avail = meminfo("MemAvailable")
        if need > 0.4 * avail:
            log("  collectd not run at %d BMCs: it would need about %.1f GiB "
                "(%.0f KiB per BMC measured at %d) of %.1f GiB available" %
                (n, need / 2**20, self.cd_kib, self.cd_n, avail / 2**20))
        elif not self.a.no_collectd:
            cds = [self.collectd(tag + "-collectd", "redfish", n)]
        self.counted, self.helpers = [], []
        if self.a.floor:
            fl = self.floor(tag + "-floor", "redfish", n)
            fl.counter = lambda p=fl: floor_counts(p.stats)
            self.counted.append(fl)
        try:
            # wattpath: wall power and energy in one file; collectd: 2.
            w = self.warm(wps, cds, n, 2, 1)
            log("  warm-up %.0f s; measuring %d intervals" %
                (w, self.a.window))
            s0 = sink.counts() if sink else None
            r = self.measure(wps, cds, others)
            if sink:
                r["sink"] = [b - a for a, b in zip(s0, sink.counts())]
        finally:
            self.procs.stop(wps + cds + ([rc] if rc else []) +
                            self.counted, grace=30)
            if sink:
                sink.close()
        self.report_rf(n, r, wps, cds, rc)

    def snmp(self, n):
        self.a.interval = self.a.snmp_interval
        iv = self.a.interval
        log("\n== SNMP: %d PDUs x %d outlets, v2c, interval %d s ==" %
            (n, OUTLETS, iv))
        tag = "snmp%d" % n
        wps = [self.wattpath(tag + "-wattpath", "snmp", n)]
        if self.a.ab:
            wps.append(self.wattpath(tag + "-wattpath-ab", "snmp", n,
                                     binary=self.a.ab))
        cds = [self.collectd(tag + "-collectd", "snmp", n)]
        self.counted, self.helpers = [], []
        if self.a.floor:
            fl = self.floor(tag + "-floor", "snmp", n)
            fl.counter = lambda p=fl: floor_counts(p.stats)
            self.counted.append(fl)
        if self.a.exporter:
            e, pr = self.snmp_exporter(tag, n)
            e.counter = lambda p=e: exporter_counts(p.port)
            e.prom, pr.prom_of = pr, e
            self.counted.append(e)
            self.helpers.append(pr)
        try:
            # One file per outlet and inlet (power and energy), both.
            w = self.warm(wps, cds, n, OUTLETS + 1, OUTLETS + 1)
            log("  warm-up %.0f s; measuring %d intervals" %
                (w, self.a.window))
            r = self.measure(wps, cds, [self.sim])
        finally:
            self.procs.stop(wps + cds + self.counted + self.helpers,
                            grace=30)
        self.report_snmp(n, r, wps, cds)

    # ---- figures ----
    def common(self, r, n, cds, unit):
        iv = self.a.interval
        expect = n * r["elapsed"] / iv
        for p in cds:
            r["polls"][p.name] = expect
            r["fail"][p.name] = 0
        rows = []
        for p in self.helpers:
            # Prometheus's polls are its exporter's scrapes.
            r["polls"][p.name] = r["polls"][p.prom_of.name]
            r["fail"][p.name] = 0
        for name in r["polls"]:
            polls = r["polls"][name]
            cpu = r["cpu"][name]
            base = self.base.get("base-" + prog_of(name, unit), 0)
            hwm = r["hwm"][name]
            row = {"name": name, "polls": polls, "fail": r["fail"][name],
                   "cpu": cpu, "ms": 1000 * cpu / polls if polls else
                   float("nan"), "hwm": hwm, "per": (hwm - base) / n}
            if unit == "BMC" and n > 1:
                # the memory each BMC adds, over one polled BMC
                base1 = self.base.get("base1-" + prog_of(name, unit))
                if base1 is not None:
                    row["added"] = (hwm - base1) / (n - 1)
            rows.append(row)
        return rows, expect

    def print_rows(self, rows, unit, extra):
        log("  %-28s %8s %6s %8s %12s %10s %12s" %
            ("process", "polls", "fail", "CPU s", "CPU s/1000", "peak RSS",
             "RSS/" + unit))
        log("  %-28s %8s %6s %8s %12s %10s %12s" %
            ("", "", "", "", "polls", "MiB", "KiB"))
        for x in rows:
            log("  %-28s %8.0f %6.0f %8.2f %12.4f %10.1f %12.1f%s" %
                (x["name"].split("-", 1)[1], x["polls"], x["fail"], x["cpu"],
                 x["ms"], x["hwm"] / 1024, x["per"],
                 "   (each BMC adds %.1f)" % x["added"] if "added" in x
                 else ""))
        for line in extra:
            log("  " + line)

    def verdict(self, ok):
        return "met" if ok else "MISSED"

    def load_line(self, r):
        total = sum(r["cpu"].values())
        return ("machine load in the window: %.0f%% of %d CPUs (simulator "
                "%.2f s of CPU)" % (100 * total / r["elapsed"] /
                                    os.cpu_count(), os.cpu_count(),
                                    r["cpu"][self.sim.name]))

    def report_rf(self, n, r, wps, cds, rc):
        rows, expect = self.common(r, n, cds, "BMC")
        by = {x["name"]: x for x in rows}
        w = by[wps[0].name]
        if cds:
            c = by[cds[0].name]
            self.cd_kib, self.cd_n, self.cd_ms = c["per"], n, c["ms"]
            cmp_note = ""
        else:
            c = {"ms": self.cd_ms, "per": self.cd_kib}
            cmp_note = " (collectd's figures from %d BMCs)" % self.cd_n
        extra = []
        if rc is not None:
            rcpu = r["cpu"][rc.name]
            polls = by[wps[1].name]["polls"]
            extra.append("rrdcached (for wattpath-rrdcached): %.2f s CPU, "
                         "%.4f s/1000 polls; wattpath + rrdcached %.4f s/1000 "
                         "polls; peak RSS %.1f MiB" %
                         (rcpu, 1000 * rcpu / polls if polls else 0,
                          by[wps[1].name]["ms"] + 1000 * rcpu / polls
                          if polls else 0, r["hwm"][rc.name] / 1024))
        if cds:
            extra.append("collectd polls are %d BMCs x %.1f s / %d s; RRD "
                         "files it updated in the last interval: %d of %d" %
                         (n, r["elapsed"], self.a.interval,
                          r["fresh"][cds[0].name], 2 * n))
        if "sink" in r:
            extra.append(self.rw_line(r, by, wps))
        extra.append(self.load_line(r))
        cr = c["ms"] / w["ms"] if w["ms"] else float("inf")
        mr = c["per"] / w["per"] if w["per"] > 0 else float("inf")
        have_cd = bool(cds) or self.cd_n > 0
        if have_cd:
            extra.append("ratio collectd / wattpath%s: CPU %.1fx, memory "
                         "%.1fx" % (cmp_note, cr, mr))
        extra += self.ab_lines(by, w, "BMC")
        extra += self.floor_lines(by, w, "BMC poll")
        added = w.get("added", w["per"])
        extra.append("RSS/BMC is (peak - nothing to poll) / N; 'each BMC "
                     "adds' is (peak - one BMC polled) / (N - 1), without "
                     "what polling costs once")
        extra.append("targets: CPU < %.1f ms/poll: %s (%.4f); memory < %d "
                     "KiB/BMC: %s (%.1f per BMC, %.1f each BMC adds); "
                     ">= %.0fx below collectd: CPU %s, memory %s" %
                     (RF_CPU_MS, self.verdict(w["ms"] < RF_CPU_MS), w["ms"],
                      RF_MEM_KIB, "met" if w["per"] < RF_MEM_KIB else
                      "met as added per BMC, MISSED with the fixed cost"
                      if added < RF_MEM_KIB else "MISSED", w["per"], added,
                      RATIO, self.verdict(cr >= RATIO) if have_cd else
                      "not run", self.verdict(mr >= RATIO) if have_cd else
                      "not run"))
        self.print_rows(rows, "BMC", extra)

    def rw_line(self, r, by, wps):
        """Remote write beside plain polling: the CPU it adds, per sample
        sent, and the bytes on the wire per sample."""
        plain, rw = by[wps[0].name], by[wps[-1].name]
        sent = r["rw_sent"][wps[-1].name]
        reqs, body, wire = r["sink"]
        if sent <= 0:
            return "remote write: no sample sent in the window"
        # the same BMCs polled by both at the same interval: the difference
        # is what remote write costs (compare their polls and failures)
        added = rw["cpu"] - plain["cpu"]
        return ("remote write (wattpath-remote-write beside wattpath, the "
                "same BMCs; polls %.0f and %.0f): %.0f samples in %d "
                "requests; CPU added %.3f s "
                "= %.2f us per sample (%.1f%% of plain polling's CPU); on "
                "the wire %.1f bytes per sample (body %.1f, snappy "
                "protobuf), %.0f KiB per request" %
                (plain["polls"], rw["polls"], sent, reqs, added,
                 1e6 * added / sent,
                 100 * added / plain["cpu"] if plain["cpu"] else 0,
                 wire / sent, body / sent, wire / reqs / 1024 if reqs else 0))

    def report_snmp(self, n, r, wps, cds):
        rows, expect = self.common(r, n, cds, "PDU")
        # Per outlet reading: each PDU poll reads 48 outlets (and the
        # inlet, for both programs).
        for x in rows:
            x["ms"] /= OUTLETS
            x["polls"] *= OUTLETS
        by = {x["name"]: x for x in rows}
        w = by[wps[0].name]
        c = by[cds[0].name]
        extra = ["readings are outlet readings (power and energy of one "
                 "outlet); each PDU poll also reads the inlet",
                 "collectd readings are %d PDUs x %d x %.1f s / %d s; RRD "
                 "files it updated in the last interval: %d of %d" %
                 (n, OUTLETS, r["elapsed"], self.a.interval,
                  r["fresh"][cds[0].name], n * (OUTLETS + 1)),
                 self.load_line(r)]
        cr = c["ms"] / w["ms"] if w["ms"] else float("inf")
        mr = c["per"] / w["per"] if w["per"] > 0 else float("inf")
        extra.append("ratio collectd / wattpath: CPU %.1fx, memory %.1fx" %
                     (cr, mr))
        extra.append("target: >= %.0fx less CPU per outlet reading than "
                     "collectd: %s" % (RATIO, self.verdict(cr >= RATIO)))
        extra += self.exporter_lines(by, w, n, r)
        extra += self.ab_lines(by, w, "PDU")
        extra += self.floor_lines(by, w, "outlet reading")
        log("  (CPU s/1000 polls below is per 1,000 outlet readings)")
        self.print_rows(rows, "PDU", extra)

    def ab_lines(self, by, w, unit):
        """--ab: this build against the other, same devices, same run."""
        ab = by.get(w["name"] + "-ab")
        if not ab or not ab["ms"] or ab["per"] <= 0:
            return []
        return ["A/B: wattpath / wattpath-ab (--ab %s): CPU %.2fx, memory "
                "per %s %.2fx" % (self.a.ab, w["ms"] / ab["ms"], unit,
                                  w["per"] / ab["per"])]

    def floor_lines(self, by, w, what):
        fl = [x for x in by.values() if x["name"].endswith("-floor")]
        if not fl or not fl[0]["ms"] or fl[0]["ms"] != fl[0]["ms"]:
            return []
        f = fl[0]
        ratio = w["ms"] / f["ms"]
        if f["fail"] > 0.01 * (f["polls"] + f["fail"]):
            return ["floor: %.0f of %.0f polls failed: no floor measured in "
                    "this run (%s)" % (f["fail"], f["polls"] + f["fail"],
                                       what)]
        return ["floor (tests/bench/floor.c: the same GETs, nothing parsed "
                "or stored): %.4f ms per %s; %.0f polls, %.0f failed" %
                (f["ms"], what, f["polls"], f["fail"]),
                "ratio wattpath / floor: CPU %.2fx; target <= %.1fx: %s" %
                (ratio, FLOOR_RATIO, self.verdict(ratio <= FLOOR_RATIO))]

    def exporter_lines(self, by, w, n, r):
        ex = [x for x in by.values() if x["name"].endswith("-snmp_exporter")]
        pr = [x for x in by.values() if x["name"].endswith("-prometheus")]
        if not ex or not pr:
            return []
        e, p = ex[0], pr[0]
        ms = 1000 * (e["cpu"] + p["cpu"]) / e["polls"] if e["polls"] else \
            float("nan")
        per = e["per"] + p["per"]
        cr = ms / w["ms"] if w["ms"] else float("inf")
        mr = per / w["per"] if w["per"] > 0 else float("inf")
        return ["snmp_exporter + Prometheus (scraping it for each PDU every "
                "%d s, its TSDB included): %.4f ms CPU per outlet reading, "
                "%.1f KiB peak RSS per PDU; Prometheus targets up at the "
                "end: %s of %d" % (self.a.interval, ms, per,
                                   "%.0f" % r["prom_up"] if r.get("prom_up")
                                   is not None else "?", n),
                "ratio (snmp_exporter + Prometheus) / wattpath: CPU %.1fx, "
                "memory %.1fx" % (cr, mr),
                "target: >= %.0fx less CPU per outlet reading than "
                "snmp_exporter + Prometheus: %s" %
                (EXPORTER_RATIO, self.verdict(cr >= EXPORTER_RATIO))]

    def run(self):
        self.start_sim()
        self.baselines()
        if "redfish" in self.a.only:
            for n in self.a.sizes:
                self.redfish(n)
        if "snmp" in self.a.only:
            self.snmp(self.a.pdus)

    def cleanup(self):
        self.procs.stop_all()
        if self.a.keep:
            log("kept %s" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for want in (65536, hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(want, hard)))
            return want
        except (ValueError, OSError):
            continue
    return soft


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wattpath", default=os.path.join(ROOT, "build",
                                                       "wattpath"))
    ap.add_argument("--sim", default=os.path.join(ROOT, "wattpath-sim"))
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--pdus", type=int, default=200)
    ap.add_argument("--interval", type=int, default=10,
                    help="Redfish poll interval (s)")
    ap.add_argument("--snmp-interval", type=int, default=30,
                    help="SNMP interval (s): the simulator's one-thread "
                    "agent must not be the bottleneck")
    ap.add_argument("--rrdcached-max", type=int, default=1000,
                    help="run the rrdcached variant up to this many BMCs")
    ap.add_argument("--window", type=int, default=4)
    ap.add_argument("--only", default="redfish,snmp")
    ap.add_argument("--no-rrdcached", action="store_true")
    ap.add_argument("--ab", metavar="BIN",
                    help="A/B: another wattpath build (wattpath-ab) polls "
                    "the same devices at the same time, its own data dir")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-collectd", action="store_true",
                    help="no collectd in the Redfish runs (its figures: none)")
    ap.add_argument("--no-remote-write", dest="remote_write",
                    action="store_false",
                    help="no wattpath-remote-write beside the Redfish runs")
    ap.add_argument("--floor", default=os.path.join(ROOT, "build", "bench",
                                                    "floor"),
                    help="tests/bench/floor.c built ('' to leave it out)")
    ap.add_argument("--profile", type=int, default=0, metavar="S",
                    help="after each window, perf-record the first "
                    "wattpath for S seconds and print its top symbols")
    ap.add_argument("--no-exporter", dest="exporter", action="store_false",
                    help="leave out snmp_exporter + Prometheus")
    ap.add_argument("--fsync", choices=["segment", "none"],
                    help="also run wattpath with this collector.fsync")
    a = ap.parse_args()
    a.sizes = [int(x) for x in a.sizes.split(",") if x]
    a.rf_interval = a.interval
    a.only = a.only.split(",")
    for b in (a.wattpath, a.sim):
        if not os.access(b, os.X_OK):
            sys.exit("bench: %s not built" % b)
    if shutil.which("collectd") is None:
        sys.exit("bench: collectd not installed (scripts/deps.sh bench)")
    if a.exporter and (shutil.which("prometheus-snmp-exporter") is None or
                       shutil.which("prometheus") is None):
        sys.exit("bench: prometheus-snmp-exporter or prometheus not "
                 "installed (scripts/deps.sh bench)")
    if a.floor and not os.access(a.floor, os.X_OK):
        sys.exit("bench: %s not built (make bench builds it)" % a.floor)
    nofile = raise_nofile()
    log("open-file limit %d" % nofile)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    b = Bench(a)
    rc = 0
    try:
        b.run()
    except (Stop, RuntimeError, subprocess.CalledProcessError) as e:
        log("bench: %s" % e)
        rc = 1
    finally:
        b.cleanup()
    return rc


if __name__ == "__main__":
    sys.exit(main())
