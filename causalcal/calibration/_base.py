"""Shared input validation and base classes of the calibrators (SPEC §7)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "BinaryCalibrator",
    "MulticlassCalibrator",
    "check_binary_scores",
    "check_binary_labels",
    "check_sample_weight",
    "check_probability_matrix",
    "pool_ties",
    "sorted_training_set",
]


def check_binary_scores(scores, *, real_valued: bool = False, name: str = "scores") -> np.ndarray:
    """1-d float array of scores; in [0, 1] unless ``real_valued``."""
    s = _as_float_array(scores, name)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if s.ndim != 1:
        raise ValueError(f"{name} must be 1-d (one score per sample), got shape {s.shape}")
    if s.size == 0:
        raise ValueError(f"{name} is empty: found array with 0 sample(s) (shape={s.shape}) "
                         "while a minimum of 1 is required")
    bad = np.flatnonzero(~np.isfinite(s))
    if len(bad):
        raise ValueError(f"{name}[{bad[0]}] is not finite ({s[bad[0]]}); input contains "
                         "NaN or infinity")
    if not real_valued:
        out = np.flatnonzero((s < 0) | (s > 1))
        if len(out):
            raise ValueError(
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
        raise ValueError(f"{name}: complex data not supported")
    try:
        return a.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got dtype {a.dtype}") from None


def check_binary_labels(y, n: int) -> np.ndarray:
    """1-d int array of 0/1 labels of length ``n``."""
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise ValueError(f"y must be 1-d with {n} labels, got shape {y.shape}")
    if y.dtype == bool:
        return y.astype(np.int64)
    bad = np.flatnonzero((y != 0) & (y != 1))
    if len(bad):
        raise ValueError(f"y[{bad[0]}] = {y[bad[0]]!r}; labels must be 0 or 1")
    return y.astype(np.int64)


def check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """Non-negative finite weights of length ``n`` (ones if ``None``)."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight).astype(np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise ValueError(f"sample_weight[{bad[0]}] = {w[bad[0]]} must be finite and >= 0")
    if w.sum() <= 0:
        raise ValueError("sample_weight sums to zero: sample weights must contain at least "
                         "one non-zero number")
    return w


def check_probability_matrix(P, *, n_classes: int | None = None, name: str = "P") -> np.ndarray:
    """2-d float array of class probabilities: finite, in [0, 1], rows summing to 1."""
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        raise ValueError(f"{name} must be 2-d (n_samples, n_classes), got shape {P.shape}")
    if n_classes is not None and P.shape[1] != n_classes:
        raise ValueError(f"{name} has {P.shape[1]} columns, expected {n_classes}")
    if P.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    bad = np.argwhere(~np.isfinite(P) | (P < 0) | (P > 1))
    if len(bad):
        r, c = bad[0]
        raise ValueError(f"{name}[{r}, {c}] = {P[r, c]} is not a probability")
    rows = np.flatnonzero(np.abs(P.sum(axis=1) - 1) > 1e-4)
    if len(rows):
        raise ValueError(f"row {rows[0]} of {name} sums to {P[rows[0]].sum():.6g}, not 1")
    return P


def sorted_training_set(scores, y, sample_weight=None, *, real_valued: bool = False):
    """Validated training data sorted by score (stable), zero-weight samples dropped.

    Returns ``(s, z, w)``: float64 scores, float64 0/1 labels and positive weights.
    """
    s = check_binary_scores(scores, real_valued=real_valued)
    z = check_binary_labels(y, len(s))
    w = check_sample_weight(sample_weight, len(s))
    keep = w > 0
    s, z, w = s[keep], z[keep].astype(np.float64), w[keep]
    order = np.argsort(s, kind="stable")
    return s[order], z[order], w[order]


def pool_ties(s: np.ndarray, z: np.ndarray, w: np.ndarray):
    """Pool equal scores of sorted data: ``(distinct scores, total weight, weighted positives)``."""
    first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    return s[first], np.add.reduceat(w, first), np.add.reduceat(w * z, first)


class BinaryCalibrator(BaseEstimator):
    """Base of the binary calibrators: ``fit(scores, y)``, ``predict`` → P(y = 1).

    Subclasses implement ``fit`` and ``predict``; ``predict_proba`` stacks
    ``1 − p`` and ``p``.
    """

    def predict_proba(self, scores) -> np.ndarray:
        p = self.predict(scores)
        return np.column_stack([1.0 - p, p])

    def __sklearn_tags__(self):
        """X is the 1-d vector of scores (one column also works); y is required."""
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.target_tags.required = True
        return tags

    @property
    def classes_(self) -> np.ndarray:
        """The labels, ``[0, 1]`` (once fitted); ``predict_proba``'s columns."""
        check_is_fitted(self)
        return np.array([0, 1])

    @property
    def n_features_in_(self) -> int:
        """Score columns seen in ``fit`` (once fitted): one unless a subclass sets it."""
        check_is_fitted(self)
        return getattr(self, "_n_score_columns", 1)

    @n_features_in_.setter
    def n_features_in_(self, value: int) -> None:
        self._n_score_columns = int(value)

    def _check_fitted(self) -> None:
        check_is_fitted(self)


class MulticlassCalibrator(BaseEstimator):
    """Base of the multi-class calibrators: ``fit(P, y)``, ``predict_proba`` → rows summing to 1."""

    def predict(self, P) -> np.ndarray:
        """The most probable class index of each row."""
        return np.argmax(self.predict_proba(P), axis=1)
