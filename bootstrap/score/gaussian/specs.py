"""The Gaussian scores by name: ``sem-bic`` and ``dg-bic`` (docs/design.md §5.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from causalcal.data import CONTINUOUS, MIXED
from causalcal.errors import InputError

from ..protocol import IndependenceTest, Score, positive
from .independence import FisherZTest, GaussianLRTest
from .score import GaussianScore

__all__ = ["DegenerateGaussianBIC", "SemBIC"]


@dataclass(frozen=True)
class _Covariance(Score):
    """A Gaussian BIC on the weighted covariance, with ``penalty_discount``."""

    penalty_discount: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "penalty_discount",
                           positive("penalty_discount", self.penalty_discount))

    def build(self, data, weights=None, *, device: str | None = None,
              max_arity: int | None = None) -> GaussianScore:
        if device is not None:
            raise InputError(f"device={device!r} runs the discrete scores' count products; "
                             f"score {self.name!r} runs on the CPU (leave device out)")
        return GaussianScore(data, weights, self.penalty_discount,
                             continuous_only=self.data_kind == CONTINUOUS)


@dataclass(frozen=True)
class SemBIC(_Covariance):
    """Linear-Gaussian BIC (SEM-BIC) of continuous data; GFCI tests with Fisher's z."""

    name: ClassVar[str] = "sem-bic"
    data_kind: ClassVar[str] = CONTINUOUS

    def independence_test(self, score, alpha: float) -> IndependenceTest:
        return FisherZTest(score, alpha)


@dataclass(frozen=True)
class DegenerateGaussianBIC(_Covariance):
    """The degenerate-Gaussian BIC of mixed data (discrete columns as indicators); GFCI
    tests with the degenerate-Gaussian likelihood-ratio test."""

    name: ClassVar[str] = "dg-bic"
    data_kind: ClassVar[str] = MIXED

    def independence_test(self, score, alpha: float) -> IndependenceTest:
        return GaussianLRTest(score, alpha)
