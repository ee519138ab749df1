#!/usr/bin/python3
"""conf_keys.py - every configuration key the shipped example and the docs
show is one `wattpath check-config` knows (issue 19).

    conf_keys.py ROOT WATTPATH TMPDIR [--site-out FILE]

Three sources, each turned into configuration files and checked:
  1. etc/wattpath.yaml with its commented examples uncommented;
  2. every ```yaml block of docs/*.md whose top-level keys are config ones;
  3. the first column of the key tables of docs/config.md, per section.
A canary key is added to every mapping (except free-form ones): check-config
must call each one unknown, which proves the block's keys are checked at
all; any other "unknown key" is a key the example or the docs show that the
code does not know, and fails.  --site-out writes the example's site:
block (uncommented) as YAML for the caller's report test.
"""
import glob
import os
import re
import subprocess
import sys

import yaml

TOP = {"collector", "credentials", "nodes", "nodes_csv", "pdus", "meters",
       "site", "report", "drift", "tenants", "racks"}
CANARY = "zz_canary_key"
FREE_FORM = {"labels", "headers"}  # mappings of the user's own keys
YAML_LINE = re.compile(r"^(- \{|- [a-z_0-9]+:(\s|$)|[a-z_0-9]+:(\s|$))")


def strip_comment(s):
    """s without a trailing ' # ...' outside quotes."""
    q = None
    for i, ch in enumerate(s):
        if q:
            if ch == q:
                q = None
        elif ch in "\"'":
            q = ch
        elif ch == "#" and (i == 0 or s[i - 1].isspace()):
            return s[:i].rstrip()
    return s.rstrip()


def uncomment(text):
    """The example with every commented YAML line made live (after the
    header comment, which is prose); (text, n)."""
    out, n, body = [], 0, False
    for line in text.splitlines():
        m = re.match(r"^(\s*)# ?(.*)$", line)
        body = body or (m is None and line.strip() != "")
        if body and m and YAML_LINE.match(m.group(2).lstrip()):
            line = m.group(1) + strip_comment(m.group(2))
            n += 1
        out.append(line)
    return "\n".join(out) + "\n", n


def add_canaries(node, path=()):
    """Adds CANARY to every checked mapping; returns how many."""
    n = 0
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in FREE_FORM:
                n += add_canaries(v, path + (k,))
        node[CANARY] = 1
        n += 1
    elif isinstance(node, list):
        for v in node:
            n += add_canaries(v, path)
    return n


def check(wattpath, path, canaries, what, bad):
    p = subprocess.run([wattpath, "check-config", "-c", path],
                       capture_output=True, text=True)
    unknown = [l for l in p.stderr.splitlines() if "unknown key" in l]
    seen = [l for l in unknown if "'%s'" % CANARY in l]
    other = [l for l in unknown if "'%s'" % CANARY not in l]
    for l in other:
        bad.append("%s: %s" % (what, l))
    if len(seen) != canaries:
        bad.append("%s: %d of %d blocks had their keys checked (canary "
                   "reported %d times):\n%s" % (what, len(seen), canaries,
                                                len(seen), p.stderr))
    if "YAML syntax error" in p.stderr or "duplicate key" in p.stderr:
        bad.append("%s: not YAML check-config reads:\n%s" % (what, p.stderr))
    print("%-44s %3d blocks, %3d unknown keys" % (what, canaries,
                                                   len(other)))


def write(tmp, name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        yaml.safe_dump(doc, f, default_flow_style=False, sort_keys=False)
    return path


def table_docs(text):
    """config.md's key tables as (name, config) pairs: one config per
    section (SNMP and Redfish PDUs apart), placeholder values."""
    secs, cur, sub = {}, None, None
    for line in text.splitlines():
        h = re.match(r"^## (\S+)\s*$", line)
        if h:
            cur, sub = h.group(1), None
            continue
        s = re.match(r"^`([a-z_]+)`:\s*$", line)
        if s:
            sub = s.group(1)
            continue
        row = re.match(r"^\|\s*(`[^|]*)\|([^|]*)\|?(.*)$", line)
        if cur is None or row is None:
            continue
        keys = re.findall(r"`([a-z_0-9]+)`", row.group(1))
        meaning = row.group(2) + row.group(3)
        sec = cur if sub is None else cur + "." + sub
        if cur == "pdus" and "Redfish" in meaning and "name" not in keys:
            sec = "pdus.redfish"
        secs.setdefault(sec, []).extend(keys)
    docs = []

    def block(keys, **fixed):
        d = {k: "1" for k in keys}
        d.update(fixed)
        return d
    if "collector" in secs:
        col = block(secs["collector"])
        if "collector.remote_write" in secs:
            col["remote_write"] = [block(secs["collector.remote_write"],
                                         url="http://127.0.0.1:1/api/v1/write")]
        if "collector.peers" in secs:
            col["peers"] = [block(secs["collector.peers"], name="site-b",
                                  url="https://127.0.0.1:1")]
        docs.append(("config.md collector", {"collector": col}))
    if "credentials" in secs:
        docs.append(("config.md credentials", {"credentials": [
            block(secs["credentials"], name="c", username="u")]}))
    if "nodes" in secs:
        node = block([k for k in secs["nodes"]
                      if k not in ("bmc", "gpu", "engines", "outlets")],
                     name="n")
        node["bmc"] = block(secs.get("nodes.bmc", []),
                            url="https://127.0.0.1:1", auth="none")
        docs.append(("config.md nodes, bmc", {"nodes": [node]}))
    if "pdus" in secs:
        docs.append(("config.md pdus (SNMP)", {"pdus": [block(
            secs["pdus"], name="p", address="127.0.0.1:161")]}))
    if "pdus.redfish" in secs:
        docs.append(("config.md pdus (Redfish)", {"pdus": [block(
            secs["pdus.redfish"], name="p", url="https://127.0.0.1:1")]}))
    if "meters" in secs:
        docs.append(("config.md meters", {"meters": [block(
            secs["meters"], name="m", role="other")]}))
    if "site" in secs:
        docs.append(("config.md site", {"site": block(secs["site"])}))
    return docs


def main():
    root, wattpath, tmp = sys.argv[1:4]
    site_out = sys.argv[5] if sys.argv[4:5] == ["--site-out"] else None
    bad, jobs = [], []
    text, n = uncomment(open(os.path.join(root, "etc/wattpath.yaml")).read())
    if n < 25:
        bad.append("etc/wattpath.yaml: only %d commented lines taken as "
                   "YAML examples" % n)
    example = yaml.safe_load(text)
    if site_out:
        with open(site_out, "w") as f:
            yaml.safe_dump({"site": example["site"]}, f, sort_keys=False)
    jobs.append(("etc/wattpath.yaml (%d examples live)" % n, example))
    for md in sorted(glob.glob(os.path.join(root, "docs/*.md"))):
        body = open(md).read()
        for i, m in enumerate(re.finditer(r"```yaml\n(.*?)```", body, re.S)):
            doc = yaml.safe_load(m.group(1))
            if isinstance(doc, dict) and set(doc) & TOP:
                jobs.append(("%s yaml block %d" % (os.path.basename(md), i),
                             doc))
        if os.path.basename(md) == "config.md":
            jobs.extend(table_docs(body))
    if len(jobs) < 8:
        bad.append("only %d sources found" % len(jobs))
    for i, (what, doc) in enumerate(jobs):
        k = add_canaries(doc)
        check(wattpath, write(tmp, "keys-%d.yaml" % i, doc), k, what, bad)
    if bad:
        print("FAIL:\n" + "\n".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
