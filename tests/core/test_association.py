"""The data's marginal association of a pair (docs/design.md §9.14): the G² test against
scipy's likelihood-ratio test of independence, with the empty rows and columns causal-learn's
and Tetrad's tests drop."""

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from causalcal.association import dependence_words, marginal_association
from causalcal.data import DiscreteData


@pytest.mark.parametrize("seed", range(5))
def test_g2_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, 300)
    b = (a + rng.integers(0, 2, 300) * (seed % 2)) % 4  # dependent for odd seeds
    data = DiscreteData(np.column_stack([a, b, rng.integers(0, 2, 300)]), arities=[4, 5, 2])
    got = marginal_association(data, np.array([0, 0]), np.array([1, 2]))
    for k, j in enumerate((1, 2)):
        table = np.zeros((4, [5, 2][k]))
        np.add.at(table, (data.codes[:, 0], data.codes[:, j]), 1)
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]  # the unseen codes
        g2, p, dof, _ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
        assert got[k].statistic == pytest.approx(g2, rel=1e-10)
        assert got[k].dof == dof and got[k].p_value == pytest.approx(p, rel=1e-8, abs=1e-300)


def test_a_constant_column_has_no_degrees_of_freedom():
    data = DiscreteData(np.column_stack([np.zeros(50, int), np.arange(50) % 3]))
    (got,) = marginal_association(data, np.array([0]), np.array([1]))
    assert got.dof == 0 and got.p_value == 1.0


def test_the_words_never_say_contradicted():
    assert dependence_words(0.002) == "the data show a marginal dependence (G² p = 0.002)"
    assert dependence_words(0.41) == "no marginal dependence shown (G² p = 0.41)"
