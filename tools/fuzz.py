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

``--flags`` fuzzes the command line instead: every flag and positional of every (sub)command, found by
walking the argparse tree, set to hostile values (NaN, infinities, 1e999999, 300-digit integers, words,
devices, a FIFO, a directory, empty, huge, complex and text-as-.npy files, absurd worker counts), plus
each command with stdout a closed pipe or /dev/full.  Each case runs in a forked child bounded in time
(``--limit``) and address space (``--memory``, RLIMIT_AS); a traceback, a hang, a MemoryError (an
unbounded read), a death by a signal, an exit status outside the command's documented set or an exit 2
that is not one line is a violation.  ``python tools/fuzz.py --flags`` runs them all (about 2,200, some
minutes); ``--sample N --seed S`` a seeded sample (the test suite's quick run).  Failures in code owned
elsewhere wait in :data:`KNOWN`, each with its defect.
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


# --------------------------------------------------------------------------
# The command line: every flag of every command, with hostile values.
#
# The argparse tree of ``rftheory`` is walked (a new flag or subcommand is fuzzed without editing this
# file; a new subcommand needs a base command line in BASE_ARGV, which a test checks).  Each case is
# one valid base command line with one flag (or positional) replaced by a hostile value; it runs in a
# forked child with an address-space limit (RLIMIT_AS) and a wall-clock limit, stdin /dev/null and
# stdout/stderr to files (or stdout a closed pipe, or /dev/full).  A case fails on a traceback, a hang
# (the limit), an unbounded read (MemoryError under the limit), a death by a signal, an exit status
# outside the command's documented set (read from its --help epilog), or an exit 2 whose stderr is not
# one line ``rftheory: error: ...``.

#: hostile values of a flag or positional; the names are what KNOWN and the reports use
def hostile_values(tmp: str) -> dict[str, str]:
    """Hostile values by name: numbers, words, devices, a FIFO, a directory and malformed files in ``tmp``."""
    return {
        "nan": "nan", "inf": "inf", "-inf": "-inf", "1e999999": "1e999999", "-1": "-1", "0": "0",
        "1e300": "1e300", "int300": "9" * 300, "2.5": "2.5", "abc": "abc", "empty": "", "1+2j": "1+2j",
        "workers1e6": "1000000",
        "/dev/zero": "/dev/zero", "/dev/full": "/dev/full", "/dev/null": "/dev/null",
        "fifo": f"{tmp}/fifo.npy", "dir": tmp, "empty.npy": f"{tmp}/empty.npy",
        "huge.npy": f"{tmp}/huge.npy", "huge.csv": f"{tmp}/huge.csv", "complex.npy": f"{tmp}/complex.npy",
        "text.npy": f"{tmp}/text.npy", "missing": f"{tmp}/no/such/file.json",
    }


def make_files(tmp: str) -> None:
    """The files the hostile values and the base command lines name."""
    import os

    os.mkfifo(f"{tmp}/fifo.npy")  # no writer: opening it for reading blocks until one comes
    open(f"{tmp}/empty.npy", "wb").close()
    with open(f"{tmp}/huge.npy", "wb") as fh:  # a valid header claiming 8 GB of float64; sparse on disk
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10**9,)})
        fh.truncate(8 * 10**9 + 128)
    with open(f"{tmp}/huge.csv", "wb") as fh:  # 8 GB of NUL bytes, sparse on disk
        fh.truncate(8 * 10**9)
    np.save(f"{tmp}/complex.npy", (np.arange(12.0) + 1j).reshape(4, 3) / 10)
    with open(f"{tmp}/text.npy", "w") as fh:
        fh.write("1,2,3\n4,5,6\n")
    rng = np.random.default_rng(0)
    for name in ("q", "k", "v"):
        np.save(f"{tmp}/{name}.npy", rng.standard_normal((4, 3)) / 2)
    np.save(f"{tmp}/x.npy", rng.standard_normal((6, 3)))
    with open(f"{tmp}/sampler.py", "w") as fh:
        fh.write("def gauss(d, m, rng):\n    return rng.standard_normal((m, d))\n")


