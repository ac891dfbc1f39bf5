"""How to bootstrap, as one object (docs/design.md §6).

:class:`BootstrapSettings` holds everything :func:`bootstrap_edge_probabilities` takes
besides the data, checked once when it is made: workflows (``discover``, the command
line) build it from their arguments and pass it on whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalcal.data import DiscreteData, MixedData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError

from .bootstrap import _check_run_arguments, bootstrap_edge_probabilities, check_search_options
from .checkpoint import check_provenance
from .pair_features import checkpoint_pair_features
from .score.registry import score_options

__all__ = ["BootstrapSettings"]


@dataclass(frozen=True)
class BootstrapSettings:
    """The bootstrap's arguments (see :func:`bootstrap_edge_probabilities`).

    Parameters
    ----------
    n_boot, search, seed, n_jobs, checkpoint, progress, knowledge, backend, scheduler :
        as :func:`bootstrap_edge_probabilities` takes them.
    options : the search's options (``max_degree``, ``score``, …); a score given flat
        (``score="bic", penalty_discount=2``) is made into one ``score=``
        :class:`~causalcal.bootstrap.score.protocol.Score` here.

    Bad values are an ``InputError`` (or ``ImportError`` for a missing extra) when the
    object is made, before any work.
    """

    n_boot: int = 200
    search: Any = "fges"
    options: dict = field(default_factory=dict)
    knowledge: Any = None
    seed: int = 0
    n_jobs: int = 1
    checkpoint: str | os.PathLike | None = None
    progress: bool = True
    backend: str | None = None
    scheduler: Any = None

    def __post_init__(self) -> None:
        if "knowledge" in self.options:
            raise InputError("background knowledge goes in knowledge=, not in the search's "
                             "options")
        n_boot, seed, n_jobs, backend = _check_run_arguments(
            self.n_boot, self.seed, self.n_jobs, self.backend, self.scheduler)
        options = score_options(dict(self.options))  # a flat score name and parameters
        check_search_options(self.search, options)
        for name, value in (("n_boot", n_boot), ("seed", seed), ("n_jobs", n_jobs),
                            ("backend", backend), ("options", options)):
            object.__setattr__(self, name, value)

    def run(self, data: DiscreteData | MixedData, features: bool = False,
            ancestral: bool = False) -> EdgeProbabilities:
        """``bootstrap_edge_probabilities(data, …)`` with these settings."""
        return bootstrap_edge_probabilities(
            data, n_boot=self.n_boot, search=self.search, n_jobs=self.n_jobs, seed=self.seed,
            checkpoint=self.checkpoint, backend=self.backend, scheduler=self.scheduler,
            progress=self.progress, knowledge=self.knowledge, features=features,
            ancestral=ancestral, **self.options)

    def checkpoint_features(self, data: DiscreteData,
                            probabilities: EdgeProbabilities | None = None) -> np.ndarray:
        """Pair features of the finished bootstrap in :attr:`checkpoint` (no search). With
        ``probabilities``: of the run that computed them (their first ``n_boot``
        replicates), refused (``InputError``) unless their recorded provenance is that
        checkpoint's run, or if they record none."""
        n_boot, seed = self.n_boot, self.seed
        if probabilities is not None:
            check_provenance(self.checkpoint, probabilities.provenance,
                             probabilities.source or "the given probabilities")
            n_boot, seed = probabilities.provenance["n_boot"], probabilities.provenance["seed"]
        return checkpoint_pair_features(
            data, self.checkpoint, n_boot=n_boot, seed=seed, search=self.search,
            knowledge=self.knowledge, **self.options)
