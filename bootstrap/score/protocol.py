"""The score seam: what a search asks of a local score, and a score named with its
parameters (docs/design.md §5.3).

A :class:`Score` is a small frozen value — a score's name and parameters, checked once
when it is made (``Score`` subclasses, made by name through
:func:`~causalcal.bootstrap.score.registry.get_score`). ``score.build(data, weights)``
gives the :class:`LocalScore` of one data set (a bootstrap replicate's row weights), the
object the searches (FGES, BES, BOSS, GFCI) work on: local scores, the gains of every
pair and the gains of every candidate parent of many families at once; the
:class:`Score` also makes the conditional-independence test that matches it (GFCI's).
Tetrad's ``Score`` interface plays the same part (``localScore``, ``localScoreDiff``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol

import numpy as np

from causalcal.errors import InputError
from causalcal.graph import PDAG, pdag_to_dag

__all__ = ["DEFAULT_ALPHA", "CachedTest", "GraphScores", "IndependenceTest", "LocalScore",
           "Score", "best_partners", "positive", "row_weights"]

#: ``test(x, y, S) -> True`` when x and y are independent given S (FCI's tests).
IndependenceTest = Callable[[int, int, tuple[int, ...]], bool]
#: the significance level of GFCI's tests unless told
DEFAULT_ALPHA = 0.01


class CachedTest:
    """``test(x, y, s)`` → whether x ⊥ y | s is accepted at level ``alpha`` (the p-value
    exceeds it); p-values are cached by ``(x, y, S)``. A subclass computes them
    (``_compute(x, y, s)`` with ``x < y`` and ``s`` sorted)."""

    def __init__(self, score: Any, alpha: float = DEFAULT_ALPHA) -> None:
        if not 0 < alpha < 1:
            raise InputError(f"alpha must be in (0, 1), got {alpha}")
        self.score = score
        self.alpha = float(alpha)
        self._cache: dict[tuple[int, int, tuple[int, ...]], float] = {}
        self.n_tests = 0

    def __call__(self, x: int, y: int, s: tuple[int, ...]) -> bool:
        return self.p_value(x, y, s) > self.alpha

    def p_value(self, x: int, y: int, s: tuple[int, ...] = ()) -> float:
        """The test's p-value of x ⊥ y | s."""
        x, y = min(x, y), max(x, y)
        key = (x, y, tuple(sorted(s)))
        p = self._cache.get(key)
        if p is None:
            p = self._cache[key] = self._compute(x, y, list(key[2]))
        return p

    def _compute(self, x: int, y: int, s: list[int]) -> float:
        raise NotImplementedError


