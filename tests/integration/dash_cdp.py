#!/usr/bin/python3
"""dash_cdp.py - loads dashboard pages in headless Chromium over the
DevTools protocol (python3-websocket) and reports what a person would see.

    dash_cdp.py CHROME OUTDIR NAME=URL [NAME=URL ...]

For each page: navigates, waits until the page's history chart (if any,
<div id="hist" data-state=...>) has loaded or failed, collects every
console error, uncaught exception and failed load, takes the DOM's figures
(tables with data-* attributes, axis tick labels, the history request's
URL), the JSON the page received for that request, and saves a full-page
screenshot OUTDIR/NAME.png.  Prints one JSON document
{NAME: {"errors": [...], "dom": {...}, "hist_body": {...} or null}} on
stdout.  Nothing is downloaded: the browser is the system's.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import websocket

EXTRACT = r"""
(function () {
  function rows(sel) {
    var out = [], r = document.querySelectorAll(sel);
    for (var i = 0; i < r.length; i++) {
      var o = {}, a = r[i].attributes;
      for (var k = 0; k < a.length; k++)
        if (a[k].name.indexOf('data-') === 0) o[a[k].name.slice(5)] = a[k].value;
      o.cells = Array.prototype.map.call(r[i].cells || [], function (c) { return c.textContent; });
      out.push(o);
    }
    return out;
  }
  function texts(sel) {
    return Array.prototype.map.call(document.querySelectorAll(sel), function (e) { return e.textContent; });
  }
  var h = document.getElementById('hist');
  return JSON.stringify({
    title: document.title,
    hist: h ? { state: h.getAttribute('data-state'), url: h.getAttribute('data-url'),
                capacity: h.getAttribute('data-capacity'),
                status: document.getElementById('hist-status').textContent,
                window: document.getElementById('hist-window').textContent,
                paths: Array.prototype.map.call(document.querySelectorAll('#hist-chart path.data'),
                  function (e) { return { series: e.getAttribute('data-series'), d: e.getAttribute('d') }; }),
                capacity_line: document.querySelectorAll('#hist-chart path.capacity').length } : null,
    summary: rows('#hist-summary tr[data-series]'),
    live: rows('#live tr[data-boundary]'),
    jpt: rows('#jpt tr[data-boundary]'),
    targets: rows('#targets tr[data-target]'),
    readings: rows('#readings tr[data-role]'),
    counts: rows('#counts'),
    sites: rows('#sites tr.site, #sites tr.combined'),
    capacity: rows('#capacity'),
    scatter: rows('#scatter'),
    ticks: texts('text.tick'),
    body: document.body.innerText
  });
})()
"""


class Tab:
    def __init__(self, ws):
        self.ws, self.n, self.events = ws, 0, []

    def call(self, method, **params):
        self.n += 1
        me = self.n
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == me:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def pump(self, seconds):
        end = time.time() + seconds
        self.ws.settimeout(0.1)
        while time.time() < end:
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                pass
        self.ws.settimeout(30)

    def errors(self):
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                  for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s %s" % (d.get("text"), d.get("exception", {}).get("description")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                out.append("load failed: %s" % p.get("errorText"))
        return out


def start(chrome, profile):
    p = subprocess.Popen([chrome, "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-quic", "--no-first-run",
                          "--disable-background-networking",
                          "--disable-component-update", "--disable-sync",
                          "--user-data-dir=" + profile,
                          "--remote-debugging-port=0", "--window-size=1280,1600",
                          "about:blank"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = os.path.join(profile, "DevToolsActivePort")
    for _ in range(300):
        if os.path.exists(port_file):
            lines = open(port_file).read().split()
            if len(lines) >= 2:
                return p, int(lines[0])
        time.sleep(0.1)
    p.kill()
    sys.exit("chromium: no DevTools port")


def page_ws(port):
    import urllib.request
    for _ in range(100):
        try:
            tabs = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json" % port))
            for t in tabs:
                if t.get("type") == "page":
                    return t["webSocketDebuggerUrl"]
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("chromium: no page target")


def visit(tab, url, shot):
    tab.events = []
    tab.call("Page.navigate", url=url)
    deadline = time.time() + 30
    while time.time() < deadline:
        tab.pump(0.3)
        st = tab.call("Runtime.evaluate", expression=
                      "document.readyState + '/' + (document.getElementById('hist') ? "
                      "document.getElementById('hist').getAttribute('data-state') : 'none')",
                      returnByValue=True)["result"].get("value", "")
        if st.startswith("complete/") and st.split("/")[1] in ("ready", "error", "none"):
            break
    tab.pump(0.5)
    dom = json.loads(tab.call("Runtime.evaluate", expression=EXTRACT,
                              returnByValue=True)["result"]["value"])
    hist = received(tab, (dom.get("hist") or {}).get("url"))
    m = tab.call("Page.getLayoutMetrics")["cssContentSize"]
    img = tab.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                   clip={"x": 0, "y": 0, "width": max(m["width"], 800),
                         "height": min(max(m["height"], 600), 8000), "scale": 1})
    with open(shot, "wb") as f:
        f.write(base64.b64decode(img["data"]))
    return {"errors": tab.errors(), "dom": dom, "hist_body": hist}


def received(tab, path):
    """The JSON document the page itself received for its history request
    PATH (the last response for it), or None: the chart is checked against
    what it was drawn from, not against a later request for a window whose
    newest points move."""
    if not path:
        return None
    ids = [e["params"]["requestId"] for e in tab.events
           if e.get("method") == "Network.responseReceived" and
           e["params"]["response"]["url"].endswith(path)]
    if not ids:
        return None
    body = tab.call("Network.getResponseBody", requestId=ids[-1])
    text = body["body"]
    if body.get("base64Encoded"):
        text = base64.b64decode(text).decode()
    return json.loads(text)


def main():
    chrome, outdir, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="wp-chrome.")
    proc, port = start(chrome, profile)
    out = {}
    try:
        ws = websocket.create_connection(page_ws(port), timeout=30,
                                         suppress_origin=True)
        tab = Tab(ws)
        for dom in ("Page", "Runtime", "Log", "Network"):
            tab.call(dom + ".enable")
        for spec in pages:
            name, url = spec.split("=", 1)
            out[name] = visit(tab, url, os.path.join(outdir, name + ".png"))
        ws.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
