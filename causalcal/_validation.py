"""Input checks shared by every layer (docs/design.md §3, §7; error contract in
:mod:`causalcal.errors`): arrays of scores, probabilities, labels, weights and offsets,
unique names, and the declared parameter constraints of the estimators.

An estimator declares what each hyper-parameter may be in a class attribute, in the
style of scikit-learn's ``_parameter_constraints``::

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 1, None)],
        "method": [Options("average", "select")],
        "max_models": [Interval(Integral, 2, None), None],
    }

and :func:`validate_params` raises :class:`~causalcal.errors.InputError` naming the first
parameter that satisfies none of its constraints, what it may be and the value given:
``n_bins must be an integer >= 1, got 0``. A constraint is an :class:`Interval`, an
:class:`Options`, ``None`` (the value ``None``), :data:`BOOLEAN`, :class:`HasMethods`,
:class:`InstanceOf` or :class:`Satisfies` (a predicate with a description).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np

from causalcal.errors import ConstantFitWarning, InputError

__all__ = [
    "BOOLEAN",
    "HasMethods",
    "InstanceOf",
    "Integral",
    "Interval",
    "Options",
    "RANDOM_STATE",
    "Real",
    "Satisfies",
    "check_binary_labels",
    "check_binary_scores",
    "check_class_labels",
    "check_fit_data",
    "check_label_sets",
    "check_offsets",
    "check_probability_matrix",
    "check_probability_rows",
    "check_sample_weight",
    "check_score_matrix",
    "check_unique_names",
    "validate_params",
]

#: How far a row of probabilities may sum from 1. Lenient enough for float32 arrays
#: (about 7 significant digits, 1e-7 per entry) and CSV files written with 8 or even 5
#: significant digits; the one tolerance of :func:`check_probability_rows`.
ROW_SUM_TOL = 1e-4


# ------------------------------------------------------------------ parameter constraints
class Interval:
    """Finite numbers of type ``kind`` (``Integral`` or ``Real``; never a bool) between
    ``low`` and ``high`` (``None``: unbounded); ``closed`` is "both", "left", "right" or
    "neither"."""

    def __init__(self, kind: type, low: float | None, high: float | None,
                 closed: str = "both") -> None:
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if not math.isfinite(value):
            return False
        lo_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low)
        hi_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high)
        return lo_ok and hi_ok

    def __str__(self) -> str:
        what = "an integer" if self.kind is Integral else "a number"
        left = ">=" if self.closed in ("both", "left") else ">"
        right = "<=" if self.closed in ("both", "right") else "<"
        if self.low is not None and self.high is not None:
            lb = "[" if left == ">=" else "("
            rb = "]" if right == "<=" else ")"
            return f"{what} in {lb}{self.low}, {self.high}{rb}"
        if self.low is not None:
            return f"{what} {left} {self.low}"
        if self.high is not None:
            return f"{what} {right} {self.high}"
        return f"{what}"


class Options:
    """One of the given values (strings, usually)."""

    def __init__(self, *values: Any) -> None:
        self.values = values

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str | int | float) and value in self.values

    def __str__(self) -> str:
        return "one of " + ", ".join(map(repr, self.values))


class InstanceOf:
    """An instance of ``kind``."""

    def __init__(self, kind: type | tuple[type, ...], description: str) -> None:
        self.kind, self.description = kind, description

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.kind)

    def __str__(self) -> str:
        return self.description


class HasMethods:
    """An object with all the named methods (an estimator, a splitter)."""

    def __init__(self, *methods: str) -> None:
        self.methods = methods

    def accepts(self, value: Any) -> bool:
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return "an object with " + " and ".join(self.methods)


class Satisfies:
    """A value for which ``predicate`` is true (exceptions count as false)."""

    def __init__(self, predicate: Callable[[Any], bool], description: str) -> None:
        self.predicate, self.description = predicate, description

    def accepts(self, value: Any) -> bool:
        try:
            return bool(self.predicate(value))
        except (TypeError, ValueError):
            return False

    def __str__(self) -> str:
        return self.description


#: True or False (numpy's bool too)
BOOLEAN = InstanceOf((bool, np.bool_), "True or False")

#: What ``sklearn.utils.check_random_state`` takes: an integer seed, a RandomState or None
RANDOM_STATE = [Interval(Integral, None, None), InstanceOf(np.random.RandomState, "a RandomState"),
                None]


def _accepts(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    return constraint.accepts(value)


def validate_params(estimator: Any) -> None:
    """Check every parameter of ``estimator`` against its class's ``_parameter_constraints``.

    Raises :class:`InputError` (a ``ValueError``) for the first parameter that satisfies
    none of its constraints: ``<name> must be <what it may be>, got <value>``.
    """
    for name, constraints in type(estimator)._parameter_constraints.items():
        value = getattr(estimator, name)
        if any(_accepts(c, value) for c in constraints):
            continue
        allowed = " or ".join("None" if c is None else str(c) for c in constraints)
        raise InputError(f"{name} must be {allowed}, got {value!r}")


def positive_integers(value: Any) -> bool:
    """True for a non-empty 1-d sequence of integers >= 1."""
    arr = np.asarray(value)
    return arr.ndim == 1 and arr.size > 0 and arr.dtype.kind in "iu" and bool((arr >= 1).all())


# ------------------------------------------------------------------ names
def check_unique_names(names: Iterable[str], what: str = "name") -> list[str]:
    """``names`` as a list; ``InputError`` naming the first repeated one
    (``duplicate <what> 'X'``)."""
    names = list(names)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"duplicate {what} {name!r}")
        seen.add(name)
    return names


#: First characters that make a spreadsheet program read a CSV cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@")


def warn_formula_names(names: Iterable[str]) -> None:
    """Warn about names starting with ``=``, ``+``, ``-`` or ``@`` (where names come in:
    data, probabilities, networks). They are written exactly into every CSV (so files
    read back the same), where a spreadsheet program may evaluate them (docs/design.md
    §10); the command line prints the message once."""
    risky = [n for n in names if n[:1] in FORMULA_STARTS]
    if risky:
        shown = ", ".join(map(repr, risky[:5])) + (" …" if len(risky) > 5 else "")
        warnings.warn(f"variable names {shown} start with =, +, - or @: every CSV written "
                      "keeps them exactly, and a spreadsheet program may evaluate such a "
                      "cell as a formula; import those files as text (docs/design.md §10)",
                      UserWarning, stacklevel=3)


# ------------------------------------------------------------------ arrays
def check_binary_scores(scores, *, real_valued: bool = False, name: str = "scores") -> np.ndarray:
    """1-d float array of scores; in [0, 1] unless ``real_valued``."""
    s = _as_float_array(scores, name)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if s.ndim != 1:
        raise InputError(f"{name} must be 1-d (one score per sample), got shape {s.shape}")
    if s.size == 0:
        raise InputError(f"{name} is empty: found array with 0 sample(s) (shape={s.shape}) "
                         "while a minimum of 1 is required")
    bad = np.flatnonzero(~np.isfinite(s))
    if len(bad):
        raise InputError(f"{name}[{bad[0]}] is not finite ({s[bad[0]]}); input contains "
                         "NaN or infinity")
    if not real_valued:
        out = np.flatnonzero((s < 0) | (s > 1))
        if len(out):
            raise InputError(
                f"{name}[{out[0]}] = {s[out[0]]} is outside [0, 1]; "
                "this calibrator needs probability-like scores"
            )
    return s


def _as_float_array(values, name: str) -> np.ndarray:
    """``values`` as a float64 array; sparse and complex input are errors saying so."""
    if hasattr(values, "toarray") or hasattr(values, "tocsr"):
        raise TypeError(f"{name}: sparse input is not supported; pass a dense array")
    a = np.asarray(values)
    if np.iscomplexobj(a):
        raise InputError(f"{name}: complex data not supported")
    try:
        return a.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers, got dtype {a.dtype}") from None


def check_binary_labels(y, n: int) -> np.ndarray:
    """1-d int array of 0/1 labels of length ``n``."""
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise InputError(f"y must be 1-d with {n} labels, got shape {y.shape}")
    if y.dtype == bool:
        return y.astype(np.int64)
    bad = np.flatnonzero((y != 0) & (y != 1))
    if len(bad):
        raise InputError(f"y[{bad[0]}] = {y[bad[0]]!r}; labels must be 0 or 1")
    return y.astype(np.int64)


def check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """Non-negative finite weights of length ``n`` (ones if ``None``)."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight).astype(np.float64)
    if w.shape != (n,):
        raise InputError(f"sample_weight must have shape ({n},), got {w.shape}")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise InputError(f"sample_weight[{bad[0]}] = {w[bad[0]]} must be finite and >= 0")
    if w.sum() <= 0:
        raise InputError("sample_weight sums to zero: sample weights must contain at least "
                         "one non-zero number")
    return w


