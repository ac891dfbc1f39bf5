"""Calibration and discrimination measures (docs/design.md §8; thesis §2.4.3 and §6.1.1).

Binary measures take labels ``y_true`` in {0, 1} and predicted probabilities of the
positive class ``y_prob`` in [0, 1]; multi-class measures take integer labels
``0 … k−1`` and an ``(n, k)`` matrix of class probabilities whose rows sum to 1.

Binning (thesis §2.4.3). ECE and MCE sort the predictions and cut the sorted list into
bins by *position*: either ``n_bins`` equal-frequency bins whose sizes differ by at most
one (the first ``n mod n_bins`` bins hold one extra instance; with fewer instances than
bins only ``n`` one-instance bins remain), or, when ``bin_size`` is given, "bins of
``bin_size`` instances" (thesis §6.2.4: 100): ``K = max(1, ⌊n / bin_size⌋)`` equal-frequency
bins, so every bin holds at least ``bin_size`` instances and the ``n mod bin_size``
leftovers are spread one each over the first bins — a tiny tail bin would otherwise
dominate MCE (``bin_size`` overrides ``n_bins``). For every bin, ``e`` is the mean
prediction and ``o`` the fraction of positives; ``ECE = Σ π_b |o_b − e_b|`` with ``π_b``
the bin's share of instances, and ``MCE = max_b |o_b − e_b|``.

Ties. Instances with equal predictions cannot be told apart, so a bin boundary that
falls inside a group of tied predictions splits the group's positives in proportion:
a bin holding ``c`` of the group's ``T`` instances is credited with ``c · P / T`` of its
``P`` positives. Equivalently, every label is replaced by the mean label of its tie
group before binning. The result never depends on the order of the samples, and a
constant, perfectly calibrated predictor has ECE = 0 (ordering ties by label instead
would pile a tie group's positives into its last bins and inflate ECE and MCE, which
matters for edge-type probabilities, where most predictions are tied at 0).

Everything is vectorised: the sort packs each prediction's IEEE-754 bit pattern and its
label into one int64 key, so one ``np.sort`` orders (prediction, label) pairs without an
``argsort``; tie groups are only located at the bin boundaries (binary search); 50 M
stacked entries (12.5 M pairs × 4 edge types) take seconds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from causalcal._validation import ROW_SUM_TOL as ROW_SUM_TOL  # the one row-sum tolerance
from causalcal._validation import check_probability_rows
from causalcal.errors import InputError

__all__ = [
    "CalibrationBins",
    "accuracy",
    "brier_score",
    "calibration_bins",
    "cross_entropy",
    "ece",
    "ece_micro",
    "expected_calibration_error",
    "hand_till_auc",
    "log_loss",
    "maximum_calibration_error",
    "mce",
    "mce_micro",
    "multiclass_accuracy",
    "multiclass_brier_score",
    "reliability_curve",
    "roc_auc",
    "root_mean_squared_error",
]

DEFAULT_EPS = 1e-15


class CalibrationBins(NamedTuple):
    """Per-bin statistics; unpacks as ``(mean_pred, frac_pos, counts)``."""

    mean_pred: np.ndarray
    frac_pos: np.ndarray
    counts: np.ndarray


# ----------------------------------------------------------------- validation
def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _check_labels01(y_true: ArrayLike, name: str = "y_true") -> np.ndarray:
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise InputError(f"{name} must be 1-d, got shape {y.shape}")
    if y.size == 0:
        raise InputError(f"{name} is empty")
    if y.dtype == np.bool_:
        return y.view(np.uint8)
    if not (np.issubdtype(y.dtype, np.integer) or np.issubdtype(y.dtype, np.floating)):
        raise InputError(f"{name} must hold 0/1 labels, got dtype {y.dtype}")
    bad = (y != 0) & (y != 1)
    if bad.any():
        k = _first_bad(bad)
        raise InputError(f"{name}[{k}] = {y[k].item()!r}: labels must be 0 or 1")
    return y.astype(np.uint8)


def _check_probs(y_prob: ArrayLike, name: str = "y_prob") -> np.ndarray:
    """Probabilities as a float array (float32 kept, everything else float64), in [0, 1]."""
    p = np.asarray(y_prob)
    if p.dtype == np.bool_ or np.issubdtype(p.dtype, np.integer):
        p = p.astype(np.float64)
    elif not np.issubdtype(p.dtype, np.floating):
        raise InputError(f"{name} must be numeric, got dtype {p.dtype}")
    elif p.dtype not in (np.float32, np.float64):
        p = p.astype(np.float64)
    if p.size == 0:
        raise InputError(f"{name} is empty")
    lo, hi = p.min(), p.max()  # NaN propagates and fails both tests
    if not (lo >= 0.0 and hi <= 1.0):
        bad = ~((p >= 0.0) & (p <= 1.0))
        k = np.unravel_index(_first_bad(bad.ravel()), p.shape)
        where = k[0] if p.ndim == 1 else tuple(int(x) for x in k)
        raise InputError(f"{name}[{where}] = {p[k].item()!r}: probabilities must lie in [0, 1]")
    return p


def _check_binary(y_true: ArrayLike, y_prob: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    y = _check_labels01(y_true)
    p = np.asarray(y_prob)
    if p.ndim != 1:
        raise InputError(f"y_prob must be 1-d, got shape {p.shape}")
    if p.shape != y.shape:
        raise InputError(f"y_true has {y.shape[0]} entries but y_prob has {p.shape[0]}")
    return y, _check_probs(p)  # float32 or float64


def _check_multiclass(y_true: ArrayLike, prob: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    P = np.asarray(prob)
    if P.ndim != 2:
        raise InputError(f"probability matrix must be 2-d (n, k), got shape {P.shape}")
    n, k = P.shape
    if k < 2:
        raise InputError(f"need at least 2 class columns, got {k}")
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise InputError(f"y_true must be 1-d, got shape {y.shape}")
    if y.shape[0] != n:
        raise InputError(f"y_true has {y.shape[0]} entries but the probability matrix {n} rows")
    if n == 0:
        raise InputError("y_true is empty")
    if np.issubdtype(y.dtype, np.floating):
        frac = y != np.round(y)
        if frac.any():
            i = _first_bad(frac)
            raise InputError(f"y_true[{i}] = {y[i].item()!r}: class labels must be integers")
    elif not np.issubdtype(y.dtype, np.integer):
        raise InputError(f"y_true must hold integer class labels, got dtype {y.dtype}")
    out = (y < 0) | (y >= k)
    if out.any():
        i = _first_bad(out)
        raise InputError(f"y_true[{i}] = {y[i].item()!r}: class labels must be in 0..{k - 1}")
    P = _check_probs(P, "prob")
    check_probability_rows(P, message=lambda i, total: f"prob row {i} sums to {total:.6g}, not 1")
    return y.astype(np.int64), P


def _check_bins(n_bins: int, bin_size: int | None) -> None:
    if bin_size is not None:
        if isinstance(bin_size, bool) or not isinstance(bin_size, (int, np.integer)):
            raise InputError(f"bin_size must be a positive integer, got {bin_size!r}")
        if bin_size < 1:
            raise InputError(f"bin_size must be a positive integer, got {bin_size!r}")
        return
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise InputError(f"n_bins must be a positive integer, got {n_bins!r}")


# ------------------------------------------------------------------- sorting
def _sorted_pairs(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Predictions (float64) and labels sorted by (prediction, label), without an argsort.

    For p in [0, 1] the float64 bit pattern, read as int64, is non-negative, below 2^62
    and ordered like p, so ``bits * 2 + label`` sorts the pairs in one ``np.sort``.
    """
    key_f = np.array(p, dtype=np.float64, copy=True).reshape(-1)
    np.add(key_f, 0.0, out=key_f)  # turns -0.0 (a negative bit pattern) into +0.0
    key = key_f.view(np.int64)
    np.left_shift(key, 1, out=key)
    np.bitwise_or(key, y.reshape(-1), out=key)
    key.sort()
    labels = key.astype(np.uint8)  # low byte; the label is its lowest bit
    np.bitwise_and(labels, 1, out=labels)
    np.right_shift(key, 1, out=key)
    return key_f, labels


