"""The range claims of Sutherland and Schneider (2015), "On the Error of Random Fourier Features", UAI 2015,
registered with their verdicts."""

from __future__ import annotations

from .registry import Check, Theorem, theorem

SRC = "Sutherland and Schneider (2015), On the Error of Random Fourier Features, UAI 2015"

theorem(Theorem(
    "sutherland.phi_beats_psi_gaussian", f"{SRC}, contributions and Variance section",
    "\"We show the phi embedding has lower variance than psi for the Gaussian kernel\".",
    "every Delta, sigma > 0, the same D (strict for every z > 0; the difference -> 0 as z -> infinity)", "box",
    "sutherland.var_phi < sutherland.var_psi", "proven on a part",
    "every z in [0, 40] (the declared domain; D scales out: D Var is independent of D): the difference > 0 "
    "and var_phi < var_psi on boxes",
    blocks="z > 40, outside the declared domain, where both variances tend to 1/D and their difference is "
    "below e^(-1600)",
    checks=(Check(("prove", "sutherland.phi_beats_psi > 0", "-p", "D=2", "--over", "z=0..40"), "proven",
                  "D = 2, z in [0, 40]"),
            Check(("prove", "sutherland.var_phi < sutherland.var_psi", "-p", "D=2", "--over", "z=0..6"),
                  "proven", "D = 2, z in [0, 6]"),
            Check(("prove", "sutherland.var_phi < sutherland.var_psi", "-p", "D=2", "--over", "z=0..40",
                   "--budget", "300"), "proven", "D = 2, z in [0, 40]", "full"))))

theorem(Theorem(
    "sutherland.var_cos_printed", f"{SRC}, Variance section",
    "\"Var cos(omega^T Delta) = 1/2 (1 - exp(-||Delta||^2/sigma^2)) <= 1/2\" (as printed).",
    "every Delta, sigma > 0", "erratum", "sutherland.var_phi >= 0.316",
    "disproven", "at D = 2, z = ||Delta||/sigma = 1: Var phi = Var cos is enclosed near 0.1998, below the printed "
    "1/2 (1 - e^(-1)) = 0.31606",
    erratum="Var cos = 1/2 (1 - e^(-||Delta||^2/sigma^2))^2 (the square is missing); the inequality <= 1/2 and "
    "the conclusion stand",
    checks=(Check(("prove", "sutherland.var_phi >= 0.316", "-p", "D=2", "-p", "z=1"), "disproven",
                  "D = 2, z = 1"),)))

theorem(Theorem(
    "sutherland.gap_increasing", f"{SRC}, Fig. 1 caption",
    "\"The difference in variance is higher for larger kernel values.\"",
    "the Gaussian kernel, every Delta", "box", "", "undecided", "nothing on boxes",
    blocks="a monotonicity (one result at two points); its derivative 2k(1 - k^2) >= 0 is the argument"))

theorem(Theorem(
    "sutherland.iff_var_cos", f"{SRC}, Variance section",
    "\"So phi is lower-variance when Var cos(omega^T Delta) = 1/2 + 1/2 k(2 Delta) - k(Delta)^2 <= 1/2.\"",
    "every shift-invariant kernel with k(0) = 1, the same D", "box", "", "undecided", "nothing on boxes",
    blocks="kernel=given needs the joint constraint on (k(Delta), k(2 Delta)) of a positive-definite kernel, "
    "which no box of the two values expresses; for the Cauchy kernel psi wins once delta^2 > 3 + sqrt(10)"))
