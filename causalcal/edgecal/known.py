"""Calibrating on relations known from the literature (thesis §6.2.1, real data).

A scientist knows some arcs and some pairs that are unrelated. Two things follow:

* **Set-valued labels.** ``A -> B`` says the true DAG has the arc; as a CPDAG edge type
  of the pair that is "A → B or A — B" (the direction may not be identifiable from
  observational data). ``--`` says "adjacent, direction unknown" (any of the three
  adjacent types); ``none`` is exact. :func:`relation_label_sets` turns relations into
  allowed-class rows, which the calibrators fit by the summed probability of the set.
* **Unknown inclusion rates.** Known pairs are not a random sample: a handful of arcs
  beside a handful of non-arcs, while nearly all pairs are non-adjacent. The strata are
  "adjacent or not" × the bin of the pair's bootstrap probability of adjacency
  ``1 − p_none``; each stratum's known pairs are counted, and its population size is
  estimated by EM over all pairs' bootstrap vectors (Saerens, Latinne & Decaestecker
  2002): fit the calibrator with the current rates as offsets, predict every pair's
  probability of adjacency, recount the expected adjacent pairs per bin, repeat. The
  total number of adjacent pairs is pinned to ``expected_edges`` (by default the
  bootstrap's own Σ(1 − p_none)), which fixes the scale the EM cannot identify from a
  few labelled pairs; a stratum with fewer than 5 known pairs takes its class's overall
  rate (:class:`~causalcal.calibration.selection.SelectionDesign` ``min_drawn``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import HasMethods, Integral, Interval, Real, Satisfies
from causalcal.calibration import (
    N_BINS,
    MulticlassCalibrator,
    SelectionDesign,
    check_label_sets,
    probability_bins,
)
from causalcal.edgecal.model import fit_with_offsets
from causalcal.errors import InputError

__all__ = [
    "EvidenceBlend",
    "MIN_KNOWN",
    "KnownRelationsFit",
    "MonotoneAdjacency",
    "adjacency_design",
    "fit_known_relations",
    "relation_label_sets",
    "selected_posterior",
]

def _related_strata(k: int) -> tuple[tuple[int, ...], ...]:
    """Every class stratified by the probability of "not class 0" (adjacent, or causally
    related): ``((1, 2, 3),) * 4`` for the 4 edge types."""
    return (tuple(range(1, k)),) * k
#: Known arcs and known non-adjacent pairs needed at least, each.
MIN_KNOWN = 5
#: Strata with fewer known pairs than this take their class's overall rate.
MIN_PER_STRATUM = 5

# allowed edge types (none, forward, backward, undirected) of a known relation of the
# pair read as (i, j), i < j, by the EdgeType a plain reading gives it
_SETS = np.array([
    [True, False, False, False],  # none
    [False, True, False, True],   # i -> j: forward, or undirected in the CPDAG
    [False, False, True, True],   # j -> i
    [False, True, True, True],    # -- : adjacent, direction unknown
])


def relation_label_sets(labels: np.ndarray) -> np.ndarray:
    """(n, 4) allowed edge types of known relations given as :class:`EdgeType` values of
    the pair read as (i, j): ``->`` allows FORWARD or UNDIRECTED, ``--`` every adjacent
    type, ``none`` only NONE."""
    labels = np.asarray(labels, dtype=np.int64)
    return _SETS[labels]


def adjacency_design(P_known: np.ndarray, Y_known: np.ndarray, pairs_per_bin: np.ndarray,
                     adjacent_per_bin: np.ndarray) -> SelectionDesign:
    """Selection design of known relations: strata "adjacent or not" × bin of 1 − p_none.

    ``pairs_per_bin`` counts all pairs by the bin of their probability of adjacency,
    ``adjacent_per_bin`` the (estimated) adjacent ones among them. For causal relations
    (three columns) "adjacent" reads "causally related" (class 0 is "neither"); a pair
    whose label allows "neither" (``not-causes`` one way) counts as unrelated.
    """
    bins = probability_bins(1.0 - P_known[:, 0])
    adjacent = ~Y_known[:, 0]
    drawn_adj = np.bincount(bins[adjacent], minlength=N_BINS).astype(float)
    drawn_none = np.bincount(bins[~adjacent], minlength=N_BINS).astype(float)
    # a known pair is one of the population: each stratum holds at least its known pairs
    avail_adj = np.maximum(adjacent_per_bin, drawn_adj)
    avail_none = np.maximum(pairs_per_bin - adjacent_per_bin, drawn_none)
    k = Y_known.shape[1]
    drawn = np.vstack([drawn_none] + [drawn_adj] * (k - 1))
    available = np.vstack([avail_none] + [avail_adj] * (k - 1))
    return SelectionDesign(drawn, available, _related_strata(k), min_drawn=MIN_PER_STRATUM)


def _pin(q_adj: np.ndarray, weights: np.ndarray, total: float) -> np.ndarray:
    """Shift the log-odds of ``q_adj`` by one constant so that ``Σ weights · q = total``."""
    z = logit(np.clip(q_adj, 1e-12, 1 - 1e-12))

    def gap(delta: float) -> float:
        return float(np.sum(weights * expit(z + delta)) - total)

    lo, hi = -50.0, 50.0
    if gap(lo) > 0 or gap(hi) < 0:
        raise InputError(f"cannot reach {total:g} expected adjacent pairs")
    return expit(z + brentq(gap, lo, hi, xtol=1e-10))


@dataclass
class KnownRelationsFit:
    """What :func:`fit_known_relations` returns."""

    model: object
    design: SelectionDesign
    expected_edges: float
    n_iter: int
    converged: bool


def fit_known_relations(model, P_known: np.ndarray, Y_known: np.ndarray, rows: np.ndarray,
                        row_counts: np.ndarray, expected_edges: float | None = None, *,
                        max_iter: int = 30, tol: float = 1e-3) -> KnownRelationsFit:
    """Fit ``model`` on known relations with inclusion rates estimated by EM (see module).

    ``rows`` (u, 4) are the distinct bootstrap vectors of all pairs and ``row_counts``
    how many pairs have each (with pair features, ``P_known`` and ``rows`` carry them
    after the 4 probabilities, and every pair is its own row). ``expected_edges``:
    adjacent pairs in the population (default Σ(1 − p_none) over all pairs). ``model``
    is fitted in place (the last EM step's fit is the result).
    """
    k = Y_known.shape[1]
    counts = np.asarray(row_counts, dtype=np.float64)
    p_adj = 1.0 - rows[:, 0]
    bins = probability_bins(p_adj)
    pairs_per_bin = np.bincount(bins, weights=counts, minlength=N_BINS)
    total = float(np.sum(counts * p_adj)) if expected_edges is None else float(expected_edges)
    if expected_edges is None and not total > 0:
        raise InputError("no pair is adjacent in any bootstrap replicate (every P(adjacent) "
                         "is 0), so there is nothing to calibrate: the search found no edge "
                         "in these data (too few rows, constant columns, or its options)")
    if not 0 < total < counts.sum():
        raise InputError(f"expected number of adjacent pairs must lie in (0, "
                         f"{counts.sum():.0f}), got {total:g}")
    adjacent = np.bincount(bins, weights=counts * _pin(p_adj, counts, total), minlength=N_BINS)
    converged, steps = False, 0
    while steps < max_iter:
        steps += 1
        design = adjacency_design(P_known, Y_known, pairs_per_bin, adjacent)
        fit_with_offsets(model, P_known, Y_known, design.offsets(P_known[:, :k]))
        q_adj = 1.0 - np.asarray(model.predict_proba(rows), dtype=np.float64)[:, 0]
        new = np.bincount(bins, weights=counts * _pin(q_adj, counts, total), minlength=N_BINS)
        change = np.max(np.abs(new - adjacent) / np.maximum(adjacent, 1.0))
        adjacent = new
        if change < tol:
            converged = True
            break
    design = adjacency_design(P_known, Y_known, pairs_per_bin, adjacent)
    fit_with_offsets(model, P_known, Y_known, design.offsets(P_known[:, :k]))
    return KnownRelationsFit(model, design, total, steps, converged)


def selected_posterior(Q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Population probabilities ``Q`` turned into those of the selected sample,
    ``∝ Q · π`` (Bayes' rule with the inclusion rates ``π = exp(offsets)``)."""
    S = np.asarray(Q, dtype=np.float64) * np.exp(offsets - offsets.max(axis=1, keepdims=True))
    return S / S.sum(axis=1, keepdims=True)


def _fit_clone(calibrator, X: np.ndarray, y, sample_weight, offsets):
    """A clone of ``calibrator`` fitted with the offsets (and weights) passed through."""
    model = clone(calibrator)
    if sample_weight is None:
        return fit_with_offsets(model, X, y, offsets)
    return model.fit(X, y, sample_weight=sample_weight, offsets=offsets)


class EvidenceBlend(MulticlassCalibrator):
    """Calibrated where the known pairs give evidence, the bootstrap's where they do not.

    Known relations rarely cover the whole probability range: known non-adjacent pairs sit
    at the never-adjacent corner (1, 0, 0, 0) and known arcs near P(adjacent) = 1. A
    fitted map is then an extrapolation in between, and a correction learnt at the ends
    moves the middle with no evidence there. Per bin ``b`` of the bootstrap's
    P(adjacent) (the strata of :func:`adjacency_design`), the output is
    ``w_b · f(x) + (1 − w_b) · x`` with ``w_b = m_b / (m_b + strength)`` for the ``m_b``
    known pairs in that bin: an empirical-Bayes style shrinkage of the correction towards
    zero by the evidence behind it. A bin holding known pairs of one kind only (arcs but
    no non-adjacent pairs, or the reverse) counts as holding none: its share of adjacent
    pairs is not identified by them (known pairs chosen for being obvious, e.g. non-arcs
    the search never joins, say nothing of the pairs near them that are adjacent), so the
    bootstrap's probabilities stay there. ``calibrator`` is fitted as it is (offsets and
    set labels passed through); ``strength=0`` is the calibrated value everywhere.
    """

    _parameter_constraints = {
        "calibrator": [HasMethods("fit", "predict_proba")],
        "strength": [Interval(Real, 0, None, closed="left")],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(self, calibrator, strength: float = 5.0, n_classes: int = 4) -> None:
        self.calibrator = calibrator
        self.strength = strength
        self.n_classes = n_classes

    def fit(self, X, y, sample_weight=None, offsets=None) -> EvidenceBlend:
        """Fit a clone of ``calibrator`` and count the known pairs per bin."""
        self._validate_params()
        X = np.asarray(X, dtype=np.float64)
        model = _fit_clone(self.calibrator, X, y, sample_weight, offsets)
        bins = probability_bins(1.0 - X[:, 0])
        adjacent = ~check_label_sets(y, len(X), self.n_classes)[:, 0]
        per_bin = np.bincount(bins, minlength=N_BINS)
        both = (np.bincount(bins[adjacent], minlength=N_BINS) > 0) & \
            (np.bincount(bins[~adjacent], minlength=N_BINS) > 0)
        per_bin = np.where(both, per_bin, 0)
        self.calibrator_ = model
        # strength 0: the calibrated value everywhere, also in bins without known pairs
        self.bin_weights_ = (per_bin / (per_bin + self.strength) if self.strength
                             else np.ones(N_BINS))
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``w_b · f(x) + (1 − w_b) · x`` by the bin ``b`` of x's P(adjacent)."""
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64)
        w = self.bin_weights_[probability_bins(1.0 - X[:, 0])][:, None]
        Q = np.asarray(self.calibrator_.predict_proba(X), dtype=np.float64)
        return w * Q + (1.0 - w) * X[:, : Q.shape[1]]


class MonotoneAdjacency(MulticlassCalibrator):
    """A fitted map whose P(adjacent) never reverses the bootstrap's order of the pairs.

    A calibrator of the four-vector (the SNN, a blend of it with the bootstrap by bin)
    can give a pair the bootstrap found adjacent more often a lower P(adjacent) than
    another; known pairs sit at the ends of the range and cannot support such a
    reordering, which costs ranking (AUROC) on the held-out pairs. Here P(adjacent) is
    the isotonic regression, over all pairs (``rows`` weighted by ``row_counts``), of the
    fitted map's P(adjacent) on the bootstrap's: the closest non-decreasing function of
    it in the least-squares sense (docs/design.md §9.3). The other columns are scaled to
    sum to it, keeping the map's split (an even one where the map gives none).
    """

    _parameter_constraints = {
        "calibrator": [HasMethods("fit", "predict_proba")],
        "rows": [Satisfies(lambda v: np.ndim(v) == 2, "a 2-d array of bootstrap rows")],
        "row_counts": [Satisfies(lambda v: np.ndim(v) == 1 and bool(np.all(np.asarray(v) >= 0)),
                                 "a 1-d array of non-negative counts")],
    }

    def __init__(self, calibrator, rows, row_counts) -> None:
        self.calibrator = calibrator
        self.rows = rows
        self.row_counts = row_counts

    def fit(self, X, y, sample_weight=None, offsets=None) -> MonotoneAdjacency:
        """Fit a clone of ``calibrator``, then the isotonic regression over ``rows``."""
        self._validate_params()
        X = np.asarray(X, dtype=np.float64)
        model = _fit_clone(self.calibrator, X, y, sample_weight, offsets)
        rows = np.asarray(self.rows, dtype=np.float64)
        if len(rows) != len(self.row_counts):
            raise InputError(f"rows has {len(rows)} rows but row_counts {len(self.row_counts)}")
        q = 1.0 - np.asarray(model.predict_proba(rows), dtype=np.float64)[:, 0]
        self.isotonic_ = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
            1.0 - rows[:, 0], q, sample_weight=np.asarray(self.row_counts, dtype=np.float64))
        self.calibrator_ = model
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """The map's probabilities with P(adjacent) replaced by the isotonic fit's."""
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64)
        Q = np.array(self.calibrator_.predict_proba(X), dtype=np.float64)
        adjacent = self.isotonic_.predict(1.0 - X[:, 0])
        mass = Q[:, 1:].sum(axis=1)
        split = np.where(mass[:, None] > 0, Q[:, 1:] / np.where(mass > 0, mass, 1.0)[:, None],
                         1.0 / (Q.shape[1] - 1))
        Q[:, 0] = 1.0 - adjacent
        Q[:, 1:] = split * adjacent[:, None]
        return Q
