"""Misspecified data sets with known truth: data no discrete BN over the observed
variables generated (issue 39, item 1; docs/design.md §9.11).

Families (each a function returning :class:`MisspecifiedData`, seeded):

- :func:`hidden_benchmark` — a benchmark network with some of its nodes that have two or
  more children hidden (hidden common causes, and hidden mediators on the way);
- :func:`latent_confounders` — a random network plus latent binary/ternary common causes,
  each acting on two or three observed variables;
- :func:`measurement_noise` — a benchmark network whose values are each replaced by a
  random category with a given probability;
- :func:`continuous_nonlinear` and :func:`pooled_conditions` in
  :mod:`causalcal.simulate.misspecified_mechanisms` (re-exported here).

The truth (observed DAG, its CPDAG's edge types, the full graph's ancestry) is
:func:`causalcal.simulate.misspecified_truth.truth_from_full`'s.
"""

from __future__ import annotations

import numpy as np

from causalcal.data import DiscreteData
from causalcal.errors import InputError
from causalcal.simulate.bif import load_network
from causalcal.simulate.generate import random_dag
from causalcal.simulate.misspecified_mechanisms import continuous_nonlinear, pooled_conditions
from causalcal.simulate.misspecified_truth import (
    MisspecifiedData,
    ancestor_matrix,
    dense_causal,
    observed_arcs,
    truth_from_full,
)
from causalcal.simulate.network import BayesianNetwork

__all__ = [
    "MisspecifiedData",
    "ancestor_matrix",
    "continuous_nonlinear",
    "dense_causal",
    "flat_dirichlet_cpts",
    "hidden_benchmark",
    "latent_confounders",
    "measurement_noise",
    "observed_arcs",
    "pooled_conditions",
    "truth_from_full",
]


def _network(network: BayesianNetwork | str) -> BayesianNetwork:
    return load_network(network) if isinstance(network, str) else network


def _columns(data: DiscreteData, columns: np.ndarray) -> DiscreteData:
    """The data of the given columns, in that order."""
    return DiscreteData(data.codes[:, columns], [data.names[c] for c in columns],
                        data.arities[columns], [data.categories[c] for c in columns])


def flat_dirichlet_cpts(arities: np.ndarray, parents: list[np.ndarray],
                        rng: np.random.Generator) -> list[np.ndarray]:
    """One flat-Dirichlet(1) row per parent configuration of every node
    (``random_network``'s CPTs)."""
    cpts = []
    for v, pa in enumerate(parents):
        rows = int(np.prod(arities[pa], dtype=np.int64))
        draws = rng.standard_exponential((rows, int(arities[v])))
        cpts.append(draws / draws.sum(axis=1, keepdims=True))
    return cpts


def hidden_benchmark(network: BayesianNetwork | str, n: int, seed: int | None = None,
                     fraction: float = 0.15) -> MisspecifiedData:
    """``n`` rows of a benchmark network with round(``fraction`` · V) of its nodes hidden,
    drawn uniformly among the nodes that have two or more children (at least one, at most
    all of those); the observed columns come in a seeded random order."""
    net = _network(network)
    if not 0 < fraction < 1:
        raise InputError(f"fraction must be in (0, 1), got {fraction!r}")
    rng = np.random.default_rng(seed)
    pick, order, sample = rng.spawn(3)
    n_children = np.bincount(net.edges()[:, 0], minlength=net.n_vars)
    eligible = np.flatnonzero(n_children >= 2)
    if not len(eligible):
        raise InputError(f"{net!r}: no node has two or more children")
    k = int(np.clip(round(fraction * net.n_vars), 1, len(eligible)))
    hidden = np.sort(pick.choice(eligible, size=k, replace=False))
    observed = order.permutation(np.setdiff1d(np.arange(net.n_vars), hidden))
    data = _columns(net.sample(n, seed=sample), observed)
    name = net.meta.get("name", network if isinstance(network, str) else "network")
    return truth_from_full(
        data, net.parents, observed,
        f"{name}: {k} of {len(eligible)} nodes with ≥ 2 children hidden, n = {n}",
        {"family": "hidden", "hidden": [net.names[h] for h in hidden]})


def latent_confounders(n: int, seed: int | None = None, n_observed: int = 30,
                       n_edges: int = 40, n_latent: int = 6,
                       children: tuple[int, int] = (2, 3)) -> MisspecifiedData:
    """``n`` rows of a random network over ``n_observed`` variables (``random_dag``,
    arities 2–3, flat-Dirichlet CPTs) with ``n_latent`` added hidden root causes
    (arity 2 or 3), each a parent of 2–3 (``children``) observed variables drawn
    uniformly; the hidden nodes are the last ``n_latent`` of the full graph."""
    rng = np.random.default_rng(seed)
    graph, extra, arity_rng, cpt_rng, sample = rng.spawn(5)
    parents = [list(pa) for pa in random_dag(n_observed, n_edges, seed=graph)]
    for h in range(n_latent):
        size = int(extra.integers(children[0], children[1] + 1))
        for child in extra.choice(n_observed, size=min(size, n_observed), replace=False):
            parents[int(child)].append(n_observed + h)
    parents += [[] for _ in range(n_latent)]
    arrays = [np.sort(np.asarray(pa, dtype=np.int64)) for pa in parents]
    arities = arity_rng.integers(2, 4, size=n_observed + n_latent)
    names = [f"X{k}" for k in range(n_observed)] + [f"H{k}" for k in range(n_latent)]
    net = BayesianNetwork(names, arities, arrays, flat_dirichlet_cpts(arities, arrays, cpt_rng))
    observed = np.arange(n_observed)
    data = _columns(net.sample(n, seed=sample), observed)
    return truth_from_full(
        data, arrays, observed,
        f"random DAG, {n_observed} observed variables, {n_edges} edges, {n_latent} latent "
        f"confounders on {children[0]}–{children[1]} variables each, n = {n}",
        {"family": "latent", "latent_children": [
            [names[v] for v in range(n_observed) if n_observed + h in parents[v]]
            for h in range(n_latent)]})


def measurement_noise(network: BayesianNetwork | str, n: int, seed: int | None = None,
                      rate: float = 0.1) -> MisspecifiedData:
    """``n`` rows of a benchmark network whose every value is, with probability ``rate``
    and independently, replaced by a category drawn uniformly from its variable's
    (possibly the same one); columns in a seeded random order. Truth: the network's."""
    net = _network(network)
    if not 0 <= rate <= 1:
        raise InputError(f"rate must be in [0, 1], got {rate!r}")
    rng = np.random.default_rng(seed)
    order, sample, noise = rng.spawn(3)
    observed = order.permutation(net.n_vars)
    clean = net.sample(n, seed=sample)
    codes = clean.codes.astype(np.int64)
    replace = noise.random(codes.shape) < rate
    random_codes = np.floor(noise.random(codes.shape) * clean.arities).astype(np.int64)
    codes = np.where(replace, random_codes, codes)
    noisy = DiscreteData(codes, clean.names, clean.arities, clean.categories)
    name = net.meta.get("name", network if isinstance(network, str) else "network")
    return truth_from_full(
        _columns(noisy, observed), net.parents, observed,
        f"{name} with {rate:.0%} of each variable's values replaced by a random category, "
        f"n = {n}", {"family": "noise", "rate": rate})
