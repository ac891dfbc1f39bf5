"""Known relations: label sets, the adjacency design and the evidence blend."""

import numpy as np
import pytest
from sklearn.base import clone

from causalcal.edgecal import edge_calibrator
from causalcal.edgecal.known import (
    EvidenceBlend,
    adjacency_design,
    check_known_counts,
    relation_label_sets,
)


def test_relation_label_sets_by_hand():
    Y = relation_label_sets(np.array([0, 1, 2, 3]))
    np.testing.assert_array_equal(Y, [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1]])
    with pytest.raises(ValueError, match="you have 2 arcs and 5 none"):
        check_known_counts(relation_label_sets(np.array([1, 3] + [0] * 5)))


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
