#!/usr/bin/python3
"""metrics_server.py - a /metrics HTTP peer for the inband tests (stdlib only).

Serves exposition-text fixtures with counters that advance on every scrape,
and fault modes.

  metrics_server.py --port P [--addr 127.0.0.1] --route /metrics=FILE ...
                    [--step N | --rate R] [--openmetrics /path]

GET <route>                  the file; the k-th scrape (k = 0, 1, ...) adds
                             k*step to every counter sample (TYPE counter,
                             or a name ending in _total when untyped) and to
                             histogram/summary _sum and _count.  With
                             --rate, the route's counters advance R per
                             second of wall-clock time since its first
                             scrape instead (a real device's counter: the
                             same rate however late or seldom it is read).
GET /fault/<mode><route>     the same route, broken:
    garbage     an HTML error page with status 200
    truncated   the body cut in the middle of a line (valid HTTP)
    cutconn     Content-Length promises more than is sent, then close
    wrongtype   every "counter" TYPE declared "gauge"
    backwards   counters restart at 0 from the 3rd scrape (engine restart,
                driver reload)
    missing     energy and token counters removed
    oversized   20 MiB of valid-looking lines
    slow        sleeps 30 s before answering
    http500     status 500
  and the hostile ones (tests/integration/806-fault-metrics-peer.sh):
    hugeline    one 4 MiB line with no newline
    endless     a chunked body of valid lines that never ends
    trickle     a valid answer, its body one byte every 0.2 s
    longlength  Content-Length 4096 more than is sent; the connection held
    shortlength Content-Length half the body: cut mid-line
    stepback    on every odd scrape counters 1.5 steps below the honest
                value: half a step below the scrape before
    jump        counters 1e18 above the honest value from the 4th scrape
    nan, inf    counters read NaN, +Inf
GET /count                   scrapes served so far per route, as JSON.
"""
import argparse
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{.*\})?([ \t]+)(\S+)(.*)$')
SUFFIXES = ("_total", "_sum", "_count", "_created", "_bucket")


def family_types(text):
    types = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) >= 4 and p[0] == "#" and p[1] == "TYPE":
            types[p[2]] = p[3]
    return types


def advancing(name, types):
    """True if this sample is a monotonic total that should move."""
    if types.get(name) == "counter":
        return True
    for suf in SUFFIXES:
        if name.endswith(suf):
            fam = name[: -len(suf)]
            t = types.get(fam)
            if t == "counter" and suf == "_total":
                return True
            if t in ("histogram", "summary") and suf in ("_sum", "_count"):
                return True
    return name not in types and name.endswith("_total")


def fmt(v, like):
    if "." in like or "e" in like.lower():
        return repr(float(v))
    return str(int(v))


