"""Write ``docs/theorems_on_boxes.md`` from the registry of claims (``rftheory theorems``): every claim with
its statement, domain, verdict and the commands behind it, each with the verdict and time of a real run.

    python tools/theorems_page.py [--full] [--only PREFIX] [--rewrite | --missing]

Runs every claim's quick checks (``--full``: the slow ones too) in this process and records each
command's verdict, wall time and roots in ``rftheory/claims/recorded.json`` (what ``rftheory theorems --json``
reports when it does not rerun); ``--only`` reruns the claims whose
ID starts with PREFIX and keeps the others' record; ``--rewrite`` reruns nothing.  A check never run
is shown with its registered verdict and "not run".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PAGE = ROOT / "docs" / "theorems_on_boxes.md"
CACHE = ROOT / "rftheory" / "claims" / "recorded.json"

INTRO = """# Theorems proven on boxes

This page is generated from the registry of the papers' range claims (`rftheory theorems`; written by
`python tools/theorems_page.py`): for each claim, the statement as the paper gives it, the paper's own
domain, our verdict on that domain, and the commands behind the verdict with what they printed when
this page was written (wall time on a shared 2-core machine).

`rftheory prove CLAIM --over NAME=LO..HI ...` proves an inequality between two closed forms over a whole
box of parameters, not at grid points: integer ranges are enumerated, real ranges are covered by boxes,
each evaluated in ball arithmetic (Arb, through python-flint) with a ball containing the whole box as the
input, and bisected until decided. `--root` isolates every crossing of the two sides along one real
range: elsewhere LHS − RHS is proven nonzero (a Taylor form of the difference), and each crossing has a
proven sign change and a derivative enclosure that excludes 0, so it is exactly one root. Exit status:
0 proven, 1 disproven (a counterexample with disjoint enclosures), 3 undecided, 2 a usage error.

Verdicts: **proven** on the paper's whole domain; **proven on a part** (which part, and what blocks the
rest); **disproven** (an erratum: a counterexample); **undecided**. `rftheory verify` reruns the quick
checks on every run and all of them with `--full`, and fails when a verdict changes.

**z×(d)** below is the first crossing of the RFF MSEs of orthogonal and iid features (m = d): where
orthogonal random Fourier features stop beating iid ones. For d = 9…22 the two cross a second time
inside z ∈ [0.5, 4], where orthogonal features win again.
"""


def main() -> int:
    from rftheory.claims.registry import theorems
    from rftheory.claims.run import run_check

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--rewrite", action="store_true")
    ap.add_argument("--missing", action="store_true", help="run only the checks without a recorded run")
    a = ap.parse_args()
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    parts = [INTRO]
    counts: dict[str, int] = {}
    for t in theorems():
        counts[t.verdict] = counts.get(t.verdict, 0) + 1
    parts.append("| verdict | claims |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in counts.items()) + "\n")
    for t in theorems():
        rerun = not a.rewrite and (a.only is None or t.id.startswith(a.only))
        for c in t.checks:
            key = c.command()
            if rerun and (a.full or c.tier == "quick") and not (a.missing and key in cache):
                print(f"running: {key}", file=sys.stderr)
                r = run_check(c)
                roots = r.report.get("crossings", []) + r.report.get("roots", [])
                text = r.text.strip()[:4000] if c.argv[0] == "function" else ""  # a prove run's JSON is summarised
                cache[key] = {"verdict": r.verdict, "seconds": round(r.seconds, 1), "text": text,
                              "roots": roots, "boxes": r.report.get("boxes"), "method": r.report.get("method"),
                              "methods": r.report.get("methods")}
                CACHE.write_text(json.dumps(cache, indent=1))
        lines = [f"## `{t.id}` — {t.verdict}", "", f"*{t.source}.*", "", f"> {t.statement}", "",
                 f"- **Paper's domain:** {t.paper_domain}", f"- **Kind:** {t.kind}"]
        if t.claim:
            lines.append(f"- **Claim:** `{t.claim}`")
        lines.append(f"- **Verdict:** {t.verdict} — {t.proven_over}")
        if t.blocks:
            lines.append(f"- **What blocks the rest:** {t.blocks}")
        if t.erratum:
            lines.append(f"- **Erratum:** {t.erratum}")
        for c in t.checks:
            r = cache.get(c.command())
            boxes = f", {r['boxes']} boxes" if r and r.get("boxes") else ""
            ran = (f"{r['verdict']} in {r['seconds']:.1f} s{boxes}" + ("" if r["verdict"] == c.expect else
                                                                  f" (registered: {c.expect})")) if r else \
                f"{c.expect} (registered; not run for this page — `rftheory theorems {t.id} --run --full`)"
            lines += ["", f"{c.over} ({c.tier} tier): **{ran}**", "", "```bash", c.command(), "```"]
            if r and r.get("text") and c.argv[0] == "function":
                lines += ["", "```text", r["text"], "```"]
        parts.append("\n".join(lines) + "\n")
    PAGE.write_text("\n".join(parts))
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
