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


@pytest.mark.parametrize("seed", range(4))
def test_gaussian_lr_on_mixed_data_matches_scipy(seed):
    """Two continuous columns: G = −N ln(1 − r²), r Pearson's (scipy); a continuous and a
    discrete column: −N ln(1 − R²), R² of the least-squares fit on the
    indicators (numpy's lstsq)."""
    from scipy.stats import chi2, pearsonr

    from causalcal.data import MixedData

    rng = np.random.default_rng(seed)
    n = 400
    g = rng.integers(0, 3, n)
    x = rng.normal(size=n) + 0.3 * g * (seed % 2)
    y = 0.2 * x * (seed % 2) + rng.normal(size=n)
    data = MixedData(np.column_stack([x, y]), g[:, None], [True, True, False],
                     names=["x", "y", "g"])
    both, mixed, group_y = marginal_association(data, np.array([0, 0, 2]),
                                                np.array([1, 2, 1]))
    r = pearsonr(x, y).statistic
    assert both.statistic == pytest.approx(-n * np.log1p(-r * r), rel=1e-9)
    assert both.p_value == pytest.approx(chi2.sf(both.statistic, 1), rel=1e-9)
    design = np.column_stack([np.ones(n), g == 1, g == 2])
    resid = x - design @ np.linalg.lstsq(design, x, rcond=None)[0]
    r2 = 1 - resid.var() / x.var()
    assert mixed.dof == 2 and mixed.statistic == pytest.approx(-n * np.log1p(-r2), rel=1e-9)
    assert group_y.test == "Gaussian LR" and group_y.dof == 2


def test_mixed_data_in_another_order_is_the_same_data():
    from causalcal.bootstrap.checkpoint import data_fingerprint
    from causalcal.data import MixedData

    rng = np.random.default_rng(0)
    data = MixedData(rng.normal(size=(30, 2)), rng.integers(0, 3, (30, 2)),
                     [True, False, True, False], names=["a", "b", "c", "d"])
    turned = data.in_order(["d", "c", "b", "a"])
    assert turned.names == ["d", "c", "b", "a"]
    assert turned.in_order(data.names) == data
    np.testing.assert_array_equal(turned.numeric(), data.numeric()[:, ::-1])
    assert data_fingerprint(turned.in_order(data.names)) == data_fingerprint(data)
