"""Selection-aware calibration: inclusion rates of a calibration sample and their correction.

A calibration set is rarely a random sample of the pairs a calibrator is applied to. The
thesis's (§6.2.4) draws N/4 pairs of each edge type and equal numbers per probability bin
while more than 99 % of all pairs have no edge; a scientist's known relations are a few
arcs and a few non-arcs. A calibrator fitted as if such a set were random learns the
sample's class balance, not the population's.

The correction is that of case-control (choice-based) sampling, Prentice & Pyke (1979)
and King & Zeng (2001, "Logistic regression in rare events data"): if a pair with
probability vector x and true class c enters the sample with probability
π(c, stratum of x), then the sample posterior is ``p_s(c | x) ∝ p(c | x) · π(c, x)``, so a
model fitted as ``softmax(z(x) + log π(·, x))`` on the sample has ``softmax(z(x))`` equal
to the population posterior. :class:`SelectionDesign` holds the rates and turns them into
these per-row logit offsets (or inverse-rate weights for calibrators without logits).

Strata: class c of row x sits in the probability bin ([0,.2), [.2,.4), [.4,.6), [.6,.8),
[.8,1]) of ``Σ_{j ∈ S_c} x_j`` for a set of columns ``S_c``: ``S_c = {c}`` stratifies each
class by its own probability (the thesis's draw); a set shared by several classes
stratifies them by the probability of the set (e.g. of "any class but 0").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from causalcal.errors import InputError

__all__ = [
    "BIN_EDGES",
    "N_BINS",
    "SelectionDesign",
    "inclusion_weights",
    "probability_bins",
]

#: Inner edges of the five probability bins [0,.2), [.2,.4), [.4,.6), [.6,.8), [.8,1].
BIN_EDGES = (0.2, 0.4, 0.6, 0.8)
N_BINS = len(BIN_EDGES) + 1
# A probability within this of a bin edge counts as on the edge: 120/200 computed in
# float64 is 0.59999999999999998 and belongs to [0.6, 0.8).
_EDGE_TOL = 1e-6


def probability_bins(p: np.ndarray) -> np.ndarray:
    """Bin number 0–4 of each probability in [0,.2), [.2,.4), [.4,.6), [.6,.8), [.8,1]."""
    p = np.asarray(p)
    out = np.zeros(p.shape, dtype=np.int8)
    for edge in BIN_EDGES:
        out += p >= edge - _EDGE_TOL
    return out


@dataclass(frozen=True)
class SelectionDesign:
    """Inclusion rates of a stratified sample: stratum (class c, bin b) drew ``drawn[c, b]``
    of ``available[c, b]`` members.

    Parameters
    ----------
    drawn, available : (k, 5) arrays
        Sampled and population counts per stratum (population counts may be estimates).
    strata_columns : k tuples of column indices
        Class c of a row x falls in the bin of ``Σ_{j ∈ strata_columns[c]} x_j``.
    min_drawn : int, default 1
        A stratum with fewer draws than this, or with no members, takes its class's
        overall rate ``Σ_b drawn[c, b] / Σ_b available[c, b]`` (a stratum rate of 0 would
        say the sample cannot contain such rows, and a rate from one or two draws is noise).
    """

    drawn: np.ndarray
    available: np.ndarray
    strata_columns: tuple[tuple[int, ...], ...]
    min_drawn: int = 1

    def __post_init__(self) -> None:
        drawn = np.asarray(self.drawn, dtype=np.float64)
        available = np.asarray(self.available, dtype=np.float64)
        k = len(self.strata_columns)
        for name, arr in (("drawn", drawn), ("available", available)):
            if arr.shape != (k, N_BINS):
                raise InputError(f"{name} must have shape ({k}, {N_BINS}), got {arr.shape}")
            if not np.isfinite(arr).all() or (arr < 0).any():
                raise InputError(f"{name} counts must be finite and non-negative")
        for c, cols in enumerate(self.strata_columns):
            if not cols or any(not 0 <= j < k for j in cols):
                raise InputError(f"strata_columns[{c}] = {cols!r} must name columns 0..{k - 1}")
        empty = np.flatnonzero((drawn.sum(axis=1) == 0) | (available.sum(axis=1) == 0))
        if len(empty):
            raise InputError(f"class {empty[0]} has no draws or no members: its inclusion "
                             "rate is undefined")
        over = np.argwhere(drawn > available * (1 + 1e-9))
        if len(over):
            c, b = over[0]
            raise InputError(f"stratum (class {c}, bin {b}) drew {drawn[c, b]:g} of only "
                             f"{available[c, b]:g} members")
        object.__setattr__(self, "drawn", drawn)
        object.__setattr__(self, "available", available)
        object.__setattr__(self, "strata_columns", tuple(tuple(c) for c in self.strata_columns))

    @property
    def n_classes(self) -> int:
        return len(self.strata_columns)

    @property
    def class_rates(self) -> np.ndarray:
        """Overall inclusion rate of each class, (k,)."""
        return self.drawn.sum(axis=1) / self.available.sum(axis=1)

    @property
    def rates(self) -> np.ndarray:
        """Inclusion rate π(c, b) of every stratum, (k, 5), all positive."""
        with np.errstate(divide="ignore", invalid="ignore"):
            own = self.drawn / self.available
        usable = (self.available > 0) & (self.drawn >= self.min_drawn)
        return np.where(usable, own, self.class_rates[:, None])

    def strata(self, P: np.ndarray) -> np.ndarray:
        """Bin (n, k) of each row's stratum for each class."""
        P = np.asarray(P, dtype=np.float64)
        if P.ndim != 2 or P.shape[1] != self.n_classes:
            raise InputError(f"P must have shape (n, {self.n_classes}), got {P.shape}")
        return np.column_stack([probability_bins(P[:, list(cols)].sum(axis=1))
                                for cols in self.strata_columns])

    def offsets(self, P: np.ndarray) -> np.ndarray:
        """Logit offsets ``log π(c, stratum of row i for class c)``, shape (n, k)."""
        log_rates = np.log(self.rates)
        bins = self.strata(P)
        return log_rates[np.arange(self.n_classes)[None, :], bins]

    def pooled(self, classes: Sequence[int]) -> SelectionDesign:
        """The design with the counts of ``classes`` summed and shared between them.

        Pooling forward and backward (``pooled([1, 2])``) makes the design symmetric under
        writing a pair the other way round, which swap-equivariant fitting needs.
        """
        classes = list(classes)
        drawn, available = self.drawn.copy(), self.available.copy()
        drawn[classes] = self.drawn[classes].sum(axis=0)
        available[classes] = self.available[classes].sum(axis=0)
        return SelectionDesign(drawn, available, self.strata_columns, self.min_drawn)

    def describe(self) -> dict:
        """Counts and rates as plain lists (for JSON records)."""
        return {"drawn": self.drawn.tolist(), "available": self.available.tolist(),
                "rates": self.rates.tolist(), "strata_columns": self.strata_columns,
                "min_drawn": self.min_drawn}


def inclusion_weights(offsets: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Inverse-inclusion weights ``1 / π`` of rows with logit offsets ``log π`` and labels.

    ``Y`` is the (n, k) bool matrix of allowed classes; for a set label the rate is the
    mean of its classes' rates. Weights are scaled to mean 1.
    """
    rates = np.exp(np.asarray(offsets, dtype=np.float64))
    mean_rate = (rates * Y).sum(axis=1) / Y.sum(axis=1)
    w = 1.0 / mean_rate
    return w * (len(w) / w.sum())
