#!/usr/bin/python3
"""redfish_server.py - a test Redfish service for wattpath's integration tests.

Serves a fixture tree laid out as <root>/redfish/v1/<path>/index.json at
/redfish/v1/<path>, over HTTP or HTTPS (--cert/--key), with Redfish sessions
and/or HTTP Basic, and makes power readings follow a known trace and energy
counters its integral (so a test can check a collector's energy).

Power trace (--trace): "W" (constant) or "W1:S1,W2:S2,..." (W1 watts for S1
seconds, then W2 for S2 seconds..., repeating).  Every power reading served
(EnvironmentMetrics.PowerWatts, Sensor ReadingType Power, PowerControl
PowerConsumedWatts, PowerSupplyMetrics.InputPowerWatts, Outlet/Circuit/
PowerDistributionMetrics PowerWatts, MetricReport values of PowerWatts) is
P(t); every energy reading (MetricReport EnergyJoules values too) is its
fixture value plus E(t) (J, or kWh for EnergykWh), E(t) the integral of P
since the server started.

Test endpoints (no auth): GET /_test/stats -> {"open","peak_open","refused"
(logins refused for want of a slot),"created","deleted","gets","posts","t0" (wall time the trace started),"trace"};
GET /_test/log -> [[wall time, method, path], ...] of the requests served;
GET /_test/energy?from=T1&to=T2 -> {"joules"}: the trace's integral between
two wall times (what one energy counter advances by); POST /_test/fault?mode=M[&path=P] sets a fault;
POST /_test/expire drops every session (the next request gets 401).

Queries: $select=A,B (top-level properties), $expand=.($levels=1) or
$expand=* (each collection member that is a bare link gets its resource
inlined), $skip=N; --page N serves collections N members at a time with
Members@odata.nextLink.  A member inlined in a collection file is also
served at its own @odata.id (as a service must).  --no-expand answers 400
to $expand.

Fault modes: malformed, truncated, html, redirect (loop), oversized (5 MiB),
hang (accept, never answer), trickle (a byte a second), 5xx, 401 (GETs);
slowlogin (a session POST answers after --slow seconds, then the session
exists).

Value faults (POST /_test/vfault?mode=M, or --vfault), on every reading
served from then on, the rest of the answer intact: jump (energy readings
+1e15 J), stepback (energy readings 1 kJ lower on every other GET of a
resource),
absurdpower (power readings 1e12 W, energy counters still right),
evilstrings (Manufacturer, Model, FirmwareVersion, SerialNumber carrying
CR, LF and ESC sequences).

Push (--push): /redfish/v1/EventService (unless the fixture has one) names
ServerSentEventUri /redfish/v1/EventService/SSE; a GET of it (authed) is a
text/event-stream that sends, every --push-every seconds, a MetricReport
(#MetricReport.v1_5_0) with every EnvironmentMetrics resource of the tree's
EnergyJoules and PowerWatts at that instant (MetricProperty
"<uri>#/EnergyJoules", MetricValue a string, Timestamp with milliseconds),
as "id: N" + "data: <json>".  POST /_test/push?action=A acts on it: drop
(close every stream), reboot (close every stream, forget every session,
refuse streams and logins with 503 for --reboot-secs), stall (streams stay
open, send nothing more until "resume"), replay (each stream sends its
last report again, then goes on), malformed (one event of broken JSON),
oversized (one event of 2 MiB), resume.  /_test/stats gains "sse_open"
(streams open now), "sse_opened" (since the start), "pushed" (reports
sent), "last_event_id" (the Last-Event-ID header of the latest stream).

POST delivery (--push too): /redfish/v1/EventService/Subscriptions takes
a POST of an EventDestination (Destination https://..., Context, ...;
201 with Location), lists its members (GET), serves each (GET; HttpHeaders
null, as the schema says of responses) and DELETEs them.  Each
subscription gets, every --push-every seconds, the same MetricReport the
stream sends, POSTed to its Destination from the --bind address.  This is
a test peer: it does not verify the collector's certificate (a
self-signed one per test).  /_test/push?action=reboot also loses every
subscription (as a BMC that keeps them in RAM does), lose drops them
without a reboot, replay has each subscription POST its last report
again, stall/resume hold the POSTs too.  /_test/stats gains "subs" (the
subscriptions now, with their Context), "sub_created", "sub_deleted",
"posted" (reports POSTed and accepted with 2xx), "post_refused" (answered
otherwise or failed); GET /_test/subs lists the subscriptions whole.
"""
import http.client
import argparse
import base64
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Trace:
    def __init__(self, spec):
        self.steps = []
        for part in spec.split(","):
            if ":" in part:
                w, s = part.split(":")
                self.steps.append((float(w), float(s)))
            else:
                self.steps.append((float(part), 1e12))
        self.period = sum(s for _, s in self.steps)
        # The trace runs on the wall clock, the clock wattpath's journal
        # keeps: a host clock slewed or stepped during a test (chrony on a
        # fresh CI machine) moves the counters and the journal's times
        # alike, so energy checked against /_test/energy stays exact.
        self.t0_real = time.time()

    def power(self, t):
        t = t % self.period
        for w, s in self.steps:
            if t < s:
                return w
            t -= s
        return self.steps[-1][0]

    def energy(self, t):
        full, rem = divmod(t, self.period)
        e = full * sum(w * s for w, s in self.steps)
        for w, s in self.steps:
            d = min(rem, s)
            e += w * d
            rem -= d
            if rem <= 0:
                break
        return e

    def now(self):
        t = time.time() - self.t0_real
        return self.power(t), self.energy(t)


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.sessions = {}          # id -> token
        self.created = self.deleted = self.gets = self.posts = 0
        self.refused = 0            # logins refused: no session slot left
        self.fault = args.fault
        self.fault_path = args.fault_path
        self.vfault = args.vfault
        self.vgets = {}             # path -> GETs served with a vfault
        self.trace = Trace(args.trace)
        self.log = []               # (wall time, method, path), last 10000
        self.peak_open = 0
        self.sse_open = self.sse_opened = self.pushed = 0
        self.push_gen = 0           # bumped by drop/reboot: streams end
        self.push_stall = False
        self.push_once = {}         # stream id -> one-off action pending
        self.down_until = 0.0       # reboot: 503 until then
        self.env_paths = None       # EnvironmentMetrics URIs of the tree
        self.last_event_id = ""     # Last-Event-ID of the latest stream GET
        self.subs = {}              # id -> EventDestination
        self.sub_seq = 0
        self.sub_created = self.sub_deleted = 0
        self.posted = self.post_refused = 0
        self.sub_once = {}          # id -> one-off action pending

    def note(self, method, path):
        with self.lock:
            self.log.append((time.time(), method, path))
            if len(self.log) > 10000:
                del self.log[:1000]


