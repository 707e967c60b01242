"""The papers' range claims as a registry: ``rftheory theorems``.

* :mod:`~rftheory.claims.registry` -- :class:`Theorem`, :class:`Check`, the registry;
* ``paper_*`` -- one module per paper, registering its claims;
* :mod:`~rftheory.claims.functions` -- checks no ``prove`` string expresses (a paper's own bound, a limit);
* :mod:`~rftheory.claims.run` -- run a claim's checks;
* :mod:`~rftheory.claims.cli` -- the subcommand.
"""

from .registry import Check, Theorem, get, theorems

__all__ = ["Check", "Theorem", "get", "theorems"]
