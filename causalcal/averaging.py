"""Which pairs an averaged network joins: bnlearn's significance threshold of edge
strengths (Scutari & Nagarajan 2013) and the rule at a threshold (docs/design.md §3);
shared by the averaged CPDAG (:mod:`causalcal.edges`) and the averaged PAG
(:mod:`causalcal.pag_edges`)."""

from __future__ import annotations

import numpy as np

from causalcal.errors import InputError

__all__ = ["adjacent_at", "l1_threshold"]


def l1_threshold(strengths: np.ndarray, n_total: int | None = None) -> float:
    """The significance threshold of edge strengths by the L1 method of Scutari &
    Nagarajan (2013), as bnlearn's ``averaged.network`` estimates it (docs/design.md §3).

    ``strengths`` are P(adjacent) of the listed pairs; ``n_total`` pairs in all, the
    unlisted ones with strength 0. With F the empirical CDF of the strengths on [0, 1],
    the level p minimises the L1 distance ∫₀¹ |F(x) − p| dx to the CDF of an ideal,
    perfectly separated set of strengths (a step from p to 1 at x = 1): the median of F
    weighted by the lengths of its constant pieces (midway where that median is a range).
    The threshold is F's p-quantile (the smallest strength s with F(s) ≥ p); an edge
    must be stronger than it (or of strength 1).
    """
    s = np.clip(np.asarray(strengths, dtype=np.float64).ravel(), 0.0, 1.0)
    n_total = len(s) if n_total is None else int(n_total)
    if n_total < len(s):
        raise InputError(f"n_total ({n_total}) is less than the {len(s)} strengths given")
    if n_total == 0:
        return 0.0
    s = np.concatenate([s, np.zeros(n_total - len(s))]) if n_total > len(s) else s
    values, counts = np.unique(s, return_counts=True)
    cdf = np.cumsum(counts) / n_total                       # F at each distinct strength
    breaks = np.unique(np.concatenate([[0.0], values, [1.0]]))
    level = np.concatenate([[0.0], cdf])[np.searchsorted(values, breaks[:-1], "right")]
    widths = np.diff(breaks)                                # F is level[k] on piece k
    order = np.argsort(level, kind="stable")
    mass = np.cumsum(widths[order]) / widths.sum()
    k = int(np.searchsorted(mass, 0.5 - 1e-12))
    p = level[order][k]
    if abs(mass[k] - 0.5) <= 1e-12 and k + 1 < len(order):  # every p in a range minimises
        p = 0.5 * (p + level[order][k + 1])
    return float(values[min(np.searchsorted(cdf, p - 1e-12), len(values) - 1)])


def adjacent_at(strength: np.ndarray, n_total: int, threshold: float | str) -> np.ndarray:
    """Which of the pairs with P(adjacent) ``strength`` (of ``n_total`` pairs in all, the
    others 0) an averaged network joins: ``strength ≥ threshold``, or with
    ``"estimated"`` above bnlearn's :func:`l1_threshold` (or 1)."""
    if isinstance(threshold, str) and threshold == "estimated":
        t = l1_threshold(strength, n_total)
        return (strength > t) | (strength >= 1.0)
    if isinstance(threshold, (bool, str)) or not 0 < float(threshold) <= 1:
        raise InputError(f"threshold must be in (0, 1] or 'estimated', got {threshold!r}")
    return strength >= float(threshold)