def set_reading(obj, key, value):
    if isinstance(obj.get(key), dict) and obj[key].get("Reading") is not None:
        obj[key]["Reading"] = value


# --clock-skew S: every Sensor's ReadingTime is our clock + S seconds
CLOCK_SKEW = None


def advance(doc, p, e):
    """Makes the readings of one resource follow the trace."""
    t = doc.get("@odata.type", "")
    if "Sensor." in t and "Collection" not in t:
        rt = doc.get("ReadingType")
        if doc.get("Reading") is None:
            return
        if CLOCK_SKEW is not None:
            doc["ReadingTime"] = time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + CLOCK_SKEW))
        if rt == "Power":
            doc["Reading"] = p
        elif rt == "EnergyJoules":
            doc["Reading"] = round(doc["Reading"] + e, 3)
        elif rt == "EnergykWh":
            doc["Reading"] = round(doc["Reading"] + e / 3.6e6, 6)
        return
    if "MetricReport." in t:
        # TelemetryService report: MetricValue strings follow the trace too
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for m in doc.get("MetricValues", []) or []:
            mp = m.get("MetricProperty", "") if isinstance(m, dict) else ""
            if mp.endswith("/Reading"):
                mp = mp[:-len("/Reading")]
            try:
                v = float(m.get("MetricValue"))
            except (TypeError, ValueError):
                continue
            if mp.endswith("#/EnergyJoules"):
                m["MetricValue"] = "%.3f" % (v + e)
            elif mp.endswith("#/PowerWatts"):
                m["MetricValue"] = "%g" % p
            else:
                continue
            m["Timestamp"] = now
        return
    if "SensorCollection" in t:
        for m in doc.get("Members", []):
            if "ReadingType" in m:
                advance(m, p, e)
        return
    for k in ("PowerWatts", "InputPowerWatts"):
        set_reading(doc, k, p)
    if isinstance(doc.get("EnergyJoules"), dict) and \
            doc["EnergyJoules"].get("Reading") is not None:
        doc["EnergyJoules"]["Reading"] = round(
            doc["EnergyJoules"]["Reading"] + e, 3)
    if isinstance(doc.get("EnergykWh"), dict) and \
            doc["EnergykWh"].get("Reading") is not None:
        doc["EnergykWh"]["Reading"] = round(
            doc["EnergykWh"]["Reading"] + e / 3.6e6, 6)
    for pc in doc.get("PowerControl", []) or []:
        if isinstance(pc, dict) and pc.get("PowerConsumedWatts") is not None:
            pc["PowerConsumedWatts"] = p


