"""Stratified calibration training sets (thesis §6.2.4 step 6, docs/design.md §9.1).

"To collect N calibration training samples, we selected N/4 samples from each of the four
edge classes … we first sorted the probability scores of edges in each edge class according
to the bootstrap probabilities. We then partitioned the instances into 5 bins of
{[0,0.2), [0.2,0.4), [0.4,0.6), [0.6,0.8), [0.8,1]} … Finally, we sampled separately from
each bin with equal frequency."
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from causalcal.calibration import N_BINS, SelectionDesign, probability_bins
from causalcal.causal import CausalProbabilities
from causalcal.edges import EdgeProbabilities, EdgeType
from causalcal.errors import InputError
from causalcal.pairs import CausalType

__all__ = ["CalibrationSample", "ClassTooSmallError", "allocate_draws", "class_draws",
           "proportional_draws", "stratified_calibration_set"]


class ClassTooSmallError(InputError):
    """An edge type has fewer pairs than the N/4 the calibration set needs."""


class CalibrationSample(NamedTuple):
    """A drawn calibration set: the pairs, the test mask, and how they were selected."""

    #: int64 positions of the N calibration pairs
    indices: np.ndarray
    #: bool mask over all pairs, False exactly at ``indices``
    test_mask: np.ndarray
    #: inclusion rate of every (edge type, probability bin) stratum; fit with
    #: ``design.offsets(P)`` to correct for the design (:mod:`causalcal.calibration.selection`)
    design: SelectionDesign


def allocate_draws(available: np.ndarray, total: int, rng: np.random.Generator) -> np.ndarray:
    """How many to draw from each bin: equal shares, short bins topped up by the others.

    Water-filling (max–min fair) allocation: every bin is offered the same share; a bin
    with fewer members than its share gives all it has, and what it could not give is
    shared equally among the bins that still have members, repeated until ``total`` is
    reached. When the remaining count does not divide evenly, the last single draws go to
    distinct bins chosen at random (with ``rng``) among those that still have members.
    """
    available = np.asarray(available, dtype=np.int64)
    if total > available.sum():
        raise InputError(f"cannot draw {total} from bins holding {available.sum()}")
    take = np.zeros_like(available)
    remaining = int(total)
    while remaining > 0:
        open_bins = np.flatnonzero(take < available)
        share = remaining // len(open_bins)
        if share == 0:
            chosen = rng.choice(open_bins, size=remaining, replace=False)
            take[chosen] += 1
            break
        give = np.minimum(share, available[open_bins] - take[open_bins])
        take[open_bins] += give
        remaining -= int(give.sum())
    return take


def proportional_draws(available: np.ndarray, total: int, minimum: int = 2) -> np.ndarray:
    """How many to draw from each bin: ``minimum`` from every bin (all it has if fewer;
    less where ``total`` cannot give every non-empty bin that many), the rest in
    proportion to the bins' sizes — each bin's whole share, then one more to the bins with
    the largest shares left over (the lower bin on a tie), never more than a bin holds
    (docs/design.md §9.12: the answers go where the pairs are)."""
    available = np.asarray(available, dtype=np.int64)
    if total > available.sum():
        raise InputError(f"cannot draw {total} from bins holding {available.sum()}")
    minimum = min(minimum, total // max(int(np.count_nonzero(available)), 1))
    base = np.minimum(available, minimum)
    share = (total - base.sum()) * available / available.sum()
    take = base + np.minimum(np.floor(share).astype(np.int64), available - base)
    while take.sum() < total:
        left = np.where(take < available, share - (take - base), -np.inf)
        take[int(np.argmax(left))] += 1
    return take


def _class_column(probs, k: int) -> np.ndarray:
    """Probability of class ``k`` for every pair (pair order)."""
    return probs[:, k] if isinstance(probs, np.ndarray) else probs.column(k)


def _check_inputs(probs, truth, n):
    """Validated ``(probs, truth, m, n, k)``: m pairs of k classes, N a positive multiple
    of 4 (edge types) or at least 3 (causal relations)."""
    truth = np.asarray(truth)
    if hasattr(probs, "column"):  # EdgeProbabilities or CausalProbabilities
        m, k = probs.n_pairs, probs.n_classes
    else:
        probs = np.asarray(probs)
        if probs.ndim != 2 or probs.shape[1] not in (3, 4):
            raise InputError(f"probs must have shape (m, 4) or (m, 3), got {probs.shape}")
        m, k = probs.shape
    if truth.shape != (m,):
        raise InputError(f"truth must have shape ({m},) to match probs, got {truth.shape}")
    if not np.issubdtype(truth.dtype, np.integer):
        raise InputError(f"truth must hold integer edge types, got dtype {truth.dtype}")
    if k == 4 and (int(n) != n or n <= 0 or n % 4):
        raise InputError(f"calibration set size N must be a positive multiple of 4, got {n}")
    if int(n) != n or n < k:
        raise InputError(f"calibration set size N must be an integer of at least {k}, got {n}")
    return probs, truth, m, int(n), k


def class_draws(n: int, k: int) -> np.ndarray:
    """Pairs drawn per class: N/k each, the remainder of N/3 to "neither" first, so the
    two directions always get equal shares (40 causal pairs: 14, 13, 13)."""
    return np.full(k, n // k) + (np.arange(k) < n % k)


def _check_class_sizes(truth: np.ndarray, m: int, n: int, k: int) -> None:
    """:class:`ClassTooSmallError` (with the per-class counts) if a class has fewer pairs
    than its share of N."""
    types = EdgeType if k == 4 else CausalType
    counts = np.bincount(truth.astype(np.int64, copy=False), minlength=k) if m else np.zeros(k)
    if len(counts) > k or (m and truth.min() < 0):
        raise InputError(f"truth labels must be classes 0..{k - 1}")
    need = class_draws(n, k)
    short = [t for t in types if counts[t] < need[t]]
    if short:
        have = ", ".join(f"{t.name}: {int(counts[t])}" for t in types)
        raise ClassTooSmallError(
            f"calibration set of N={n} needs {need.min()} pairs of every class, but "
            f"{', '.join(t.name for t in short)} has fewer (pairs per class: {have})"
        )


def _draw_class(probs, truth: np.ndarray, t: int, per_class: int,
                rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The ``per_class`` pairs of class ``t``, drawn equally from its five probability bins.

    Returns the drawn positions (one sorted array per bin drawn from), the draws per bin
    and the bin sizes.
    """
    members = np.flatnonzero(truth == t)
    bins = probability_bins(_class_column(probs, t)[members])
    order = np.argsort(bins, kind="stable")
    sizes = np.bincount(bins, minlength=5)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    take = allocate_draws(sizes, per_class, rng)
    chosen = []
    for b in range(5):
        if take[b]:
            pick = rng.choice(sizes[b], size=int(take[b]), replace=False)
            chosen.append(np.sort(members[order[starts[b] + pick]]))
    return chosen, take, sizes


