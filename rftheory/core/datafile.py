"""Data files read before they are trusted: a regular file of bounded size, a ``.npy`` header checked first.

Notes: :doc:`/notes/core/datafile`.
"""

from __future__ import annotations

import numpy as np

from .errors import ParameterError

__all__ = ["MAX_FILE_BYTES", "check_data_file", "read_npy"]

#: the largest data file read (2 GiB): beyond it, the pairwise sums would not finish anyway, and a device or
#: sparse file claiming more is refused before a byte of it is read
MAX_FILE_BYTES = 2**31


def check_data_file(path: str, name: str = "DATA") -> None:
    """Refuse what is not a regular, readable file of at most :data:`MAX_FILE_BYTES` before reading it.

    Parameters
    ----------
    path, name : str
        The file; how errors name it.

    Raises
    ------
    ParameterError
        A missing file, a directory, a device (``/dev/zero``), a FIFO, or a file above :data:`MAX_FILE_BYTES`.
    """
    import os
    import stat

    try:
        st = os.stat(path)
    except OSError as exc:
        raise ParameterError(name, f"cannot read {path!r} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a special file")
        raise ParameterError(name, f"{path!r} is {kind}, not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise ParameterError(name, f"{path!r} has {st.st_size / 2**30:.1f} GiB, more than the "
                             f"{MAX_FILE_BYTES / 2**30:g} GiB rftheory reads")


def read_npy(path: str, name: str = "DATA") -> np.ndarray:
    """A ``.npy`` file's array, its header checked before its data is read (never unpickled).

    Parameters
    ----------
    path, name : str
        A regular file (:func:`check_data_file`); how errors name it.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ParameterError
        No NumPy header (e.g. text named ``.npy``), an empty or truncated file, a non-real dtype.
    """
    import os

    fmt = np.lib.format
    with open(path, "rb") as fh:
        try:
            version = fmt.read_magic(fh)
            shape, fortran, dtype = (fmt.read_array_header_1_0(fh) if version == (1, 0)
                                     else fmt.read_array_header_2_0(fh))
        except (ValueError, EOFError, OSError, SyntaxError):
            what = "is empty" if not fh.tell() and not fh.read(1) else "is not a NumPy .npy file (no NumPy header)"
            raise ParameterError(name, f"{path!r} {what}; a table of numbers is read from a .csv file") from None
        if dtype.kind not in "iuf" or dtype.hasobject:
            what = "complex" if dtype.kind == "c" else f"dtype {dtype}"
            raise ParameterError(name, f"{path!r} holds {what} values; expected real numbers")
        need = int(np.prod(shape, dtype=object)) * dtype.itemsize
        have = os.fstat(fh.fileno()).st_size - fh.tell()
        if need > have:
            raise ParameterError(name, f"{path!r} is truncated: its header promises {need} bytes of data, "
                                 f"the file has {have}")
        fh.seek(0)
        arr: np.ndarray = np.load(fh, allow_pickle=False)
        return arr
