"""Plain text and statements made into pure-ASCII LaTeX that pdflatex compiles.

Design notes: :doc:`/notes/present/latex_text`.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["FIT_MACRO", "math_to_latex", "text_to_latex"]

#: a display equation scaled to the line width when wider (needs graphicx)
FIT_MACRO = (r"\newcommand{\fitmath}[1]{\par\noindent\hfil\resizebox{\ifdim\width>\linewidth\linewidth"
             r"\else\width\fi}{!}{$\displaystyle #1$}\hfil\par}")

_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta",
          "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi",
          "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
          "ϕ": "phi", "ϵ": "epsilon", "ϑ": "vartheta", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda",
          "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Υ": "Upsilon", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega"}

#: non-ASCII symbols: their math-mode command
_MATH = {**{k: "\\" + v for k, v in _GREEK.items()},
         "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "≈": r"\approx", "≡": r"\equiv", "∼": r"\sim", "≪": r"\ll",
         "≫": r"\gg", "∞": r"\infty", "∈": r"\in", "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq",
         "∪": r"\cup", "∩": r"\cap", "√": r"\surd", "‖": r"\|", "×": r"\times", "±": r"\pm", "∓": r"\mp",
         "·": r"\cdot", "⋅": r"\cdot", "∘": r"\circ", "→": r"\to", "←": r"\leftarrow", "↦": r"\mapsto",
         "⇒": r"\Rightarrow", "⇔": r"\Leftrightarrow", "∑": r"\sum", "∏": r"\prod", "∫": r"\int",
         "∂": r"\partial", "∇": r"\nabla", "∀": r"\forall", "∃": r"\exists", "−": "-", "∝": r"\propto",
         "ℓ": r"\ell", "ℝ": r"\mathbb{R}", "ℂ": r"\mathbb{C}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}",
         "𝔼": r"\mathbb{E}", "ℒ": r"\mathcal{L}", "⊤": r"\top", "†": r"\dagger", "°": r"^\circ",
         "…": r"\dots", "⋯": r"\cdots", "⌊": r"\lfloor", "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil",
         "⟨": r"\langle", "⟩": r"\rangle", "∗": "*", "′": "'", "″": "''"}

_SUPER = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ", "0123456789+-=()niT"))
_SUB = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓᵢⱼₖₘₙ", "0123456789+-=()aeoxijkmn"))

#: non-ASCII text characters: their text-mode LaTeX
_TEXT = {"–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "„": ",,", "«": r"\guillemotleft{}",
         "»": r"\guillemotright{}", "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,", "ß": r"\ss{}", "æ": r"\ae{}",
         "Æ": r"\AE{}", "ø": r"\o{}", "Ø": r"\O{}", "å": r"\aa{}", "Å": r"\AA{}", "ł": r"\l{}", "Ł": r"\L{}",
         "œ": r"\oe{}", "Œ": r"\OE{}", "ı": r"\i{}", "§": r"\S{}", "¶": r"\P{}", "©": r"\copyright{}",
         "•": r"\textbullet{}", "✓": "yes", "✗": "no"}

#: combining accents (after NFD): the text-mode accent command
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=",
            "\u0307": ".", "\u0306": "u", "\u030c": "v", "\u030b": "H", "\u0327": "c", "\u0328": "k"}

_ESCAPE = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
           "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
           ">": r"\textgreater{}", "|": r"\textbar{}"}

# plain-text math written with ASCII: <=, >=, !=, ||x||, a^b (b a number, a letter or a braced group)
_TEXT_MATH = re.compile(r"<=|>=|!=|\|\|[^|\s]{0,40}\|\||\^(\{[^{}]{1,40}\}|-?[0-9A-Za-z]+)")


def _unknown(ch: str) -> str:
    return "\\texttt{[U+" + f"{ord(ch):04X}" + "]}"


def _text_char(ch: str) -> str:
    if ord(ch) < 128:
        return _ESCAPE.get(ch, ch)
    if ch in _TEXT:
        return _TEXT[ch]
    if ch in _MATH:
        return "$" + _MATH[ch] + "$"
    if ch in _SUPER:
        return "\\textsuperscript{" + _SUPER[ch] + "}"
    if ch in _SUB:
        return "$_{" + _SUB[ch] + "}$"
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], list(decomposed[1:])
    if base.isascii() and marks and all(m in _ACCENTS for m in marks):
        out = base if base not in "ij" else "\\" + base
        for m in marks:
            out = "\\" + _ACCENTS[m] + "{" + out + "}"
        return out
    ascii_form = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return "".join(_ESCAPE.get(c, c) for c in ascii_form) if ascii_form else _unknown(ch)


def _math_piece(token: str) -> str:
    if token == "<=":
        return r"$\le$"
    if token == ">=":
        return r"$\ge$"
    if token == "!=":
        return r"$\ne$"
    if token.startswith("||"):
        return r"$\|$" + "".join(_text_char(c) for c in token[2:-2]) + r"$\|$"
    exp = token[1:]
    if exp.startswith("{"):
        exp = exp[1:-1]
    return r"\textsuperscript{" + "".join(_text_char(c) for c in exp) + "}"


def text_to_latex(text: str) -> str:
    """Plain text as pure-ASCII LaTeX for text mode.

    Parameters
    ----------
    text : str
        Unicode text with inline math.

    Returns
    -------
    str
        LaTeX source that pdflatex compiles.
    """
    out, pos = [], 0
    for m in _TEXT_MATH.finditer(text):
        out.append("".join(_text_char(c) for c in text[pos:m.start()]))
        out.append(_math_piece(m.group(0)))
        pos = m.end()
    out.append("".join(_text_char(c) for c in text[pos:]))
    return "".join(out)


def math_to_latex(statement: str) -> str:
    """A LaTeX math statement with each non-ASCII character replaced by its math command.

    Parameters
    ----------
    statement : str
        A math statement in Unicode.

    Returns
    -------
    str
    """
    out = []
    for ch in statement:
        if ord(ch) < 128:
            out.append(ch)
        elif ch in _MATH:
            out.append(_MATH[ch] + " ")
        elif ch in _SUPER:
            out.append("^{" + _SUPER[ch] + "}")
        elif ch in _SUB:
            out.append("_{" + _SUB[ch] + "}")
        else:
            out.append(r"\text{" + _text_char(ch) + "}")
    return "".join(out)
