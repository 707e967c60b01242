"""The registry's LaTeX statements as Unicode math for a terminal (``rftheory show``, ``help(result)``).

Design notes: :doc:`/notes/core/mathtext`.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["unicode_math"]

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
_SYMBOLS = {
    "top": "ᵀ", "|": "‖", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "in": "∈",
    "to": "→", "sim": "∼", "propto": "∝", "prec": "≺", "succ": "≻", "sum": "∑", "prod": "∏", "int": "∫",
    "infty": "∞", "cdot": "·", "times": "×", "pm": "±", "approx": "≈", "partial": "∂", "ldots": "…",
    "dots": "…", "cdots": "⋯", "le ": "≤", "{": "{", "}": "}", "_": "_", "%": "%", "&": "&", "#": "#",
    "ast": "∗", "star": "⋆", "circ": "∘", "equiv": "≡", "mid": "|", "lvert": "|", "rvert": "|",
    "lVert": "‖", "rVert": "‖", "langle": "⟨", "rangle": "⟩", "nabla": "∇", "forall": "∀", "exists": "∃",
    "ell": "ℓ", "Re": "Re", "Im": "Im",
}
_WORDS = ("log", "ln", "exp", "cos", "sin", "tan", "det", "max", "min", "lim", "sup", "inf", "tr", "arg")
_SPACES = {" ": " ", ",": " ", ";": " ", ":": " ", "quad": "  ", "qquad": "    ", "!": ""}
_IGNORED = {"big", "Big", "bigg", "Bigg", "left", "right", "bigl", "bigr", "Bigl", "Bigr", "rm", "textstyle",
            "displaystyle", "scriptstyle", "limits", "nolimits"}
_TEXT = {"mathrm", "text", "operatorname", "mathbf", "texttt", "textrm", "mathit", "textit", "mathsf", "boldsymbol"}
_BB = {"E": "𝔼", "R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "P": "ℙ", "1": "𝟙"}
_CAL = {"L": "ℒ", "N": "𝒩", "O": "𝒪", "F": "ℱ", "H": "ℋ", "B": "ℬ", "E": "ℰ", "M": "ℳ"}
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303", "bar": "\u0304",
            "overline": "\u0305", "dot": "\u0307", "vec": "\u20d7"}
_SUP = dict(zip("0123456789+-−=()nijkpstuvxyzabcdefghlmorwABDEGHIJKLMNOPRTUVWᵀβγδθφχ*",
                "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱʲᵏᵖˢᵗᵘᵛˣʸᶻᵃᵇᶜᵈᵉᶠᵍʰˡᵐᵒʳʷᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵀᵝᵞᵟᶿᵠᵡ*"))
_SUB = dict(zip("0123456789+-−=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))
_FRACTIONS = {("1", "2"): "½", ("1", "3"): "⅓", ("2", "3"): "⅔", ("1", "4"): "¼", ("3", "4"): "¾", ("1", "8"): "⅛"}


def _script(s: str, table: dict[str, Any], mark: str) -> str:
    if s and all(ch in table for ch in s):
        return "".join(table[ch] for ch in s)
    return mark + s if len(s) == 1 else f"{mark}({s})"


def _simple(s: str) -> bool:
    """No operator or space outside parentheses: safe as a numerator without them."""
    depth = 0
    for ch in s:
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0 and ch in " +-−=,<>≤≥/·":
            return False
    return True


_SCRIPTS = set(_SUP.values()) | set(_SUB.values()) | {"!"}


def _single(s: str) -> bool:
    """One symbol (with its scripts), a number, or a root of one: safe as a denominator (``2D`` is not)."""
    base = "".join(ch for ch in s if ch not in _SCRIPTS)
    if base.startswith(("√", "∛", "∜")):
        rest = base[1:]
        return len(rest) == 1 or (rest.startswith("(") and rest.endswith(")") and _simple(rest))
    return len(base) <= 1 or base.isdigit() or (base.startswith("(") and base.endswith(")") and _simple(base))


class _Frac(str):
    """A rendered fraction ``a/b``: parenthesised when a factor or a script follows (``(a/b)c``, not ``a/bc``)."""


#: what may follow ``a/b`` without making it ambiguous: operators, separators, closing brackets
_NOT_A_FACTOR = set(" +-−=,;:<>≤≥≠≈∼∝≺≻∈→)]}/·×±≡&!")


class _Reader:
    def __init__(self, src: str):
        self.s, self.i = src, 0

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def command(self) -> str:
        """The command name after a backslash (a word, or one character)."""
        self.i += 1
        j = self.i
        while j < len(self.s) and self.s[j].isalpha():
            j += 1
        if j == self.i:  # \| \, \{ ...
            j += 1
        name, self.i = self.s[self.i:j], j
        return name

    def argument(self, text: bool = False) -> str:
        """One argument: a group, a command, or one character (spaces before it skipped)."""
        while self.peek() == " ":
            self.i += 1
        ch = self.peek()
        if ch == "{":
            self.i += 1
            return self.sequence(text, close="}")
        if ch == "\\":
            return self.atom(text)
        self.i += 1
        return ch

    def sequence(self, text: bool = False, close: str = "") -> str:
        out: list[str] = []
        apart = False  # a script written as _b: keep the next letter apart (sum_b m_b)
        frac = None  # index in out of a fraction not yet followed by anything visible

        def factor_follows(piece: str) -> None:
            nonlocal frac
            head = piece.lstrip()
            if frac is not None and head:
                if head[0] not in _NOT_A_FACTOR:
                    out[frac] = f"({out[frac]})"
                frac = None

        while self.i < len(self.s):
            ch = self.peek()
            if close and ch == close:
                self.i += 1
                break
            if ch in "^_":
                self.i += 1
                arg = self.argument(text).strip()
                factor_follows("x")  # (a/b)², not a/b²
                if out:
                    out[-1] = out[-1].rstrip()  # max_θ, not max _θ
                sc = _script(arg, _SUP if ch == "^" else _SUB, ch)
                out.append(sc)
                apart = sc.startswith(ch) and not sc.endswith(")")
                continue
            atom = self.atom(text)
            factor_follows(atom)
            if apart and atom[:1].isalnum():
                out.append(" ")
            apart = apart and not atom
            out.append(atom)
            if isinstance(atom, _Frac):
                frac = len(out) - 1
        text_out = re.sub(r"([(\[{]) ", r"\1", re.sub(" {2,}", " ", "".join(out)))
        visible = [o for o in out if o.strip()]
        # a group that is one fraction ({\frac ab}c) is still a fraction to what follows it
        return _Frac(text_out) if len(visible) == 1 and isinstance(visible[0], _Frac) and frac is not None else text_out

    def atom(self, text: bool = False) -> str:
        ch = self.peek()
        if ch == "{":
            self.i += 1
            return self.sequence(text, close="}")
        if ch != "\\":
            self.i += 1
            if ch == " ":
                return " " if text else ""
            return "−" if ch == "-" and not text else ch
        name = self.command()
        if name in _SPACES:
            return _SPACES[name]
        if name in _IGNORED:
            return ""
        if name in _GREEK:
            return _GREEK[name]
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _WORDS:
            return f" {name} "
        if name in _TEXT:
            return self.argument(text=True)
        if name == "mathbb":
            a = self.argument()
            return "".join(_BB.get(c, c) for c in a)
        if name == "mathcal":
            a = self.argument()
            return "".join(_CAL.get(c, c) for c in a)
        if name in _ACCENTS:
            a = self.argument()
            return "".join(c + _ACCENTS[name] if c.isalnum() else c for c in a)
        if name in ("frac", "tfrac", "dfrac"):
            num, den = self.argument(), self.argument()
            if (num, den) in _FRACTIONS:
                return _FRACTIONS[(num, den)]
            num = num if _simple(num) else f"({num})"
            den = den if _single(den) else f"({den})"
            return _Frac(f"{num}/{den}")
        if name == "sqrt":
            index = ""
            if self.peek() == "[":
                j = self.s.index("]", self.i)
                index, self.i = self.s[self.i + 1:j], j + 1
            a = self.argument()
            root = {"": "√", "3": "∛", "4": "∜"}.get(index, _script(index, _SUP, "^") + "√")
            return root + (a if len(a) == 1 or (a.startswith("(") and a.endswith(")") and _simple(a)) else f"({a})")
        if name == "binom":
            n, k = self.argument(), self.argument()
            return f"C({n}, {k})"
        if name == "overset":
            top, base = self.argument(), self.argument()
            return base + _script(top, _SUP, "^")
        return name  # unknown: its name, never silently dropped


def unicode_math(latex: str) -> str:
    r"""A LaTeX math statement as Unicode text for a terminal.

    Parameters
    ----------
    latex : str
        LaTeX math (no ``$``), as in a result's ``statement``.

    Returns
    -------
    str
        Plain Unicode: fractions as ``a/b`` (a numerator or denominator that is not one term parenthesised, and the
        fraction itself when a factor or a script follows it: ``(a/b)c``, never ``a/bc``), roots as ``√``, scripts as
        Unicode super- and subscripts where every character has one (else ``^(…)``), Greek letters, ``𝔼``, ``‖x‖``,
        ``ᵀ``.
    """
    return _Reader(latex).sequence().strip()