#: a valid, fast command line of each (sub)command; ``{tmp}`` is the directory of make_files
BASE_ARGV = {
    "list": ["list", "simrf.conformity"],
    "show": ["show", "simrf.conformity.iid"],
    "cite": ["cite", "simrf.conformity.iid"],
    "eval": ["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1", "--dps", "15"],
    "verify": ["verify", "--quick", "--only", "simrf.conformity.iid", "--workers", "1"],
    "table": ["table", "simrf.conformity.iid", "--grid", "v=0.5,1", "-p", "d=4", "--workers", "1"],
    "plot": ["plot", "simrf.conformity.iid", "--x", "v=0.5:1:3", "-p", "d=4", "-o", "{tmp}/out/p.png"],
    "sheet": ["sheet", "--only", "simrf.conformity.iid", "-o", "{tmp}/out/sheet.md"],
    "predict": ["predict", "{tmp}/x.npy", "--kernel", "gaussian", "--sigma", "1", "--mechanism", "rff:iid",
                "--m", "8"],
    "attention": ["attention", "--q", "{tmp}/q.npy", "--k", "{tmp}/k.npy", "--v", "{tmp}/v.npy",
                  "--mechanism", "favor+:iid", "--m", "8"],
    "prove": ["prove", "simrf.conformity.iid > 0", "-p", "d=3", "--over", "v=0.5..1", "--workers", "1"],
    "audit sampler": ["audit", "sampler", "{tmp}/sampler.py:gauss", "--d", "3", "--m", "3", "--n", "200"],
    "audit features": ["audit", "features", "sklearn.kernel_approximation:RBFSampler", "--sigma", "0.70710678",
                       "--d", "3", "--m", "4", "--n", "200"],
    "audit gallery": ["audit", "gallery", "--only", "scipy-ortho-group-chi", "--n", "200"],
    "theorems": ["theorems", "simrf.cor_4_4"],
}

#: cases known to fail in code this fuzz's author does not own, by (command, flag, value name): each
#: names its defect; the owners of those packages empty this list (a case here that passes is reported
#: as "fixed", not as a failure)
KNOWN: dict[tuple[str, str, str], str] = {}

#: cases that ask for legitimately long work (not a hang): not run, each with what it asks for
LONG: dict[tuple[str, str, str], str] = {
    ("verify", "--only", "empty"): "--only '' selects every result: the whole quick grid (minutes)",
}

#: values of a flag with choices or no value: argparse refuses the others before any code runs
_CHOICE_VALUES = ("abc", "empty")


def _exit_codes(parser) -> set[int]:
    """The exit statuses a (sub)command documents in its epilog (``exit status: 0 ...; 2 ...``, or a bare ``0;``)."""
    import re

    text = (parser.epilog or "") + " " + (parser.description or "")
    m = re.search(r"exit status:?(.*)", text, re.S | re.I) or re.search(r"(Exit .*)", text, re.S)
    codes = {int(c) for c in re.findall(r"(?<![\w.])(\d{1,3})(?=:?\s+[a-z(]|;)", m.group(1))} if m else set()
    return (codes or {0}) | {2}  # every command refuses bad input with 2


def commands(parser=None, prefix=()):
    """``(name, parser)`` of every leaf (sub)command of the argparse tree."""
    import argparse

    if parser is None:
        from rftheory.cli.commands import build_parser

        parser = build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(prefix), parser
        return
    for name, p in subs[0].choices.items():
        yield from commands(p, (*prefix, name))


def _replace(argv: list[str], action, value: str | None) -> list[str]:
    """``argv`` with ``action``'s occurrences (or its positional) set to ``value`` (``None``: the bare flag)."""
    out, i, hit = [], 0, False
    while i < len(argv):
        if argv[i] in action.option_strings:
            hit = True
            if action.nargs == 0:
                out.append(argv[i])
                i += 1
                continue
            old = argv[i + 1]
            # NAME=VALUE flags (-p, --link, --over, --grid, --label): the value after the name
            new = old.split("=", 1)[0] + "=" + value if "=" in old and value is not None else value
            out += [argv[i], new]
            i += 2
            continue
        out.append(argv[i])
        i += 1
    if not hit:
        out += [action.option_strings[0]] + ([] if action.nargs == 0 or value is None else [value])
    return out


def flag_cases(tmp: str):
    """``(command, flag, value name, argv, stdout)`` of every case; stdout is ``file``, ``closed`` or ``full``."""
    import argparse

    values = hostile_values(tmp)
    for cmd, parser in commands():
        if cmd not in BASE_ARGV:
            raise SystemExit(f"fuzz: no base command line for `rftheory {cmd}`: add one to BASE_ARGV")
        base = [w.replace("{tmp}", tmp) for w in BASE_ARGV[cmd]]
        yield cmd, "-", "base", base, "file"
        yield cmd, "-", "stdout-closed", base, "closed"
        yield cmd, "-", "stdout-/dev/full", base, "full"
        npos = len(cmd.split())
        positionals = [a for a in parser._actions if not a.option_strings]
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            flag = action.option_strings[0] if action.option_strings else action.metavar or action.dest
            if action.nargs == 0:
                yield cmd, flag, "set", _replace(base, action, None), "file"
                continue
            names = _CHOICE_VALUES if action.choices else values
            for vname in names:
                val = values[vname]
                if action.option_strings:
                    argv = _replace(base, action, val)
                else:  # the k-th positional is the k-th word after the command that is no flag's value
                    k = positionals.index(action)
                    words = [i for i in range(npos, len(base)) if not base[i].startswith("-")
                             and not base[i - 1].startswith("-")]
                    if k >= len(words):
                        argv = [*base, val]
                    else:
                        argv = list(base)
                        argv[words[k]] = val
                yield cmd, flag, vname, argv, "file"


