"""Exceptions raised by rftheory.

Every error caused by bad input names the offending parameter, so that the
CLI can print it as one line without a traceback.
"""

from __future__ import annotations

from collections.abc import Callable


class RFTheoryError(Exception):
    """Base class of all errors rftheory raises on purpose."""


class ParameterError(RFTheoryError, ValueError):
    """A parameter is missing, malformed or outside its domain.

    Parameters
    ----------
    name, message
        The parameter's name as users spell it (``d``, ``m``, ``v`` ...); what is wrong with it.
    """

    def __init__(self, name: str, message: str):
        self.name = name
        self.message = message
        super().__init__(f"parameter {name!r}: {message}")

    def __reduce__(self) -> tuple[type[ParameterError], tuple[str, str]]:  # picklable: raised in a worker process, re-raised in the parent
        return type(self), (self.name, self.message)


class UnknownResultError(RFTheoryError, KeyError):
    """No result is registered under the requested ID."""

    def __init__(self, result_id: str, known: list[str] | None = None):
        self.result_id = result_id
        self.known = known
        from .suggest import did_you_mean

        hint = did_you_mean(result_id, known) if known else ""
        super().__init__(f"unknown result ID {result_id!r}{hint} (see `rftheory list`)")

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[UnknownResultError], tuple[str, list[str] | None]]:
        return type(self), (self.result_id, self.known)


class LayerUnavailableError(RFTheoryError, LookupError):
    """A result has no evaluator in the requested layer."""


class NoBallLayer(LayerUnavailableError):
    """A result (or a point of it) that the ball layer (Arb enclosures) does not serve; the message says why."""


class RangeError(RFTheoryError, ArithmeticError):
    """A float64 value would overflow, underflow or lose its digits.

    Raised instead of returning a silently wrong number; the message says which layer to use instead
    (``layer="mpmath"``: :meth:`rftheory.Result.exact`, ``rftheory eval ID --layer mpmath``).
    """


class PrecisionError(RFTheoryError, ArithmeticError):
    """The digits asked for could not be agreed (two working precisions) within the precision budget.

    Notes: :doc:`/notes/core/errors`.
    """


def as_typed(value: object, width: int = 40) -> str:
    """A value as a user wrote it, for an error message: numbers plainly, huge ones cut.

    Parameters
    ----------
    value, width
        A parameter value (a string as typed, a number, anything); the longest text kept whole (a longer one keeps its
        two ends and says how long it was).

    Returns
    -------
    str
        Numbers plainly (``1/3``, a numeric string without quotes), other strings quoted.
    """
    from fractions import Fraction
    from numbers import Number

    if isinstance(value, bool):
        text = repr(value)
    elif isinstance(value, int):
        text = _int_text(value)
    elif isinstance(value, Fraction):
        text = _int_text(value.numerator) + ("" if value.denominator == 1 else "/" + _int_text(value.denominator))
    elif isinstance(value, str):
        s = value.strip()
        text = s if s and _numeric(s) else repr(value)
    elif isinstance(value, (float, Number)) or type(value).__module__.startswith("mpmath"):
        text = str(value)
    else:
        text = repr(value)
    if len(text) > width and "digits)" not in text:
        text = f"{text[:width // 2]}...{text[-(width // 4):]} ({len(text)} characters)"
    return text


def _int_text(n: int) -> str:
    """An integer in full, or its two ends and its number of digits when it is long."""
    try:
        s = str(n)
    except ValueError:  # beyond Python's int-to-text limit (4300 digits)
        return f"an integer of about {int(abs(n).bit_length() * 0.30103)} digits"
    digits = len(s.lstrip("-"))
    return s if digits <= 30 else f"{s[:20 + (s[0] == '-')]}...{s[-10:]} ({digits} digits)"


def _numeric(s: str) -> bool:
    """Whether ``s`` reads as a number (decimal, exponent, fraction, nan/inf): shown without quotes."""
    import re

    return re.fullmatch(r"[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?(/[+-]?\d+)?|[+-]?(nan|inf|infinity)", s, re.I) is not None


def run_command(body: Callable[[], int], exiting: bool = False) -> int:
    """Run a command's body with the ``rftheory`` command's one-line errors and exit statuses.

    Parameters
    ----------
    body : callable
        The command; returns its exit status (None: 0).
    exiting : bool, optional
        The process exits with the status (the command line, not a caller in Python): once the command has
        stopped on a signal (130, 143), further SIGINT and SIGTERM are ignored, so a second Ctrl-C cannot
        interrupt the interpreter's exit hooks and print a traceback after the one line.

    Returns
    -------
    int
        ``body``'s status; 2 for an :class:`RFTheoryError`, an arithmetic failure or an unwritable output
        (one line on stderr), 130 interrupted, 0 when stdout's reader left (a broken pipe).
    """
    import sys

    try:
        code = int(body() or 0)
        if exiting and code in (130, 143):
            _ignore_stop_signals()
        sys.stdout.flush()  # here, not at exit: a full disk or closed reader is reported below
        return code
    except RFTheoryError as exc:
        print(f"rftheory: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if exiting:
            _ignore_stop_signals()
        print("rftheory: interrupted", file=sys.stderr)
        return 130
    except (MemoryError, RecursionError, OverflowError, ZeroDivisionError) as exc:
        # arithmetic the domain checks should have refused: one line, not a traceback
        print(f"rftheory: error: cannot evaluate here ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `rftheory list | head`: the reader left; not an error
        _discard_stdout()
        return 0
    except OSError as exc:  # e.g. stdout on a full disk (/dev/full): one line, and no second failure at exit
        _discard_stdout()
        where = f" {exc.filename!r}" if exc.filename else " the output"
        print(f"rftheory: error: cannot read or write{where}: {exc.strerror or type(exc).__name__}", file=sys.stderr)
        return 2


def _ignore_stop_signals() -> None:
    """Ignore SIGINT and SIGTERM from here on (main thread only): the process is stopping and has said so."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)


def _discard_stdout() -> None:
    """Point stdout at /dev/null (its unwritten buffer dropped), so the last flush cannot fail again."""
    import os
    import sys

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a StringIO under test)
        pass