def check_probability_matrix(P, *, n_classes: int | None = None, name: str = "P") -> np.ndarray:
    """2-d float array of class probabilities: finite, in [0, 1], rows summing to 1."""
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        raise InputError(f"{name} must be 2-d (n_samples, n_classes), got shape {P.shape}")
    if n_classes is not None and P.shape[1] != n_classes:
        raise InputError(f"{name} has {P.shape[1]} columns, expected {n_classes}")
    if P.shape[0] == 0:
        raise InputError(f"{name} is empty")
    bad = np.argwhere(~np.isfinite(P) | (P < 0) | (P > 1))
    if len(bad):
        r, c = bad[0]
        raise InputError(f"{name}[{r}, {c}] = {P[r, c]} is not a probability")
    check_probability_rows(P, name=name)
    return P


def check_probability_rows(P: np.ndarray, *, name: str = "P",
                           message: Callable[[int, float], str] | None = None) -> None:
    """Every row of the 2-d array ``P`` sums to 1 within :data:`ROW_SUM_TOL`, else an
    ``InputError`` about the first row that does not: ``message(row, total)``, by default
    ``row 3 of P sums to 0.9, not 1`` (callers name the row their own way: a pair, a class).
    """
    totals = np.asarray(P).sum(axis=1)
    off = np.flatnonzero(~(np.abs(totals - 1.0) <= ROW_SUM_TOL))  # NaN is off too
    if len(off):
        row, total = int(off[0]), float(totals[off[0]])
        raise InputError(f"row {row} of {name} sums to {total:.6g}, not 1" if message is None
                         else message(row, total))


