"""Calibration of the combined scores of several classifiers (Zhong & Kwok, IJCAI 2013; seed 003).

For a binary target, every sample i has the score vector ``x_i = (x_i1 … x_iC)`` of C
classifiers. The calibrated probabilities ``f`` solve (the paper's problem (3))

    min_f  Σ_i s_i (y_i − f_i)²  +  λ/2 · fᵀ Ω f      s.t.  f_i ≥ f_j  for (i → j) ∈ E,

* **soft-voting isotonic constraints** (§3.1): ``i → j`` when ``Σ_c η_c I(x_ic ≥ x_jc) ≥ α``
  (classifier weights η ≥ 0 summing to 1, threshold α ∈ (0.5, 1]); the weights default to
  the paper's eq. (7), ``η_c ∝ exp(−(1 − AUC_c) / (2 μ))`` with μ the mean of ``1 − AUC``;
* **cycle removal**: soft votes need not be transitive, so E may have directed cycles; all
  constraints on a cycle are removed (the edges inside a strongly connected component —
  exactly the edges that lie on some cycle), and a topological sort of what is left checks
  that it is a DAG;
* **manifold regulariser** (§3.2): Ω is the Laplacian of the symmetrised k-nearest-neighbour
  graph of the score vectors with weights ``ω_ij = 1 / ‖x_i − x_j‖`` (the paper's choice);
* **ADMM** (§3.3, Algorithm 2): the DAG is turned into a tree by giving every vertex one
  copy per parent (``f̂ = Q f``); the f̂-step is a weighted isotonic regression on that tree
  order (solved exactly by the O(T log T) pool-the-maximum-violator algorithm of Thompson
  1962 / Pardalos & Xue 1999) and the f-step the sparse linear system
  ``(λ Ω + ρ QᵀQ) f = ρ Qᵀ(f̂ + r)``, factorised once.

Decisions where the paper is silent (documented here, tested in ``tests/``):

* samples with identical score vectors are pooled into one vertex (weight = summed sample
  weight, target = weighted mean label), as plain isotonic regression pools ties; then a
  tie cannot create a 2-cycle and the model reduces exactly to isotonic regression when
  C = 1 and λ = 0;
* the constraint DAG is replaced by its transitive reduction before the tree conversion —
  the same feasible set with far fewer edges (a total order of n points has n(n−1)/2 edges
  but a reduction of n − 1), so far fewer tree copies;
* when λ = 0 and the reduced DAG is already a forest, the tree isotonic regression is solved
  directly (exact, no ADMM);
* λ given as a sequence is chosen on a seeded hold-out quarter of the calibration set by
  Brier score, then the model is refitted on all of it (the paper's §4 protocol);
* **prediction for a new score vector x** (the paper gives none): x gets the value that
  minimises the manifold term ``Σ_j ω_xj (f − f_j)²`` over its k nearest calibration
  vertices subject to the soft-voting isotonic constraints against the calibration
  vertices (lower bound: the largest ``f_j`` with x ≽ x_j, upper: the smallest ``f_j`` with
  x_j ≽ x) — the ω-weighted mean of the neighbours' f clipped to those bounds; an exact
  match returns its fitted value. If non-transitive votes make the bounds cross, their
  midpoint is used.

Scale: the soft-vote graph is built densely (m × m booleans for m distinct score vectors),
and each ADMM iteration runs the tree isotonic regression over |E_reduced| + roots tree
vertices, so this calibrator is meant for calibration sets of up to a few thousand samples
(the paper uses 1,000).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import factorized
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import (
    BOOLEAN,
    RANDOM_STATE,
    Integral,
    Interval,
    Options,
    Real,
    Satisfies,
    check_score_matrix,
)
from causalcal.calibration._base import BinaryCalibrator, check_binary_labels, check_sample_weight
from causalcal.errors import InputError

__all__ = ["MultiClassifierIsotonic", "tree_isotonic", "soft_vote_graph"]


# --------------------------------------------------------------------------- building blocks
def tree_isotonic(values, weights, parent) -> np.ndarray:
    """Weighted least-squares fit with ``f[t] ≤ f[parent[t]]`` on a forest.

    ``parent[t] = -1`` marks a root. Repeatedly takes the block with the largest mean
    among the blocks that still have a parent block; it is pooled with its parent block
    unless that is a root block with a mean at least as large, in which case it becomes a
    root of its own. The largest non-root mean never increases, so such a block never
    violates again (Thompson 1962).
    O(T log T) with a heap and union-find.
    """
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    par = np.asarray(parent, dtype=np.int64)
    T = len(v)
    uf = list(range(T))
    sw = w.tolist()
    swv = (w * v).tolist()
    top_par = par.tolist()  # tree parent of each block's top vertex (-1: block is a root)
    version = [0] * T

    def find(a: int) -> int:
        root = a
        while uf[root] != root:
            root = uf[root]
        while uf[a] != root:
            uf[a], a = root, uf[a]
        return root

    heap = [(-swv[t] / sw[t], 0, t) for t in range(T) if top_par[t] >= 0]
    heapq.heapify(heap)
    while heap:
        negm, ver, b = heapq.heappop(heap)
        if ver != version[b] or uf[b] != b or top_par[b] < 0:
            continue
        p = find(top_par[b])
        # b has the largest non-root mean, so a non-root parent block is never above it:
        # pool (ties included); a root parent block is final unless b exceeds it.
        if top_par[p] >= 0 or swv[b] / sw[b] > swv[p] / sw[p]:
            uf[b] = p
            sw[p] += sw[b]
            swv[p] += swv[b]
            version[p] += 1
            if top_par[p] >= 0:
                heapq.heappush(heap, (-swv[p] / sw[p], version[p], p))
        else:
            top_par[b] = -1
    roots = np.array([find(t) for t in range(T)], dtype=np.int64)
    means = np.array(swv) / np.array(sw)
    return means[roots]


def soft_vote_graph(X: np.ndarray, eta: np.ndarray, alpha: float) -> np.ndarray:
    """Boolean (m, m) matrix ``G[i, j] = Σ_c η_c I(x_ic ≥ x_jc) ≥ α`` (i ≠ j)."""
    m = X.shape[0]
    votes = np.zeros((m, m))
    for c in range(X.shape[1]):
        votes += eta[c] * (X[:, c, None] >= X[None, :, c])
    G = votes >= alpha - 1e-12
    np.fill_diagonal(G, False)
    return G


def _remove_cycles(G: np.ndarray) -> np.ndarray:
    """Drop every edge that lies on a directed cycle (edges inside a strong component)."""
    _, lab = connected_components(sp.csr_matrix(G), directed=True, connection="strong")
    return G & (lab[:, None] != lab[None, :])


def _topological_order(G: np.ndarray) -> np.ndarray:
    """Kahn's topological sort by levels; raises if ``G`` has a cycle."""
    m = G.shape[0]
    indeg = G.sum(axis=0).astype(np.int64)
    done = np.zeros(m, dtype=bool)
    order = []
    while len(order) < m:
        level = np.flatnonzero(~done & (indeg == 0))
        if len(level) == 0:
            raise RuntimeError("constraint graph still has a cycle after cycle removal")
        order.extend(level.tolist())
        done[level] = True
        indeg -= G[level].sum(axis=0)
    return np.array(order, dtype=np.int64)


