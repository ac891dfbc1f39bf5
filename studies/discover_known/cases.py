"""Cases of the ``discover_known`` harness: data, truth and cached bootstrap (issue 26).

A *case* is one data set with a reference graph: a standard benchmark network of
``causalcal.simulate`` sampled at ``n`` rows (seeded, columns shuffled so that the column
order carries no causal order), or the Sachs et al. (2005) flow-cytometry data with its
consensus network (``sachs-real``, discretised into tertiles). Its bootstrap edge-type
probabilities are computed once per ``n_boot`` and cached as ``.npz`` in an ignored
folder, with the seconds they took beside them.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.data import DiscreteData, discretize
from causalcal.edgecal import SimulatedCausalPairs, SimulatedPairs
from causalcal.edges import EdgeProbabilities, EdgeType, dense_labels, pair_index
from causalcal.graph import PDAG, dag_to_cpdag
from causalcal.simulate import load_network
from causalcal.workflow import simulated_pairs

#: The real data set's case name (its reference graph: Sachs et al.'s consensus network).
SACHS = "sachs-real"
#: Where the repository keeps the Sachs files (copied from the cdt 0.6.0 wheel, MIT).
SACHS_DIR = Path(__file__).resolve().parent / "data" / "sachs"
SACHS_DATA, SACHS_GRAPH = "cyto_full_data.csv", "cyto_full_target.csv"


def stable_seed(*parts: object) -> int:
    """A seed that depends only on ``parts`` (not on Python's hash randomisation)."""
    return zlib.crc32("/".join(map(str, parts)).encode())


@dataclass
class Case:
    """One data set with its reference graph, in the data's own variable order."""

    name: str
    network: str
    n: int
    data: DiscreteData
    #: true edge type (:class:`EdgeType`) of every pair, row-major pair order (i < j)
    truth: np.ndarray
    #: (E, 2) arcs of the reference DAG, (cause, effect) as variable indices
    arcs: np.ndarray
    #: whether ``truth`` is the reference DAG's CPDAG (False: a cyclic reference graph,
    #: whose arcs are taken as oriented)
    cpdag: bool = True

    @property
    def names(self) -> list[str]:
        """Variable names in the data's column order."""
        return list(self.data.names)

    @property
    def n_vars(self) -> int:
        """Number of variables."""
        return self.data.n_vars


def _is_acyclic(n_vars: int, arcs: np.ndarray) -> bool:
    """Kahn's algorithm: True iff the arcs form no directed cycle."""
    indegree = np.bincount(arcs[:, 1], minlength=n_vars) if len(arcs) else np.zeros(n_vars)
    children: list[list[int]] = [[] for _ in range(n_vars)]
    for a, b in arcs:
        children[a].append(int(b))
    stack = [v for v in range(n_vars) if indegree[v] == 0]
    seen = 0
    while stack:
        v = stack.pop()
        seen += 1
        for c in children[v]:
            indegree[c] -= 1
            if indegree[c] == 0:
                stack.append(c)
    return seen == n_vars


def truth_labels(n_vars: int, arcs: np.ndarray) -> tuple[np.ndarray, bool]:
    """Edge type of every pair: the CPDAG of the DAG ``arcs`` (cause, effect), or, if the
    arcs have a cycle, the arcs as oriented. Returns ``(labels, is_cpdag)``."""
    arcs = np.asarray(arcs, dtype=np.int64).reshape(-1, 2)
    if _is_acyclic(n_vars, arcs):
        dag = PDAG.from_edges(n_vars, [tuple(map(int, a)) for a in arcs])
        pairs, labels = dag_to_cpdag(dag).pair_labels()
        return dense_labels(pairs, labels, n_vars), True
    labels = np.zeros(n_vars * (n_vars - 1) // 2, dtype=np.int8)
    lo, hi = arcs.min(axis=1), arcs.max(axis=1)
    forward = arcs[:, 0] < arcs[:, 1]
    labels[pair_index(lo, hi, n_vars)] = np.where(forward, EdgeType.FORWARD,
                                                  EdgeType.BACKWARD)
    return labels, False


def simulated_case(network: str, n: int) -> Case:
    """``n`` rows sampled from a shipped benchmark network (seeded by network and n),
    columns shuffled (seeded by the network)."""
    net = load_network(network)
    data = net.sample(n, seed=stable_seed(network, n))
    order = np.random.default_rng(stable_seed(network, "columns")).permutation(net.n_vars)
    frame = data.to_frame().iloc[:, order]
    position = np.empty(net.n_vars, dtype=np.int64)
    position[order] = np.arange(net.n_vars)  # original index -> shuffled index
    arcs = position[net.edges()]
    labels, is_cpdag = truth_labels(net.n_vars, arcs)
    return Case(f"{network}-n{n}", network, n, DiscreteData.from_frame(frame), labels,
                arcs, is_cpdag)


def find_sachs_dir(option: str | Path | None = None) -> Path | None:
    """The folder holding the two Sachs CSVs: ``option`` if given, else the repository's
    copy, else ``cdt/data/resources`` of an installed cdt (found without importing it)."""
    candidates = [Path(option)] if option else [SACHS_DIR]
    if not option:
        spec = importlib.util.find_spec("cdt")
        if spec is not None and spec.submodule_search_locations:
            base = Path(next(iter(spec.submodule_search_locations)))
            candidates.append(base / "data" / "resources")
    for folder in candidates:
        if (folder / SACHS_DATA).is_file() and (folder / SACHS_GRAPH).is_file():
            return folder
    return None


def sachs_case(folder: Path) -> Case:
    """Sachs et al. (2005): 11 protein levels in tertiles, the 18-arc consensus network."""
    raw = pd.read_csv(folder / SACHS_DATA)
    frame = discretize(raw, "quantile", 3, columns=list(raw.columns))
    data = DiscreteData.from_frame(frame)
    graph = pd.read_csv(folder / SACHS_GRAPH)
    index = {name: k for k, name in enumerate(data.names)}
    arcs = np.column_stack([graph.iloc[:, 0].map(index), graph.iloc[:, 1].map(index)])
    if np.isnan(arcs.astype(float)).any():
        raise ValueError(f"{folder / SACHS_GRAPH}: names not in the data's columns")
    arcs = arcs.astype(np.int64)
    labels, is_cpdag = truth_labels(data.n_vars, arcs)
    return Case(SACHS, "sachs (Sachs et al. 2005)", data.n_samples, data, labels, arcs,
                is_cpdag)


def cached_bootstrap(case: Case, n_boot: int, cache: Path, jobs: int = 1,
                     ancestral: bool = False, score: str = "bdeu"
                     ) -> tuple[EdgeProbabilities, float]:
    """The case's bootstrap probabilities (seed 0) and the seconds they took: read from
    ``cache`` or computed (resumable through a checkpoint folder) and stored there.

    ``ancestral``: with the ancestral counts (``CASE_bNBOOT_anc.npz``, issue 30); the
    replicates are seeded, so its edge probabilities must equal those of the plain
    ``CASE_bNBOOT.npz`` where that exists (asserted when computed).  ``score``: FGES's
    local score (``_bic`` ends the names of BIC's files)."""
    cache.mkdir(parents=True, exist_ok=True)
    tail = "" if score == "bdeu" else f"_{score}"
    stem = cache / f"{case.name}_b{n_boot}{'_anc' if ancestral else ''}{tail}"
    path, timing = Path(f"{stem}.npz"), Path(f"{stem}.timing.json")
    if path.is_file() and timing.is_file():
        probs = EdgeProbabilities.load(path)
        if ancestral and probs.ancestral is None:
            raise AssertionError(f"{path}: no ancestral counts")
        return probs, json.loads(timing.read_text())["seconds"]
    checkpoint = Path(f"{stem}_checkpoint")
    start = time.perf_counter()
    options = {} if score == "bdeu" else {"score": score}
    probs = bootstrap_edge_probabilities(case.data, n_boot=n_boot, n_jobs=jobs, seed=0,
                                         checkpoint=checkpoint, progress=False,
                                         ancestral=ancestral, **options)
    seconds = time.perf_counter() - start
    plain = cache / f"{case.name}_b{n_boot}{tail}.npz"
    if ancestral and plain.is_file():
        check_same_edges(probs, EdgeProbabilities.load(plain), plain)
    probs.save(path)
    timing.write_text(json.dumps({"seconds": seconds, "n_boot": n_boot, "jobs": jobs,
                                  "n_vars": case.n_vars, "n_rows": case.data.n_samples,
                                  "ancestral": ancestral}))
    shutil.rmtree(checkpoint, ignore_errors=True)
    return probs, seconds


def check_same_edges(probs: EdgeProbabilities, other: EdgeProbabilities, source) -> None:
    """Assert two bootstraps of one case have the same edge-type probabilities."""
    same = (probs.names == other.names and probs.n_boot == other.n_boot
            and np.array_equal(probs.dense(np.float64), other.dense(np.float64)))
    if not same:
        raise AssertionError(f"the ancestral bootstrap's edge probabilities differ from "
                             f"{source}'s (same seed and settings)")


def cached_simulations(case: Case, probs: EdgeProbabilities, n_simulations: int,
                       cache: Path, jobs: int = 1, ancestral: bool = False
                       ) -> SimulatedPairs:
    """The case's simulated pairs (``discover(simulations=…)`` with the bootstrap's
    settings, seed 0): read from ``cache`` or computed (resumable) and stored there.
    ``ancestral``: the causal relations' :class:`SimulatedCausalPairs`
    (``CASE_bNBOOT_simR_anc.table.npz``; issue 30), from the same simulated data sets and
    replicates (the checkpoint folder is the edge run's)."""
    stem = cache / f"{case.name}_b{probs.n_boot}_sim{n_simulations}"
    path = Path(f"{stem}{'_anc' if ancestral else ''}.table.npz")
    kind = SimulatedCausalPairs if ancestral else SimulatedPairs
    if path.is_file():
        with np.load(path) as z:
            return kind(z["table"], n_simulations, int(z["n_edges"]), float(z["seconds"]))
    checkpoint = Path(f"{stem}_checkpoint")
    settings = BootstrapSettings(n_boot=probs.n_boot, seed=0, n_jobs=jobs,
                                 checkpoint=checkpoint, progress=False)
    sims = simulated_pairs(case.data, probs, settings, n_simulations,
                           relations="causal" if ancestral else "edges")
    np.savez(path, table=sims.table, n_edges=sims.n_edges, seconds=sims.seconds)
    shutil.rmtree(checkpoint, ignore_errors=True)
    return sims


def load_cases(networks: list[str], sizes: list[int], sachs_dir: str | None = None
               ) -> tuple[list[Case], list[str]]:
    """The cases to run, in the order given (each network at every n; ``sachs-real``
    once), and messages about the ones that are not available."""
    cases: list[Case] = []
    messages: list[str] = []
    for network in networks:
        if network == SACHS:
            folder = find_sachs_dir(sachs_dir)
            if folder is None:
                messages.append(f"{SACHS}: skipped, no {SACHS_DATA} / {SACHS_GRAPH} found "
                                "(give --sachs-dir, or install cdt)")
                continue
            cases.append(sachs_case(folder))
            continue
        cases.extend(simulated_case(network, n) for n in sizes)
    return cases, messages
