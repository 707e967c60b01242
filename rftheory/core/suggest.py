"""Suggestions for a mistyped name: the known names closest by edit distance, best first."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["edit_distance", "suggest", "did_you_mean", "id_prefixes", "no_prefix_message"]

#: at most this many suggestions
MAX_SUGGESTIONS = 3


def edit_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): the least number of insertions, deletions,
    substitutions and transpositions of adjacent characters that turn ``a`` into ``b``.

    Parameters
    ----------
    a, b : str

    Returns
    -------
    int
    """
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def suggest(name: str, known: Iterable[str], limit: int = MAX_SUGGESTIONS) -> list[str]:
    """The known names closest to ``name``, best first (at most ``limit``) (notes: :doc:`/notes/core/suggest`).

    Parameters
    ----------
    name, known, limit
        The name; the valid names; at most this many.

    Returns
    -------
    list[str]
        Empty when none is close.
    """
    name = name.strip()
    pool = sorted(set(known))
    if not name or not pool:
        return []
    budget = max(2, len(name) // 4)
    scored = []
    for k in pool:
        if abs(len(k) - len(name)) > budget:
            continue
        dist = edit_distance(name.lower(), k.lower())
        if dist <= budget:
            scored.append((dist, -difflib.SequenceMatcher(None, name, k).ratio(), k))
    if scored:
        best = min(d for d, _, _ in scored)
        return [k for d, _, k in sorted(scored) if d <= best + 1][:limit]
    return difflib.get_close_matches(name, pool, n=limit, cutoff=0.6)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean X, Y or Z?"`` for the closest known names, or ``""`` when none is close.

    Parameters
    ----------
    name, known
        The name; the valid names.

    Returns
    -------
    str
    """
    close = suggest(name, known)
    if not close:
        return ""
    words = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
    return f"; did you mean {words}?"


def id_prefixes(ids: Iterable[str]) -> set[str]:
    """Every ID and each of its dotted prefixes (``a.b.c`` gives ``a``, ``a.b``, ``a.b.c``).

    Parameters
    ----------
    ids : Iterable[str]

    Returns
    -------
    set[str]
    """
    out: set[str] = set()
    for i in ids:
        parts = i.split(".")
        out.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return out


def no_prefix_message(prefix: str, ids: Iterable[str]) -> str:
    """The error text for a prefix no result ID starts with, suggesting the closest ID prefixes.

    Parameters
    ----------
    prefix, ids
        The prefix the user gave; every result ID.

    Returns
    -------
    str
    """
    return f"no result ID starts with {prefix!r}{did_you_mean(prefix, id_prefixes(ids))} (see `rftheory list`)"