def _vmsize() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run_case(argv: list[str], stdout: str, limit: float, mem: int, tmp: str) -> tuple[int | None, int | None, str, float]:
    """Run ``main(argv)`` in a forked child: ``(exit status, signal, stderr, seconds)``; status None on a hang."""
    import os
    import resource
    import tempfile

    errf = tempfile.TemporaryFile(dir=tmp)
    outf = tempfile.TemporaryFile(dir=tmp)
    rpipe = None
    if stdout == "closed":
        rpipe, wpipe = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.setpgid(0, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_AS, (_vmsize() + mem, _vmsize() + mem))
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            if stdout == "closed":
                os.close(rpipe)
                os.dup2(wpipe, 1)
                os.close(wpipe)
                time.sleep(0)  # the reader is gone once the parent closes its end too
            elif stdout == "full":
                os.dup2(os.open("/dev/full", os.O_WRONLY), 1)
            else:
                os.dup2(outf.fileno(), 1)
            os.dup2(errf.fileno(), 2)
            os.chdir(tmp)
            code = _child_main(argv)
        except BaseException:  # noqa: BLE001 - the harness itself failed: say so, never return into the fuzz
            import traceback

            traceback.print_exc()
            code = 99
        os._exit(code)
    if rpipe is not None:
        os.close(rpipe)
        os.close(wpipe)
    feeder = _feed_fifo(f"{tmp}/fifo.npy") if any(w.endswith("fifo.npy") for w in argv) else None
    deadline = t0 + limit
    status = None
    while time.monotonic() < deadline:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
        time.sleep(0.01)
    if status is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if feeder is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(feeder, signal.SIGKILL)
        os.waitpid(feeder, 0)
    el = time.monotonic() - t0
    errf.seek(0)
    err = errf.read().decode("utf-8", "replace")
    errf.close()
    outf.close()
    if status is None:
        return None, None, err, el
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status), err, el
    return os.WEXITSTATUS(status), None, err, el


def _feed_fifo(path: str) -> int:
    """A process serving the FIFO as a shell pipe would: a reader gets two CSV rows then end of file;
    a writer's bytes are drained."""
    import fcntl
    import os
    import termios

    pid = os.fork()
    if pid:
        return pid
    try:
        fd = os.open(path, os.O_RDWR)  # Linux: never blocks; we are both ends until the child opens one
        content = b"1,2,3\n4,5,6\n"
        os.write(fd, content)
        t_end = time.monotonic() + 3600
        while time.monotonic() < t_end:
            time.sleep(0.005)
            buf = bytearray(4)
            fcntl.ioctl(fd, termios.FIONREAD, buf)
            n = int.from_bytes(buf, sys.byteorder)
            if n == 0:  # a reader took the rows: end of file for it
                os.close(fd)
                break
            if n > len(content):  # a writer: drain, as a reader would
                os.read(fd, 1 << 16)
                content = b""
    finally:
        os._exit(0)


