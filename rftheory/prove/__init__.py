"""``rftheory prove``: claims over whole parameter boxes, proven in ball arithmetic.

* :mod:`~rftheory.prove.claim` -- parse ``LHS OP RHS`` and the ranges;
* :mod:`~rftheory.prove.boxes` -- the domain, its boxes and their balls;
* :mod:`~rftheory.prove.engine` -- evaluate and bisect boxes until decided;
* :mod:`~rftheory.prove.certificate` -- write a certificate and check it independently;
* :mod:`~rftheory.prove.cli` -- the subcommand.
"""

from .boxes import Box, Problem, make_problem
from .claim import Claim, parse_claim
from .engine import Proof, search

__all__ = ["Box", "Problem", "make_problem", "Claim", "parse_claim", "Proof", "search"]
