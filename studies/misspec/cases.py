"""Cases of the misspecification benchmark (issue 39, item 1; docs/design.md §9.11).

A case is one misspecified data set with its truth, named ``FAMILY-nN-sSEED`` (a
generator of :mod:`causalcal.simulate.misspecified` at ``n`` rows, seeded by family and
seed only, so one seed is one network at every n) or ``sachs-all`` / ``sachs-obs`` (the
Sachs et al. flow-cytometry data, all nine conditions pooled or the first, observational
one alone, each in its own tertiles, with the consensus network). Its bootstrap
(ancestral, seed 0) is computed once and cached with its truth in ``results/misspec/cache/``
(ignored by git): ``CASE.npz`` (the :class:`EdgeProbabilities`, ancestral counts kept;
``CASE.bic.npz`` with the BIC score)
and ``CASE.truth.npz`` (``edge_truth``, ``causal_truth``, ``names``, ``description``).
"""

from __future__ import annotations

import functools
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal.bootstrap import bootstrap_edge_probabilities
from causalcal.data import DiscreteData, discretize
from causalcal.edges import EdgeProbabilities
from causalcal.simulate import (
    MisspecifiedData,
    continuous_nonlinear,
    hidden_benchmark,
    latent_confounders,
    measurement_noise,
    pooled_conditions,
)
from causalcal.simulate.latent_truth import pag_labels
from causalcal.simulate.misspecified_truth import ancestor_matrix, dense_causal
from studies.discover_known import sachs_conditions
from studies.discover_known.cases import SACHS_DIR, stable_seed, truth_labels

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "results" / "misspec" / "cache"
N_BOOT = 200
SIZES = (500, 2000, 8000)
SEEDS = (0, 1, 2)

#: the families: name -> generator of (n, seed)
FAMILIES: dict[str, Callable[[int, int], MisspecifiedData]] = {
    "hidden-alarm": lambda n, s: hidden_benchmark("alarm", n, s),
    "hidden-insurance": lambda n, s: hidden_benchmark("insurance", n, s),
    "hidden-child": lambda n, s: hidden_benchmark("child", n, s),
    "latent": lambda n, s: latent_confounders(n, s),
    "additive": lambda n, s: continuous_nonlinear(n, s, additive=True),
    "nonadditive": lambda n, s: continuous_nonlinear(n, s, additive=False),
    "pooled": lambda n, s: pooled_conditions(n, s),
    "noise-alarm": lambda n, s: measurement_noise("alarm", n, s),
    # well-specified controls: alarm itself (no value replaced) and the pooled family's
    # random network observed in one condition
    "control-alarm": lambda n, s: measurement_noise("alarm", n, s, rate=0.0),
    "control-random": lambda n, s: pooled_conditions(n, s, n_conditions=1),
}

#: a control drawn with its misspecified family's seeds: the same network, column order
#: and (for alarm) clean sample
SEEDED_AS = {"control-alarm": "noise-alarm", "control-random": "pooled"}

#: the Sachs cases, and the row count of each of the nine condition files stacked in
#: ``cyto_full_data.csv`` (Sachs et al. 2005's supplement, files 1–9, in that order;
#: 7466 rows in all). Condition 1 (anti-CD3/CD28, no inhibitor or activator) is the
#: observational one.
SACHS_CASES = ("sachs-all", "sachs-obs")
SACHS_CONDITIONS = tuple((c.name, c.rows) for c in sachs_conditions.SACHS_CONDITIONS)

#: a Sachs causal-truth value for a pair each of which causes the other (the consensus
#: network has the cycle plcg -> PIP2 -> PIP3 -> plcg); never in a simulated case
BOTH_WAYS = 3


def case_name(family: str, n: int, seed: int) -> str:
    """``FAMILY-nN-sSEED``."""
    return f"{family}-n{n}-s{seed}"


def parse_name(name: str) -> tuple[str, int | None, int | None]:
    """``(family, n, seed)`` of a case name (``n``, ``seed`` None for Sachs)."""
    if name in SACHS_CASES:
        return name, None, None
    family, n, seed = name.rsplit("-", 2)
    if family not in FAMILIES or not n.startswith("n") or not seed.startswith("s"):
        raise ValueError(f"not a case name: {name!r}")
    return family, int(n[1:]), int(seed[1:])


def sachs(observational: bool) -> tuple[DiscreteData, np.ndarray, np.ndarray, str]:
    """The Sachs data (all rows, or condition 1's) in its own tertiles, the consensus
    network's edge types (arcs as oriented: it has a cycle) and its ancestry."""
    raw = pd.read_csv(SACHS_DIR / "cyto_full_data.csv")
    if len(raw) != sum(size for _, size in SACHS_CONDITIONS):
        raise ValueError("cyto_full_data.csv is not the nine condition files stacked")
    if observational:
        raw = raw.iloc[: SACHS_CONDITIONS[0][1]]
    data = DiscreteData.from_frame(discretize(raw, "quantile", 3, columns=list(raw.columns)))
    graph = pd.read_csv(SACHS_DIR / "cyto_full_target.csv")
    index = {name: k for k, name in enumerate(data.names)}
    arcs = np.column_stack([graph.iloc[:, 0].map(index), graph.iloc[:, 1].map(index)])
    edge_truth, _ = truth_labels(data.n_vars, arcs)
    parents = [[int(a) for a, b in arcs if b == v] for v in range(data.n_vars)]
    ancestor = ancestor_matrix(parents)
    causal = dense_causal(ancestor)
    i, j = np.triu_indices(data.n_vars, 1)
    causal[ancestor[i, j] & ancestor[j, i]] = BOTH_WAYS
    which = "condition 1 (cd3cd28, observational)" if observational else "all 9 conditions"
    return data, edge_truth, causal, f"Sachs et al. 2005, {which}, tertiles, n = {len(raw)}"