def check_class_labels(y, n: int, n_classes: int) -> np.ndarray:
    """1-d int labels of length ``n`` with values in ``0 .. n_classes - 1``."""
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise InputError(f"y must be 1-d with {n} labels, got shape {y.shape}")
    if y.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(y) | (y != np.round(y)))
        if len(bad):
            raise InputError(f"y[{bad[0]}] = {y[bad[0]].item()!r} is not a class index")
    elif y.dtype.kind not in "iub":
        raise InputError(f"y must hold integer class indices 0..{n_classes - 1}, got {y.dtype}")
    yi = y.astype(np.int64)
    bad = np.flatnonzero((yi < 0) | (yi >= n_classes))
    if len(bad):
        raise InputError(
            f"y[{bad[0]}] = {y[bad[0]].item()!r} is not a class index in 0..{n_classes - 1}"
        )
    return yi


def check_label_sets(y, n: int, n_classes: int) -> np.ndarray:
    """Labels as an (n, k) bool matrix of allowed classes.

    ``y`` is 1-d class indices (one class per row) or an (n, k) 0/1 matrix with at least
    one allowed class per row.
    """
    arr = np.asarray(y)
    if arr.ndim == 1:
        labels = check_class_labels(arr, n, n_classes)
        Y = np.zeros((n, n_classes), dtype=bool)
        Y[np.arange(n), labels] = True
        return Y
    if arr.ndim != 2 or arr.shape != (n, n_classes):
        raise InputError(
            f"y must be 1-d class indices or an ({n}, {n_classes}) 0/1 matrix of allowed "
            f"classes, got shape {arr.shape}"
        )
    bad = np.argwhere((arr != 0) & (arr != 1))
    if len(bad):
        r, c = bad[0]
        raise InputError(f"y[{r}, {c}] = {arr[r, c]!r}; a label-set matrix holds 0 or 1")
    Y = arr.astype(bool)
    empty = np.flatnonzero(~Y.any(axis=1))
    if len(empty):
        raise InputError(f"label set y[{empty[0]}] allows no class")
    return Y


