"""Start-up cost of the command line, side by side with ``python -c "import numpy, mpmath"`` (issue 15).

    python benchmarks/startup.py [--repeat 7]

Each command runs in a fresh interpreter; the figure is its CPU time (user +
system of the child, which another process's load inflates far less than wall
time), best of ``--repeat`` runs, and its ratio to the reference command.
Goal (issue 36): ``rftheory --version`` and ``rftheory list`` within 2× the reference.

The commands run as an installed package does: with its bytecode compiled (a first, untimed run writes it
to a temporary ``PYTHONPYCACHEPREFIX``; ``PYTHONDONTWRITEBYTECODE`` is lifted for it).  Without bytecode
each start compiles every imported rftheory module again (a checkout run with ``PYTHONDONTWRITEBYTECODE``),
which ``--cold`` shows: about twice the time.
Where the time goes: ``python -X importtime -m rftheory list``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile

REFERENCE = [sys.executable, "-c", "import numpy, mpmath"]
COMMANDS = {
    "rftheory --version": [sys.executable, "-m", "rftheory", "--version"],
    "rftheory --help": [sys.executable, "-m", "rftheory", "--help"],
    "rftheory list": [sys.executable, "-m", "rftheory", "list"],
    "rftheory eval simrf.conformity.iid -p d=4 -p v=1": [sys.executable, "-m", "rftheory", "eval",
                                                         "simrf.conformity.iid", "-p", "d=4", "-p", "v=1"],
}


def cpu_seconds(cmd: list[str], env: dict | None = None) -> float:
    """CPU seconds (user + system) of one run of ``cmd`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=env or dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None, out=sys.stdout) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cold", action="store_true", help="also without bytecode (every module compiled at start)")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rftheory-pyc-") as pyc:
        warm = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPYCACHEPREFIX=pyc)
        warm.pop("PYTHONDONTWRITEBYTECODE", None)
        cold = dict(warm, PYTHONDONTWRITEBYTECODE="1")  # numpy's and mpmath's installed bytecode, none of ours
        del cold["PYTHONPYCACHEPREFIX"]
        for cmd in COMMANDS.values():  # untimed: writes the bytecode an install would have
            cpu_seconds(cmd, warm)
        best = {name: float("inf") for name in ["reference", *COMMANDS]}
        best_cold = dict(best)
        for _ in range(a.repeat):  # interleaved, so slow phases of the machine hit every command alike
            best["reference"] = min(best["reference"], cpu_seconds(REFERENCE, warm))
            for name, cmd in COMMANDS.items():
                best[name] = min(best[name], cpu_seconds(cmd, warm))
                if a.cold:
                    best_cold[name] = min(best_cold[name], cpu_seconds(cmd, cold))
    ref = best["reference"]
    print(f"# start-up CPU seconds, best of {a.repeat} (reference: python -c 'import numpy, mpmath' = {ref:.3f} s)",
          file=out)
    for name in COMMANDS:
        cold_text = f"   without bytecode {best_cold[name]:6.3f} s ({best_cold[name] / ref:4.2f}x)" if a.cold else ""
        print(f"{name:52} {best[name]:7.3f} s  {best[name] / ref:5.2f}x the reference{cold_text}", file=out)
    return best


if __name__ == "__main__":
    main()