def _bin_starts(n: int, n_bins: int, bin_size: int | None) -> np.ndarray:
    k = max(1, n // bin_size) if bin_size is not None else min(n_bins, n)
    q, r = divmod(n, k)
    sizes = np.full(k, q, dtype=np.int64)
    sizes[:r] += 1
    return np.concatenate([[0], np.cumsum(sizes)[:-1]])


def _bins_from_sorted(
    p_sorted: np.ndarray, y_sorted: np.ndarray, n_bins: int, bin_size: int | None
) -> CalibrationBins:
    """Bins of sorted data, tie groups cut at a boundary sharing their positives pro rata."""
    n = p_sorted.shape[0]
    starts = _bin_starts(n, n_bins, bin_size)
    edges = np.append(starts, n)
    counts = np.diff(edges)
    sum_p = np.add.reduceat(p_sorted, starts)
    # tie group [lo, hi) around every interior boundary e (lo == e when no tie is cut)
    inner = edges[1:-1]
    values = p_sorted[inner]
    lo = np.searchsorted(p_sorted, values, side="left")
    hi = np.searchsorted(p_sorted, values, side="right")
    # positives before each needed position: all are tie-group boundaries, so the order
    # of labels inside a tie group does not matter
    marks = np.unique(np.concatenate([[0, n], lo, hi]))
    before = np.zeros(len(marks), dtype=np.int64)
    np.cumsum(np.add.reduceat(y_sorted, marks[:-1], dtype=np.int64), out=before[1:])
    c_lo = before[np.searchsorted(marks, lo)]
    c_hi = before[np.searchsorted(marks, hi)]
    pos_at_edge = np.empty(len(edges), dtype=np.float64)
    pos_at_edge[0] = 0.0
    pos_at_edge[-1] = before[-1]
    pos_at_edge[1:-1] = c_lo + (inner - lo) * (c_hi - c_lo) / (hi - lo)
    sum_y = np.diff(pos_at_edge)
    return CalibrationBins(sum_p / counts, sum_y / counts, counts)


def calibration_bins(
    y_true: ArrayLike, y_prob: ArrayLike, n_bins: int = 10, bin_size: int | None = None
) -> CalibrationBins:
    """Per-bin mean prediction, fraction of positives and count (thesis §2.4.3).

    See the module docstring for the binning rule (equal-frequency bins by position, of
    at least ``bin_size`` instances when that is given; a tie group cut by a bin boundary
    shares its positives in proportion).
    Returns ``(mean_pred, frac_pos, counts)``, one entry per non-empty bin, in
    increasing order of prediction.
    """
    _check_bins(n_bins, bin_size)
    y, p = _check_binary(y_true, y_prob)
    p_sorted, y_sorted = _sorted_pairs(y, p)
    return _bins_from_sorted(p_sorted, y_sorted, n_bins, bin_size)


def reliability_curve(
    y_true: ArrayLike, y_prob: ArrayLike, n_bins: int = 10, bin_size: int | None = None
) -> CalibrationBins:
    """Data for a reliability diagram: ``(mean_pred, frac_pos, counts)`` per bin.

    The same bins as :func:`calibration_bins`; plot ``frac_pos`` against ``mean_pred``
    next to the diagonal (thesis §2.4.3, Figure 1).
    """
    return calibration_bins(y_true, y_prob, n_bins=n_bins, bin_size=bin_size)


def _ece(bins: CalibrationBins) -> float:
    gap = np.abs(bins.frac_pos - bins.mean_pred)
    return float(np.sum(bins.counts * gap) / bins.counts.sum())


def _mce(bins: CalibrationBins) -> float:
    return float(np.max(np.abs(bins.frac_pos - bins.mean_pred)))


def expected_calibration_error(
    y_true: ArrayLike, y_prob: ArrayLike, n_bins: int = 10, bin_size: int | None = None
) -> float:
    """ECE = Σ_b π_b |o_b − e_b|, bins weighted by their share of instances (thesis §2.4.3)."""
    return _ece(calibration_bins(y_true, y_prob, n_bins=n_bins, bin_size=bin_size))


def maximum_calibration_error(
    y_true: ArrayLike, y_prob: ArrayLike, n_bins: int = 10, bin_size: int | None = None
) -> float:
    """MCE = max_b |o_b − e_b| over the non-empty bins (thesis §2.4.3)."""
    return _mce(calibration_bins(y_true, y_prob, n_bins=n_bins, bin_size=bin_size))


ece = expected_calibration_error
mce = maximum_calibration_error


# ----------------------------------------------------------- binary scores
def brier_score(y_true: ArrayLike, y_prob: ArrayLike) -> float:
    """Mean squared difference between prediction and label (Brier 1950; thesis eq. 2.4)."""
    y, p = _check_binary(y_true, y_prob)
    return float(np.mean(np.square(p.astype(np.float64) - y)))


def root_mean_squared_error(y_true: ArrayLike, y_prob: ArrayLike) -> float:
    """RMSE = √Brier (thesis §2.4.3)."""
    return float(np.sqrt(brier_score(y_true, y_prob)))


def log_loss(y_true: ArrayLike, y_prob: ArrayLike, eps: float = DEFAULT_EPS) -> float:
    """Mean negative log-likelihood; predictions clipped to ``[eps, 1 − eps]``."""
    if not 0 <= eps < 0.5:
        raise InputError(f"eps must lie in [0, 0.5), got {eps!r}")
    y, p = _check_binary(y_true, y_prob)
    p = np.clip(p.astype(np.float64), eps, 1 - eps)
    return float(-np.mean(np.where(y == 1, np.log(p), np.log1p(-p))))


def accuracy(y_true: ArrayLike, y_prob: ArrayLike) -> float:
    """Fraction of correct decisions at threshold 0.5 (predict 1 when ``p > 0.5``).

    ``p = 0.5`` predicts 0, which matches :func:`multiclass_accuracy` on ``[1 − p, p]``
    (argmax ties go to the lower class).
    """
    y, p = _check_binary(y_true, y_prob)
    return float(np.mean((p > 0.5) == (y == 1)))


def _auc_sorted(p_sorted: np.ndarray, y_sorted: np.ndarray) -> float:
    """Mann–Whitney AUC of sorted data; ties count one half (same as trapezoidal ROC)."""
    n = p_sorted.shape[0]
    n_pos = int(y_sorted.sum(dtype=np.int64))
    n_neg = n - n_pos
    if n_pos == 0 or n_neg == 0:
        raise InputError("AUC needs both positive and negative labels")
    # groups of equal predictions: boundaries, then per-group counts from a cumulative sum
    bounds = np.flatnonzero(p_sorted[1:] != p_sorted[:-1]) + 1
    edges = np.concatenate([[0], bounds, [n]])
    cum_pos = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(y_sorted, out=cum_pos[1:])
    pos = np.diff(cum_pos[edges])
    neg = np.diff(edges) - pos
    neg_before = np.cumsum(neg) - neg
    # exact integer arithmetic: twice the Mann–Whitney U statistic
    twice_u = 2 * int(np.sum(pos * neg_before)) + int(np.sum(pos * neg))
    return float(twice_u / (2.0 * n_pos * n_neg))


def roc_auc(y_true: ArrayLike, y_prob: ArrayLike) -> float:
    """Area under the ROC curve, rank based with tied scores counted one half.

    Equals scikit-learn's ``roc_auc_score``. ``y_prob`` may be any finite scores here
    (only their order matters); both classes must be present.
    """
    y = _check_labels01(y_true)
    s = np.asarray(y_prob)
    if s.ndim != 1 or s.shape != y.shape:
        raise InputError(f"y_prob must be 1-d with {y.shape[0]} entries, got shape {s.shape}")
    s = s.astype(np.float64)
    if not np.all(np.isfinite(s)):
        k = _first_bad(~np.isfinite(s))
        raise InputError(f"y_prob[{k}] = {s[k].item()!r}: scores must be finite")
    if s.min() >= 0.0 and s.max() <= 1.0:
        p_sorted, y_sorted = _sorted_pairs(y, s)
    else:
        order = np.argsort(s, kind="stable")
        p_sorted, y_sorted = s[order], y[order]
    return _auc_sorted(p_sorted, y_sorted)


# ------------------------------------------------------------- multi-class
def multiclass_accuracy(y_true: ArrayLike, prob: ArrayLike) -> float:
    """Fraction of samples whose most probable class (lowest index on ties) is the label."""
    y, P = _check_multiclass(y_true, prob)
    return float(np.mean(np.argmax(P, axis=1) == y))


def multiclass_brier_score(y_true: ArrayLike, prob: ArrayLike) -> float:
    """Mean over samples of Σ_k (P_k − 1[y = k])² (Brier 1950; not divided by k).

    Thesis §6.1.1 reports the Brier score of multi-class outputs without a formula; this
    is Brier's original definition, ranging over [0, 2], as scikit-learn's
    ``brier_score_loss`` on multi-class input. For k = 2 it is twice :func:`brier_score`.
    """
    y, P = _check_multiclass(y_true, prob)
    P = P.astype(np.float64, copy=False)
    sq = np.square(P).sum(axis=1)
    p_true = P[np.arange(len(y)), y]
    return float(np.mean(sq - 2.0 * p_true + 1.0))


def cross_entropy(y_true: ArrayLike, prob: ArrayLike, eps: float = DEFAULT_EPS) -> float:
    """Mean of −log P[i, y_i] with probabilities clipped to ``[eps, 1]`` (thesis §6.1.1)."""
    if not 0 <= eps < 0.5:
        raise InputError(f"eps must lie in [0, 0.5), got {eps!r}")
    y, P = _check_multiclass(y_true, prob)
    p_true = np.clip(P[np.arange(len(y)), y].astype(np.float64), eps, 1.0)
    return float(-np.mean(np.log(p_true)))


def hand_till_auc(y_true: ArrayLike, prob: ArrayLike) -> float:
    """Hand & Till (2001) multi-class AUC, the one-vs-one measure M.

    ``M = 2 / (c(c−1)) Σ_{i<j} (A(i|j) + A(j|i)) / 2``, where ``A(i|j)`` is the AUC of
    column ``i`` separating class ``i`` from class ``j`` among the samples of those two
    classes. The sum runs over the ``c`` classes present in ``y_true`` (at least two);
    classes with no sample are skipped, since their pairwise AUCs are undefined. With all
    classes present it equals scikit-learn's ``roc_auc_score(..., multi_class="ovo")``.
    """
    y, P = _check_multiclass(y_true, prob)
    k = P.shape[1]
    counts = np.bincount(y, minlength=k)
    present = np.flatnonzero(counts)
    if len(present) < 2:
        raise InputError("hand_till_auc needs samples of at least two classes")
    # samples grouped by class; each (column, class) block is sorted once and reused
    order = np.argsort(y.astype(np.min_scalar_type(k)), kind="stable")
    members = np.split(order, np.cumsum(counts)[:-1])
    blocks: dict[tuple[int, int], np.ndarray] = {}

    def block(column: int, cls: int) -> np.ndarray:
        if (column, cls) not in blocks:
            blocks[column, cls] = np.sort(P[members[cls], column])
        return blocks[column, cls]

    pair_aucs = []
    for x in range(len(present)):
        for z in range(x + 1, len(present)):
            a, b = int(present[x]), int(present[z])
            auc_a = _auc_two_sorted(block(a, a), block(a, b))
            auc_b = _auc_two_sorted(block(b, b), block(b, a))
            pair_aucs.append(0.5 * (auc_a + auc_b))
    return float(np.mean(pair_aucs))


def _auc_two_sorted(pos: np.ndarray, neg: np.ndarray) -> float:
    """AUC from the sorted scores of positives and negatives (ties count one half)."""
    below = np.searchsorted(neg, pos, side="left").sum(dtype=np.int64)
    not_above = np.searchsorted(neg, pos, side="right").sum(dtype=np.int64)
    return float((int(below) + int(not_above)) / (2.0 * len(pos) * len(neg)))


def _micro_bins(
    y_true: ArrayLike, prob: ArrayLike, n_bins: int, bin_size: int | None
) -> CalibrationBins:
    _check_bins(n_bins, bin_size)
    y, P = _check_multiclass(y_true, prob)
    onehot = (y[:, None] == np.arange(P.shape[1])[None, :]).astype(np.uint8).ravel()
    p_sorted, y_sorted = _sorted_pairs(onehot, P.ravel())
    return _bins_from_sorted(p_sorted, y_sorted, n_bins, bin_size)


def ece_micro(
    y_true: ArrayLike, prob: ArrayLike, n_bins: int = 10, bin_size: int | None = None
) -> float:
    """ECE of all k probability columns stacked against the one-hot labels (thesis §6.1.1)."""
    return _ece(_micro_bins(y_true, prob, n_bins, bin_size))


def mce_micro(
    y_true: ArrayLike, prob: ArrayLike, n_bins: int = 10, bin_size: int | None = None
) -> float:
    """MCE of all k probability columns stacked against the one-hot labels (thesis §6.1.1)."""
    return _mce(_micro_bins(y_true, prob, n_bins, bin_size))
