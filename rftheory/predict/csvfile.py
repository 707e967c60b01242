"""Reading a ``.csv`` data set for ``rftheory predict``, with errors that name the row and column.

The format: numbers separated by commas, ``.`` as the decimal point, one
point per line, an optional header line (any line 1 that is not all numbers).
Errors count rows and columns from 1, as the lines and fields of the file
(the header, when there is one, is row 1).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..core.errors import ParameterError

__all__ = ["read_csv"]

#: separators other programs write, recognized only to say what is wrong
_OTHER_SEPARATORS = ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars"))


def _number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _diagnose(path: str, name: str) -> ParameterError:
    """The first problem in the file, as an error naming its row and column (1-based)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        return ParameterError(name, f"cannot read {path!r} ({exc.strerror or exc})")
    rows = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not rows:
        return ParameterError(name, f"{path!r} is empty: no data rows")
    first_n, first = rows[0]
    for sep, words in _OTHER_SEPARATORS:
        if sep in first and "," not in first:
            return ParameterError(name, f"{path!r} separates its values by {words} ({sep!r}); rftheory reads "
                                  "comma-separated numbers with '.' as the decimal point (convert the file)")
    header = not all(_number(f) for f in first.split(","))
    data = rows[1:] if header else rows
    if not data:
        return ParameterError(name, f"{path!r} has a header line and no data rows")
    width = len(data[0][1].split(","))
    for n, line in data:
        fields = line.split(",")
        if len(fields) != width:
            return ParameterError(name, f"{path!r} row {n} has {len(fields)} values, row {data[0][0]} has {width} "
                                  "(rows and columns counted from 1)")
        for c, f in enumerate(fields, 1):
            if not _number(f):
                what = "an empty field" if not f.strip() else repr(f.strip()[:40])
                return ParameterError(name, f"{path!r} row {n}, column {c} is {what}, not a number "
                                      "(rows and columns counted from 1)")
    return ParameterError(name, f"cannot read {path!r} as comma-separated numbers")


def _has_header(path: str, name: str) -> bool:
    """Whether the first line is a header (not all numbers)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = fh.readline()
    except OSError as exc:
        raise ParameterError(name, f"cannot read {path!r} ({exc.strerror or exc})") from None
    return bool(first.strip()) and not all(_number(f) for f in first.split(","))


def read_csv(path: str, name: str = "DATA") -> np.ndarray:
    """The numbers of a comma-separated file as a 2-D array, one row per line (an optional header line skipped).

    Parameters
    ----------
    path, name : str
        The file, and how errors name it.

    Returns
    -------
    np.ndarray

    Raises
    ------
    ParameterError
        Unreadable or empty file, another separator, a non-number, ragged rows -- naming row and column (1-based).
    """
    skip = 1 if _has_header(path, name) else 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's "input contained no data": an error below instead
        try:
            arr = np.loadtxt(path, delimiter=",", ndmin=2, skiprows=skip)
        except OSError as exc:
            raise ParameterError(name, f"cannot read {path!r} ({exc.strerror or exc})") from None
        except (ValueError, UnicodeDecodeError):
            arr = None
    if arr is not None and arr.size:
        return arr
    raise _diagnose(path, name)
