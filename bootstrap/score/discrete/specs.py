"""The discrete scores by name: ``bdeu`` and ``bic`` (docs/design.md §5, §5.3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData
from causalcal.errors import InputError

from ..protocol import IndependenceTest, Score, positive
from .bdeu import BDeuScore
from .bic import BICScore
from .gsquare import GSquareTest

__all__ = ["BDeu", "DiscreteBIC"]


@dataclass(frozen=True)
class _Counted(Score):
    """A score on the counts of discrete data, tested by G² (GFCI)."""

    def data_of(self, data) -> DiscreteData:
        if not isinstance(data, DiscreteData):
            raise InputError(f"score {self.name!r} takes discrete data (DiscreteData), got "
                             f"{type(data).__name__}; for continuous or mixed columns use "
                             "sem-bic or dg-bic")
        return data

    def independence_test(self, score, alpha: float) -> IndependenceTest:
        """The G² test on the score's counts (:class:`~.gsquare.GSquareTest`)."""
        return GSquareTest(score, alpha)


@dataclass(frozen=True)
class BDeu(_Counted):
    """BDeu with equivalent sample size ``sample_prior`` and structure prior
    ``structure_prior`` (:class:`~.bdeu.BDeuScore`; causal-learn's defaults 1 and 1).

    Examples
    --------
    >>> from causalcal.bootstrap import BDeu
    >>> str(BDeu()), str(BDeu(sample_prior=2.0)), BDeu().data_kind
    ('bdeu', 'bdeu(sample_prior=2.0)', 'discrete')
    """

    name: ClassVar[str] = "bdeu"
    sample_prior: float = 1.0
    structure_prior: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "sample_prior", positive("sample_prior", self.sample_prior))
        beta = float(self.structure_prior)
        if not (np.isfinite(beta) and beta >= 0):
            raise InputError(f"structure_prior must be a number >= 0, got "
                             f"{self.structure_prior!r}")
        object.__setattr__(self, "structure_prior", beta)

    def build(self, data, weights: np.ndarray | Sequence[float] | None = None, *,
              device: str | None = None, max_arity: int | None = None) -> BDeuScore:
        return BDeuScore(self.data_of(data), weights, sample_prior=self.sample_prior,
                         structure_prior=self.structure_prior,
                         max_arity=max_arity or DEFAULT_MAX_ARITY, device=device)



@dataclass(frozen=True)
class DiscreteBIC(_Counted):
    """The discrete BIC with ``penalty_discount`` (:class:`~.bic.BICScore`).

    Examples
    --------
    >>> from causalcal.bootstrap import DiscreteBIC
    >>> str(DiscreteBIC(penalty_discount=2))
    'bic(penalty_discount=2.0)'
    """

    name: ClassVar[str] = "bic"
    penalty_discount: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "penalty_discount",
                           positive("penalty_discount", self.penalty_discount))

    def build(self, data, weights: np.ndarray | Sequence[float] | None = None, *,
              device: str | None = None, max_arity: int | None = None) -> BICScore:
        return BICScore(self.data_of(data), weights,
                        penalty_discount=self.penalty_discount,
                        max_arity=max_arity or DEFAULT_MAX_ARITY, device=device)
