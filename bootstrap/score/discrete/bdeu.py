"""BDeu score with sample weights and batched counting (thesis §6.2.2; docs/design.md §5).

The parameterisation is causal-learn's ``local_score_BDeu`` (Heckerman, Geiger &
Chickering 1995): for a node ``y`` with ``r`` states and parent set ``P`` with
``q = Π_{p∈P} r_p`` configurations,

    s(y | P) = Σ_j [lnΓ(α/q) − lnΓ(N_j + α/q)] + Σ_jk [lnΓ(N_jk + α/(rq)) − lnΓ(α/(rq))]
               + k·ln(β/(V−1)) + (V−1−k)·ln(1 − β/(V−1)),

with ``α`` = ``sample_prior`` (equivalent sample size), ``β`` = ``structure_prior``,
``k = |P|`` and ``V`` the number of variables (``β = 0`` drops the structure term).
Higher is better (causal-learn returns the same number, maximised by its GES); the
defaults α = 1, β = 1 are causal-learn's.  Tetrad's ``BdeuScore`` (7.6) puts the number
of rows ``n`` where ``V`` is in the structure term and documents α = 10, β = 0 as its
defaults: Tetrad gives these gains with the same α and its structure prior set to
``β·(n−1)/(V−1)`` (its local scores then differ from these by one constant).
Counts ``N`` are weighted sums, so a bootstrap replicate is a vector of row
multiplicities, not a copied data set.  Arities are the declared ``data.arities``
(causal-learn counts observed distinct values; the two agree when every category occurs).

Counting is batched: :meth:`BDeuScore.local_scores_batch` scores ``y | P ∪ {x}`` for many
candidates ``x`` with one ``bincount`` over stacked indices, and the one-hot count products
of :mod:`.family_gains` give all pairwise gains (:meth:`BDeuScore.pairwise_gains`) and the
gains of every variable as an extra parent of many families at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.special import gammaln

from causalcal._validation import check_memory
from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData
from causalcal.errors import InputError

from ..protocol import GraphScores, row_weights
from .device import check_device
from .family_gains import batch_layout, family_gains
from .pair_gains import pairwise_gains

__all__ = ["BDeuScore"]

_DENSE_CELLS_PER_ROW = 4  # dense bincount when cells <= this × (rows × candidates)


#: The equivalent sample sizes the score takes: beyond these the lnΓ differences of a
#: family's score lose their precision (at 1e308 they are infinite).
SAMPLE_PRIOR_RANGE = (1e-12, 1e12)


class BDeuScore(GraphScores):
    """Weighted BDeu local scores with a cache keyed by ``(y, frozenset(parents))``.

    Parameters
    ----------
    data : DiscreteData
    weights : optional (n,) non-negative row weights (bootstrap multiplicities; real allowed)
    sample_prior : equivalent sample size ``α > 0`` (default 1, causal-learn's)
    structure_prior : ``β`` in ``[0, V − 1)``; 0 disables the structure-prior term (so does
        any ``β ≥ V − 1`` when ``V ≤ 2``, where the default would be undefined)
    max_arity : variables with more declared categories raise ``InputError``
    device : optional torch device (``"cuda"``; ``"cpu"`` runs the same code on CPU
        tensors) for the one-hot count products of :meth:`pairwise_gains` and of the
        family gains (:mod:`.device`); ``None`` (default) uses numpy/BLAS

    Rows of weight 0 are dropped when the score is built (they add nothing to any count),
    so ``n_samples`` is the number of rows with a positive weight.

    Documented edge cases: a constant column of arity 1 (as ``DiscreteData.from_frame``
    encodes it) leaves every likelihood unchanged as parent or child, so only the
    (negative) structure-prior term acts and it stays isolated; a single row is allowed;
    all-zero weights raise ``InputError``.
    """

    def __init__(
        self,
        data: DiscreteData,
        weights: np.ndarray | Sequence[float] | None = None,
        sample_prior: float = 1.0,
        structure_prior: float = 1.0,
        max_arity: int = DEFAULT_MAX_ARITY,
        device: str | None = None,
    ) -> None:
        if not isinstance(data, DiscreteData):
            raise InputError(f"data must be a DiscreteData, got {type(data).__name__}")
        n, v = data.codes.shape
        if n < 1:
            raise InputError("data has no rows")
        if v < 1:
            raise InputError("data has no columns")
        if not (np.isfinite(sample_prior) and SAMPLE_PRIOR_RANGE[0] <= sample_prior
                <= SAMPLE_PRIOR_RANGE[1]):
            raise InputError(f"sample_prior must be a number in [{SAMPLE_PRIOR_RANGE[0]:g}, "
                             f"{SAMPLE_PRIOR_RANGE[1]:g}] (beyond, the score's lnΓ "
                             f"differences lose their precision), got {sample_prior}")
        vm = max(v - 1, 1)
        if v <= 2 and np.isfinite(structure_prior) and structure_prior >= vm:
            structure_prior = 0.0  # β/(V−1) ≥ 1 would give log(0): the term is dropped
        if not (np.isfinite(structure_prior) and 0 <= structure_prior < vm):
            raise InputError(
                f"structure_prior must be in [0, V − 1) = [0, {vm}) for V = {v} variables "
                f"(0 disables the structure-prior term), got {structure_prior}"
            )
        arities = np.asarray(data.arities, dtype=np.int64)
        too_many = np.flatnonzero(arities > max_arity)
        if len(too_many):
            k = int(too_many[0])
            raise InputError(
                f"column {data.names[k]!r}: {arities[k]} categories > max_arity={max_arity}"
            )
        if v:  # the one-hot layouts of the count products (uint8 and float32 copies of
            k = int(np.argmax(arities))  # n × Σ(arity − 1) cells)
            check_memory(5.0 * n * float(np.maximum(arities - 1, 0).sum()),
                         f"the search's counts of {n} rows over {v} columns (the largest, "
                         f"{data.names[k]!r}, with {arities[k]} categories)",
                         "recode columns with many categories into fewer")
        self.data = data
        self.device = check_device(device)
        self.n_samples = n
        self.n_vars = v
        self.arities = np.maximum(arities, 1)
        self.sample_prior = float(sample_prior)
        self.structure_prior = float(structure_prior)
        # Variables as rows (in the data's small integer type): fast access for counting.
        self._codes = np.ascontiguousarray(data.codes.T)
        if weights is None:
            self.weights = None
            self.integral_weights = True
            self.total_weight = float(n)
        else:
            w = row_weights(weights, n)
            self.integral_weights = bool(np.all(w == np.round(w)))
            self.total_weight = float(w.sum())
            keep = w > 0  # a row of weight 0 counts nowhere: a bootstrap drops about 37 %
            if not keep.all():
                self._codes = np.ascontiguousarray(self._codes[:, keep])
                self.n_samples = int(keep.sum())
            self.weights = w[keep]
        if self.structure_prior > 0:
            p = self.structure_prior / vm
            self._prior_on = math.log(p)
            self._prior_off = math.log1p(-p)
        else:
            self._prior_on = self._prior_off = 0.0
        self._vm = v - 1
        self._cache: dict[tuple[int, frozenset[int]], float] = {}
        self._lgamma_tables: dict[tuple, np.ndarray] = {}  # see lngamma_sums._lookup_tables
        self.n_computed = 0

    # ------------------------------------------------------------ helpers
    def structure_term(self, k: int) -> float:
        """``k·ln(β/(V−1)) + (V−1−k)·ln(1 − β/(V−1))`` (0 when β = 0)."""
        return k * self._prior_on + (self._vm - k) * self._prior_off

    def _config_index(self, parents: Sequence[int]) -> tuple[np.ndarray, int]:
        """Per-row index of the parent configuration, compressed to observed configs
        when the full product is large. Returns (index, number of index values)."""
        n = self.n_samples
        if not parents:
            return np.zeros(n, dtype=np.intp), 1
        cfg = self._codes[parents[0]].astype(np.intp)
        size = int(self.arities[parents[0]])
        for p in parents[1:]:
            r = int(self.arities[p])
            if size * r > (1 << 40):
                _, cfg = np.unique(cfg, return_inverse=True)
                cfg = cfg.reshape(-1).astype(np.intp)
                size = int(cfg.max()) + 1
            cfg = cfg * r + self._codes[p]
            size *= r
        if size > 4 * n:
            _, cfg = np.unique(cfg, return_inverse=True)
            cfg = cfg.reshape(-1).astype(np.intp)
            size = int(cfg.max()) + 1
        return cfg, size

    def cell_terms(self, counts, c):
        """``lnΓ(N + c) − lnΓ(c)`` of counts ``N``: the likelihood term of a table cell
        (prior ``c`` = α/(qr)) and, negated, of a configuration (``c`` = α/q).  A score's
        likelihood part is Σ_cells − Σ_configurations of these (thesis §2.3.2)."""
        return gammaln(counts + c) - gammaln(c)

    def add_penalties(self, lik, base, q, ry, xs) -> None:
        """Add to ``base`` (families) and ``lik`` (families × candidates ``xs``, or
        ``None``) the parameter penalty of families with ``q`` parent configurations and a
        child of ``ry`` states, each candidate as one more parent.  BDeu has none
        (its prior is in :meth:`cell_terms`); see :class:`.bic.BICScore`."""

    def add_pair_penalties(self, gains, rx, ry) -> None:
        """Add to ``gains`` (``x`` × ``y``, the gains of ``x → y`` from the empty family,
        whose penalty :meth:`add_penalties` gave) the penalty of the family ``y | {x}``.
        None for BDeu."""

    def _log_q(self, parents: Iterable[int]) -> float:
        return float(sum(math.log(self.arities[p]) for p in parents))

    def _score_from_counts(self, counts: np.ndarray, log_q: float, r: int) -> float:
        """BDeu likelihood term from an (n_configs, r) table of weighted counts."""
        a = self.sample_prior * math.exp(-log_q)
        b = a / r
        nj = counts.sum(axis=1)
        nj = nj[nj > 0]
        njk = counts[counts > 0]
        return float(
            len(nj) * gammaln(a)
            - gammaln(nj + a).sum()
            + gammaln(njk + b).sum()
            - len(njk) * gammaln(b)
        )

    # --------------------------------------------------------------- API
    def local_score(self, y: int, parents: Iterable[int]) -> float:
        """BDeu local score of ``y`` given ``parents`` (cached)."""
        key = (int(y), frozenset(int(p) for p in parents))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if key[0] in key[1]:
            raise InputError(f"node {y} cannot be its own parent")
        pa = sorted(key[1])
        s = self._compute(key[0], pa)
        self._cache[key] = s
        return s

    def _compute(self, y: int, pa: list[int]) -> float:
        self.n_computed += 1
        r = int(self.arities[y])
        cfg, size = self._config_index(pa)
        idx = cfg * r + self._codes[y]
        counts = np.bincount(idx, weights=self.weights, minlength=size * r).reshape(size, r)
        return self._score_from_counts(counts, self._log_q(pa), r) + self.structure_term(len(pa))

    def local_score_diff(self, x: int, y: int, parents: Iterable[int]) -> float:
        """``s(y | parents ∪ {x}) − s(y | parents)``."""
        pa = set(parents)
        return self.local_score(y, pa | {x}) - self.local_score(y, pa)

    def local_scores_batch(
        self,
        y: int,
        parents: Iterable[int],
        candidates: Sequence[int],
        use_cache: bool = True,
    ) -> np.ndarray:
        """Scores ``s(y | parents ∪ {x})`` for every ``x`` in ``candidates``.

        The uncached candidates are counted together: one ``bincount`` over the stacked
        (candidate, parent configuration, x, y) indices (for hundreds of candidates
        :func:`.family_gains.family_gains` is faster).  ``use_cache=False`` neither reads
        nor fills the cache (for large one-off batches).
        """
        base = frozenset(int(p) for p in parents)
        y = int(y)
        out = np.empty(len(candidates), dtype=np.float64)
        if use_cache:
            todo = []
            for k, x in enumerate(candidates):
                hit = self._cache.get((y, base | {x}))
                if hit is None:
                    todo.append(k)
                else:
                    out[k] = hit
        else:
            todo = list(range(len(candidates)))
        if not todo:
            return out
        xs = np.asarray([candidates[k] for k in todo], dtype=np.intp)
        xset = set(xs.tolist())
        if y in xset or y in base or not base.isdisjoint(xset):
            raise InputError("candidates must differ from y and from the parent set")
        pa = sorted(base)
        r = int(self.arities[y])
        cfg, size = self._config_index(pa)
        log_q = self._log_q(pa)
        n = self.n_samples
        ax = self.arities[xs]
        amax = int(ax.max())
        cells = size * amax * r
        vals = np.empty(len(xs), dtype=np.float64)
        # chunk candidates to bound memory
        chunk = max(1, min(len(xs), (1 << 22) // max(cells if cells <= 4 * n else n, 1)))
        for s0 in range(0, len(xs), chunk):
            sub = xs[s0 : s0 + chunk]
            vals[s0 : s0 + chunk] = self._batch_scores(sub, cfg, y, size, log_q)
        vals += self.structure_term(len(pa) + 1)
        self.add_penalties(None, vals, math.exp(log_q) * self.arities[xs], r, None)
        out[todo] = vals
        if use_cache:
            for x, sc in zip(xs.tolist(), vals.tolist()):
                self._cache[(y, base | {x})] = sc
        self.n_computed += len(xs)
        return out

    def _batch_scores(
        self, xs: np.ndarray, cfg: np.ndarray, y: int, size: int, log_q: float
    ) -> np.ndarray:
        """Likelihood terms of ``y | P ∪ {x}`` for candidates ``xs`` given the per-row
        configuration index ``cfg`` of P (``size`` configurations)."""
        n = self.n_samples
        k = len(xs)
        r = int(self.arities[y])
        ax = self.arities[xs].astype(np.float64)
        amax = int(self.arities[xs].max())
        a = self.sample_prior * np.exp(-log_q) / ax  # α / q_new per candidate
        b = a / r
        # joint index ((cand, config, x), y) = cand·cells + (config·amax + x)·r + y
        cells = size * amax * r
        base = cfg * (amax * r) + self._codes[y]
        keys = self._codes[xs].astype(np.intp) * r + (np.arange(k)[:, None] * cells + base[None, :])
        w = None if self.weights is None else np.tile(self.weights, k)
        if cells <= _DENSE_CELLS_PER_ROW * n:
            njk = np.bincount(keys.ravel(), weights=w, minlength=k * cells).reshape(
                k, size * amax, r
            )
            nj = njk.sum(axis=2)
            t1 = -self.cell_terms(nj, a[:, None]).sum(axis=1)
            t2 = self.cell_terms(njk, b[:, None, None]).sum(axis=(1, 2))
            return t1 + t2
        # sparse path: only observed cells
        uk, inv = np.unique(keys.ravel(), return_inverse=True)
        cnt = np.bincount(inv.reshape(-1), weights=w)
        kk = uk // cells
        t2 = self.cell_terms(cnt, b[kk])
        uj, invj = np.unique(uk // r, return_inverse=True)
        cj = np.bincount(invj.reshape(-1), weights=cnt)
        kj = uj // (size * amax)
        t1 = -self.cell_terms(cj, a[kj])
        return np.bincount(kk, weights=t2, minlength=k) + np.bincount(kj, weights=t1, minlength=k)

    def pairwise_gains(
        self,
        min_gain: float = 0.0,
        top: int | None = None,
        block_bytes: int = 48 << 20,
        onehot_bytes: int = 256 << 20,
    ) -> tuple[np.ndarray, ...]:
        """All pairs ``i < j`` with ``s(j | {i}) − s(j | ∅) > min_gain`` (BDeu is score
        equivalent, so the gain is the same for ``j → i``).

        The r_i × r_j count tables of all pairs come from blocks of the one-hot product
        ``Xᵀ diag(w) X`` without each variable's last category (those cells are marginals
        minus the others), float32 BLAS when the weights are integers (exact counts, lnΓ
        from lookup tables), float64 otherwise; the one-hot matrix is built in row chunks
        of at most ``onehot_bytes`` when n is large.  Returns ``(i, j, gain)`` arrays with
        ``i < j``, and with ``top`` also a (V, top) array of every variable's ``top`` best
        partners by gain (see :func:`.pair_gains.pairwise_gains`).
        """
        return pairwise_gains(self, min_gain, top, block_bytes, onehot_bytes)

    def family_gains(self, requests, min_gain: float = 0.0, candidates=None):
        """The gains of every candidate parent of many families, from stacked count
        products (:func:`.family_gains.family_gains`)."""
        return family_gains(self, requests, min_gain, candidates)

    def prepare_candidates(self, ranked: np.ndarray) -> None:
        """Gather once the one-hot columns of every row of ``ranked`` (a node's candidate
        parents), which the search counts again and again."""
        batch_layout(self).remember_columns(ranked)
