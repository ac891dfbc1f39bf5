"""Study configuration, presets and seeds (thesis §6.2.4–6.2.5; docs/design.md §9.5).

Every seed of a study derives from the study seed through ``numpy.random.SeedSequence([seed,
V, E, r, stage, …])``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from causalcal.edgecal import FEATURE_GROUPS, SELECTIONS, feature_columns
from causalcal.errors import InputError

__all__ = ["PRESETS", "RELATIONS", "SELECTIONS", "StudyConfig", "StudyResult", "derive_seed",
           "preset", "run_seeds", "unit_seeds"]

#: What a study calibrates: the four CPDAG edge types of a pair (docs/design.md §9.5) or
#: the three causal relations of the true DAG's ancestry (§9.9).
RELATIONS = ("edges", "causal")


# stage codes mixed into the seed sequence
_NETWORK, _DATA, _BOOTSTRAP, _CALSET, _CALIBRATOR = range(5)


def derive_seed(seed: int, *keys: int) -> int:
    """A 32-bit seed for one stage of one run, from the study seed and integer keys."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


def unit_seeds(seed: int, v: int, e: int, r: int) -> dict[str, int]:
    """Seeds of the network, data and bootstrap of (V, E, repeat r)."""
    return {"network_seed": derive_seed(seed, v, e, r, _NETWORK),
            "data_seed": derive_seed(seed, v, e, r, _DATA),
            "bootstrap_seed": derive_seed(seed, v, e, r, _BOOTSTRAP)}


def run_seeds(seed: int, v: int, e: int, r: int, n: int) -> dict[str, int]:
    """Seeds of the calibration set and the calibrator of one run (not of the calibrator's
    name, so calibrators are compared on the same splits)."""
    return {"sample_seed": derive_seed(seed, v, e, r, _CALSET, n),
            "calibrator_seed": derive_seed(seed, v, e, r, _CALIBRATOR, n)}


