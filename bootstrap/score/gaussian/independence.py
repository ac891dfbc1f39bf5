"""Conditional-independence tests on the Gaussian scores' covariance (GFCI's; docs/design.md
§5.4): Fisher's z for continuous data, the degenerate-Gaussian likelihood-ratio test for
mixed data (Andrews, Ramsey & Cooper 2019; Tetrad's ``IndTestDegenerateGaussianLrt``).
Both read the replicate's weighted covariance, so a bootstrap's row weights count as
repeated rows (``N = Σw``)."""

from __future__ import annotations

import math

from scipy.special import chdtrc, erfc

from ..protocol import CachedTest
from .kernel import partial_correlation
from .score import GaussianScore

__all__ = ["FisherZTest", "GaussianLRTest"]


class FisherZTest(CachedTest):
    """Fisher's z test of a zero partial correlation: ``z = atanh(r)·√(N − |S| − 3)``,
    ``p = 2(1 − Φ(|z|))`` (causal-learn's ``fisherz``, Tetrad's ``IndTestFisherZ``), the
    partial correlation ``r`` of x and y given S from the inverse of their covariance.
    ``p = 1`` where ``N − |S| − 3 ≤ 0`` or the covariance is singular."""

    score: GaussianScore

    def _compute(self, x: int, y: int, s: list[int]) -> float:
        self.n_tests += 1
        sc = self.score
        dof = sc.n - len(s) - 3
        r = partial_correlation(sc.cov, sc._cols(s), int(sc.starts[x]), int(sc.starts[y]))
        if dof <= 0 or math.isnan(r):
            return 1.0
        if abs(r) >= 1.0:
            return 0.0
        z = abs(math.atanh(r)) * math.sqrt(dof)
        return float(erfc(z / math.sqrt(2.0)))


class GaussianLRTest(CachedTest):
    """The Gaussian likelihood-ratio test of x ⊥ y | S over the variables' blocks of
    columns (indicators of a discrete variable): ``G = N·[ln det C_{XX|S} + ln det
    C_{YY|S} − ln det C_{XY|S}]``, χ² with ``|X|·|Y|`` degrees of freedom — twice the
    gain in log-likelihood of regressing either block on the other given S. For two
    continuous variables ``G = −N ln(1 − r²)`` with 1 degree of freedom."""

    score: GaussianScore

    def _compute(self, x: int, y: int, s: list[int]) -> float:
        self.n_tests += 1
        sc = self.score
        dof = int(sc.sizes[x]) * int(sc.sizes[y])
        if dof == 0:
            return 1.0
        base = sc._cols(s)
        ldets = [sc.ldet_given(v, base) for v in ([x], [y], [x, y])]
        if any(math.isnan(v) for v in ldets):
            return 1.0 if math.isnan(ldets[0]) or math.isnan(ldets[1]) else 0.0
        statistic = sc.n * (ldets[0] + ldets[1] - ldets[2])
        return float(chdtrc(dof, max(statistic, 0.0)))