def _transitive_reduction(G: np.ndarray) -> np.ndarray:
    """Transitive reduction of a DAG given as a boolean matrix (bit-packed reachability)."""
    m = G.shape[0]
    order = _topological_order(G)
    packed = np.packbits(G, axis=1)
    reach = np.zeros_like(packed)
    red = np.zeros_like(G)
    for i in order[::-1]:  # children before parents
        ch = np.flatnonzero(G[i])
        if len(ch):
            via = np.bitwise_or.reduce(reach[ch], axis=0)  # reachable in ≥ 2 steps
            reach[i] = packed[i] | via
            red[i] = G[i] & ~np.unpackbits(via, count=m).astype(bool)
    return red


def _laplacian(X: np.ndarray, n_neighbors: int) -> sp.csr_matrix:
    """Laplacian of the symmetrised kNN graph, weights 1/distance (vertices are distinct)."""
    m = X.shape[0]
    k = min(n_neighbors, m - 1)
    if k < 1:
        return sp.csr_matrix((m, m))
    nn = NearestNeighbors(n_neighbors=k + 1).fit(X)
    dist, ind = nn.kneighbors(X)
    rows = np.repeat(np.arange(m), k)
    cols = ind[:, 1:].ravel()
    wts = 1.0 / np.maximum(dist[:, 1:].ravel(), 1e-12)
    Wm = sp.csr_matrix((wts, (rows, cols)), shape=(m, m))
    Wm = Wm.maximum(Wm.T)
    deg = np.asarray(Wm.sum(axis=1)).ravel()
    return (sp.diags(deg) - Wm).tocsr()