@dataclass(frozen=True)
class StudyConfig:
    """A study grid and its settings.

    ``grid`` lists ``(V, (E, …))``: every V with its edge counts; ``sizes`` are the
    calibration set sizes N (multiples of 4). ``network_options`` go to
    ``random_network`` (e.g. ``max_in_degree``), ``search_options`` to the bootstrap.
    ``features``: pair-feature groups of the learned graphs given to the calibrator beside
    the probabilities (:data:`causalcal.edgecal.FEATURE_GROUPS`). ``relations``:
    ``"edges"`` (the CPDAG edge types, thesis Table 33) or ``"causal"`` (neither, A causes
    B, B causes A, from the bootstraps' ancestral counts, against the true DAG's ancestry;
    docs/design.md §9.9; N need not be a multiple of 4 then, and features are refused).
    """

    grid: tuple[tuple[int, tuple[int, ...]], ...]
    sizes: tuple[int, ...]
    repeats: int = 10
    n_samples: int = 1000
    n_boot: int = 200
    calibrator: str = "snn"
    calibrator_params: dict = field(default_factory=dict)
    selection: str = "design"
    features: tuple[str, ...] = ()
    seed: int = 0
    n_jobs: int = 1
    search: str = "fges"
    search_options: dict = field(default_factory=dict)
    network_options: dict = field(default_factory=dict)
    bin_size: int = 100
    alpha: float = 0.05
    plots: bool = True
    relations: str = "edges"

    def __post_init__(self) -> None:
        if self.relations not in RELATIONS:
            raise InputError(f"relations must be one of {', '.join(RELATIONS)}, "
                             f"got {self.relations!r}")
        if not self.grid:
            raise InputError("the study grid is empty")
        for v, edges in self.grid:
            if v < 2:
                raise InputError(f"V must be at least 2, got {v}")
            for e in edges:
                if not 0 <= e <= v * (v - 1) // 2:
                    raise InputError(f"E = {e} edges do not fit V = {v} nodes")
        for n in self.sizes:
            if self.causal and n < 3:
                raise InputError(f"calibration set size N must be at least 3 (one pair of "
                                 f"each causal relation), got {n}")
            if not self.causal and (n <= 0 or n % 4):
                raise InputError(f"calibration set size N must be a positive multiple of 4, "
                                 f"got {n}")
        if not self.sizes:
            raise InputError("no calibration set sizes N given")
        if self.selection not in SELECTIONS:
            raise InputError(f"selection must be one of {', '.join(SELECTIONS)}, "
                             f"got {self.selection!r}")
        if self.features:
            if self.causal:
                raise InputError("pair features are for edge types: a causal study "
                                 "(relations='causal') calibrates the three-class "
                                 "probabilities alone; drop --features")
            feature_columns(self.features)  # unknown groups are an error now, not later
        for name in ("repeats", "n_samples", "n_boot", "n_jobs", "bin_size"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) \
                or self.seed < 0:
            raise InputError(f"seed must be a non-negative integer, got {self.seed!r}")

    @property
    def causal(self) -> bool:
        """Whether the study calibrates causal relations (docs/design.md §9.9)."""
        return self.relations == "causal"

    @property
    def tag(self) -> str:
        """Directory name of this calibrator's results: its name (+ ``_random-sample`` when
        the design is ignored, + ``_causal`` for causal relations, + a hash of its
        params)."""
        name = self.calibrator.lower().replace("_", "-")
        if self.selection == "none":
            name += "_random-sample"
        if self.causal:
            name += "_causal"
        if self.features:
            every = set(self.features) == set(FEATURE_GROUPS)
            name += "_features" if every else "_features-" + "+".join(self.features)
        if not self.calibrator_params:
            return name
        blob = json.dumps(self.calibrator_params, sort_keys=True, default=str)
        return f"{name}_{hashlib.sha1(blob.encode()).hexdigest()[:8]}"

    def cache_key(self) -> dict:
        """Settings that determine the cached networks, data and bootstraps."""
        return {"seed": self.seed, "n_samples": self.n_samples, "n_boot": self.n_boot,
                "search": self.search, "search_options": self.search_options,
                "network_options": self.network_options}

    def run_key(self) -> dict:
        """Settings that determine a run's result besides (V, E, N, r)."""
        key = {**self.cache_key(), "calibrator": self.calibrator,
               "calibrator_params": self.calibrator_params, "selection": self.selection,
               "bin_size": self.bin_size}
        if self.features:  # absent otherwise: earlier records keep matching
            key["features"] = list(self.features)
        if self.causal:  # likewise: edge-type records keep matching
            key["relations"] = self.relations
        return key


#: Preset grids: thesis Table 33 (V = 1000), Table 34 (V = 5000) and a quick smoke test.
PRESETS: dict[str, dict] = {
    "table33": {"grid": ((1000, (1000, 2000, 3000)),), "sizes": (40, 80, 120)},
    "table34": {"grid": ((5000, (5000, 10000, 15000)),), "sizes": (40, 80, 120)},
    # V = E = 100 networks have >= 10 undirected CPDAG edges (needed for N = 40) in
    # practice (>= 13 in 100 draws); a repeat where a class is too small is recorded as
    # skipped, not an error.
    "quick": {"grid": ((100, (100,)),), "sizes": (20, 40), "repeats": 3, "n_boot": 10},
}


def preset(name: str, **overrides) -> StudyConfig:
    """A :class:`StudyConfig` from a preset name with fields overridden (``None`` ignored)."""
    if name not in PRESETS:
        raise InputError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    settings = {**PRESETS[name], **{k: v for k, v in overrides.items() if v is not None}}
    return StudyConfig(**settings)


@dataclass
class StudyResult:
    """What :func:`run_study` returns."""

    config: StudyConfig
    out: Path
    results_dir: Path
    runs: list[dict]
    summary: list[dict]
    table: str
    files: dict[str, Path]
    seconds: float
    #: this invocation's work: runs computed / loaded, bootstraps computed
    counts: dict[str, int] = field(default_factory=dict)
