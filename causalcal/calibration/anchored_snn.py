"""Identity-anchored shallow-network ensemble: the thesis's SNN (§6.1) made safe for small,
selected calibration sets. The default calibrator of the edge-type workflows.

Each of ``n_models`` networks computes the logits

    z(x) = A^T log(x + eps) + b + W2^T tanh(W1^T u(x) + c1)

where ``u(x)`` are the network inputs (the k probabilities, as in the thesis's Figure 20,
plus any standardised extra feature columns) and the hidden width is drawn from
{4, 5, 6, 7} per network. At ``A = I, b = 0, W2 = 0`` the map is the identity on
log-probabilities, ``softmax(log(x + eps)) ≈ x``: the networks start from the input
probabilities and are regularised toward them (the anchoring of Kull et al. 2019's
Dirichlet calibration, whose linear part this is). The objective is

    Σ_i w_i CE_i + λ_A ‖A − I‖² + λ_b ‖b‖² + λ_h (‖W1‖² + ‖W2‖²)

with the penalties of a class that no label names alone multiplied by ``unseen_factor``
(its share within set labels is not identifiable, so it keeps the identity map). ``CE_i``
is the set-label cross-entropy of ``softmax(z(x_i) + o_i)`` with fixed logit offsets ``o``
(log inclusion rates of a selected sample; :mod:`.selection`); predictions are
``softmax(z(x))``, the population posterior, averaged over the networks. All networks are
fitted together as one deterministic L-BFGS problem (their objectives are independent,
so the joint minimum is each network's minimum).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from causalcal._validation import Integral, Interval, Options, Real
from causalcal.calibration._base import MulticlassCalibrator, check_sample_weight
from causalcal.calibration._multiclass import check_label_sets, check_offsets, set_label_loss
from causalcal.calibration.snn import ENSEMBLE_CONSTRAINTS, split_features
from causalcal.errors import InputError

__all__ = ["AnchoredSNNCalibrator"]

_PREDICT_CHUNK = 1 << 16
_PENALTIES = ("identity_penalty", "intercept_penalty", "hidden_penalty", "unseen_factor")


class AnchoredSNNCalibrator(MulticlassCalibrator):
    """Ensemble of identity-anchored shallow networks with selection offsets (see module).

    Parameters
    ----------
    n_models : int, default 10
        Networks in the ensemble (thesis: 10).
    hidden_sizes : tuple of int, default (4, 5, 6, 7)
        Each network's hidden width is drawn uniformly from these (thesis: 4–7).
    identity_penalty : float, default 3.0
        λ_A, pull of the log-linear part toward the identity map.
    intercept_penalty : float, default 0.1
        λ_b, ridge on the intercepts.
    hidden_penalty : float, default 1.0
        λ_h, ridge on the hidden and output weights of the tanh layer.
    unseen_factor : float, default 100.0
        Multiplies the penalties of a class's logit when no training label names that
        class alone (with labels such as "A → B or A — B" only).
    eps : float or "auto", default "auto"
        Added to the probabilities before the log. ``"auto"``: half the smallest positive
        probability in the training data (``0.5 / n_boot`` for bootstrap frequencies).
    n_classes : int or None, default None
        How many leading columns of ``X`` are the class probabilities; the rest are extra
        features (standardised with the training mean and standard deviation).
    max_iter : int, default 500
        L-BFGS iterations.
    random_state : int, RandomState or None
        Seeds the hidden widths and the initial hidden weights.

    Attributes
    ----------
    coef_log_ : ndarray (M, k, k)       A of every network
    intercept_ : ndarray (M, k)         b
    coef_hidden_ : ndarray (M, d, H)    W1 (units beyond a network's width are zero)
    intercept_hidden_ : ndarray (M, H)  c1
    coef_out_ : ndarray (M, H, k)       W2
    hidden_sizes_ : ndarray (M,)
    eps_ : float
    feature_mean_, feature_scale_ : ndarray
    n_classes_, n_features_in_, n_iter_ : int
    """

    #: an ensemble of networks keeps per-row activations: ~23.6 GB at 10⁷ rows × 4
    _fit_bytes_per_value = 600
    _parameter_constraints = {
        **ENSEMBLE_CONSTRAINTS,
        **{name: [Interval(Real, 0, None)] for name in _PENALTIES},
        "eps": [Options("auto"), Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        n_models: int = 10,
        hidden_sizes: tuple[int, ...] = (4, 5, 6, 7),
        identity_penalty: float = 3.0,
        intercept_penalty: float = 0.1,
        hidden_penalty: float = 1.0,
        unseen_factor: float = 100.0,
        eps: float | str = "auto",
        n_classes: int | None = None,
        max_iter: int = 500,
        random_state=None,
    ) -> None:
        self.n_models = n_models
        self.hidden_sizes = hidden_sizes
        self.identity_penalty = identity_penalty
        self.intercept_penalty = intercept_penalty
        self.hidden_penalty = hidden_penalty
        self.unseen_factor = unseen_factor
        self.eps = eps
        self.n_classes = n_classes
        self.max_iter = max_iter
        self.random_state = random_state

    def _inputs(self, P: np.ndarray, F: np.ndarray):
        """Log inputs and hidden-layer inputs of ``[P | F]``."""
        U = np.hstack([P, (F - self.feature_mean_) / self.feature_scale_]) if F.shape[1] else P
        return np.log(P + self.eps_), U

    @staticmethod
    def _logits(L, U, A, b, W1, c1, W2):
        """Logits (M, n, k) and the hidden activations (M, n, H)."""
        Hid = np.tanh(U @ W1 + c1[:, None, :])
        Z = L @ A + b[:, None, :] + Hid @ W2
        return Z, Hid

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None, offsets=None) -> AnchoredSNNCalibrator:
        """Fit on ``X = [P | F]`` and labels ``y`` (class indices or an (n, k) 0/1 matrix
        of allowed classes); ``offsets`` (n, k) are added to the logits in training only."""
        self._validate_params()
        P, F = split_features(X, self.n_classes)
        n, k = P.shape
        Y = check_label_sets(y, n, k)
        w = check_sample_weight(sample_weight, n)
        w = w * (n / w.sum())  # mean 1: the penalties weigh like this many rows
        O = check_offsets(offsets, n, k)
        self.eps_ = float(0.5 * P[P > 0].min()) if self.eps == "auto" else float(self.eps)
        self.feature_mean_ = F.mean(axis=0)
        sd = F.std(axis=0)
        self.feature_scale_ = np.where(sd > 0, sd, 1.0)
        L, U = self._inputs(P, F)

        rs = check_random_state(self.random_state)
        M, d = int(self.n_models), U.shape[1]
        widths = rs.choice(np.asarray(self.hidden_sizes, dtype=np.int64), size=M)
        H = int(np.max(self.hidden_sizes))
        mask = (np.arange(H)[None, :] < widths[:, None]).astype(np.float64)  # (M, H)
        scale = 1.0 / np.sqrt(d)
        W1 = rs.uniform(-scale, scale, size=(M, d, H)) * mask[:, None, :]
        c1 = rs.uniform(-scale, scale, size=(M, H)) * mask
        shapes = [(M, k, k), (M, k), (M, d, H), (M, H), (M, H, k)]
        splits = np.cumsum([int(np.prod(s)) for s in shapes])[:-1]
        eye = np.eye(k)
        seen = Y[Y.sum(axis=1) == 1].any(axis=0)
        factor = np.where(seen, 1.0, float(self.unseen_factor))  # per logit column
        lam_a, lam_b = (getattr(self, p) * factor for p in _PENALTIES[:2])
        lam_h, lam_o = self.hidden_penalty, self.hidden_penalty * factor

        def fun(theta):
            A, b, W1, c1, W2 = (p.reshape(s) for p, s in zip(np.split(theta, splits), shapes))
            W1, c1, W2 = W1 * mask[:, None, :], c1 * mask, W2 * mask[:, :, None]
            Z, Hid = self._logits(L, U, A, b, W1, c1, W2)
            loss, G = set_label_loss(Z + O[None], Y[None], w[None])
            f = (loss + np.sum(lam_a * (A - eye) ** 2) + np.sum(lam_b * b**2)
                 + lam_h * np.sum(W1**2) + np.sum(lam_o * W2**2))
            gA = L.T @ G + 2 * lam_a * (A - eye)
            gb = G.sum(axis=1) + 2 * lam_b * b
            gW2 = (Hid.transpose(0, 2, 1) @ G + 2 * lam_o * W2) * mask[:, :, None]
            GH = (G @ W2.transpose(0, 2, 1)) * (1 - Hid**2)
            gW1 = (U.T @ GH + 2 * lam_h * W1) * mask[:, None, :]
            gc1 = GH.sum(axis=1) * mask
            return f, np.concatenate([g.ravel() for g in (gA, gb, gW1, gc1, gW2)])

        theta0 = np.concatenate([np.broadcast_to(eye, (M, k, k)).ravel(), np.zeros(M * k),
                                 W1.ravel(), c1.ravel(), np.zeros(M * H * k)])
        # tiny matrices: BLAS threads only contend (60x slower on a busy 2-core machine)
        with threadpool_limits(1):
            res = minimize(fun, theta0, jac=True, method="L-BFGS-B",
                           options={"maxiter": int(self.max_iter), "ftol": 1e-12,
                                    "gtol": 1e-8, "maxcor": 30})
        A, b, W1, c1, W2 = (p.reshape(s) for p, s in zip(np.split(res.x, splits), shapes))
        self.coef_log_, self.intercept_ = A, b
        self.coef_hidden_ = W1 * mask[:, None, :]
        self.intercept_hidden_ = c1 * mask
        self.coef_out_ = W2 * mask[:, :, None]
        self.hidden_sizes_ = widths
        self.n_classes_ = k
        self.n_features_in_ = P.shape[1] + F.shape[1]
        self.n_iter_ = int(res.nit)
        return self

    # ------------------------------------------------------------------ predict
    def predict_proba(self, X) -> np.ndarray:
        """Calibrated probabilities (n, k) of ``X = [P | F]``: the networks' mean."""
        check_is_fitted(self)
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise InputError(f"X must have shape (n, {self.n_features_in_}), got {X.shape}")
        n = X.shape[0]
        out = np.empty((n, self.n_classes_))
        params = (self.coef_log_, self.intercept_, self.coef_hidden_, self.intercept_hidden_,
                  self.coef_out_)
        for s in range(0, n, _PREDICT_CHUNK):
            e = min(n, s + _PREDICT_CHUNK)
            P, F = split_features(X[s:e], self.n_classes_, name=f"X[{s}:{e}]")
            Z, _ = self._logits(*self._inputs(P, F), *params)
            out[s:e] = softmax(Z, axis=2).mean(axis=0)
        return out