def value_fault(doc, mode, odd):
    """Makes the readings of one resource lie the way mode says."""
    if isinstance(doc, list):
        for x in doc:
            value_fault(x, mode, odd)
        return
    if not isinstance(doc, dict):
        return
    for k, v in list(doc.items()):
        if isinstance(v, (dict, list)):
            value_fault(v, mode, odd)
        elif mode == "evilstrings" and k in ("Manufacturer", "Model",
                                             "FirmwareVersion",
                                             "SerialNumber") and \
                isinstance(v, str):
            doc[k] = v + "\r\nwattpath: FORGED line\x1b[2J\x1b[31m"
    energy = doc.get("ReadingType") in ("EnergyJoules",) or \
        "EnergyJoules" in doc
    if mode == "absurdpower":
        for k in ("PowerWatts", "InputPowerWatts"):
            set_reading(doc, k, 1e12)
        if doc.get("ReadingType") == "Power" and \
                doc.get("Reading") is not None:
            doc["Reading"] = 1e12
        for pc in doc.get("PowerControl", []) or []:
            if isinstance(pc, dict) and pc.get("PowerConsumedWatts"):
                pc["PowerConsumedWatts"] = 1e12
    elif mode in ("jump", "stepback") and energy:
        d = 1e15 if mode == "jump" else (-1000.0 if odd else 0.0)
        if doc.get("ReadingType") == "EnergyJoules" and \
                doc.get("Reading") is not None:
            doc["Reading"] = round(doc["Reading"] + d, 3)
        ej = doc.get("EnergyJoules")
        if isinstance(ej, dict) and ej.get("Reading") is not None:
            ej["Reading"] = round(ej["Reading"] + d, 3)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "wattpath-test-redfish"
    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall per reply

    def log_message(self, fmt, *a):
        if self.server.st.args.verbose:
            sys.stderr.write("redfish_server: " + fmt % a + "\n")

    # -- helpers --
    def send(self, code, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def authed(self):
        st = self.server.st
        mode = st.args.auth
        if mode == "none":
            return True
        tok = self.headers.get("X-Auth-Token")
        if tok and mode in ("session", "any"):
            with st.lock:
                if tok in st.sessions.values() and st.fault != "401":
                    return True
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic ") and mode in ("basic", "any"):
            try:
                u, pw = base64.b64decode(auth[6:]).decode().split(":", 1)
            except Exception:
                return False
            return u == st.args.user and pw == st.args.password \
                and st.fault != "401"
        return False

    def faulted(self, path):
        st = self.server.st
        f = st.fault
        if not f or f == "401" or not path.startswith(st.fault_path):
            return False
        if f == "malformed":
            self.send(200, '{"@odata.id": "x", "Reading": nope')
        elif f == "truncated":
            self.send(200, '{"@odata.type": "#Chassis.v1_0_0.Chassis", "Id":')
        elif f == "html":
            self.send(200, "<html><body><h1>Service Unavailable</h1></body>"
                      "</html>", "text/html")
        elif f == "redirect":
            self.send(302, "", headers=[("Location", path)])
        elif f == "oversized":
            self.send(200, '{"Pad": "' + "x" * (5 << 20) + '"}')
        elif f == "hang":
            time.sleep(3600)
        elif f == "trickle":
            data = json.dumps({"@odata.id": path, "Pad": "y" * 200}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(1)
        elif f == "5xx":
            self.send(503, {"error": {"code": "Base.1.0.ServiceUnavailable",
                                      "message": "try later"}})
        else:
            return False
        return True

    def load_file(self, path):
        rel = path[len("/redfish/v1"):].strip("/")
        f = os.path.join(self.server.st.args.root, "redfish", "v1", rel,
                         "index.json")
        if ".." in rel.split("/") or not os.path.isfile(f):
            return None
        with open(f, "rb") as fh:
            return json.loads(fh.read())

    def load(self, path):
        doc = self.load_file(path)
        if doc is not None:
            return doc
        # a member inlined in its parent collection, at its own URI
        parent = path.rstrip("/").rsplit("/", 1)[0]
        coll = self.load_file(parent) if parent.startswith("/redfish/v1") \
            else None
        for m in (coll or {}).get("Members", []) or []:
            if isinstance(m, dict) and len(m) > 1 and \
                    m.get("@odata.id", "").rstrip("/") == path.rstrip("/"):
                return m
        return None

    def expand(self, doc, p, e):
        """$expand: bare member links get their resources."""
        out = []
        for m in doc.get("Members", []) or []:
            if isinstance(m, dict) and list(m.keys()) == ["@odata.id"]:
                sub = self.load(m["@odata.id"])
                if sub is not None:
                    sub.setdefault("@odata.id", m["@odata.id"])
                    advance(sub, p, e)
                    m = sub
            out.append(m)
        doc["Members"] = out

    def page(self, doc, path, q):
        """--page N and $skip: one page of Members, with a nextLink."""
        n = self.server.st.args.page
        members = doc.get("Members")
        if not isinstance(members, list):
            return
        skip = int(q.get("$skip", ["0"])[0] or 0)
        if n <= 0 and skip == 0:
            return
        end = skip + n if n > 0 else len(members)
        doc["Members"] = members[skip:end]
        doc["Members@odata.count"] = len(members)
        if end < len(members):
            keep = ["$skip=%d" % end] + ["%s=%s" % (k, v[0])
                                         for k, v in q.items()
                                         if k in ("$expand",)]
            doc["Members@odata.nextLink"] = path + "?" + "&".join(keep)

    # -- methods --
    def do_GET(self):
        st = self.server.st
        u = urlsplit(self.path)
        path = u.path
        if path == "/_test/stats":
            with st.lock:
                self.send(200, {"open": len(st.sessions),
                                "peak_open": st.peak_open,
                                "refused": st.refused,
                                "created": st.created, "deleted": st.deleted,
                                "gets": st.gets, "posts": st.posts,
                                "t0": st.trace.t0_real,
                                "trace": st.args.trace,
                                "sse_open": st.sse_open,
                                "sse_opened": st.sse_opened,
                                "pushed": st.pushed,
                                "last_event_id": st.last_event_id,
                                "subs": [d["Context"] for d in
                                         st.subs.values()],
                                "sub_created": st.sub_created,
                                "sub_deleted": st.sub_deleted,
                                "posted": st.posted,
                                "post_refused": st.post_refused})
            return
        if path == "/_test/subs":
            with st.lock:
                self.send(200, list(st.subs.values()))
            return
        if path == "/_test/log":
            with st.lock:
                self.send(200, [list(x) for x in st.log])
            return
        if path == "/_test/energy":
            # Integral of the trace in J between wall times from and to.
            q = parse_qs(u.query)
            a = float(q["from"][0]) - st.trace.t0_real
            b = float(q["to"][0]) - st.trace.t0_real
            self.send(200, {"joules": st.trace.energy(b) - st.trace.energy(a)})
            return
        st.note("GET", self.path)
        with st.lock:
            st.gets += 1
        if self.faulted(path):
            return
        if path.rstrip("/") not in ("/redfish/v1", "/redfish") and \
                not self.authed():
            self.send(401, {"error": {"code": "Base.1.0.NoValidSession"}})
            return
        if path.rstrip("/") == "/redfish":
            self.send(200, {"v1": "/redfish/v1/"})
            return
        if st.args.push and path.rstrip("/") == "/redfish/v1/EventService/SSE":
            self.sse()
            return
        if st.args.push and path.rstrip("/").startswith(SUBS):
            self.get_subs(path.rstrip("/"))
            return
        doc = self.load(path)
        if doc is None and st.args.push and \
                path.rstrip("/") == "/redfish/v1/EventService":
            doc = {"@odata.id": "/redfish/v1/EventService",
                   "@odata.type": "#EventService.v1_9_0.EventService",
                   "Id": "EventService", "Name": "Event Service",
                   "ServiceEnabled": True,
                   "ServerSentEventUri": "/redfish/v1/EventService/SSE",
                   "EventFormatTypes": ["Event", "MetricReport"],
                   "Subscriptions": {"@odata.id":
                                     "/redfish/v1/EventService/Subscriptions"}}
        if doc is None:
            self.send(404, {"error": {"code": "Base.1.0.ResourceMissing"}})
            return
        p, e = st.trace.now()
        p = int(p) if float(p).is_integer() else p
        advance(doc, p, e)
        if st.vfault:
            with st.lock:
                st.vgets[path] = st.vgets.get(path, 0) + 1
                odd = st.vgets[path] % 2 == 1
            value_fault(doc, st.vfault, odd)
        q = parse_qs(u.query)
        if "$expand" in q:
            if st.args.no_expand:
                self.send(400, {"error": {"code":
                                          "Base.1.0.QueryNotSupported"}})
                return
            self.expand(doc, p, e)
        self.page(doc, path, q)
        if "$select" in q:
            keep = set(q["$select"][0].split(","))
            doc = {k: v for k, v in doc.items()
                   if k in keep or k.startswith("@odata")}
        self.send(200, doc)

    # -- push --
    def env_paths(self):
        """The URIs of every EnvironmentMetrics resource of the tree."""
        st = self.server.st
        if st.env_paths is None:
            out = []
            base = os.path.join(st.args.root, "redfish", "v1")
            for d, _, files in sorted(os.walk(base)):
                if "index.json" not in files:
                    continue
                with open(os.path.join(d, "index.json"), "rb") as fh:
                    doc = json.loads(fh.read())
                if "EnvironmentMetrics." in doc.get("@odata.type", ""):
                    rel = os.path.relpath(d, base).replace(os.sep, "/")
                    out.append("/redfish/v1/" + rel)
            st.env_paths = out
        return st.env_paths

    def report(self, seq):
        """A MetricReport of every EnvironmentMetrics' energy and power."""
        st = self.server.st
        t = time.time()
        p, e = st.trace.now()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + \
            ".%03dZ" % int((t % 1) * 1000)
        vals = []
        for uri in self.env_paths():
            doc = self.load(uri)
            advance(doc, p, e)
            if st.vfault:
                value_fault(doc, st.vfault, seq % 2 == 1)
            for k in ("EnergyJoules", "PowerWatts"):
                r = (doc.get(k) or {}).get("Reading")
                if r is None:
                    continue
                vals.append({"MetricId": uri.rsplit("/", 2)[-2] + "_" + k,
                             "MetricProperty": uri + "#/" + k,
                             "MetricValue": "%.3f" % r, "Timestamp": stamp})
        return {"@odata.id": "/redfish/v1/TelemetryService/MetricReports/"
                             "PushedPower",
                "@odata.type": "#MetricReport.v1_5_0.MetricReport",
                "Id": "PushedPower", "Name": "Pushed power",
                "Timestamp": stamp, "MetricValues": vals}

    def sse(self):
        """The SSE stream: a report every --push-every s until dropped."""
        st = self.server.st
        with st.lock:
            if time.time() < st.down_until:
                down = True
            else:
                down = False
                st.sse_open += 1
                st.sse_opened += 1
                sid = st.sse_opened
                gen = st.push_gen
                st.last_event_id = self.headers.get("Last-Event-ID", "")
        if down:
            self.send(503, {"error": {"code": "Base.1.0.ServiceUnavailable"}})
            return
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b": wattpath test stream\n\n")
            self.wfile.flush()
            seq, last = 0, None
            while True:
                with st.lock:
                    if st.push_gen != gen:
                        break
                    stall = st.push_stall
                    once = st.push_once.pop(sid, None)
                if once == "replay" and last is not None:
                    self.wfile.write(last)
                elif once == "malformed":
                    self.wfile.write(b"data: {\"MetricValues\": [nope\n\n")
                elif once == "oversized":
                    self.wfile.write(b"data: " + b"x" * (2 << 20) + b"\n\n")
                elif not stall:
                    seq += 1
                    body = json.dumps(self.report(seq))
                    last = ("id: %d\ndata: %s\n\n" % (seq, body)).encode()
                    self.wfile.write(last)
                    with st.lock:
                        st.pushed += 1
                self.wfile.flush()
                if once is None:
                    time.sleep(st.args.push_every)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            with st.lock:
                st.sse_open -= 1

    # -- subscriptions (POST delivery) --
    def get_subs(self, p):
        st = self.server.st
        with st.lock:
            if p == SUBS:
                doc = {"@odata.id": SUBS,
                       "@odata.type": "#EventDestinationCollection."
                                      "EventDestinationCollection",
                       "Name": "Event Subscriptions",
                       "Members@odata.count": len(st.subs),
                       "Members": [{"@odata.id": SUBS + "/" + i}
                                   for i in st.subs]}
            else:
                doc = st.subs.get(p.rsplit("/", 1)[-1])
        if doc is None:
            self.send(404, {"error": {"code": "Base.1.0.ResourceMissingAtURI"}})
            return
        self.send(200, doc)

    def create_sub(self, data):
        st = self.server.st
        try:
            req = json.loads(data)
            dest = urlsplit(req["Destination"])
            assert dest.scheme == "https" and dest.hostname
            assert req.get("Protocol") == "Redfish"
        except Exception:
            self.send(400, {"error": {"code": "Base.1.0.PropertyValueError"}})
            return
        with st.lock:
            st.sub_seq += 1
            sid = str(st.sub_seq)
            st.subs[sid] = {
                "@odata.id": SUBS + "/" + sid,
                "@odata.type": "#EventDestination.v1_13_0.EventDestination",
                "Id": sid, "Name": "Subscription " + sid,
                "Destination": req["Destination"],
                "Context": req.get("Context", ""), "Protocol": "Redfish",
                "SubscriptionType": req.get("SubscriptionType",
                                            "RedfishEvent"),
                "EventFormatType": req.get("EventFormatType", "Event"),
                "HttpHeaders": None}
            st.sub_created += 1
        threading.Thread(target=deliver, args=(st, sid), daemon=True).start()
        self.send(201, st.subs[sid], headers=[("Location", SUBS + "/" + sid)])

    def sessions_path(self, path):
        p = path.rstrip("/")
        if self.server.st.args.legacy_sessions:
            return p == "/redfish/v1/Sessions"
        return p == "/redfish/v1/SessionService/Sessions"

    def do_POST(self):
        st = self.server.st
        path = urlsplit(self.path).path
        data = self.body()
        if path == "/_test/fault":
            q = parse_qs(urlsplit(self.path).query)
            with st.lock:
                st.fault = q.get("mode", [""])[0]
                st.fault_path = q.get("path", ["/redfish"])[0]
            self.send(204)
            return
        if path == "/_test/vfault":
            q = parse_qs(urlsplit(self.path).query)
            with st.lock:
                st.vfault = q.get("mode", [""])[0]
            self.send(204)
            return
        if path == "/_test/expire":
            with st.lock:
                st.sessions.clear()
            self.send(204)
            return
        if path == "/_test/push":
            a = parse_qs(urlsplit(self.path).query).get("action", [""])[0]
            with st.lock:
                if a in ("drop", "reboot"):
                    st.push_gen += 1
                if a == "reboot":
                    st.sessions.clear()
                    st.down_until = time.time() + st.args.reboot_secs
                if a in ("stall", "resume"):
                    st.push_stall = a == "stall"
                if a in ("replay", "malformed", "oversized"):
                    for i in range(1, st.sse_opened + 1):
                        st.push_once[i] = a
                    for i in st.subs:
                        st.sub_once[i] = a
                if a in ("reboot", "lose"):
                    st.subs.clear()
            self.send(204)
            return
        st.note("POST", self.path)
        with st.lock:
            st.posts += 1
        if path.rstrip("/") == "/redfish/v1/SessionService/Sessions" and \
                st.args.legacy_sessions:
            self.send(405, {"error": {"code": "Base.1.0.OperationNotAllowed"}})
            return
        if time.time() < st.down_until:
            self.send(503, {"error": {"code": "Base.1.0.ServiceUnavailable"}})
            return
        if st.args.push and path.rstrip("/") == SUBS:
            if not self.authed():
                self.send(401, {"error": {"code": "Base.1.0.NoValidSession"}})
            else:
                self.create_sub(data)
            return
        if not self.sessions_path(path) or st.args.auth == "basic":
            self.send(405, "")
            return
        try:
            req = json.loads(data)
            ok = req.get("UserName") == st.args.user and \
                req.get("Password") == st.args.password
        except Exception:
            self.send(400, {"error": {"code": "Base.1.0.MalformedJSON"}})
            return
        if not ok:
            self.send(401, {"error": {"code": "Base.1.0.NoValidSession"}})
            return
        if st.fault == "slowlogin":
            time.sleep(st.args.slow)    # then the session is made
        with st.lock:
            if len(st.sessions) >= st.args.max_sessions:
                st.refused += 1
                self.send(503, {"error": {"code":
                                          "Base.1.0.SessionLimitExceeded"}})
                return
            sid = uuid.uuid4().hex[:12]
            tok = uuid.uuid4().hex
            st.sessions[sid] = tok
            st.created += 1
            st.peak_open = max(st.peak_open, len(st.sessions))
        uri = path.rstrip("/") + "/" + sid
        hdrs = [("X-Auth-Token", tok)]
        if st.args.session_uri != "body":
            hdrs.append(("Location", uri))
        if st.args.session_status == 204:
            self.send(204, "", headers=hdrs)
        else:
            self.send(201, {"@odata.id": uri, "Id": sid,
                            "UserName": st.args.user, "Password": None},
                      headers=hdrs)

    def do_DELETE(self):
        st = self.server.st
        path = urlsplit(self.path).path.rstrip("/")
        sid = path.rsplit("/", 1)[-1]
        tok = self.headers.get("X-Auth-Token")
        st.note("DELETE", self.path)
        if st.args.push and path.startswith(SUBS + "/"):
            ok = self.authed()
            with st.lock:
                code = 401 if not ok else 404 if sid not in st.subs else 204
                if code == 204:
                    del st.subs[sid]
                    st.sub_deleted += 1
            self.send(code, "")
            return
        with st.lock:
            if sid in st.sessions and (st.sessions[sid] == tok or
                                       self.authed()):
                del st.sessions[sid]
                st.deleted += 1
                code = 204
            elif sid in st.sessions:
                code = 401
            else:
                code = 404
        self.send(code, "")


SUBS = "/redfish/v1/EventService/Subscriptions"


def post_report(st, sid, dest, body):
    """POSTs one report to a subscription's Destination, from --bind."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False          # a test peer: see the top
    ctx.verify_mode = ssl.CERT_NONE
    u = urlsplit(dest)
    try:
        c = http.client.HTTPSConnection(u.hostname, u.port or 443,
                                        timeout=5, context=ctx,
                                        source_address=(st.args.bind, 0))
        c.request("POST", u.path or "/", body=body,
                  headers={"Content-Type": "application/json"})
        ok = 200 <= c.getresponse().status < 300
        c.close()
    except OSError:
        ok = False
    with st.lock:
        if ok:
            st.posted += 1
        else:
            st.post_refused += 1


def deliver(st, sid):
    """A subscription's reports, every --push-every s while it exists."""
    seq, last, h = 0, None, Handler.__new__(Handler)
    h.server = type("S", (), {"st": st})()
    while True:
        with st.lock:
            sub = st.subs.get(sid)
            once = st.sub_once.pop(sid, None)
            hold = st.push_stall or time.time() < st.down_until
        if sub is None:
            return
        if once == "replay" and last is not None:
            post_report(st, sid, sub["Destination"], last)
        elif not hold:
            seq += 1
            last = json.dumps(h.report(seq)).encode()
            post_report(st, sid, sub["Destination"], last)
        time.sleep(st.args.push_every)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="fixture set directory")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--auth", default="session",
                    choices=["session", "basic", "none", "any"])
    ap.add_argument("--user", default="monitor")
    ap.add_argument("--password", default="secret")
    ap.add_argument("--trace", default="500")
    ap.add_argument("--fault", default="")
    ap.add_argument("--fault-path", default="/redfish")
    ap.add_argument("--vfault", default="",
                    choices=["", "jump", "stepback", "absurdpower",
                             "evilstrings"])
    ap.add_argument("--legacy-sessions", action="store_true")
    ap.add_argument("--session-uri", default="location",
                    choices=["location", "body"])
    ap.add_argument("--session-status", type=int, default=201)
    ap.add_argument("--max-sessions", type=int, default=8)
    ap.add_argument("--slow", type=float, default=2.0)
    ap.add_argument("--page", type=int, default=0,
                    help="collection members per page (0: all)")
    ap.add_argument("--no-expand", action="store_true")
    ap.add_argument("--push", action="store_true",
                    help="serve an EventService SSE stream of reports")
    ap.add_argument("--push-every", type=float, default=1.0)
    ap.add_argument("--reboot-secs", type=float, default=2.0)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--clock-skew", type=float, default=None,
                    help="stamp every Sensor's ReadingTime with our clock "
                         "+ this many seconds")
    args = ap.parse_args()
    global CLOCK_SKEW
    CLOCK_SKEW = args.clock_skew
    if args.fault == "none":
        args.fault = ""
    srv = ThreadingHTTPServer((args.bind, args.port), Handler)
    srv.daemon_threads = True
    srv.st = State(args)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