class LocalScore(Protocol):
    """A decomposable score of one data set (higher is better), with its cache.

    ``data`` is the table scored (its ``names``), ``n_vars`` its number of variables.
    """

    data: Any
    n_vars: int

    def local_score(self, y: int, parents: Iterable[int]) -> float:
        """``s(y | parents)``."""

    def local_scores_batch(self, y: int, parents: Iterable[int],
                           candidates: Sequence[int]) -> np.ndarray:
        """``s(y | parents ∪ {x})`` for every ``x`` of ``candidates``."""

    def pairwise_gains(self, min_gain: float = 0.0, top: int | None = None) -> tuple:
        """``(i, j, gain)`` of every pair ``i < j`` with ``s(j | {i}) − s(j | ∅) >
        min_gain`` (score equivalent: the same both ways); with ``top`` also a (V, top)
        array of every variable's best partners by gain, sorted by index."""

    def family_gains(self, requests: Sequence[tuple[int, frozenset[int]]],
                     min_gain: float = 0.0, candidates: Sequence[int] | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(k, x, g)`` sorted by ``(k, x)``: every request ``k = (y, P)`` and variable
        ``x ∉ P ∪ {y}`` (among ``candidates`` if given) with ``g = s(y | P ∪ {x}) −
        s(y | P) > min_gain``."""

    def prepare_candidates(self, ranked: np.ndarray) -> None:
        """A hint: row ``y`` of ``ranked`` lists the candidate parents of ``y`` the search
        will ask about again and again (a score may prepare their columns)."""

    def score_pdag(self, pdag: PDAG) -> float:
        """The score of a CPDAG (of any DAG extension: the score is score equivalent)."""


class GraphScores:
    """Whole-graph scores from ``local_score`` (a mixin of the local scores)."""

    def score_dag(self, dag: PDAG) -> float:
        """The sum of the DAG's local scores."""
        if dag.n_vars != self.n_vars:
            raise InputError(f"graph has {dag.n_vars} nodes, data has {self.n_vars} variables")
        if not dag.is_dag():
            raise InputError("score_dag needs a DAG (use score_pdag for a CPDAG)")
        return float(sum(self.local_score(y, dag.parents(y)) for y in range(self.n_vars)))

    def score_pdag(self, pdag: PDAG) -> float:
        """Score of a PDAG through a consistent DAG extension (equal for every extension
        of a CPDAG, the score being score equivalent)."""
        return self.score_dag(pdag_to_dag(pdag))


@dataclass(frozen=True)
class Score:
    """A score named with its parameters (a subclass per score), checked when made.

    ``name`` is its registry name, ``data_kind`` the data it takes (``"discrete"``:
    :class:`~causalcal.data.DiscreteData`; ``"continuous"`` or ``"mixed"``:
    :class:`~causalcal.data.MixedData`, all columns continuous or any mix).

    Examples
    --------
    >>> from causalcal.bootstrap import Score, get_score
    >>> score = get_score("dg-bic")
    >>> isinstance(score, Score), score.name, score.data_kind
    (True, 'dg-bic', 'mixed')
    """

    name: ClassVar[str] = ""
    data_kind: ClassVar[str] = "discrete"

    def build(self, data: Any, weights: np.ndarray | Sequence[float] | None = None, *,
              device: str | None = None, max_arity: int | None = None) -> LocalScore:
        """The local score of ``data`` with row ``weights``."""
        raise NotImplementedError

    def independence_test(self, score: LocalScore, alpha: float) -> IndependenceTest:
        """The test matching this score, on a built ``score`` (GFCI's)."""
        raise NotImplementedError

    def options(self) -> dict[str, Any]:
        """The parameters that differ from their defaults (a run's identity)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != f.default}

    def __str__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{self.name}({given})" if given else self.name


def best_partners(dense: np.ndarray, top: int, order: np.ndarray | None = None) -> np.ndarray:
    """The ``top`` best partners by gain of every variable, sorted by index: a (V, top)
    array from the V × V ``dense`` gains (overwritten on the diagonal), whose rows and
    columns are the variables ``order`` (default: in index order)."""
    v = dense.shape[0]
    order = np.arange(v) if order is None else order
    k = min(int(top), v - 1)
    ranked = np.empty((v, k), dtype=np.intp)
    np.fill_diagonal(dense, -np.inf)
    for s in range(0, v if k > 0 else 0, 256):  # in row chunks: no V × V index array
        part = np.argpartition(dense[s : s + 256], v - k, axis=1)[:, v - k :]
        ranked[order[s : s + 256]] = np.sort(order[part], axis=1)
    return ranked


def row_weights(weights: Any, n: int) -> np.ndarray:
    """``weights`` as (n,) float64, checked: finite, non-negative, not all zero (an
    ``InputError`` naming the first bad one)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise InputError(f"weights must have shape ({n},), got {w.shape}")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise InputError(f"weights[{bad[0]}] = {w[bad[0]]}: must be finite and >= 0")
    if w.sum() <= 0:
        raise InputError("weights sum to zero: no data to score")
    return w


def positive(name: str, value: Any) -> float:
    """``value`` as a positive finite float, or an ``InputError`` naming the parameter."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a positive number, got {value!r}") from None
    if not (np.isfinite(number) and number > 0):
        raise InputError(f"{name} must be a positive number, got {value!r}")
    return number