def stratified_calibration_set(
    probs: np.ndarray | EdgeProbabilities | CausalProbabilities,
    truth: np.ndarray,
    n: int,
    seed: int | np.random.Generator | None = 0,
) -> CalibrationSample:
    """The N-pair calibration set of thesis §6.2.4 (docs/design.md §9.1); the rest: test set.

    Parameters
    ----------
    probs : (m, 4) bootstrap probabilities over the pairs (columns ordered as
        :class:`~causalcal.edges.EdgeType`), or an :class:`EdgeProbabilities` (then the
        pairs are all ``V(V−1)/2`` pairs in :func:`~causalcal.edges.pair_index` order);
        or the three causal classes, (m, 3) or :class:`CausalProbabilities` (issue 30).
    truth : (m,) true :class:`EdgeType` (or :class:`CausalType`) of each pair (int8 is
        enough).
    n : calibration set size N, a positive multiple of 4; N/4 pairs come from each class
        (causal: :func:`class_draws`, N/3 each with the remainder to "neither").
    seed : seed or ``numpy.random.Generator``.

    Within a class, pairs are binned by their probability *of that class* into
    [0,.2), [.2,.4), [.4,.6), [.6,.8), [.8,1] and the N/4 draws are shared equally between
    the five bins; a bin with fewer pairs than its share gives all it has and the shortfall
    is spread over the other bins (see :func:`allocate_draws`). Within a bin pairs are drawn
    uniformly without replacement.

    Returns a :class:`CalibrationSample`: ``indices``, the int64 positions of the N
    calibration pairs (grouped by class NONE, FORWARD, BACKWARD, UNDIRECTED, ascending
    within a class); ``test_mask``, a boolean mask over all m pairs that is False exactly
    at those positions; and ``design``, the (class, bin) strata's draws and sizes, whose
    inclusion rates a calibrator must correct for: the sample holds 25 % of each class
    while the population is > 99 % "none".

    Raises :class:`ClassTooSmallError` (with the per-class counts) if a class has fewer
    than N/4 pairs.
    """
    probs, truth, m, n, k = _check_inputs(probs, truth, n)
    _check_class_sizes(truth, m, n, k)
    rng = np.random.default_rng(seed)
    chosen = []
    drawn = np.zeros((k, N_BINS))
    available = np.zeros((k, N_BINS))
    for t, per_class in enumerate(class_draws(n, k)):
        picked, drawn[t], available[t] = _draw_class(probs, truth, t, int(per_class), rng)
        chosen.extend(picked)
    calibration = np.concatenate(chosen).astype(np.int64)
    # sort within class for a stable, readable order
    cls = truth[calibration]
    calibration = calibration[np.lexsort((calibration, cls))]
    test_mask = np.ones(m, dtype=bool)
    test_mask[calibration] = False
    design = SelectionDesign(drawn, available, tuple((t,) for t in range(k)))
    return CalibrationSample(calibration, test_mask, design)
