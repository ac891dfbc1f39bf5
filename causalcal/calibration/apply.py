"""Building, fitting and applying an edge-type calibrator: what ``study``, ``discover`` and
the ``calibrate`` command share.

* :func:`make_calibrator` — a fresh calibrator by registry name (or a cloned estimator),
  seeded; :func:`edge_calibrator` adds what edge-type probabilities need: the log floor
  ``eps = 0.5 / n_boot`` (half a bootstrap count) and swap equivariance.
* :func:`fit_calibrator` — fit with selection offsets, falling back to inverse-inclusion
  weights for estimators that take no offsets.
* :func:`calibrate_all_pairs` — calibrated probabilities of all V(V−1)/2 pairs,
  evaluating the model once per distinct bootstrap row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from causalcal.calibration._multiclass import check_label_sets, check_offsets
from causalcal.calibration.equivariant import EDGE_SWAP, SwapEquivariant
from causalcal.calibration.selection import inclusion_weights
from causalcal.edges import EdgeProbabilities, pair_index

__all__ = ["calibrate_all_pairs", "distinct_rows", "edge_calibrator", "fit_calibrator",
           "make_calibrator"]


def make_calibrator(name, params: dict | None = None, seed: int = 0):
    """A fresh calibrator: ``name`` is a registry name or an estimator (cloned).

    ``params`` go to the calibrator (for ``ovr-NAME``, to the binary NAME);
    ``random_state`` is set to ``seed`` unless ``params`` give one. An unknown parameter
    name is a ``ValueError`` listing the valid ones.
    """
    from causalcal.calibration import get

    params = dict(params or {})
    base = get(name) if isinstance(name, str) else clone(name)
    target = getattr(base, "binary_calibrator", base)
    valid = target.get_params(deep=False)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        label = name if isinstance(name, str) else type(base).__name__
        raise ValueError(f"calibrator {label!r} has no parameter {', '.join(unknown)}; "
                         f"its parameters are {', '.join(sorted(valid)) or 'none'}")
    target.set_params(**params)
    if "random_state" in valid and "random_state" not in params:
        target.set_params(random_state=seed)
    return base


def edge_calibrator(name, params: dict | None = None, seed: int = 0, *,
                    n_boot: int | None = None, equivariant: bool = True,
                    feature_swap: Sequence[int] | None = None):
    """:func:`make_calibrator` for edge-type probabilities.

    A calibrator with an ``eps`` (log floor) that ``params`` leave unset gets
    ``0.5 / n_boot`` (zero counts half a count below one bootstrap hit); with
    ``equivariant`` it is wrapped in :class:`SwapEquivariant` so that writing a pair the
    other way round swaps its forward and backward probabilities and nothing else
    (``feature_swap``: how extra pair-feature columns permute when the pair is reversed).
    """
    params = dict(params or {})
    model = make_calibrator(name, params, seed)
    target = getattr(model, "binary_calibrator", model)
    own = target.get_params(deep=False)
    if n_boot and "eps" in own and "eps" not in params:
        target.set_params(eps=0.5 / n_boot)
    if "n_classes" in own and "n_classes" not in params:
        target.set_params(n_classes=4)  # the edge types; later columns are pair features
    return SwapEquivariant(model, EDGE_SWAP, feature_swap) if equivariant else model


def fit_calibrator(model, P: np.ndarray, y, offsets: np.ndarray | None = None):
    """``model.fit(P, y, offsets=offsets)``; a model without ``offsets`` gets them as
    inverse-inclusion ``sample_weight`` (and needs single-class labels)."""
    if offsets is None:
        return model.fit(P, y)
    if has_fit_parameter(model, "offsets"):
        return model.fit(P, y, offsets=offsets)
    if not has_fit_parameter(model, "sample_weight"):
        raise ValueError(f"{type(model).__name__} takes neither offsets nor sample_weight, "
                         "so it cannot correct for how the calibration pairs were selected")
    n, k = np.shape(P)[0], len(offsets[0])
    Y = check_label_sets(y, n, k)
    if (Y.sum(axis=1) > 1).any():
        raise ValueError(f"{type(model).__name__} takes no set-valued labels")
    weights = inclusion_weights(check_offsets(offsets, n, k), Y)
    return model.fit(P, Y.argmax(axis=1), sample_weight=weights)


def distinct_rows(probs: EdgeProbabilities) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct probability rows of all pairs, how many pairs have each, and which
    row each stored pair has.

    Returns ``(rows (u, 4), counts (u,), inverse)``: ``inverse[0]`` is the row of the
    implicit (1, 0, 0, 0) of every never-adjacent pair, ``inverse[1:]`` those of
    ``probs.probs`` in order.
    """
    rows = np.vstack([[1.0, 0.0, 0.0, 0.0], probs.probs])
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    counts = np.bincount(inverse[1:], minlength=len(unique)).astype(np.int64)
    counts[inverse[0]] += probs.n_pairs - len(probs)
    return unique, counts, inverse


def _calibrate_with_features(model, probs: EdgeProbabilities, features: np.ndarray, dtype,
                             chunk: int) -> np.ndarray:
    features = np.asarray(features)
    if features.ndim != 2 or features.shape[0] != probs.n_pairs:
        raise ValueError(f"features must have one row per pair ({probs.n_pairs}), got "
                         f"shape {features.shape}")
    dense = probs.dense(np.float64)
    out = np.empty((probs.n_pairs, 4), dtype=dtype)
    for start in range(0, probs.n_pairs, chunk):
        rows = slice(start, start + chunk)
        Q = np.asarray(model.predict_proba(np.hstack([dense[rows], features[rows]])))
        if Q.shape != (len(dense[rows]), 4) or not np.all(np.isfinite(Q)):
            raise ValueError(f"calibrator {type(model).__name__} returned invalid "
                             f"probabilities for pairs {start}..")
        out[rows] = Q
    return out


def calibrate_all_pairs(model, probs: EdgeProbabilities, dtype=np.float32,
                        features: np.ndarray | None = None, chunk: int = 1 << 18) -> np.ndarray:
    """Calibrated (V(V−1)/2, 4) probabilities of every pair, in pair order.

    The model is evaluated once per *distinct* probability row (:func:`distinct_rows`:
    the stored rows repeat a lot since they are counts / n_boot, and every never-adjacent
    pair is (1, 0, 0, 0)), then scattered: identical to ``model.predict_proba`` on the
    dense array, at a fraction of the cost for V = 5000. With ``features`` (one row of
    extra calibrator inputs per pair, in pair order) every pair is its own row:
    ``[probabilities | features]`` is predicted in chunks of ``chunk`` pairs.
    """
    if features is not None:
        return _calibrate_with_features(model, probs, features, dtype, chunk)
    unique, _, inverse = distinct_rows(probs)
    calibrated = np.asarray(model.predict_proba(unique), dtype=np.float64)
    if calibrated.shape != unique.shape or not np.all(np.isfinite(calibrated)):
        raise ValueError(f"calibrator {type(model).__name__} returned invalid probabilities "
                         f"(shape {calibrated.shape}, expected {unique.shape})")
    out = np.empty((probs.n_pairs, 4), dtype=dtype)
    out[:] = calibrated[inverse[0]]
    if len(probs):
        keys = pair_index(probs.pairs[:, 0], probs.pairs[:, 1], probs.n_vars)
        out[keys] = calibrated[inverse[1:]]
    return out