def check_offsets(offsets, n: int, n_classes: int) -> np.ndarray:
    """Finite (n, k) float logit offsets (zeros if ``None``)."""
    if offsets is None:
        return np.zeros((n, n_classes))
    O = np.asarray(offsets, dtype=np.float64)
    if O.shape != (n, n_classes):
        raise InputError(f"offsets must have shape ({n}, {n_classes}), got {O.shape}")
    bad = np.argwhere(~np.isfinite(O))
    if len(bad):
        r, c = bad[0]
        raise InputError(f"offsets[{r}, {c}] = {O[r, c]} is not finite")
    return O


def check_score_matrix(X, n_cols: int | None = None, name: str = "X") -> np.ndarray:
    """Finite scores of C classifiers as an (n, C) float array (a 1-d ``X`` is one column)."""
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise InputError(f"{name} must be 1-d or 2-d (n_samples, n_classifiers), got {A.shape}")
    if A.shape[0] == 0:
        raise InputError(f"{name} is empty")
    if n_cols is not None and A.shape[1] != n_cols:
        raise InputError(f"{name} has {A.shape[1]} classifier columns, expected {n_cols}")
    bad = np.argwhere(~np.isfinite(A))
    if len(bad):
        r, c = bad[0]
        raise InputError(f"{name}[{r}, {c}] is not finite ({A[r, c]})")
    return A


# ------------------------------------------------------------------ what a fit can learn
def _single_class(n: int, labels: np.ndarray) -> str | None:
    """What makes ``n`` training rows with ``labels`` unfit to calibrate, or ``None``."""
    if n == 1:
        return "a training set of 1 sample"
    if n > 1 and labels.shape[:1] == (n,) and labels.dtype != object:
        distinct = np.unique(labels.reshape(n, -1), axis=0)
        if len(distinct) < 2:
            only = distinct[0].tolist() if labels.ndim > 1 else distinct[0].item()
            return f"every label is {only!r}, a single class"
    return None


def _available_memory() -> float:
    """Bytes of memory available now (MemAvailable; all physical memory elsewhere)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def check_fit_data(estimator: Any, X, y, *, one_class: bool = True) -> None:
    """Refuse (``InputError``) a training set a calibrator cannot learn from: a single
    sample or labels of a single class or label set, unless ``one_class`` (a binary
    method's constant fit, as scikit-learn's ``IsotonicRegression``), where it is a
    :class:`~causalcal.errors.ConstantFitWarning` naming the calibrator; always more rows
    than its fit has memory for (``estimator._fit_bytes_per_value`` per input value, an
    estimate). Malformed inputs are left to the calibrator's own checks."""
    what = type(estimator).__name__
    shape = np.shape(X)
    n = shape[0] if shape else 0
    problem = _single_class(n, np.asarray(y))
    if problem and not one_class:
        raise InputError(f"{what}: {problem}; a calibrator needs at least 2 samples and "
                         "examples of at least two classes")
    if problem:
        warnings.warn(f"{what}: {problem}; fitted as a constant (as scikit-learn's "
                      "IsotonicRegression), nothing is calibrated", ConstantFitWarning,
                      stacklevel=3)
    need = float(np.prod(shape)) * getattr(estimator, "_fit_bytes_per_value", 256)
    check_memory(need, f"{what}: fitting on {n} rows", "fit on a sample of the rows")


def check_memory(need: float, what: str, advice: str) -> None:
    """Refuse (``InputError``: ``what`` needs about … GB, more than the … GB available;
    ``advice``), before the work, a step whose memory (``need`` bytes, an estimate) is
    more than the memory available now."""
    have = _available_memory()
    if need > have:
        raise InputError(f"{what} needs about {need / 2**30:.1f} GB of memory, more than "
                         f"the {have / 2**30:.1f} GB available; {advice}")
