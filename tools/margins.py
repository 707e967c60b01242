"""Margins of the exact checks of a ``rftheory verify --json`` report.

Usage: ``rftheory verify --json > v.json; python tools/margins.py v.json [--factor 10]``.
Lists every float64 check whose observed relative error is within ``factor`` of
its tolerance, and every route / symbolic check that agrees to fewer than
``digits + log10(factor)`` digits (the brief asks for a margin of 10x between
observed error and tolerance).  Exit 1 if any check is within the factor.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--factor", type=float, default=10.0)
    a = ap.parse_args(argv)
    import rftheory

    rep = json.load(open(a.report))
    need = {r.id: r.digits for r in rftheory.results()}
    close, n = [], 0
    for o in rep["outcomes"]:
        m = o.get("metric", "")
        if o["check"].endswith("float64"):
            f = re.match(r"rel=([0-9.e+-]+|inf|nan) \(tol ([0-9.e+-]+)\)", m)
            if f:
                n += 1
                rel, tol = float(f.group(1)), float(f.group(2))
                if not rel <= tol / a.factor:
                    close.append((rel / tol, o))
        elif o["check"].startswith(("route:", "symbolic")):
            f = re.match(r"digits=([0-9.]+)", m)
            if f:
                n += 1
                dg = float(f.group(1))
                slack = dg - need.get(o["result"], 40)
                if slack < math.log10(a.factor):
                    close.append((10 ** -slack, o))
    close.sort(key=lambda t: -t[0])
    for ratio, o in close:
        print(f"{ratio:9.2g}  {o['result']}  {o['check']}  {o.get('point_text', o['point'])}  {o['metric']}")
    print(f"{n} exact checks, {len(close)} within a factor {a.factor:g} of their tolerance")
    return 1 if close else 0


if __name__ == "__main__":
    sys.exit(main())
