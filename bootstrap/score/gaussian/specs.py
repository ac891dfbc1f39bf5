"""The Gaussian scores by name: ``sem-bic`` and ``dg-bic`` (docs/design.md §5.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from causalcal.data import CONTINUOUS, MIXED
from causalcal.errors import InputError

from ..protocol import IndependenceTest, Score, positive
from .independence import FisherZTest, GaussianLRTest
from .score import GaussianScore

__all__ = ["SAMPLE_SIZES", "DegenerateGaussianBIC", "SemBIC"]

#: What N a Gaussian score's likelihood and penalty use (see :class:`_Covariance`).
SAMPLE_SIZES = ("total", "effective")


@dataclass(frozen=True)
class _Covariance(Score):
    """A Gaussian BIC on the weighted covariance, with ``penalty_discount``; the N of its
    formulas is the rows' effective sample size (Σw)²/Σw² (``sample_size="effective"``,
    the default: about n/2 for a bootstrap replicate, whose repeated rows are not new
    evidence; n on unweighted data) or their total weight (``"total"``: a replicate
    weighs as n rows). Measured in docs/design.md §5.4."""

    penalty_discount: float = 1.0
    sample_size: str = "effective"

    def __post_init__(self) -> None:
        object.__setattr__(self, "penalty_discount",
                           positive("penalty_discount", self.penalty_discount))
        if self.sample_size not in SAMPLE_SIZES:
            raise InputError(f"sample_size must be one of {', '.join(SAMPLE_SIZES)}, got "
                             f"{self.sample_size!r}")

    def build(self, data, weights=None, *, device: str | None = None,
              max_arity: int | None = None) -> GaussianScore:
        if device is not None:
            raise InputError(f"device={device!r} runs the discrete scores' count products; "
                             f"score {self.name!r} runs on the CPU (leave device out)")
        return GaussianScore(data, weights, self.penalty_discount,
                             continuous_only=self.data_kind == CONTINUOUS,
                             effective=self.sample_size == "effective")


@dataclass(frozen=True)
class SemBIC(_Covariance):
    """Linear-Gaussian BIC (SEM-BIC) of continuous data; GFCI tests with Fisher's z.

    Examples
    --------
    >>> from causalcal.bootstrap import SemBIC
    >>> score = SemBIC(penalty_discount=2.0)
    >>> str(score), score.data_kind
    ('sem-bic(penalty_discount=2.0)', 'continuous')
    """

    name: ClassVar[str] = "sem-bic"
    data_kind: ClassVar[str] = CONTINUOUS

    def independence_test(self, score, alpha: float) -> IndependenceTest:
        return FisherZTest(score, alpha)


@dataclass(frozen=True)
class DegenerateGaussianBIC(_Covariance):
    """The degenerate-Gaussian BIC of mixed data (discrete columns as indicators); GFCI
    tests with the degenerate-Gaussian likelihood-ratio test.

    Examples
    --------
    >>> from causalcal.bootstrap import DegenerateGaussianBIC
    >>> score = DegenerateGaussianBIC()
    >>> str(score), score.data_kind
    ('dg-bic', 'mixed')
    """

    name: ClassVar[str] = "dg-bic"
    data_kind: ClassVar[str] = MIXED

    def independence_test(self, score, alpha: float) -> IndependenceTest:
        return GaussianLRTest(score, alpha)