def render(text, k, step, mode, since=None):
    """The route's text at its k-th scrape.  step: what one scrape adds;
    since: with --rate, (seconds since the first scrape, seconds since the
    3rd or None) times the rate, in place of k*step and (k-2)*step."""
    types = family_types(text)
    ahead, after3 = (k * step, (k - 2) * step) if since is None else since
    out = []
    for line in text.splitlines():
        if mode == "wrongtype" and line.startswith("# TYPE ") and line.endswith(" counter"):
            line = line[: -len("counter")] + "gauge"
        m = SAMPLE.match(line)
        if m and not line.startswith("#"):
            name, labels, sp, val, rest = m.groups()
            if mode == "missing" and ("ENERGY" in name or "tokens" in name
                                      or "generated" in name or "input_length" in name):
                continue
            if advancing(name, types) and not name.endswith("_created"):
                try:
                    v = float(val)
                except ValueError:
                    v = None
                if v is not None and v == v and abs(v) != float("inf"):
                    if mode == "backwards" and k >= 2:
                        v = after3
                    else:
                        v = v + ahead
                    if mode == "stepback" and k % 2 == 1:
                        v -= 1.5 * step
                    if mode == "jump" and k >= 3:
                        v += 1e18
                    text = fmt(v, val)
                    if mode in ("nan", "inf"):
                        text = "NaN" if mode == "nan" else "+Inf"
                    line = name + (labels or "") + sp + text + rest
        out.append(line)
    return "\n".join(out) + "\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, f, *a):
        sys.stderr.write("metrics_server: " + (f % a) + "\n")

    def send(self, status, body, ctype="text/plain; version=0.0.4; charset=utf-8",
             length=None):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        srv = self.server
        path = self.path.split("?", 1)[0]
        if path == "/count":
            return self.send(200, json.dumps(srv.counts), "application/json")
        mode = None
        if path.startswith("/fault/"):
            rest = path[len("/fault/"):]
            mode, _, route = rest.partition("/")
            path = "/" + route
        if path not in srv.routes:
            return self.send(404, "not found\n")
        with srv.lock:
            k = srv.counts.get(path, 0)
            srv.counts[path] = k + 1
            now = time.time()
            first = srv.first.setdefault(path, now)
            third = srv.third.setdefault(path, now) if k >= 2 else None
        since = None
        if srv.rate is not None:
            since = (srv.rate * (now - first),
                     srv.rate * (now - third) if third is not None else None)
        text = srv.routes[path]
        om = path in srv.om_routes
        ctype = ("application/openmetrics-text; version=1.0.0; charset=utf-8"
                 if om else "text/plain; version=0.0.4; charset=utf-8")
        if mode == "slow":
            time.sleep(30)
        if mode == "http500":
            return self.send(500, "internal error\n")
        if mode == "garbage":
            return self.send(200, "<html><body><h1>502 Bad Gateway</h1></body></html>\n")
        if mode == "oversized":
            line = "filler_metric{gpu=\"0\",pad=\"%s\"} 1\n" % ("x" * 200)
            return self.send(200, line * (20 * 1024 * 1024 // len(line)), ctype)
        if mode in ("hugeline", "endless", "trickle", "longlength"):
            return self.hostile(mode, render(text, k, srv.step, None, since), ctype)
        body = render(text, k, srv.step, mode, since)
        if om:
            body += "# EOF\n"
        if mode == "truncated":
            cut = body.rfind("\n", 0, len(body) // 2) + 12
            return self.send(200, body[:cut], ctype)
        if mode == "shortlength":
            data = body.encode()
            return self.send(200, data, ctype, length=len(data) // 2)
        if mode == "cutconn":
            data = body.encode()
            self.send(200, data[: len(data) // 2], ctype, length=len(data))
            self.close_connection = True
            return None
        return self.send(200, body, ctype)

    def hostile(self, mode, body, ctype):
        """Faults that need the socket: a reader must give up, not hang."""
        data = body.encode()
        try:
            if mode == "hugeline":
                return self.send(200, b"x" * (4 << 20), ctype)
            if mode == "longlength":
                self.send(200, data, ctype, length=len(data) + 4096)
                time.sleep(60)
                return None
            if mode == "trickle":
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for i in range(len(data)):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.2)
                return None
            # endless: chunk after chunk until the reader hangs up
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            line = b'filler_metric{gpu="0"} 1\n' * 400
            while True:	# 10 KB every 10 ms: the other routes keep the GIL
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--route", action="append", default=[], help="/path=FILE")
    ap.add_argument("--openmetrics", action="append", default=[], help="/path")
    ap.add_argument("--step", type=float, default=1000.0)
    ap.add_argument("--rate", type=float, default=None,
                    help="counters advance this much per second (not per scrape)")
    a = ap.parse_args()
    srv = ThreadingHTTPServer((a.addr, a.port), Handler)
    srv.daemon_threads = True
    srv.routes = {}
    for r in a.route:
        p, _, f = r.partition("=")
        with open(f, encoding="utf-8") as fh:
            srv.routes[p] = fh.read()
    srv.om_routes = set(a.openmetrics)
    srv.step, srv.rate = a.step, a.rate
    srv.first, srv.third = {}, {}
    srv.counts = {}
    srv.lock = threading.Lock()
    sys.stderr.write("metrics_server: listening on %s:%d\n" % (a.addr, a.port))
    srv.serve_forever()


if __name__ == "__main__":
    main()
