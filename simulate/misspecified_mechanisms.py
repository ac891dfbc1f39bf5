"""Misspecified mechanisms over a random DAG (issue 39, item 1; docs/design.md §9.11):
continuous nonlinear variables cut into quantile bins, and data pooled over experimental
conditions whose column is not given. Re-exported by :mod:`causalcal.simulate.misspecified`.
"""

from __future__ import annotations

import numpy as np

from causalcal.data import DiscreteData
from causalcal.errors import InputError
from causalcal.simulate.generate import random_dag, random_network
from causalcal.simulate.misspecified_truth import (
    MisspecifiedData,
    quantile_codes,
    truth_from_full,
)
from causalcal.simulate.network import BayesianNetwork, topological_order

#: the nonlinear functions of a parent's (standardised) value
FUNCTIONS = ("tanh", "sin", "square")


def _apply(kind: str, scale: float, x: np.ndarray) -> np.ndarray:
    if kind == "tanh":
        return np.tanh(scale * x)
    if kind == "sin":
        return np.sin(scale * x)
    return x * x - 1.0


def _standardised(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else x - x.mean()


def _mechanism(parent_values: list[np.ndarray], additive: bool,
               rng: np.random.Generator) -> np.ndarray:
    """The signal of one node: Σ w_k f_k(parent_k) (``additive``) or Π f_k(parent_k),
    each f_k drawn from :data:`FUNCTIONS` with a scale in [1, 2] (weights ±[0.5, 1.5])."""
    terms = []
    for x in parent_values:
        kind = FUNCTIONS[int(rng.integers(len(FUNCTIONS)))]
        terms.append(_apply(kind, float(rng.uniform(1.0, 2.0)), x))
    if additive:
        weights = rng.uniform(0.5, 1.5, len(terms)) * rng.choice([-1.0, 1.0], len(terms))
        return np.sum([w * t for w, t in zip(weights, terms)], axis=0)
    return np.prod(terms, axis=0)


def continuous_nonlinear(n: int, seed: int | None = None, n_vars: int = 30,
                         n_edges: int = 40, additive: bool = True, noise: float = 0.5,
                         n_bins: int = 3) -> MisspecifiedData:
    """``n`` rows of continuous variables over a random DAG (``random_dag``): a root is
    N(0, 1); any other node is its mechanism's signal (:func:`_mechanism`, standardised)
    plus N(0, σ²) with σ = ``noise``, standardised. Every column is then cut into ``n_bins``
    quantile bins. Truth: the DAG (nothing is hidden)."""
    if n_bins < 2:
        raise InputError(f"n_bins must be ≥ 2, got {n_bins!r}")
    rng = np.random.default_rng(seed)
    graph, mechanisms, noises = rng.spawn(3)
    parents = random_dag(n_vars, n_edges, seed=graph)
    values = np.zeros((n_vars, n))
    for v in topological_order(parents, n_vars):
        pa = parents[v]
        if len(pa):
            signal = _standardised(_mechanism([values[p] for p in pa], additive, mechanisms))
            values[v] = _standardised(signal + noise * noises.standard_normal(n))
        else:
            values[v] = noises.standard_normal(n)
    codes = np.column_stack([quantile_codes(x, n_bins) for x in values])
    names = [f"X{k}" for k in range(n_vars)]
    data = DiscreteData(codes, names, [n_bins] * n_vars)
    kind = "additive" if additive else "non-additive (products)"
    return truth_from_full(
        data, parents, np.arange(n_vars),
        f"continuous {kind} nonlinear mechanisms (tanh, sin, square), noise sd {noise}, "
        f"random DAG of {n_vars} variables and {n_edges} edges, {n_bins} quantile bins, "
        f"n = {n}", {"family": "additive" if additive else "nonadditive"})


def _intervened(net: BayesianNetwork, targets: np.ndarray, hard: np.ndarray,
                rng: np.random.Generator) -> BayesianNetwork:
    """The network with each target's CPT replaced: a hard intervention fixes it to one
    category drawn uniformly (every row one-hot), a soft one redraws every row from the
    flat Dirichlet(1)."""
    cpts = [t.copy() for t in net.cpts]
    for v, is_hard in zip(targets, hard):
        rows, arity = cpts[v].shape
        if is_hard:
            cpts[v] = np.zeros((rows, arity))
            cpts[v][:, int(rng.integers(arity))] = 1.0
        else:
            draws = rng.standard_exponential((rows, arity))
            cpts[v] = draws / draws.sum(axis=1, keepdims=True)
    return BayesianNetwork(net.names, net.arities, net.parents, cpts)


def pooled_conditions(n: int, seed: int | None = None, n_vars: int = 30, n_edges: int = 40,
                      n_conditions: int = 5, targets_per_condition: int = 2,
                      hard_share: float = 0.5) -> MisspecifiedData:
    """``n`` rows pooled over ``n_conditions`` conditions of one random network
    (``random_network``, arities 2–3) in near-equal shares: condition 0 observational,
    each other one intervening on ``targets_per_condition`` nodes drawn uniformly, each
    intervention hard (the target fixed) with probability ``hard_share``, else soft (its
    CPT redrawn). The condition column is not in the data. Truth: the system's DAG (the
    condition is a hidden parent of the targets, joining no observed pair)."""
    if n_conditions < 1 or n < n_conditions:
        raise InputError(f"need 1 ≤ n_conditions ≤ n, got {n_conditions} and {n}")
    rng = np.random.default_rng(seed)
    graph, plan, cpt_rng, sample = rng.spawn(4)
    net = random_network(n_vars, n_edges, seed=graph)
    sizes = np.full(n_conditions, n // n_conditions)
    sizes[: n % n_conditions] += 1
    blocks, interventions = [net.sample(int(sizes[0]), seed=sample).codes], []
    targeted: set[int] = set()
    for c in range(1, n_conditions):
        targets = plan.choice(n_vars, size=targets_per_condition, replace=False)
        hard = plan.random(targets_per_condition) < hard_share
        targeted.update(int(t) for t in targets)
        interventions.append([(net.names[t], "hard" if h else "soft")
                              for t, h in zip(targets, hard)])
        condition = _intervened(net, targets, hard, cpt_rng)
        blocks.append(condition.sample(int(sizes[c]), seed=sample).codes)
    data = DiscreteData(np.concatenate(blocks), net.names, net.arities, net.state_names)
    parents = [list(pa) + ([n_vars] if v in targeted else []) for v, pa in
               enumerate(net.parents)] + [[]]
    return truth_from_full(
        data, parents, np.arange(n_vars),
        f"random network of {n_vars} variables and {n_edges} edges pooled over "
        f"{n_conditions} conditions ({targets_per_condition} targets each, hard share "
        f"{hard_share}), condition not given, n = {n}",
        {"family": "pooled", "sizes": sizes.tolist(), "interventions": interventions,
         "system_arcs": [(net.names[a], net.names[b]) for a, b in net.edges()]})
