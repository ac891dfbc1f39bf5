"""The discrete BIC score (docs/design.md §5).

For a node ``y`` with ``r`` states and parent set ``P`` with ``q = Π_{p∈P} r_p``
configurations (declared arities, as for BDeu), weighted counts ``N_jk`` and
``N_j = Σ_k N_jk``, and ``n`` the total weight (the rows of the data or of a bootstrap
replicate),

    s(y | P) = Σ_jk N_jk ln(N_jk / N_j) − c · (ln n / 2) · q (r − 1),

the maximised log-likelihood minus ``c`` (``penalty_discount``, default 1) times half
``ln n`` per free parameter: bnlearn's ``"bic"`` (which reports it on this scale, higher
is better) and Tetrad's "Discrete BIC Score" with structure prior 0 (Tetrad reports
twice this number).  ``0 · ln 0 = 0``.  BIC is score equivalent (Markov-equivalent DAGs
score the same).  The counting is :class:`.bdeu.BDeuScore`'s; only the term of a table
cell (``N ln N``, and ``−N ln N`` for a configuration) and the per-family penalty differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import xlogy

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData
from causalcal.errors import InputError

from .bdeu import BDeuScore

__all__ = ["BICScore"]


#: The largest penalty discount: beyond about 2·n·ln(arity)/ln(n) no edge can pay for
#: itself, so larger values change nothing, and this bound keeps every penalty finite.
MAX_PENALTY_DISCOUNT = 1e12

class BICScore(BDeuScore):
    """Weighted discrete BIC local scores (see the module docstring), cached and counted
    as :class:`.bdeu.BDeuScore` counts; ``penalty_discount`` ``c > 0`` scales the
    penalty (Tetrad's penalty discount).  No structure prior."""

    def __init__(
        self,
        data: DiscreteData,
        weights: np.ndarray | Sequence[float] | None = None,
        penalty_discount: float = 1.0,
        max_arity: int = DEFAULT_MAX_ARITY,
        device: str | None = None,
    ) -> None:
        if not (np.isfinite(penalty_discount) and 0 < penalty_discount <= MAX_PENALTY_DISCOUNT):
            raise InputError(
                f"penalty_discount must be a number in (0, {MAX_PENALTY_DISCOUNT:g}], got "
                f"{penalty_discount} (far below that bound every edge is refused already)")
        super().__init__(data, weights, sample_prior=1.0, structure_prior=0.0,
                         max_arity=max_arity, device=device)
        self.penalty_discount = float(penalty_discount)
        # the penalty per configuration and free state: c · ln(n) / 2
        self._per_parameter = -self.penalty_discount * math.log(self.total_weight) / 2

    def cell_terms(self, counts, c):
        """``N ln N`` (0 for N = 0); the prior ``c`` plays no part."""
        return xlogy(counts, counts)

    def penalty(self, q, ry):
        """``−c · (ln n / 2) · q (r_y − 1)``."""
        return self._per_parameter * q * (ry - 1)

    def add_penalties(self, lik, base, q, ry, xs) -> None:
        base += self.penalty(q, ry)
        if lik is not None:
            lik += self.penalty(np.multiply.outer(q, self.arities[xs]),
                                np.asarray(ry)[:, None])

    def add_pair_penalties(self, gains, rx, ry) -> None:
        gains += self.penalty(np.asarray(rx, dtype=np.float64)[:, None], ry[None, :])

    def _score_from_counts(self, counts: np.ndarray, log_q: float, r: int) -> float:
        nj = counts.sum(axis=1)
        loglik = xlogy(counts, counts).sum() - xlogy(nj, nj).sum()
        return float(loglik + self.penalty(math.exp(log_q), r))
