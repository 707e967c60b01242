"""A stand-in ball layer for the tests of ``rftheory prove``: two conformities of the SimRF paper in Arb.

``enclose(result_id, prec, **params)`` has the signature of ``rftheory.ball.enclose``:
rho_iid = e^{v^2} (Lemma 4.1) and rho_orth = 1F1(d; d/2; v^2/2) (Thm 4.3) of Reid et al. (2023),
"Simplex Random Features", ICML, with Arb's rigorous exp and 1F1, so its balls contain the exact values
on the whole input ball.  ``CALLS`` counts evaluations in this process.
"""

from __future__ import annotations

from flint import arb, ctx

CALLS = [0]


def enclose(result_id: str, prec: int, **p):
    CALLS[0] += 1
    with ctx.workprec(prec):
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
