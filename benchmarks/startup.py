"""Start-up cost of the command line, side by side with ``python -c "import numpy, mpmath"`` (issue 15).

    python benchmarks/startup.py [--repeat 7]

Each command runs in a fresh interpreter; the figure is its CPU time (user +
system of the child, which another process's load inflates far less than wall
time), best of ``--repeat`` runs, and its ratio to the reference command.
Goal: ``rftheory --help`` and ``rftheory list`` within 2.5× the reference.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys

REFERENCE = [sys.executable, "-c", "import numpy, mpmath"]
COMMANDS = {
    "rftheory --help": [sys.executable, "-m", "rftheory", "--help"],
    "rftheory list": [sys.executable, "-m", "rftheory", "list"],
    "rftheory eval simrf.conformity.iid -p d=4 -p v=1": [sys.executable, "-m", "rftheory", "eval",
                                                         "simrf.conformity.iid", "-p", "d=4", "-p", "v=1"],
}


def cpu_seconds(cmd: list[str]) -> float:
    """CPU seconds (user + system) of one run of ``cmd`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None, out=sys.stdout) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args(argv)
    best = {name: float("inf") for name in ["reference", *COMMANDS]}
    for _ in range(a.repeat):  # interleaved, so slow phases of the machine hit every command alike
        best["reference"] = min(best["reference"], cpu_seconds(REFERENCE))
        for name, cmd in COMMANDS.items():
            best[name] = min(best[name], cpu_seconds(cmd))
    ref = best["reference"]
    print(f"# start-up CPU seconds, best of {a.repeat} (reference: python -c 'import numpy, mpmath' = {ref:.3f} s)",
          file=out)
    for name in COMMANDS:
        print(f"{name:52} {best[name]:7.3f} s  {best[name] / ref:5.2f}x the reference", file=out)
    return best


if __name__ == "__main__":
    main()
