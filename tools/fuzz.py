"""Fuzz every registered result with extreme and malformed parameter values.

For every result, every parameter and every value of :data:`VALUES` (NaN,
infinities, 0, -1, 1e-300, 1e300, huge integers, non-numeric strings, complex
numbers ...), set at one valid base point, through the Python API
(``exact``, ``f64_scalar``) and the command line (``main(["eval", ...])``):
each call must end, within ``--limit`` seconds, in one of

* a value (finite: a NaN or infinity is never an answer; nor is a subnormal float, which has
  lost digits: the float64 layer refuses below the normal range),
* ``ParameterError`` naming a parameter, ``RangeError``, ``PrecisionError`` or
  ``LayerUnavailableError`` (the CLI: exit 2 with one line on stderr).

Anything else -- another exception, a hang, a traceback -- is a violation.
The test suite runs this in a subprocess (a process abort is caught too):
``python tools/fuzz.py --json``; exit 0 when there is no violation.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import signal
import sys
import time

import numpy as np

VALUES = ["nan", "inf", "-inf", "0", "-1", "1e-300", "1e300", "1" + "0" * 30, "-" + "7" * 25,
          "abc", "1+2j", "", "1/0", "2.5", "0x10"]
PY_VALUES = [float("nan"), float("inf"), -1, 0.0, 1e-300, 1e300, 10**30, complex(1, 2), True, "abc", [1, 2]]
#: with --tiny, through the Python API too: where squares and exponentials of the value underflow
#: float64 (the float64 layers must refuse there or be right, never give NaN, 0.0 or a subnormal)
TINY_VALUES = [1e-200, 1e-162, 1e-160, 2.7e-81, 1e-40]
DPS_VALUES = [0, -5, 5000, 2.5, "abc", None, True]


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def base_point(r) -> dict:
    """A valid point of ``r``: its first grid point, else a random domain point."""
    for which in ("grid", "mc_grid"):
        pts = r.points("quick", which)
        if pts:
            return dict(pts[0])
    from rftheory.core.domain import random_point

    return random_point(r, np.random.default_rng(0))


def classify(fn, limit: float) -> tuple[str, str]:
    """Run ``fn`` under a time limit; ``(kind, text)`` with kind ``ok``,
    ``allowed`` or ``violation``."""
    import mpmath as mp

    from rftheory.core.errors import LayerUnavailableError, ParameterError, PrecisionError, RangeError

    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.monotonic()
    try:
        val = fn()
        el = time.monotonic() - t0
        if isinstance(val, (mp.mpf, mp.mpc)):
            finite = mp.isfinite(val.real) and mp.isfinite(val.imag) if isinstance(val, mp.mpc) else mp.isfinite(val)
        else:
            a = np.asarray(val)
            finite = a.dtype.kind not in "fc" or bool(np.all(np.isfinite(a)))
            if finite and a.dtype.kind in "fc":
                mag = np.abs(a)
                if np.any((mag != 0) & (mag < np.finfo(float).tiny)):
                    return "violation", f"subnormal value {val!r} ({el:.1f}s)"
        if not finite:
            return "violation", f"non-finite value {val!r} ({el:.1f}s)"
        return "ok", f"{str(val)[:40]} ({el:.1f}s)"
    except Timeout:
        return "violation", f"took longer than {limit:g}s"
    except ParameterError as exc:
        return "allowed", f"ParameterError[{exc.name}]: {exc}"
    except (RangeError, PrecisionError, LayerUnavailableError) as exc:
        return "allowed", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - exactly what the fuzz looks for
        return "violation", f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def cli_case(argv, limit):
    from rftheory.cli.commands import main

    err, out = io.StringIO(), io.StringIO()

    def run():
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                return main(argv)
            except SystemExit as exc:  # argparse usage errors
                return exc.code

    kind, text = classify(run, limit)
    if kind != "ok":
        return "violation", f"{text} {err.getvalue()[-300:]}"
    rc = text.split(" (")[0]
    lines = err.getvalue().strip().splitlines()
    if rc == "0":
        return "ok", out.getvalue().strip()[:40]
    if rc == "2" and len(lines) >= 1 and (lines[-1].startswith("rftheory: error:") or "usage:" in err.getvalue()):
        if "Traceback" in err.getvalue() or (lines[-1].startswith("rftheory: error:") and len(lines) != 1):
            return "violation", "more than one line: " + err.getvalue()[-300:]
        return "allowed", lines[-1][:200]
    return "violation", f"exit {rc}: {err.getvalue()[-300:]}"


def cases(only: str = "", cli: bool = True, cli_values=None, tiny: bool = False):
    import rftheory

    for r in rftheory.results(only):
        if r.mpmath is None and r.float64 is None:
            continue
        base = base_point(r)
        layers = [lay for lay in ("mpmath", "float64") if lay in r.layers()]
        for p in r.params:
            for val in VALUES + PY_VALUES + (TINY_VALUES if tiny else []):
                pt = dict(base)
                pt[p.name] = val
                if "mpmath" in layers:
                    yield r.id, p.name, val, "api:mpmath", (lambda pt=pt, r=r: r.exact(dps=15, **pt))
                if "float64" in layers:
                    yield r.id, p.name, val, "api:float64", (lambda pt=pt, r=r: r.f64_scalar(**pt))
                if cli and isinstance(val, str) and (cli_values is None or val in cli_values):
                    for lay in layers:
                        argv = ["eval", r.id, "--layer", lay, "--dps", "15"]
                        for k, v in pt.items():
                            argv += ["-p", f"{k}={v}"]
                        yield r.id, p.name, val, f"cli:{lay}", (lambda argv=argv: ("cli", argv))
        if "mpmath" in layers:
            for dps in DPS_VALUES:
                yield r.id, "dps", dps, "api:mpmath", (lambda dps=dps, r=r: r.exact(dps=dps, **base))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--limit", type=float, default=30.0, help="seconds per call (default 30)")
    ap.add_argument("--no-cli", action="store_true")
    ap.add_argument("--cli-values", default=None, metavar="V1,V2,...",
                    help="through the CLI only these of the string values (default: all)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tiny", action="store_true", help="also the values of TINY_VALUES (underflow)")
    a = ap.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)
    viol, n, slowest = [], 0, (0.0, "")
    cli_values = None if a.cli_values is None else set(a.cli_values.split(","))
    t_start = time.monotonic()
    for rid, name, val, how, fn in cases(a.only, cli=not a.no_cli, cli_values=cli_values, tiny=a.tiny):
        n += 1
        t0 = time.monotonic()
        if how.startswith("cli"):
            kind, text = cli_case(fn()[1], a.limit)
        else:
            kind, text = classify(fn, a.limit)
        el = time.monotonic() - t0
        if el > slowest[0]:
            slowest = (el, f"{rid} {name}={val!r} {how}")
        if kind == "violation":
            viol.append({"result": rid, "param": name, "value": repr(val), "how": how, "what": text})
            if not a.json:
                print(f"VIOLATION {rid} {name}={val!r} {how}: {text}", flush=True)
    if a.json:
        print(json.dumps({"cases": n, "violations": viol, "slowest": list(slowest),
                          "seconds": time.monotonic() - t_start}))
    else:
        print(f"{n} cases, {len(viol)} violations in {time.monotonic() - t_start:.0f}s; "
              f"slowest {slowest[0]:.1f}s ({slowest[1]})")
    return 1 if viol else 0


if __name__ == "__main__":
    sys.exit(main())
