"""Random structural models: linear-Gaussian SEMs, nonlinear additive SEMs and mixed
networks over a uniform random DAG (docs/design.md §4.1; issue 50).

:func:`random_sem` draws the DAG as :func:`~causalcal.simulate.random_dag` does (random
order, ``n_edges`` uniform forward pairs), then every mechanism of
:class:`~causalcal.simulate.sem.StructuralModel`:

* ``kind="linear-gaussian"``: every node continuous, every arc ``linear`` with a weight
  of magnitude U(``weight_range``) and random sign, noise σ ~ U(``noise_range``);
* ``kind="nonlinear"``: the same with each arc's function drawn from ``tanh``, ``sin``
  and ``square`` (a symmetric mechanism no linear score sees);
* ``kind="mixed"``: each node discrete with probability ``discrete_fraction`` (arity
  drawn from ``arities``), linear arcs: a continuous node's mean shifts with a discrete
  parent's category (shifts U(−1.5, 1.5), centred: conditional Gaussian), a discrete
  node's categories follow a multinomial logistic model (weights and table entries of
  magnitude U(``weight_range``) per category, random sign; intercepts N(0, 0.5)).
"""

from __future__ import annotations

import numpy as np

from causalcal.errors import InputError
from causalcal.simulate.generate import random_dag
from causalcal.simulate.network import SeedLike
from causalcal.simulate.sem import StructuralModel

__all__ = ["SEM_KINDS", "random_sem"]

#: The kinds of random structural model.
SEM_KINDS = ("linear-gaussian", "nonlinear", "mixed")
NONLINEAR = ("tanh", "sin", "square")


def _signed(rng: np.random.Generator, low: float, high: float, size=None) -> np.ndarray:
    return rng.uniform(low, high, size) * rng.choice([-1.0, 1.0], size)


def random_sem(n_nodes: int, n_edges: int, kind: str = "linear-gaussian",
               seed: SeedLike = None, *, weight_range: tuple[float, float] = (0.5, 1.5),
               noise_range: tuple[float, float] = (0.5, 1.0),
               discrete_fraction: float = 0.5, arities: tuple[int, ...] = (2, 3),
               max_in_degree: int | None = None) -> StructuralModel:
    """A random :class:`~causalcal.simulate.sem.StructuralModel` (module docstring);
    the same seed gives the same model. Variables are named ``X0 … X{V−1}``.

    Examples
    --------
    >>> from causalcal.simulate import random_sem
    >>> model = random_sem(6, 6, kind="mixed", seed=0)
    >>> model.n_vars, model.n_edges, int(model.is_continuous.sum())
    (6, 6, 4)
    >>> model.sample(100, seed=1).names
    ['X0', 'X1', 'X2', 'X3', 'X4', 'X5']
    """
    if kind not in SEM_KINDS:
        raise InputError(f"kind must be one of {', '.join(SEM_KINDS)}, got {kind!r}")
    low, high = (float(x) for x in weight_range)
    if not 0 <= low <= high:
        raise InputError(f"weight_range must be 0 <= low <= high, got {weight_range}")
    if not 0 < noise_range[0] <= noise_range[1]:
        raise InputError(f"noise_range must be 0 < low <= high, got {noise_range}")
    if not 0 <= discrete_fraction <= 1:
        raise InputError(f"discrete_fraction must be in [0, 1], got {discrete_fraction}")
    if any(int(a) < 2 for a in arities):
        raise InputError(f"arities must be >= 2, got {arities}")
    rng = np.random.default_rng(seed)
    graph_seed, rng = rng.spawn(2)
    parents = random_dag(n_nodes, n_edges, seed=graph_seed, max_in_degree=max_in_degree)
    discrete = (rng.random(n_nodes) < discrete_fraction) if kind == "mixed" else \
        np.zeros(n_nodes, dtype=bool)
    arity = np.where(discrete, rng.choice(np.asarray(arities, dtype=np.int64), n_nodes), 0)
    effects, noise, intercepts = [], [], []
    for v in range(n_nodes):
        r = int(arity[v])
        node = []
        for p in parents[v]:
            function = rng.choice(NONLINEAR) if kind == "nonlinear" else "linear"
            rp = int(arity[p])
            if r == 0 and rp == 0:
                node.append({"weight": float(_signed(rng, low, high)), "function": str(function)})
            elif r == 0:
                shifts = rng.uniform(-1.5, 1.5, rp)
                node.append({"shifts": (shifts - shifts.mean()).tolist()})
            elif rp == 0:
                node.append({"weights": _signed(rng, low, high, r).tolist(),
                             "function": str(function)})
            else:
                node.append({"table": _signed(rng, low, high, (rp, r)).tolist()})
        effects.append(node)
        noise.append(float(rng.uniform(*noise_range)) if r == 0 else 0.0)
        intercepts.append(rng.normal(0.0, 0.5, r).tolist())
    meta = {"generator": "causalcal.simulate.random_sem", "kind": kind, "seed": _seed(seed),
            "weight_range": [low, high], "noise_range": list(noise_range)}
    return StructuralModel([f"X{k}" for k in range(n_nodes)], parents, arity.tolist(),
                           effects, noise, intercepts, meta)


def _seed(seed: SeedLike):
    return int(seed) if isinstance(seed, (int, np.integer)) else None
