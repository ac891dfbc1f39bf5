"""The weighted covariance of a replicate, and the columns it is of (docs/design.md §5.4).

The Gaussian scores see a table as a matrix of float columns, each variable a *block* of
consecutive columns: a continuous variable its values (one column), a discrete one with
r categories present in the replicate the indicators of all but the last of them (r − 1
columns: the degenerate-Gaussian embedding of Andrews, Ramsey & Cooper 2019; none for a
category alone). A replicate's covariance is one weighted Gram product of the centred
matrix over the rows of positive weight (``Xᵀ diag(w) X / Σw``, the maximum-likelihood
covariance of the rows repeated as often as their weights).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas

from causalcal.data import DiscreteData, MixedData
from causalcal.errors import InputError

from ..protocol import row_weights

__all__ = ["Embedded", "check_nonsingular", "embed", "weighted_covariance"]

#: A covariance is singular when, in the correlation scale, a column's variance left
#: after regressing it on the columns before it is below this (a linear combination of
#: the columns is constant up to rounding).
SINGULAR_TOL = 1e-10


@dataclass(frozen=True)
class Embedded:
    """A table as float columns: ``matrix`` (rows of positive weight × columns),
    ``weights`` of those rows, ``starts`` (V + 1): variable v's block is columns
    ``starts[v] … starts[v + 1] − 1``, and ``labels`` naming every column."""

    matrix: np.ndarray
    weights: np.ndarray
    starts: np.ndarray
    labels: tuple[str, ...]

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.starts)


def _positive_weights(n: int, weights) -> tuple[np.ndarray | None, np.ndarray]:
    """The rows of positive weight (``None``: all) and their weights, checked."""
    if weights is None:
        return None, np.ones(n)
    w = row_weights(weights, n)
    keep = w > 0
    if keep.sum() < 2:
        raise InputError("weights leave fewer than 2 rows with a positive weight")
    return (None, w) if keep.all() else (np.flatnonzero(keep), w[keep])


def embed(data: MixedData | DiscreteData, weights=None,
          continuous_only: bool = False) -> Embedded:
    """The float columns of ``data`` over its rows of positive weight: continuous columns
    as they are, discrete ones as indicators of the categories present but the last.
    ``continuous_only``: a discrete column is an ``InputError`` naming it."""
    if isinstance(data, DiscreteData):
        data = MixedData(np.zeros((data.n_samples, 0)), data.codes, [False] * data.n_vars,
                         data.names, data.arities, data.categories)
    if not isinstance(data, MixedData):
        raise InputError(f"the Gaussian scores take MixedData, got {type(data).__name__}")
    if continuous_only and len(data.discrete_columns):
        name = data.names[int(data.discrete_columns[0])]
        raise InputError(f"score 'sem-bic' takes continuous columns only; column {name!r} is "
                         "discrete: use --score dg-bic for mixed data (or --continuous "
                         f"{name} if it holds numbers)")
    rows, w = _positive_weights(data.n_samples, weights)
    values = data.values if rows is None else data.values[rows]
    if data.kind == "continuous":  # every column its own block, as it is
        return Embedded(np.ascontiguousarray(values), w, np.arange(data.n_vars + 1),
                        tuple(data.names))
    codes = data.codes if rows is None else data.codes[rows]
    blocks: list[np.ndarray] = []
    labels: list[str] = []
    sizes = np.zeros(data.n_vars, dtype=np.intp)
    cont = {int(k): c for c, k in enumerate(data.continuous_columns)}
    disc = {int(k): c for c, k in enumerate(data.discrete_columns)}
    categories = data.categories
    for v, name in enumerate(data.names):
        if v in cont:
            blocks.append(values[:, cont[v]][:, None])
            labels.append(name)
            sizes[v] = 1
            continue
        column = codes[:, disc[v]]
        present = np.flatnonzero(np.bincount(column, minlength=int(data.arities[v])))
        blocks.append((column[:, None] == present[None, :-1]).astype(np.float64))
        labels.extend(f"{name}={categories[v][c]}" for c in present[:-1])
        sizes[v] = len(present) - 1
    matrix = np.hstack(blocks) if blocks else np.zeros((len(w), 0))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    return Embedded(np.ascontiguousarray(matrix), w, starts, tuple(labels))


def weighted_covariance(emb: Embedded) -> tuple[np.ndarray, float]:
    """``(C, N)``: the weighted covariance ``Xcᵀ diag(w) Xc / N`` of the centred columns
    (one symmetric rank-k update, BLAS ``dsyrk``) and the total weight ``N = Σw``."""
    w = emb.weights
    total = float(w.sum())
    mean = (w @ emb.matrix) / total
    scaled = (emb.matrix - mean) * np.sqrt(w)[:, None]
    width = scaled.shape[1]
    if width == 0:
        return np.zeros((0, 0)), total
    upper = blas.dsyrk(1.0 / total, np.asfortranarray(scaled), trans=1, lower=0)
    cov = np.triu(upper) + np.triu(upper, 1).T
    return np.ascontiguousarray(cov), total


def check_nonsingular(cov: np.ndarray, emb: Embedded, names: list[str]) -> None:
    """An ``InputError`` naming the variables of a (near) constant linear combination of
    the columns: a column constant in these rows, or collinear columns (one a linear
    function of others, two indicators of the same rows). With no more rows than columns
    the covariance is singular whatever the data (its rank is at most rows − 1), and only
    constant columns and pairs of proportional columns are looked for: the searches'
    families are small, and a singular one is never chosen (docs/design.md §5.4)."""
    if cov.shape[0] == 0:
        return
    scale = np.sqrt(np.diag(cov))
    flat = np.flatnonzero(scale <= np.sqrt(SINGULAR_TOL) * max(scale.max(), 1e-300))
    if len(flat):
        raise InputError(f"column {_owner(int(flat[0]), emb, names)!r} is constant in the rows "
                         "scored: the Gaussian scores need variation in every column")
    if len(emb.weights) - 1 <= cov.shape[0]:
        _refuse_proportional(cov, scale, emb, names)
        return
    corr = cov / np.outer(scale, scale)
    try:
        chol = np.linalg.cholesky(corr)
        if np.min(np.diag(chol)) ** 2 > SINGULAR_TOL:
            return
    except np.linalg.LinAlgError:
        pass
    values, vectors = np.linalg.eigh(corr)
    null = vectors[:, 0]
    involved = np.flatnonzero(np.abs(null) > 1e-3 * np.abs(null).max())
    _refuse(list(dict.fromkeys(_owner(int(k), emb, names) for k in involved)),
            f"smallest eigenvalue of their correlation {values[0]:.2g}")


def _refuse_proportional(cov: np.ndarray, scale: np.ndarray, emb: Embedded,
                         names: list[str]) -> None:
    """Refuse the first pair of columns of different variables whose correlation is ±1."""
    owner = np.searchsorted(emb.starts, np.arange(len(scale)), side="right") - 1
    for s in range(0, len(scale), 512):
        block = cov[s : s + 512] / np.outer(scale[s : s + 512], scale)
        tight = (1.0 - np.abs(block) <= SINGULAR_TOL) & (owner[s : s + 512, None]
                                                          < owner[None, :])
        if tight.any():
            i, j = np.argwhere(tight)[0]
            _refuse([names[owner[s + i]], names[owner[j]]], "correlation ±1")


def _refuse(owners: list[str], why: str) -> None:
    shown = ", ".join(map(repr, owners[:8])) + (f" and {len(owners) - 8} more"
                                                if len(owners) > 8 else "")
    raise InputError(f"columns {shown} are collinear (a linear combination of "
                     f"{'them' if len(owners) > 1 else 'its indicators'} is constant; {why}): "
                     f"the Gaussian scores need a non-singular covariance; leave one out "
                     f"(--drop-columns {owners[-1]})")


def _owner(column: int, emb: Embedded, names: list[str]) -> str:
    """The variable a column belongs to."""
    return names[int(np.searchsorted(emb.starts, column, side="right")) - 1]
