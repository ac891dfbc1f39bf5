"""Known relations: label sets, the adjacency design and the evidence blend."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from causalcal.edgecal import EdgeTypes, edge_calibrator
from causalcal.edgecal.known import (
    EvidenceBlend,
    MonotoneAdjacency,
    adjacency_design,
    relation_label_sets,
)


def test_relation_label_sets_by_hand():
    Y = relation_label_sets(np.array([0, 1, 2, 3]))
    np.testing.assert_array_equal(Y, [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1]])
    with pytest.raises(ValueError, match="you have 2 arcs and 5 none"):
        EdgeTypes().check_counts(relation_label_sets(np.array([1, 3] + [0] * 5)))


def test_adjacency_design_counts_known_pairs_per_bin():
    P = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1.0]])
    Y = relation_label_sets(np.array([0, 0, 1, 1, 3]))
    design = adjacency_design(P, Y, pairs_per_bin=np.array([1000.0, 10, 10, 10, 20]),
                              adjacent_per_bin=np.array([5.0, 2, 4, 6, 18]))
    np.testing.assert_array_equal(design.drawn[0], [2, 0, 0, 0, 0])
    np.testing.assert_array_equal(design.drawn[1], [0, 0, 1, 0, 2])
    np.testing.assert_array_equal(design.available[0], [995, 8, 6, 4, 2])
    np.testing.assert_array_equal(design.available[3], [5, 2, 4, 6, 18])


def _fit_blend(strength):
    rng = np.random.default_rng(0)
    # known pairs only at the two ends: 12 non-adjacent at the never-adjacent corner and
    # 2 arcs at P(adj) = 0.1 (bin 0), 8 arcs near P(adj) = 1 (bin 4, arcs only)
    P = np.vstack([np.tile([1.0, 0, 0, 0], (12, 1)), np.tile([0.9, 0.1, 0, 0], (2, 1)),
                   rng.dirichlet([0.2, 5, 3, 1], size=8)])
    y = np.r_[np.zeros(12, int), [1, 1], rng.integers(1, 4, 8)]
    inner = edge_calibrator("dirichlet", None, 0, n_boot=100)
    return EvidenceBlend(inner, strength).fit(P, y), inner.fit(P, y)


def test_evidence_blend_keeps_the_bootstrap_where_no_known_pair_lies():
    blend, inner = _fit_blend(5.0)
    assert blend.bin_weights_[0] == pytest.approx(14 / 19)
    assert blend.bin_weights_[1] == blend.bin_weights_[2] == 0.0
    # bin 4 holds 8 known arcs and no known non-adjacent pair: no evidence of its rate
    assert blend.bin_weights_[4] == 0.0
    mid = np.array([[0.5, 0.3, 0.1, 0.1], [0.7, 0.1, 0.1, 0.1], [0.05, 0.5, 0.4, 0.05]])
    np.testing.assert_allclose(blend.predict_proba(mid), mid)
    corner = np.array([[1.0, 0, 0, 0]])
    w = 14 / 19
    np.testing.assert_allclose(blend.predict_proba(corner),
                               w * inner.predict_proba(corner) + (1 - w) * corner)


def test_evidence_blend_strength_zero_is_the_calibrator_and_swap_equivariance_holds():
    blend, inner = _fit_blend(0.0)
    X = np.random.default_rng(1).dirichlet(np.ones(4), size=30)
    np.testing.assert_allclose(blend.predict_proba(X), inner.predict_proba(X))
    blend, _ = _fit_blend(5.0)
    swap = [0, 2, 1, 3]
    np.testing.assert_allclose(blend.predict_proba(X[:, swap]),
                               blend.predict_proba(X)[:, swap], atol=1e-12)
    assert clone(blend).get_params()["strength"] == 5.0
    with pytest.raises(ValueError, match="strength"):
        EvidenceBlend(blend.calibrator, -1.0).fit(X, np.zeros(30, int))


class _AdjacencyMap(BaseEstimator):
    """P(adjacent) out = ``intercept + slope ·`` P(adjacent) in, the input's split kept."""

    def __init__(self, slope: float = -1.0, intercept: float = 1.0) -> None:
        self.slope = slope
        self.intercept = intercept

    def fit(self, X, y, offsets=None):
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=np.float64)
        adjacent = self.intercept + self.slope * (1.0 - X[:, 0])
        mass = X[:, 1:].sum(axis=1, keepdims=True)
        split = np.where(mass > 0, X[:, 1:] / np.where(mass > 0, mass, 1.0), 1 / 3)
        return np.column_stack([1.0 - adjacent, split * adjacent[:, None]])


def _known_pairs():
    X = np.array([[1.0, 0, 0, 0]] * 5 + [[0.2, 0.5, 0.2, 0.1]] * 5)
    return X, np.r_[np.zeros(5, int), np.ones(5, int)]


def test_monotone_adjacency_pools_a_reversed_map_by_hand():
    # rows at P(adjacent) 0.2 (once) and 0.4 (three times); the map gives 0.8 and 0.6,
    # which decrease: their weighted mean (0.8 + 3 * 0.6) / 4 = 0.65 for both
    rows = np.array([[0.8, 0.1, 0.1, 0.0], [0.6, 0.3, 0.0, 0.1]])
    model = MonotoneAdjacency(_AdjacencyMap(), rows, np.array([1.0, 3.0])).fit(*_known_pairs())
    Q = model.predict_proba(rows)
    np.testing.assert_allclose(1.0 - Q[:, 0], [0.65, 0.65])
    np.testing.assert_allclose(Q[:, 1:] / 0.65, [[0.5, 0.5, 0.0], [0.75, 0.0, 0.25]])
    np.testing.assert_allclose(Q.sum(axis=1), 1.0)


def test_monotone_adjacency_keeps_an_increasing_map_and_its_split():
    rng = np.random.default_rng(3)
    rows = rng.dirichlet([2.0, 1, 1, 0.5], size=200)
    inner = edge_calibrator("dirichlet", None, 0, n_boot=100)
    X, y = _known_pairs()
    model = MonotoneAdjacency(inner, rows, np.ones(200)).fit(X, y)
    Q, Q_inner = model.predict_proba(rows), model.calibrator_.predict_proba(rows)
    boot, written = 1.0 - rows[:, 0], 1.0 - Q[:, 0]
    order = np.argsort(boot)
    assert np.all(np.diff(written[order]) >= -1e-12)
    np.testing.assert_allclose(Q[:, 1:] / written[:, None],
                               Q_inner[:, 1:] / (1.0 - Q_inner[:, :1]), rtol=1e-9)
    swap = [0, 2, 1, 3]
    np.testing.assert_allclose(model.predict_proba(rows[:, swap]), Q[:, swap], atol=1e-12)
    # a map already increasing in P(adjacent) is written as it is
    increasing = _AdjacencyMap(slope=0.8, intercept=0.1)
    kept = MonotoneAdjacency(increasing, rows, np.ones(200)).fit(X, y)
    np.testing.assert_allclose(kept.predict_proba(rows), increasing.predict_proba(rows))


def test_monotone_adjacency_refuses_rows_and_counts_that_disagree():
    X, y = _known_pairs()
    with pytest.raises(ValueError, match="rows has 2 rows but row_counts 3"):
        MonotoneAdjacency(_AdjacencyMap(), np.ones((2, 4)) / 4, np.ones(3)).fit(X, y)
    with pytest.raises(ValueError, match="row_counts must be"):
        MonotoneAdjacency(_AdjacencyMap(), np.ones((2, 4)) / 4, -np.ones(2)).fit(X, y)
