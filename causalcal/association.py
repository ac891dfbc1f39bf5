"""The data's own marginal association of a pair of variables: the test the summary states
beside a known relation or an answer (docs/design.md §9.14; issue 48 item 2).

A relation the search never finds may still show in the data as plain dependence: a
randomised treatment whose effect on death the same data show (χ² p = 0.002) is not
contradicted by them because FGES did not join the two. The likelihood-ratio (G²) test of
independence of the two columns says whether the data support a dependence; the summary
never calls a relation so supported "contradicted". Degrees of freedom as causal-learn's
``gsq`` test and Tetrad's count them: (rows seen − 1)(columns seen − 1), p = 1 when that
is 0 (bootstrap/score/gsquare.py tests the same on the score's counts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import chdtrc, xlogy

from causalcal.data import DiscreteData

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


def marginal_association(data: DiscreteData, i: np.ndarray, j: np.ndarray
                         ) -> list[Association]:
    """The G² test of independence of columns ``i[k]`` and ``j[k]`` of ``data``, for
    every k."""
    out = []
    for a, b in zip(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64), strict=True):
        ra, rb = int(data.arities[a]), int(data.arities[b])
        cells = data.codes[:, a].astype(np.int64) * rb + data.codes[:, b]
        table = np.bincount(cells, minlength=ra * rb).reshape(ra, rb).astype(np.float64)
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
        dof = (table.shape[0] - 1) * (table.shape[1] - 1)
        if dof <= 0:
            out.append(Association(0.0, 0, 1.0))
            continue
        expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
        g2 = float(2 * (xlogy(table, table) - xlogy(table, expected)).sum())
        out.append(Association(g2, int(dof), float(chdtrc(dof, max(g2, 0.0)))))
    return out
