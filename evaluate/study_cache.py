"""The study's cached stage (docs/design.md §9.5): network, data and bootstrap of one
(V, E, repeat), shared by every N and every calibrator.

Files under ``cache/V{V}_E{E}_r{r}/``: ``meta.json`` (settings and seeds), ``network.json``,
``truth.npz``, ``data.npz``, ``probs.npz`` and the bootstrap checkpoint ``bootstrap/``; made
on demand from these, ``features.npz`` (pair features) and, for causal relations
(docs/design.md §9.9), ``ancestral.npz`` (the replicates' ancestral counts) and
``causal_truth.npz`` (the true DAG's ancestry).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from causalcal._io import read_npz_arrays
from causalcal.ancestry import AncestralCounts
from causalcal.causal import CausalProbabilities
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities

from .study_config import StudyConfig, unit_seeds
from .study_files import check_same, dumps, savez, write_text

__all__ = ["prepare_unit", "unit_causal", "unit_features"]


def _unit_meta(config: StudyConfig, cache: Path, v: int, e: int, r: int) -> dict:
    """The unit's settings and seeds; checked against (or written to) ``meta.json``."""
    meta_path = cache / "meta.json"
    meta = {"V": v, "E": e, "repeat": r, **config.cache_key(),
            **unit_seeds(config.seed, v, e, r)}
    if meta_path.exists():
        stored = json.loads(meta_path.read_text())
        check_same(meta_path, stored, meta)
        return {**stored, **json.loads(dumps(meta))}
    write_text(meta_path, dumps(meta))
    return meta


def _load_truth(path: Path) -> np.ndarray:
    return read_npz_arrays(path, "labels")["labels"]


def _network(config: StudyConfig, cache: Path, v: int, e: int, meta: dict):
    """The unit's network (cached) and its truth labels (cached)."""
    from causalcal.simulate import BayesianNetwork, random_network

    net_path, truth_path = cache / "network.json", cache / "truth.npz"
    if net_path.exists():
        network = BayesianNetwork.load(net_path)
    else:
        network = random_network(v, e, seed=meta["network_seed"], **config.network_options)
        network.save(net_path)
    if not truth_path.exists():
        savez(truth_path, labels=np.asarray(network.truth_dense(), dtype=np.int8))
    return network, _load_truth(truth_path)


def _read_data(path: Path) -> DiscreteData:
    z = read_npz_arrays(path, "codes", "names", "arities")
    return DiscreteData(z["codes"], [str(n) for n in z["names"]], z["arities"])


def _data(config: StudyConfig, cache: Path, network, meta: dict) -> DiscreteData:
    """The unit's data set (cached)."""
    data_path = cache / "data.npz"
    if data_path.exists():
        return _read_data(data_path)
    data = network.sample(config.n_samples, seed=meta["data_seed"])
    savez(data_path, codes=data.codes, names=np.asarray(data.names, dtype=str),
          arities=np.asarray(data.arities))
    return data


def prepare_unit(config: StudyConfig, cache: Path, v: int, e: int, r: int,
                 progress: bool) -> tuple[EdgeProbabilities, np.ndarray, dict]:
    """Network, data and bootstrap of (V, E, r), from the cache or computed and cached.

    Returns the bootstrap probabilities, the truth labels of all pairs and the unit's meta.
    """
    meta = _unit_meta(config, cache, v, e, r)
    probs_path, truth_path = cache / "probs.npz", cache / "truth.npz"
    if probs_path.exists() and truth_path.exists():
        return EdgeProbabilities.load(probs_path), _load_truth(truth_path), meta
    network, truth = _network(config, cache, v, e, meta)
    data = _data(config, cache, network, meta)
    from causalcal.bootstrap import bootstrap_edge_probabilities

    start = time.perf_counter()
    probs = bootstrap_edge_probabilities(
        data, n_boot=config.n_boot, search=config.search, n_jobs=config.n_jobs,
        seed=meta["bootstrap_seed"], checkpoint=str(cache / "bootstrap"), progress=progress,
        **config.search_options,
    )
    probs.save(probs_path)
    meta["bootstrap_seconds"] = time.perf_counter() - start
    meta["true_counts"] = np.bincount(truth, minlength=4).tolist()
    write_text(cache / "meta.json", dumps(meta))
    return probs, truth, meta


def unit_features(config: StudyConfig, cache: Path, meta: dict) -> np.ndarray:
    """Raw pair features of the unit's bootstrap (cached in ``features.npz``), computed
    from its checkpoint replicates: no search is rerun."""
    path = cache / "features.npz"
    if path.exists():
        return read_npz_arrays(path, "features")["features"]
    from causalcal.bootstrap.pair_features import checkpoint_pair_features

    data = _read_data(cache / "data.npz")
    features = checkpoint_pair_features(
        data, cache / "bootstrap", n_boot=config.n_boot, seed=meta["bootstrap_seed"],
        search=config.search, **config.search_options)
    savez(path, features=features)
    return features


def _ancestral_counts(config: StudyConfig, cache: Path, meta: dict,
                      data: DiscreteData) -> AncestralCounts:
    """The bootstrap's ancestral counts (cached in ``ancestral.npz``), from its checkpoint
    replicates: no search is rerun."""
    path = cache / "ancestral.npz"
    if path.exists():
        z = read_npz_arrays(path, "definite", "possible", "n_boot")
        return AncestralCounts(z["definite"], z["possible"], int(z["n_boot"]))
    from causalcal.bootstrap.ancestral import checkpoint_ancestral_counts

    counts = checkpoint_ancestral_counts(
        data, cache / "bootstrap", n_boot=config.n_boot, seed=meta["bootstrap_seed"],
        search=config.search, **config.search_options)
    savez(path, definite=counts.definite, possible=counts.possible,
          n_boot=np.int64(counts.n_boot))
    return counts


def _causal_truth(cache: Path) -> np.ndarray:
    """The true DAG's :class:`~causalcal.pairs.CausalType` of every pair (cached in
    ``causal_truth.npz``)."""
    path = cache / "causal_truth.npz"
    if not path.exists():
        from causalcal.ancestry import causal_truth
        from causalcal.simulate import BayesianNetwork

        network = BayesianNetwork.load(cache / "network.json")
        savez(path, labels=causal_truth(network.dag()))
    return _load_truth(path)


def unit_causal(config: StudyConfig, cache: Path,
                meta: dict) -> tuple[CausalProbabilities, np.ndarray]:
    """The unit's raw causal probabilities (docs/design.md §6.1) and causal truth, after
    :func:`prepare_unit` made its bootstrap (docs/design.md §9.9)."""
    data = _read_data(cache / "data.npz")
    counts = _ancestral_counts(config, cache, meta, data)
    return CausalProbabilities.from_counts(counts, data.names), _causal_truth(cache)
