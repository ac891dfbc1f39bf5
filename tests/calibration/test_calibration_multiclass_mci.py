"""MultiClassifierIsotonic (Zhong & Kwok 2013, seed 003) against independent references."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression

from causalcal.calibration import MultiClassifierIsotonic, OneVsRestCalibrator, get
from causalcal.calibration.multi_classifier_isotonic import (
    _remove_cycles,
    _transitive_reduction,
    soft_vote_graph,
    tree_isotonic,
)


def slsqp_isotonic(y, w, edges, L=None, lam=0.0):
    """Generic solver of min Σ w (y − f)² + λ/2 fᵀLf s.t. f_i ≥ f_j for (i, j) in edges."""
    n = len(y)
    L = np.zeros((n, n)) if L is None else L
    A = np.zeros((len(edges), n))
    for r, (i, j) in enumerate(edges):
        A[r, i], A[r, j] = 1.0, -1.0

    def obj(f):
        return np.sum(w * (y - f) ** 2) + lam / 2 * f @ L @ f

    def jac(f):
        return -2 * w * (y - f) + lam * L @ f

    cons = [{"type": "ineq", "fun": lambda f: A @ f, "jac": lambda f: A}] if len(edges) else []
    res = minimize(obj, np.full(n, y.mean()), jac=jac, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 2000})
    return res.x, obj


def reference_constraints(U, eta, alpha):
    """Soft-vote edges by loops, minus every edge on a directed cycle (networkx)."""
    m, C = U.shape
    D = nx.DiGraph()
    D.add_nodes_from(range(m))
    for i in range(m):
        for j in range(m):
            if i != j and sum(eta[c] for c in range(C) if U[i, c] >= U[j, c]) >= alpha - 1e-12:
                D.add_edge(i, j)
    comp = {v: k for k, cc in enumerate(nx.strongly_connected_components(D)) for v in cc}
    return [(i, j) for i, j in D.edges if comp[i] != comp[j]]


def reference_laplacian(U, k):
    """Symmetrised kNN graph with weights 1/distance, by brute force."""
    m = len(U)
    D = np.linalg.norm(U[:, None] - U[None], axis=2)
    W = np.zeros((m, m))
    for i in range(m):
        for j in np.argsort(D[i])[1 : k + 1]:
            W[i, j] = W[j, i] = 1 / D[i, j]
    return np.diag(W.sum(axis=1)) - W


@pytest.mark.parametrize("seed", range(4))
def test_tree_isotonic_matches_generic_solver(seed):
    rng = np.random.default_rng(seed)
    T = 25
    parent = np.array([-1] + [int(rng.integers(0, t)) for t in range(1, T)])
    if seed % 2:
        parent[5] = -1  # a forest
    v = rng.normal(size=T)
    w = rng.uniform(0.2, 3, T)
    got = tree_isotonic(v, w, parent)
    edges = [(parent[t], t) for t in range(T) if parent[t] >= 0]
    ref, _ = slsqp_isotonic(v, w, edges)
    np.testing.assert_allclose(got, ref, atol=1e-6)


def test_graph_helpers_match_networkx():
    rng = np.random.default_rng(3)
    U = rng.random((30, 3))
    eta = np.array([0.5, 0.3, 0.2])
    G = _remove_cycles(soft_vote_graph(U, eta, 0.5 + 1e-9))
    assert set(zip(*np.nonzero(G))) == set(reference_constraints(U, eta, 0.5 + 1e-9))
    assert nx.is_directed_acyclic_graph(nx.DiGraph(list(zip(*np.nonzero(G)))))
    R = _transitive_reduction(G)
    ref = nx.transitive_reduction(nx.DiGraph(list(zip(*np.nonzero(G)))))
    assert set(zip(*np.nonzero(R))) == set(ref.edges)


@pytest.mark.parametrize(
    "eta, alpha, lam",
    [
        ([0.5, 0.3, 0.2], 0.7, 0.0),
        ([0.5, 0.3, 0.2], 0.7, 0.05),
        ("uniform", 2 / 3, 0.5),
        ("uniform", 1.0, 2.0),
    ],
)
def test_matches_generic_convex_solver(eta, alpha, lam):
    rng = np.random.default_rng(0)
    n = 30
    X = rng.random((n, 3))
    X[5] = X[4]  # a duplicated score vector is pooled into one vertex
    y = (rng.random(n) < X.mean(axis=1)).astype(int)
    w = rng.uniform(0.5, 2, n)
    m = MultiClassifierIsotonic(eta=eta, alpha=alpha, lam=lam, n_neighbors=4).fit(X, y, w)
    U = m.X_fit_
    assert len(U) == n - 1
    idx = [int(np.flatnonzero((U == x).all(axis=1))[0]) for x in X]
    s = np.bincount(idx, weights=w)
    ybar = np.bincount(idx, weights=w * y) / s
    edges = reference_constraints(U, m.eta_, alpha)
    assert len(edges) == m.n_constraints_ > 0
    L = reference_laplacian(U, 4)
    np.testing.assert_allclose(m.laplacian_.toarray(), L if lam > 0 else 0 * L, atol=1e-9)
    ref, obj = slsqp_isotonic(ybar, s, edges, L, lam)
    np.testing.assert_allclose(m.fitted_, ref, atol=2e-4)
    assert obj(m.fitted_) <= obj(ref) + 1e-6
    np.testing.assert_allclose(m.predict(X), m.fitted_[idx])


def test_reduces_to_isotonic_regression_with_one_classifier():
    rng = np.random.default_rng(1)
    x = np.round(rng.random(200), 2)  # many ties
    y = (rng.random(200) < x**2).astype(int)
    w = rng.uniform(0.5, 2, 200)
    m = MultiClassifierIsotonic(lam=0.0).fit(x, y, sample_weight=w)
    ir = IsotonicRegression(out_of_bounds="clip").fit(x, y, sample_weight=w)
    np.testing.assert_allclose(m.predict(x), ir.predict(x), atol=1e-12)
    assert m.n_iter_ == 0  # a chain is a tree: solved directly
    # between training scores the prediction stays within the neighbours' fitted values
    grid = np.linspace(-0.1, 1.1, 301)
    p = m.predict(grid)
    assert np.all(np.diff(p) >= -1e-12)
    assert p.min() >= m.fitted_.min() - 1e-12 and p.max() <= m.fitted_.max() + 1e-12


def test_manifold_regulariser_smooths():
    rng = np.random.default_rng(4)
    X = rng.random((80, 2))
    y = (rng.random(80) < X.mean(axis=1)).astype(int)
    rough = MultiClassifierIsotonic(lam=0.0).fit(X, y)
    smooth = MultiClassifierIsotonic(lam=1.0).fit(X, y)
    L = smooth.laplacian_
    assert smooth.fitted_ @ (L @ smooth.fitted_) < rough.fitted_ @ (L @ rough.fitted_)


def test_lambda_tuning_and_eta_auc():
    rng = np.random.default_rng(2)
    n = 120
    t = rng.random(n)
    y = (rng.random(n) < t).astype(int)
    X = np.column_stack([t + 0.05 * rng.normal(size=n), rng.random(n)])  # good, useless
    m = MultiClassifierIsotonic(random_state=0).fit(X, y)
    assert set(m.lam_scores_) == {0.0, 0.01, 0.1, 1.0, 10.0}
    assert m.lam_ == min(m.lam_scores_, key=m.lam_scores_.get)
    assert m.eta_[0] > 0.6 > m.eta_[1]  # eq. (7) favours the informative classifier
    again = MultiClassifierIsotonic(random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.predict(X), m.predict(X))
    p = m.predict(rng.random((50, 2)))
    assert ((p >= 0) & (p <= 1)).all()


def test_one_vs_rest_with_several_classifiers():
    rng = np.random.default_rng(5)
    n, k = 90, 3
    y = rng.integers(0, k, n)
    stacks = []
    for noise in (1.0, 2.0):
        z = np.eye(k)[y] * 2 + noise * rng.normal(size=(n, k))
        P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        stacks.append(P)
    A = np.stack(stacks, axis=2)  # (n, k, C)
    ovr = OneVsRestCalibrator(MultiClassifierIsotonic(lam=0.1)).fit(A, y)
    Q = ovr.predict_proba(A)
    np.testing.assert_allclose(Q.sum(axis=1), 1)
    assert ovr.calibrators_[0].n_features_in_ == 2
    assert isinstance(get("ovr-multi_classifier_isotonic"), OneVsRestCalibrator)


@pytest.mark.parametrize(
    "params, X, y, match",
    [
        ({"alpha": 0.5}, np.ones((4, 2)), [0, 1, 0, 1], "alpha"),
        ({"lam": -1}, np.ones((4, 2)), [0, 1, 0, 1], "lam"),
        ({"eta": [1, 2, 3]}, np.ones((4, 2)), [0, 1, 0, 1], "eta"),
        ({"lam": 0.0}, np.array([[0.1, np.inf]] * 4), [0, 1, 0, 1], r"X\[0, 1\]"),
        ({"lam": 0.0}, np.ones((4, 2)), [0, 1, 2, 1], r"y\[2\]"),
        ({}, np.ones((4, 2)), [0, 1, 0, 1], "at least 8"),
    ],
)
def test_validation(params, X, y, match):
    with pytest.raises(ValueError, match=match):
        MultiClassifierIsotonic(**params).fit(X, y)


def test_sklearn_conventions():
    est = MultiClassifierIsotonic(lam=0.1)
    c = clone(est)
    assert repr(c) == repr(est)
    assert not [a for a in vars(c) if a.endswith("_")]
    X = np.random.default_rng(0).random((20, 2))
    y = np.r_[np.zeros(10), np.ones(10)].astype(int)
    assert c.fit(X, y) is c
    assert c.predict_proba(X).shape == (20, 2)
    with pytest.raises(ValueError, match="expected 2"):
        c.predict(np.ones((3, 3)))