def _child_main(argv: list[str]) -> int:
    """What ``python -m rftheory ARGV`` does, ending as the interpreter would (a failed flush: exit 120)."""
    import traceback

    from rftheory.cli.commands import main as cli_main

    try:
        code = cli_main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - a traceback is what the fuzz looks for
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - Python prints "Exception ignored" and exits 120 here
        print(f"Exception ignored on flushing stdout: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 120
    with contextlib.suppress(BaseException):
        sys.stderr.flush()
    return code


def judge(cmd: str, code, sig, err: str, limit: float, codes: set[int], argv=()) -> str:
    """What is wrong with one case's ending ('' when nothing)."""
    tail = " | ".join(err.strip().splitlines()[-3:])[-300:]
    if code is None and sig is None:
        return f"hang: no exit within {limit:g}s; stderr: {tail}"
    if sig is not None:
        return f"killed by signal {sig}; stderr: {tail}"
    if "Traceback (most recent call last)" in err and "--traceback" not in argv:  # asked for: the user's own
        return f"traceback (exit {code}): {tail}"
    if "MemoryError" in err:
        return f"unbounded read or allocation (MemoryError under the memory limit): {tail}"
    if code not in codes:
        return f"exit {code}, not among the documented {sorted(codes)}: {tail}"
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    if code == 2 and (not lines or not lines[-1].startswith("rftheory: error:") or len(lines) != 1):
        return f"exit 2 without one line 'rftheory: error: ...' ({len(lines)} lines): {tail}"
    return ""


def fuzz_flags(sample: int, seed: int, limit: float, mem: int, json_out: bool, only: str = "") -> int:
    """Run the command-line fuzz (all cases, or a seeded sample of ``sample`` of them); exit 0 when clean."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rftheory-fuzz-") as tmp:
        make_files(tmp)
        os.mkdir(f"{tmp}/out")
        codes = {cmd: _exit_codes(p) for cmd, p in commands()}
        allc = [c for c in flag_cases(tmp) if c[0].startswith(tuple(only.split(",")))]
        if sample:  # of the cases expected to pass (a known hang would cost the whole limit)
            allc = [c for c in allc if c[:3] not in KNOWN and c[:3] not in LONG]
            rng = np.random.default_rng(seed)
            picked = sorted(rng.choice(len(allc), size=min(sample, len(allc)), replace=False))
            allc = [allc[i] for i in picked]
        viol, known, fixed, t_start, slowest = [], [], [], time.monotonic(), (0.0, "")
        for k, (cmd, flag, vname, argv, stdout) in enumerate(allc):
            if k and k % 100 == 0 and not sample:
                print(f"# {k} of {len(allc)} command lines, {len(viol)} violations, "
                      f"{time.monotonic() - t_start:.0f}s", file=sys.stderr, flush=True)
            if argv is None or (cmd, flag, vname) in LONG:
                continue
            code, sig, err, el = run_case(argv, stdout, limit, mem, tmp)
            what = judge(cmd, code, sig, err, limit, codes[cmd], argv)
            if not what and vname == "base" and code != 0:  # else every case of the command is refused trivially
                what = f"the base command line fails (exit {code}): {err.strip()[-300:]}"
            if el > slowest[0]:
                slowest = (el, f"{cmd} {flag}={vname}")
            shown = "rftheory " + " ".join(repr(w) if (not w or " " in w) else w for w in argv).replace(tmp, "$TMP")
            key = (cmd, flag, vname)
            if what and key in KNOWN:
                known.append({"case": list(key), "argv": shown, "what": what, "known": KNOWN[key]})
            elif what:
                viol.append({"case": list(key), "argv": shown, "stdout": stdout, "what": what.replace(tmp, "$TMP")})
                print(f"VIOLATION {cmd} {flag}={vname} [stdout {stdout}]: {shown}\n    {what.replace(tmp, '$TMP')}",
                      file=sys.stderr if json_out else sys.stdout, flush=True)
            elif key in KNOWN:
                fixed.append(list(key))
        report = {"cases": len(allc), "violations": viol, "known": known, "fixed": fixed,
                  "slowest": list(slowest), "seconds": time.monotonic() - t_start}
        if json_out:
            print(json.dumps(report))
        else:
            print(f"{len(allc)} command lines, {len(viol)} violations, {len(known)} known (KNOWN), "
                  f"{len(fixed)} fixed (remove from KNOWN) in {report['seconds']:.0f}s; slowest {slowest[0]:.1f}s "
                  f"({slowest[1]})")
        return 1 if viol else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--limit", type=float, default=30.0, help="seconds per call (default 30)")
    ap.add_argument("--no-cli", action="store_true")
    ap.add_argument("--cli-values", default=None, metavar="V1,V2,...",
                    help="through the CLI only these of the string values (default: all)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tiny", action="store_true", help="also the values of TINY_VALUES (underflow)")
    ap.add_argument("--flags", action="store_true",
                    help="fuzz every flag of every command instead (hostile values, forked children)")
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="--flags: a seeded random sample of N command lines (default: all)")
    ap.add_argument("--seed", type=int, default=0, help="--flags: seed of --sample (default 0)")
    ap.add_argument("--memory", type=float, default=1.5, metavar="GB",
                    help="--flags: address space each child may add (default 1.5 GB)")
    a = ap.parse_args(argv)
    if a.flags:
        return fuzz_flags(a.sample, a.seed, a.limit, int(a.memory * 2**30), a.json, a.only)
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