# --------------------------------------------------------------------------- estimator
def _non_negative_numbers(value) -> bool:
    """A number or a non-empty 1-d sequence of them, all finite and >= 0."""
    lams = np.atleast_1d(np.asarray(value, dtype=np.float64))
    return lams.ndim == 1 and lams.size > 0 and bool(np.isfinite(lams).all() and (lams >= 0).all())


class MultiClassifierIsotonic(BinaryCalibrator):
    """Manifold-regularised multi-classifier isotonic calibration, MR-MIC (Zhong & Kwok 2013).

    ``fit(X, y)`` with ``X`` of shape (n, C): the scores of C classifiers for a binary
    target (any finite real scores; a 1-d array is C = 1); ``predict(X)`` → P(y = 1).
    For k classes use it per class through
    :class:`~causalcal.calibration.one_vs_rest.OneVsRestCalibrator` (with the k-class
    probabilities of C classifiers stacked as an (n, k, C) array).

    Parameters
    ----------
    eta : "auc", "uniform" or array-like of shape (C,), default "auc"
        Classifier weights η of the soft vote; "auc" is the paper's eq. (7) computed on the
        calibration set.
    alpha : float in (0.5, 1], default 0.8
        Vote threshold (the paper's experiments use 0.8; its Fig. 4 is flat on 0.7–0.9).
    lam : float or sequence of floats, default (0, 0.01, 0.1, 1, 10)
        λ ≥ 0, the manifold-regularisation strength; a sequence is tuned on a hold-out
        quarter (Brier score) as in the paper's §4. ``lam=0`` is the unregularised MIC.
    n_neighbors : int, default 10
        k of the kNN graph behind Ω and of the prediction rule.
    rho : float, default 1.0
        Initial ADMM penalty (the paper's value).
    tol : float, default 1e-7
        ADMM stops when the primal ‖f̂ − Qf‖ and dual ρ‖Q(f − f_prev)‖ residuals are both
        below ``tol · √T`` (T = number of tree vertices).
    max_iter : int, default 5000
        ADMM iteration limit.
    adaptive_rho : bool, default True
        Residual balancing of ρ (Boyd et al. 2011, §3.4.1), which the paper recommends for
        faster convergence; ``False`` keeps ρ fixed as in its Algorithm 2.
    random_state : int, RandomState or None
        Seeds the hold-out split used to tune a sequence ``lam``.

    Attributes
    ----------
    X_fit_ : ndarray (m, C)
        The distinct calibration score vectors (the graph's vertices).
    fitted_ : ndarray (m,)
        Their calibrated probabilities.
    eta_ : ndarray (C,)
    lam_ : float
        The λ used (chosen from the sequence when one was given).
    lam_scores_ : dict or None
        Hold-out Brier score of each candidate λ.
    edges_ : ndarray (n_edges, 2)
        The transitive reduction of the cycle-free constraint DAG, pairs (i, j): f_i ≥ f_j.
    n_constraints_ : int
        Constraint edges after cycle removal, before the reduction.
    n_cycle_edges_removed_ : int
    laplacian_ : scipy.sparse matrix (m, m)
    n_iter_ : int
        ADMM iterations (0 when solved directly).
    """

    _parameter_constraints = {
        "eta": [Options("auc", "uniform"),
                Satisfies(lambda e: np.asarray(e, dtype=np.float64).ndim == 1,
                          "a sequence of classifier weights")],
        "alpha": [Interval(Real, 0.5, 1, closed="right")],
        "lam": [Satisfies(_non_negative_numbers, "a non-negative number or sequence")],
        "n_neighbors": [Interval(Integral, 1, None)],
        "rho": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
        "adaptive_rho": [BOOLEAN],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        eta="auc",
        alpha: float = 0.8,
        lam: float | Sequence[float] = (0.0, 0.01, 0.1, 1.0, 10.0),
        n_neighbors: int = 10,
        rho: float = 1.0,
        tol: float = 1e-7,
        max_iter: int = 5000,
        adaptive_rho: bool = True,
        random_state=None,
    ) -> None:
        self.eta = eta
        self.alpha = alpha
        self.lam = lam
        self.n_neighbors = n_neighbors
        self.rho = rho
        self.tol = tol
        self.max_iter = max_iter
        self.adaptive_rho = adaptive_rho
        self.random_state = random_state

    # ------------------------------------------------------------------ validation
    def _eta(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        C = X.shape[1]
        if isinstance(self.eta, str):
            if self.eta == "uniform" or C == 1:
                return np.full(C, 1.0 / C)
            if self.eta != "auc":
                raise InputError(f"eta must be 'auc', 'uniform' or {C} weights, got {self.eta!r}")
            if y.min() == y.max():
                return np.full(C, 1.0 / C)
            err = np.array([1 - roc_auc_score(y, X[:, c], sample_weight=w) for c in range(C)])
            mu = err.mean()
            if mu <= 0:
                return np.full(C, 1.0 / C)
            e = np.exp(-err / (2 * mu))
            return e / e.sum()
        eta = np.asarray(self.eta, dtype=np.float64)
        if eta.shape != (C,) or not np.isfinite(eta).all() or (eta < 0).any() or eta.sum() <= 0:
            raise InputError(f"eta must be {C} non-negative weights, got {self.eta!r}")
        return eta / eta.sum()

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None) -> MultiClassifierIsotonic:
        """Fit on scores ``X`` (n, C) (or (n,)) and 0/1 labels ``y``."""
        self._validate_params()
        lams = np.atleast_1d(np.asarray(self.lam, dtype=np.float64)).tolist()
        X = check_score_matrix(X)
        n = X.shape[0]
        y = check_binary_labels(y, n)
        w = check_sample_weight(sample_weight, n)
        self.eta_ = self._eta(X, y, w)
        self.n_features_in_ = X.shape[1]
        self.lam_scores_ = None
        if len(lams) == 1:
            lam = lams[0]
        else:
            if n < 8:
                raise InputError(f"tuning lam needs at least 8 samples, got {n}; pass one lam")
            rs = check_random_state(self.random_state)
            perm = rs.permutation(n)
            val, tr = perm[: n // 4], perm[n // 4 :]
            scores = {}
            for lam_c in lams:
                self._fit_core(X[tr], y[tr], w[tr], lam_c)
                p = self.predict(X[val])
                scores[lam_c] = float(np.sum(w[val] * (p - y[val]) ** 2) / w[val].sum())
            lam = min(scores, key=scores.get)
            self.lam_scores_ = scores
        self._fit_core(X, y, w, lam)
        self.lam_ = float(lam)
        self.n_features_in_ = X.shape[1]
        return self

    def _fit_core(self, X: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float) -> None:
        U, inv = np.unique(X, axis=0, return_inverse=True)
        inv = inv.ravel()
        m = U.shape[0]
        s = np.bincount(inv, weights=w, minlength=m)
        keep = s > 0
        if not keep.all():  # zero-weight vertices carry no information
            U, s = U[keep], s[keep]
            remap = np.cumsum(keep) - 1
            sel = keep[inv]
            inv, y, w = remap[inv[sel]], y[sel], w[sel]
            m = U.shape[0]
        ybar = np.bincount(inv, weights=w * y, minlength=m) / s

        G = soft_vote_graph(U, self.eta_, self.alpha)
        n_all = int(G.sum())
        G = _remove_cycles(G)
        self.n_constraints_ = int(G.sum())
        self.n_cycle_edges_removed_ = n_all - self.n_constraints_
        R = _transitive_reduction(G)
        src, dst = np.nonzero(R)  # f[src] ≥ f[dst]
        self.edges_ = np.column_stack([src, dst])
        L = _laplacian(U, self.n_neighbors) if lam > 0 else sp.csr_matrix((m, m))
        self.laplacian_ = L
        self.X_fit_ = U
        self.fitted_, self.n_iter_ = self._solve(ybar, s, src, dst, L, lam)
        self.nn_ = NearestNeighbors(n_neighbors=min(self.n_neighbors, m)).fit(U)

    def _solve(self, ybar, s, src, dst, L, lam):
        m = len(ybar)
        npar = np.bincount(dst, minlength=m)
        if lam == 0 and npar.max(initial=0) <= 1:
            parent = np.full(m, -1, dtype=np.int64)
            parent[dst] = src
            return np.clip(tree_isotonic(ybar, s, parent), 0, 1), 0
        # tree T: one copy per (vertex, parent) pair; roots get one parent-less copy
        roots = np.flatnonzero(npar == 0)
        order = np.argsort(dst, kind="stable")
        node = np.concatenate([roots, dst[order]])
        par_vertex = np.concatenate([np.full(len(roots), -1), src[order]])
        T = len(node)
        first_copy = np.full(m, -1, dtype=np.int64)
        first_copy[node[::-1]] = np.arange(T)[::-1]
        tparent = np.where(par_vertex >= 0, first_copy[np.maximum(par_vertex, 0)], -1)
        p = np.maximum(npar, 1).astype(np.float64)
        a = s[node] / p[node]  # φ's weight of each copy
        rho = float(self.rho)
        Qt = sp.csr_matrix((np.ones(T), (node, np.arange(T))), shape=(m, T))
        A0, D = (lam * L).tocsc(), sp.diags(p).tocsc()
        solve = factorized(A0 + rho * D)
        f = np.zeros(m)
        r = np.zeros(T)
        thr = self.tol * np.sqrt(T)
        it = 0
        while it < int(self.max_iter):
            it += 1
            b = rho / 2
            c = (a * ybar[node] + b * (f[node] - r)) / (a + b)
            fh = tree_isotonic(c, a + b, tparent)
            f_prev = f
            f = solve(rho * (Qt @ (fh + r)))
            Qf = f[node]
            r = r + fh - Qf
            primal = np.linalg.norm(fh - Qf)
            dual = rho * np.linalg.norm(Qf - f_prev[node])
            if primal < thr and dual < thr:
                break
            # residual balancing (Boyd et al. 2011, §3.4.1; the paper's §4 suggests it):
            # keep the residuals within a factor 10 by doubling / halving ρ, rescaling the
            # scaled dual r = u / ρ and refactorising the f-step matrix
            if self.adaptive_rho and it % 5 == 0 and (primal > 10 * dual or dual > 10 * primal):
                factor = 2.0 if primal > 10 * dual else 0.5
                rho *= factor
                r /= factor
                solve = factorized(A0 + rho * D)
        return np.clip(f, 0, 1), it

    # ------------------------------------------------------------------ predict
    def predict(self, X) -> np.ndarray:
        """Calibrated P(y = 1) of score vectors ``X`` (n, C) (or (n,) when C = 1)."""
        check_is_fitted(self)
        X = check_score_matrix(X, n_cols=self.n_features_in_)
        U, f = self.X_fit_, self.fitted_
        m = U.shape[0]
        out = np.empty(X.shape[0])
        chunk = max(1, 2_000_000 // m)
        for s0 in range(0, X.shape[0], chunk):
            Xc = X[s0 : s0 + chunk]
            up = np.zeros((len(Xc), m))
            down = np.zeros((len(Xc), m))
            for c in range(U.shape[1]):
                up += self.eta_[c] * (Xc[:, c, None] >= U[None, :, c])
                down += self.eta_[c] * (U[None, :, c] >= Xc[:, c, None])
            lo = np.max(np.where(up >= self.alpha - 1e-12, f, 0.0), axis=1)
            hi = np.min(np.where(down >= self.alpha - 1e-12, f, 1.0), axis=1)
            dist, ind = self.nn_.kneighbors(Xc)
            exact = dist[:, 0] == 0
            om = 1.0 / np.maximum(dist, 1e-300)
            om[exact] = 0.0
            om[exact, 0] = 1.0
            val = np.sum(om * f[ind], axis=1) / np.sum(om, axis=1)
            crossed = lo > hi
            val = np.where(crossed, (lo + hi) / 2, np.clip(val, lo, np.maximum(lo, hi)))
            val[exact] = f[ind[exact, 0]]
            out[s0 : s0 + chunk] = val
        return out
