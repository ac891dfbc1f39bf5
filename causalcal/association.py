"""The data's own marginal association of a pair of variables: the test the summary states
beside a known relation or an answer (docs/design.md §9.14; issue 48 item 2).

A relation the search never finds may still show in the data as plain dependence: a
randomised treatment whose effect on death the same data show (χ² p = 0.002) is not
contradicted by them because FGES did not join the two. The likelihood-ratio (G²) test of
independence of the two columns says whether the data support a dependence; the summary
never calls a relation so supported "contradicted". Degrees of freedom as causal-learn's
``gsq`` test and Tetrad's count them: (rows seen − 1)(columns seen − 1), p = 1 when that
is 0 (bootstrap/score/gsquare.py tests the same on the score's counts).

A pair with a continuous column (:class:`~causalcal.data.MixedData`) is tested by the
Gaussian likelihood ratio over the two columns' blocks (a discrete column as the
indicators of all its categories but the first; Andrews, Ramsey & Cooper 2019, GFCI's
test on the same data, docs/design.md §5.4): ``G = N·[ln det C_XX + ln det C_YY −
ln det C_XY]``, χ² with ``|X|·|Y|`` degrees of freedom; for two continuous columns
``G = −N ln(1 − r²)``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import chdtrc, xlogy

from causalcal.data import DiscreteData, MixedData

__all__ = ["Association", "dependence_words", "marginal_association"]

#: The level below which the summary says the data's marginal association supports a
#: dependence.
SUPPORTS = 0.05


@dataclass(frozen=True)
class Association:
    """A pair's test of marginal independence: its statistic, degrees of freedom and
    p-value (``test``: its name)."""

    statistic: float
    dof: int
    p_value: float
    test: str = "G²"

    @property
    def supports_dependence(self) -> bool:
        """Whether the data show the two variables dependent at level :data:`SUPPORTS`."""
        return self.p_value < SUPPORTS

    def words(self) -> str:
        """:func:`dependence_words` of this test."""
        return dependence_words(self.p_value, self.test)

    def as_dict(self) -> dict:
        return asdict(self)


def dependence_words(p_value: float, test: str = "G²") -> str:
    """What a test of marginal independence says, in the summary's words: ``the data show
    a marginal dependence (G² p = 0.002)`` below :data:`SUPPORTS`, else ``no marginal
    dependence shown (G² p = 0.41)``."""
    said = ("the data show a marginal dependence" if p_value < SUPPORTS
            else "no marginal dependence shown")
    return f"{said} ({test} p = {p_value:.2g})"


def marginal_association(data: DiscreteData | MixedData, i: np.ndarray, j: np.ndarray
                         ) -> list[Association]:
    """The test of independence of columns ``i[k]`` and ``j[k]`` of ``data``, for every k:
    G² between two discrete columns, the Gaussian likelihood ratio where one is
    continuous (see the module)."""
    out = []
    for a, b in zip(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64), strict=True):
        if isinstance(data, MixedData) and (data.is_continuous[a] or data.is_continuous[b]):
            out.append(_gaussian_lr(_block(data, a), _block(data, b)))
        else:
            codes = data.discrete_part() if isinstance(data, MixedData) else data
            a_, b_ = (codes.index(data.names[v]) for v in (a, b))
            out.append(_g_square(codes, a_, b_))
    return out


def _g_square(data: DiscreteData, a: int, b: int) -> Association:
    ra, rb = int(data.arities[a]), int(data.arities[b])
    cells = data.codes[:, a].astype(np.int64) * rb + data.codes[:, b]
    table = np.bincount(cells, minlength=ra * rb).reshape(ra, rb).astype(np.float64)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    if dof <= 0:
        return Association(0.0, 0, 1.0)
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    g2 = float(2 * (xlogy(table, table) - xlogy(table, expected)).sum())
    return Association(g2, int(dof), float(chdtrc(dof, max(g2, 0.0))))


def _block(data: MixedData, v: int) -> np.ndarray:
    """Column ``v`` as an (n, k) block: the values, or the indicators of the categories
    seen but the first."""
    column = data.numeric()[:, v]
    if data.is_continuous[v]:
        return column[:, None]
    seen = np.unique(column)
    return (column[:, None] == seen[None, 1:]).astype(np.float64)


def _gaussian_lr(x: np.ndarray, y: np.ndarray) -> Association:
    dof = x.shape[1] * y.shape[1]
    if dof == 0:
        return Association(0.0, 0, 1.0, "Gaussian LR")
    both = np.hstack([x, y])
    cov = np.atleast_2d(np.cov(both, rowvar=False, bias=True))
    k = x.shape[1]
    ldets = [np.linalg.slogdet(c) for c in (cov[:k, :k], cov[k:, k:], cov)]
    if any(sign <= 0 for sign, _ in ldets[:2]):
        return Association(0.0, int(dof), 1.0, "Gaussian LR")  # a constant block
    if ldets[2][0] <= 0:
        return Association(np.inf, int(dof), 0.0, "Gaussian LR")  # one determines the other
    g = float(len(both) * (ldets[0][1] + ldets[1][1] - ldets[2][1]))
    return Association(g, int(dof), float(chdtrc(dof, max(g, 0.0))), "Gaussian LR")
