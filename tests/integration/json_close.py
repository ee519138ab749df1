"""json_close.py - two report documents compared (the ledger tests 605 and
621): numbers to a relative and absolute tolerance, the rest exactly.

compare(a, b, skip) returns (differences, numbers compared); skip(path) says
which paths ("/months/0/warnings/1") to leave out.
"""
import math


def compare(a, b, skip=lambda path: False, tol=1e-9):
    bad, n = [], [0]

    def walk(x, y, path):
        if skip(path):
            return
        if isinstance(x, dict):
            if not isinstance(y, dict) or set(x) != set(y):
                bad.append((path, "keys"))
                return
            for k in x:
                walk(x[k], y[k], path + "/" + k)
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                bad.append((path, "length"))
                return
            for i, (p, q) in enumerate(zip(x, y)):
                walk(p, q, "%s/%d" % (path, i))
        elif isinstance(x, float) or isinstance(y, float):
            n[0] += 1
            if x is None or y is None or not math.isclose(
                    x, y, rel_tol=tol, abs_tol=tol):
                bad.append((path, x, y))
        elif x != y:
            bad.append((path, x, y))

    walk(a, b, "")
    return bad, n[0]
