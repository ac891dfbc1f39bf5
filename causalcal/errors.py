"""The error contract of causalcal (library and command line).

Bad input — a file, a column, a row, a pair or an argument — raises :class:`InputError`,
a ``ValueError`` whose message names what is wrong and where (``data.csv: column 'X3',
row 17: missing value``). A missing input file raises :class:`MissingFileError`, which is
both an ``InputError`` and a ``FileNotFoundError``. A file that cannot be written raises
:class:`WriteError` (an ``OSError``) naming the file. The command line prints any of them
as one line, ``causalcal <command>: error: <message>``, and exits 2 for bad input, 1 for
a run that failed (see :mod:`causalcal.cli`). The package raises no plain ``ValueError``
(``tests/core/test_error_contract.py`` scans it); one that escapes comes from a library
below or is a bug, and the command line reports it as an internal error (exit 1).
"""

from __future__ import annotations

__all__ = ["ConstantFitWarning", "DataWarning", "InputError", "MissingFileError", "WriteError"]


class InputError(ValueError):
    """Bad input; the message names the file, column, row, pair or argument."""


class MissingFileError(InputError, FileNotFoundError):
    """An input file that does not exist."""


class WriteError(OSError):
    """A file could not be written (read-only folder, disk full, …)."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


class ConstantFitWarning(UserWarning):
    """A binary calibrator was fitted on one sample or on labels of one class: its fit is
    a constant (as scikit-learn's ``IsotonicRegression``), nothing is calibrated."""


class DataWarning(UserWarning):
    """A column that carries less than asked: binned into fewer non-empty bins than asked
    (and cut otherwise), a given cut with an empty bin, a constant column."""
