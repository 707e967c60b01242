"""A stand-in ball layer for the tests of ``rftheory prove``: two conformities of the SimRF paper in Arb.

``enclose(result_id, prec, **params)`` has the signature of ``rftheory.ball.enclose``:
rho_iid = e^{v^2} (Lemma 4.1) and rho_orth = 1F1(d; d/2; v^2/2) (Thm 4.3) of Reid et al. (2023),
"Simplex Random Features", ICML, with Arb's rigorous exp and 1F1, so its balls contain the exact values
on the whole input ball.  ``CALLS`` counts evaluations in this process; ``RFTHEORY_TOY_DELAY`` (seconds)
makes every evaluation sleep that long first, and ``RFTHEORY_TOY_STARTED`` names a file the first evaluation
creates, so that a test can interrupt a search mid-way.
"""

from __future__ import annotations

import os
import time

from flint import arb, ctx

CALLS = [0]
DELAY = float(os.environ.get("RFTHEORY_TOY_DELAY", "0"))
STARTED = os.environ.get("RFTHEORY_TOY_STARTED")


def _pairs(d: int, m: int) -> int:
    """P = sum over blocks of m_b (m_b - 1): blocks of d, a partial last block."""
    full, rest = divmod(m, d)
    return full * d * (d - 1) + rest * (rest - 1)


def enclose(result_id: str, prec: int, **p):
    """Thm 3.2 / Lemma 4.1 / Thm 4.3 / Thm 4.5 of the SimRF paper (iid and orthogonal couplings) in Arb."""
    CALLS[0] += 1
    if STARTED and not os.path.exists(STARTED):
        open(STARTED, "a").close()
    if DELAY:
        time.sleep(DELAY)
    with ctx.workprec(prec):
        if result_id in ("simrf.prf_mse", "simrf.rff_mse"):
            d, m, c = int(p["d"]), int(p["m"]), p["coupling"]
            if c not in ("iid", "orthogonal"):
                raise LookupError(f"no toy ball for coupling={c}")
            P = arb(_pairs(d, m))
            if result_id == "simrf.prf_mse":
                v = arb(p["v"])
                x = arb(p["x_norm"]) if "x_norm" in p else v / 2
                y = arb(p["y_norm"]) if "y_norm" in p else v / 2
                e = (v * v).exp()
                rho = e if c == "iid" else (v * v / 2).hypgeom_1f1(d, arb(d) / 2)
                return (-2 * x * x - 2 * y * y).exp() / m * ((2 * v * v).exp() - e + P / m * (rho - e))
            z = arb(p["z"])
            e = (-z * z).exp()
            tau = e if c == "iid" else (-z * z / 2).hypgeom_1f1(d, arb(d) / 2)
            return ((1 - e) ** 2 / 2 + P / m * (tau - e)) / m
        v = arb(p["v"])
        if result_id == "simrf.conformity.iid":
            return (v * v).exp()
        if result_id == "simrf.conformity.orthogonal":
            d = arb(p["d"])
            return (v * v / 2).hypgeom_1f1(d, d / 2)
    raise LookupError(f"no toy ball for {result_id}")


def wrong_enclose(result_id: str, prec: int, **p):
    """A defective ball layer (a planted error): rho_iid = e^{v^2/2}, the slip of a missing factor 2."""
    if result_id == "simrf.conformity.iid":
        with ctx.workprec(prec):
            v = arb(p["v"])
            return (v * v / 2).exp()
    return enclose(result_id, prec, **p)
