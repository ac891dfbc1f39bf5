"""How many pairs are adjacent: an estimate from the known pairs (docs/design.md §9.3).

The bootstrap's own density, Σ(1 − p_none), is wrong where the search over- or
under-fits. If the known arcs are a random sample of the adjacent pairs and the known
``none`` pairs a random sample of the non-adjacent ones, their mean bootstrap P(adjacent),
``m1`` and ``m0``, are the two classes' means, and the mean ``m`` over all pairs is the
mixture ``π m1 + (1 − π) m0``: the share of adjacent pairs is ``π = (m − m0) / (m1 − m0)``
(mixture-proportion estimation by moments). Its interval comes from resampling the known
pairs within each class. Known pairs chosen for being obvious (arcs the bootstrap always
finds, pairs it never joins) are not random within their class, and the estimate then
says little; it is reported, not used, unless the user passes it as ``expected_edges``.
"""

from __future__ import annotations

import numpy as np

from causalcal.edgecal.calset import CalibrationSet
from causalcal.edgecal.report import RelatedPairsEstimate

__all__ = ["estimate_adjacent_pairs"]


def _share(m: float, m1: float, m0: float) -> float:
    return float(np.clip((m - m0) / (m1 - m0), 0.0, 1.0)) if m1 > m0 else float("nan")


def estimate_adjacent_pairs(calset: CalibrationSet, n_resamples: int = 500, level: float = 0.9,
                            seed: int = 0) -> RelatedPairsEstimate:
    """The number of adjacent pairs by the moment estimate above, with a percentile
    interval over ``n_resamples`` class-wise resamples of the known pairs.

    Returns a :class:`RelatedPairsEstimate` (``estimate`` is NaN when the known arcs'
    mean P(adjacent) is not above the known non-adjacent pairs').
    """
    probs = calset.inputs.probabilities
    n_pairs = probs.n_pairs
    m = float((1.0 - probs.probs[:, 0]).sum() / n_pairs) if len(probs) else 0.0
    p_adj = 1.0 - calset.X[:, 0]
    adjacent = ~calset.Y[:, 0]
    arcs, nones = p_adj[adjacent], p_adj[~adjacent]
    estimate = _share(m, arcs.mean(), nones.mean()) * n_pairs
    rng = np.random.default_rng(seed)
    draws = np.array([
        _share(m, rng.choice(arcs, len(arcs)).mean(), rng.choice(nones, len(nones)).mean())
        for _ in range(n_resamples)
    ]) * n_pairs
    draws = draws[np.isfinite(draws)]
    tail = (1 - level) / 2
    low, high = (np.quantile(draws, [tail, 1 - tail]) if len(draws) else (np.nan, np.nan))
    return RelatedPairsEstimate(estimate, float(low), float(high), level, m * n_pairs, n_pairs)