def make_case(name: str) -> tuple[DiscreteData, np.ndarray, np.ndarray, str]:
    """The case's data, edge truth, causal truth and description (no bootstrap)."""
    family, n, seed = parse_name(name)
    if family in SACHS_CASES:
        return sachs(family == "sachs-obs")
    seeded_as = SEEDED_AS.get(family, family)
    result = FAMILIES[family](n, stable_seed("misspec", seeded_as, seed))
    return result.data, result.edge_truth, result.causal_truth, result.description


@functools.lru_cache(maxsize=4)  # every draw of a case asks; regenerating costs a sample
def pag_truth(name: str) -> np.ndarray | None:
    """The true PAG's edge type (``PAGEdgeType`` int8, pair order) of every pair of a
    simulated case (:func:`causalcal.simulate.latent_truth.pag_labels`); ``None`` for
    Sachs, whose consensus network has a cycle."""
    family, n, seed = parse_name(name)
    if family in SACHS_CASES:
        return None
    made = FAMILIES[family](n, stable_seed("misspec", SEEDED_AS.get(family, family), seed))
    return pag_labels(made.full_parents, made.observed)


def cached_case(name: str, cache: Path = CACHE, n_boot: int = N_BOOT, jobs: int = 2,
                score: str = "bdeu", search: str = "fges"
                ) -> tuple[DiscreteData, EdgeProbabilities, np.ndarray, np.ndarray, dict]:
    """The case with its bootstrap (``search``, FGES by default, with the local score
    ``score``), read from ``cache`` or computed (resumable through a checkpoint folder)
    and stored there (``CASE.npz`` for FGES with BDeu, ``CASE.SCORE.npz`` for another
    score, ``CASE.SEARCH.npz`` for another search); the last item is the truth file's
    metadata."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = name if score == "bdeu" else f"{name}.{score}"
    stem = stem if search == "fges" else f"{stem}.{search}"
    path, truth = cache / f"{stem}.npz", cache / f"{name}.truth.npz"
    data, edge_truth, causal_truth, description = make_case(name)
    if not (path.is_file() and truth.is_file()):
        checkpoint = cache / f"{stem}_checkpoint"
        options = {} if score == "bdeu" else {"score": score}
        start = time.perf_counter()
        probs = bootstrap_edge_probabilities(data, n_boot=n_boot, seed=0, n_jobs=jobs,
                                             ancestral=True, progress=False, search=search,
                                             checkpoint=checkpoint, **options)
        meta = {"description": description, "seconds": time.perf_counter() - start,
                "n_boot": n_boot, "jobs": jobs}
        probs.save(path)
        if not truth.is_file():  # the first search's run is the one its metadata describe
            np.savez(truth, edge_truth=edge_truth, causal_truth=causal_truth,
                     names=np.array(data.names), meta=json.dumps(meta))
        shutil.rmtree(checkpoint, ignore_errors=True)
    probs = EdgeProbabilities.load(path)
    with np.load(truth) as z:
        meta = json.loads(str(z["meta"]))
        if (list(z["names"]) != list(data.names) or not np.array_equal(z["edge_truth"], edge_truth)
                or not np.array_equal(z["causal_truth"], causal_truth)):
            raise AssertionError(f"{truth}: not the truth the generator gives now")
    if probs.n_boot != n_boot or probs.ancestral is None:
        raise AssertionError(f"{path}: not an ancestral bootstrap of {n_boot} replicates")
    return data, probs, edge_truth, causal_truth, meta


def load_case(name: str, cache: Path = CACHE, n_boot: int = N_BOOT, search: str = "fges"
              ) -> tuple[DiscreteData, EdgeProbabilities, np.ndarray, np.ndarray]:
    """``(data, probabilities, edge_truth, causal_truth)`` of a cached case (computed
    first if it is not cached). ``edge_truth``: ``EdgeType`` int8 per pair;
    ``causal_truth``: ``CausalType`` int8 per pair (``BOTH_WAYS`` for a pair in a cycle
    of the Sachs consensus network)."""
    data, probs, edge_truth, causal_truth, _ = cached_case(name, cache, n_boot, search=search)
    return data, probs, edge_truth, causal_truth


def all_cases(families: list[str] | None = None, sizes: tuple[int, ...] = SIZES,
              seeds: tuple[int, ...] = SEEDS, sachs_cases: bool = True) -> list[str]:
    """Case names in run order: seed by seed, size by size, family by family, then Sachs."""
    names = [case_name(f, n, s) for s in seeds for n in sizes
             for f in (families or list(FAMILIES))]
    return names + (list(SACHS_CASES) if sachs_cases else [])
