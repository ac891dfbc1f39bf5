"""Shallow-neural-network (SNN) multi-class calibrator — thesis §6.1.

The thesis extends Platt's method to k classes with an ensemble of shallow networks: each
of ``n_models = 10`` networks has one hidden layer whose width is drawn uniformly from
{4, 5, 6, 7}, a softmax output and the cross-entropy loss, trained by Adagrad (learning rate
0.1, batch size 10); the calibrated probabilities are the average of the networks' outputs.

torch is imported inside ``fit``/``predict_proba`` only, so ``import causalcal.calibration``
stays light. The ten networks are trained together as one batched model (``torch.bmm``
over the network axis, each network with its own data order, initialisation and hidden
width — unused hidden units are masked), which is the same computation as training them one
after the other, at a fraction of the Python overhead.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import (
    RANDOM_STATE,
    Integral,
    Interval,
    Options,
    Real,
    Satisfies,
    positive_integers,
)
from causalcal.calibration._base import (
    MulticlassCalibrator,
    check_probability_matrix,
    check_sample_weight,
)
from causalcal.calibration._multiclass import check_label_sets, check_offsets
from causalcal.errors import InputError

__all__ = ["ENSEMBLE_CONSTRAINTS", "SNNCalibrator", "split_features"]

_ACTIVATIONS = ("relu", "tanh", "sigmoid")
_PREDICT_CHUNK = 1 << 18  # rows per predict batch: ~70 MB of float32 hidden units


def _resolve_device(device: str):
    import torch

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("device='cuda' was asked for but torch sees no CUDA device")
    if device not in ("cpu", "cuda"):
        raise InputError(f"device must be 'cpu', 'cuda' or 'auto', got {device!r}")
    return torch.device(device)


def split_features(X, k: int | None, name: str = "X") -> tuple[np.ndarray, np.ndarray]:
    """Validate ``X = [P | F]``; returns (P float64 (n, k), F float64 (n, m)).

    ``k`` leading columns are class probabilities (all columns when ``None``); the rest
    are finite extra features.
    """
    A = np.asarray(X)
    if A.ndim != 2:
        raise InputError(f"{name} must be 2-d (n_samples, n_columns), got shape {A.shape}")
    if k is None:
        k = A.shape[1]
    if not (isinstance(k, (int, np.integer)) and 2 <= k <= A.shape[1]):
        raise InputError(
            f"n_classes must be an integer in 2..{A.shape[1]} (the number of leading "
            f"probability columns of {name}), got {k!r}"
        )
    P = check_probability_matrix(A[:, :k], name=f"{name}[:, :{k}]")
    F = np.asarray(A[:, k:], dtype=np.float64)
    bad = np.argwhere(~np.isfinite(F))
    if len(bad):
        r, c = bad[0]
        raise InputError(f"extra feature {name}[{r}, {k + c}] is not finite ({F[r, c]})")
    return P, F


#: Parameter constraints both SNN ensembles share (:mod:`causalcal._validation`).
ENSEMBLE_CONSTRAINTS = {
    "n_models": [Interval(Integral, 1, None)],
    "hidden_sizes": [Satisfies(positive_integers, "a sequence of positive integers")],
    "n_classes": [Interval(Integral, 2, None), None],
    "random_state": RANDOM_STATE,
}


def _act(torch, name: str):
    return {"relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid}[name]


class SNNCalibrator(MulticlassCalibrator):
    """Ensemble of shallow softmax networks on the class probabilities (thesis §6.1).

    Parameters
    ----------
    n_models : int, default 10
        Networks in the ensemble (thesis: 10).
    hidden_sizes : tuple of int, default (4, 5, 6, 7)
        Each network's hidden width is drawn uniformly from these (thesis: 4–7).
    n_epochs : int, default 50
        Passes over the calibration set (the thesis does not state its training length).
        Chosen by measurement (``python benchmarks/snn.py --defaults``): mean held-out
        cross-entropy over 8 repetitions on synthetic miscalibrated 4-class data
        (uncalibrated input: 1.718) at the thesis's calibration sizes, epochs ∈ {25, 50,
        100, 200, 400} × the three activations. tanh with 50 epochs was best at every size:
        N = 40: 1.175 (relu's best 1.183 at 100, sigmoid's 1.194 at 400; tanh at 400:
        1.317 — long training overfits small sets); N = 80: 1.138 (relu 1.147, sigmoid
        1.148); N = 120: 1.126 (relu 1.132, sigmoid 1.136). Standard errors ≈ 0.01.
    activation : {"relu", "tanh", "sigmoid"}, default "tanh"
        Hidden-unit non-linearity, chosen by the same measurement.
    learning_rate : float, default 0.1
        Adagrad step (thesis: 0.1). The accumulator starts at 0.1, TensorFlow's default
        (the thesis's implementation), which damps the first steps.
    batch_size : int, default 10
        Mini-batch size (thesis: 10); the data are reshuffled every epoch, per network.
    n_classes : int or None, default None
        How many *leading* columns of ``X`` are the class probabilities. ``None``: all
        columns are. Columns after the first ``n_classes`` are extra features (e.g. graph
        features of the pair, the thesis's §6.2.6 future work); they are standardised with
        the calibration set's mean and standard deviation and fed to the networks beside
        the probabilities.
    input_transform : {"prob", "log"}, default "prob"
        Network input for the probability columns: the probabilities themselves (the
        thesis's Figure 20) or ``log max(P, eps)``. The probabilities are the default: they
        are bounded, so the network needs no input scaling; in the measurement above the
        log inputs were clearly worse at N = 40 (1.279 vs 1.196, tanh, 100 epochs) and
        equal within noise at N = 80 and 120; and bootstrap edge frequencies have many
        exact zeros, which the log maps to an arbitrary ``log eps``.
    eps : float, default 1e-6
        Floor of the probabilities for ``input_transform="log"``.
    device : {"cpu", "cuda", "auto"}, default "cpu"
        Where torch computes. Results are bit-for-bit reproducible on CPU.
    random_state : int, RandomState or None
        Seeds the hidden widths, initial weights and data orders.

    Attributes
    ----------
    hidden_sizes_ : ndarray (n_models,)
    coef1_, intercept1_, coef2_, intercept2_ : ndarray (float32)
        Weights of the networks, shapes (M, d, H), (M, H), (M, H, k), (M, k) with
        H = max(hidden_sizes); units beyond a network's width have zero outgoing weight.
    feature_mean_, feature_scale_ : ndarray
        Standardisation of the extra columns (empty without extra columns).
    n_classes_, n_features_in_ : int
    """

    #: an ensemble of networks keeps per-row activations: ~23.6 GB at 10⁷ rows × 4
    _fit_bytes_per_value = 600
    _parameter_constraints = {
        **ENSEMBLE_CONSTRAINTS,
        "n_epochs": [Interval(Integral, 1, None)],
        "activation": [Options(*_ACTIVATIONS)],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None)],
        "input_transform": [Options("prob", "log")],
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "device": [Options("cpu", "cuda", "auto")],
    }

    def __init__(
        self,
        n_models: int = 10,
        hidden_sizes: tuple[int, ...] = (4, 5, 6, 7),
        n_epochs: int = 50,
        activation: str = "tanh",
        learning_rate: float = 0.1,
        batch_size: int = 10,
        n_classes: int | None = None,
        input_transform: str = "prob",
        eps: float = 1e-6,
        device: str = "cpu",
        random_state=None,
    ) -> None:
        self.n_models = n_models
        self.hidden_sizes = hidden_sizes
        self.n_epochs = n_epochs
        self.activation = activation
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.n_classes = n_classes
        self.input_transform = input_transform
        self.eps = eps
        self.device = device
        self.random_state = random_state

    def _inputs(self, P: np.ndarray, F: np.ndarray) -> np.ndarray:
        Z = np.log(np.maximum(P, self.eps)) if self.input_transform == "log" else P
        if F.shape[1]:
            Z = np.hstack([Z, (F - self.feature_mean_) / self.feature_scale_])
        return Z.astype(np.float32)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None, offsets=None) -> SNNCalibrator:
        """Fit on ``X = [P | F]`` (P: the k leading probability columns) and labels ``y``.

        ``y``: class indices or an (n, k) 0/1 matrix of allowed classes (the loss of a
        set label is −log of its classes' summed probability); ``offsets``: (n, k) logit
        offsets added in training only (:mod:`causalcal.calibration.selection`).
        """
        import torch

        self._validate_params()
        P, F = split_features(X, self.n_classes)
        n, k = P.shape
        Y = check_label_sets(y, n, k)
        w = check_sample_weight(sample_weight, n)
        O = check_offsets(offsets, n, k)
        self.feature_mean_ = F.mean(axis=0)
        sd = F.std(axis=0)
        self.feature_scale_ = np.where(sd > 0, sd, 1.0)
        Xin = self._inputs(P, F)
        d = Xin.shape[1]

        rs = check_random_state(self.random_state)
        M = int(self.n_models)
        widths = rs.choice(np.asarray(self.hidden_sizes, dtype=np.int64), size=M)
        H = int(np.max(self.hidden_sizes))
        seed = int(rs.randint(0, 2**31 - 1))
        device = _resolve_device(self.device)
        act = _act(torch, self.activation)

        n_threads = torch.get_num_threads()
        torch.set_num_threads(1)  # tiny matrices: threads would only add overhead
        try:
            g = torch.Generator().manual_seed(seed)
            # torch.nn.Linear's default initialisation, U(±1/√fan_in), per network
            b1s = 1.0 / np.sqrt(d)
            b2s = torch.as_tensor(1.0 / np.sqrt(widths), dtype=torch.float32).view(M, 1, 1)
            W1 = (torch.rand(M, d, H, generator=g) * 2 - 1) * b1s
            c1 = (torch.rand(M, 1, H, generator=g) * 2 - 1) * b1s
            W2 = (torch.rand(M, H, k, generator=g) * 2 - 1) * b2s
            c2 = (torch.rand(M, 1, k, generator=g) * 2 - 1) * b2s
            mask = (torch.arange(H).view(1, H) < torch.as_tensor(widths).view(M, 1)).float()
            mask = mask.view(M, 1, H)
            params = [t.to(device).requires_grad_() for t in (W1, c1, W2, c2)]
            W1, c1, W2, c2 = params
            mask = mask.to(device)
            opt = torch.optim.Adagrad(
                params, lr=self.learning_rate, initial_accumulator_value=0.1
            )
            Xt = torch.as_tensor(Xin, device=device)
            Yt = torch.as_tensor(Y, device=device)
            Ot = torch.as_tensor(O.astype(np.float32), device=device)
            # weights normalised to mean 1: the unweighted case is the plain mean CE
            wt = torch.as_tensor((w * (n / w.sum())).astype(np.float32), device=device)
            bs = int(self.batch_size)
            for _ in range(int(self.n_epochs)):
                order = torch.argsort(torch.rand(M, n, generator=g), dim=1).to(device)
                for s in range(0, n, bs):
                    idx = order[:, s : s + bs]
                    xb = Xt[idx]  # (M, b, d)
                    h = act(torch.baddbmm(c1, xb, W1)) * mask
                    logits = torch.baddbmm(c2, h, W2) + Ot[idx]  # (M, b, k)
                    allowed = logits.masked_fill(~Yt[idx], float("-inf"))
                    ce = torch.logsumexp(logits, dim=2) - torch.logsumexp(allowed, dim=2)
                    loss = (ce * wt[idx]).mean(dim=1).sum()
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
            with torch.no_grad():
                W2m = W2 * mask.view(M, H, 1)
            self.coef1_ = W1.detach().cpu().numpy()
            self.intercept1_ = c1.detach().cpu().numpy()[:, 0, :]
            self.coef2_ = W2m.cpu().numpy()
            self.intercept2_ = c2.detach().cpu().numpy()[:, 0, :]
        finally:
            torch.set_num_threads(n_threads)
        self.hidden_sizes_ = widths
        self.n_classes_ = k
        self.n_features_in_ = d
        return self

    # ------------------------------------------------------------------ predict
    def predict_proba(self, X) -> np.ndarray:
        """Calibrated probabilities (n, k) of ``X = [P | F]``, rows summing to 1.

        Computed in float32 in chunks of 2¹⁸ rows; the result is float32.
        """
        import torch

        check_is_fitted(self)
        A = np.asarray(X)
        k = self.n_classes_
        d = self.n_features_in_
        m = d - k
        if A.ndim != 2 or A.shape[1] != d:
            raise InputError(
                f"X must have shape (n, {d}) ({k} probability columns"
                + (f" + {m} extra features)" if m else ")")
                + f", got {A.shape}"
            )
        device = _resolve_device(self.device)
        act = _act(torch, self.activation)
        M, H = self.coef1_.shape[0], self.coef1_.shape[2]
        # Transposed layout (features × rows): every op runs along the contiguous row axis.
        # The input dimension is zero-padded to a multiple of 8, which keeps the first GEMM
        # (inner dimension d, typically 4) on the fast BLAS path.
        dp = -(-d // 8) * 8
        W1 = np.zeros((M * H, dp), dtype=np.float32)
        W1[:, :d] = self.coef1_.transpose(0, 2, 1).reshape(M * H, d)
        W2 = np.zeros((M * k, M * H), dtype=np.float32)  # block-diagonal output layer
        for j in range(M):
            W2[j * k : (j + 1) * k, j * H : (j + 1) * H] = self.coef2_[j].T
        W1t = torch.as_tensor(W1, device=device)
        c1 = torch.as_tensor(self.intercept1_.reshape(M * H, 1), device=device)
        W2t = torch.as_tensor(W2, device=device)
        c2 = torch.as_tensor(self.intercept2_.reshape(M * k, 1), device=device)
        n = A.shape[0]
        out = np.empty((n, k), dtype=np.float32)
        with torch.no_grad():
            for s in range(0, n, _PREDICT_CHUNK):
                e = min(n, s + _PREDICT_CHUNK)
                P, F = split_features(A[s:e], k, name=f"X[{s}:{e}]")
                xt = torch.zeros((dp, e - s), dtype=torch.float32, device=device)
                xt[:d] = torch.as_tensor(self._inputs(P, F).T, device=device)
                h = act(torch.addmm(c1, W1t, xt))
                z = torch.addmm(c2, W2t, h).view(M, k, e - s)
                z -= z.amax(dim=1, keepdim=True)
                z.exp_()
                z /= z.sum(dim=1, keepdim=True)
                prob = z.mean(dim=0)  # (k, rows): the ensemble average
                out[s:e] = prob.T.cpu().numpy()
        return out
