"""Structural models of continuous and mixed data: linear-Gaussian, nonlinear additive and
mixed networks, their sampling and their truth (docs/design.md §4.1; issue 50).

A :class:`StructuralModel` is a DAG whose nodes are continuous or discrete, each with an
additive mechanism over its parents. A parent enters through its *standardised* value
``z`` (continuous: the column's values centred and scaled by the sample's mean and
standard deviation) or its category:

* a continuous node: ``x = Σ_continuous w·f(z) + Σ_discrete shift[category] + σ·ε``,
  ``ε ~ N(0, 1)``, ``f`` one of :data:`FUNCTIONS` per arc (``linear``: a linear-Gaussian
  SEM; ``tanh``, ``sin``, ``square``: a nonlinear additive one; a discrete parent shifts
  the mean: conditional Gaussian);
* a discrete node of ``r`` categories: ``P(c = k) ∝ exp(α_k + Σ_continuous β_k·f(z) +
  Σ_discrete table[category, k])`` (multinomial logistic).

The truth is the DAG's CPDAG (:meth:`StructuralModel.cpdag`, edge types per pair as for a
:class:`~causalcal.simulate.BayesianNetwork`) and, with hidden nodes, the PAG of the
observed ones (:meth:`StructuralModel.pag_truth`, :mod:`.latent_truth`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from causalcal._io import atomic_write, input_file, parse_json
from causalcal.data import MixedData
from causalcal.edges import dense_labels
from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag
from causalcal.simulate.latent_truth import pag_labels
from causalcal.simulate.network import SeedLike, topological_order

__all__ = ["FUNCTIONS", "StructuralModel"]

FORMAT_NAME = "causalcal.structural_model"
FORMAT_VERSION = 1
#: How a continuous parent's standardised value ``z`` enters a mechanism.
FUNCTIONS = {
    "linear": lambda z: z,
    "tanh": lambda z: np.tanh(2.0 * z),
    "sin": lambda z: np.sin(2.0 * z),
    "square": lambda z: z * z - 1.0,
}


class StructuralModel:
    """A DAG of continuous and discrete nodes with additive mechanisms (module docstring).

    Parameters
    ----------
    names : variable names.
    parents : each node's parent indices.
    arities : 0 for a continuous node, its number of categories (≥ 2) for a discrete one.
    effects : for each node, one effect per parent (in sorted parent order): a dict with
        ``weight`` and ``function`` (continuous parent of a continuous node), ``weights``
        (r values) and ``function`` (continuous parent of a discrete node), ``shifts``
        (r_parent values: discrete parent of a continuous node) or ``table`` (r_parent ×
        r: discrete parent of a discrete node).
    noise : σ of a continuous node; ignored (0) for a discrete one.
    intercepts : α (r values) of a discrete node; ``[]`` for a continuous one.
    meta : provenance (generator, seed), saved with the model.

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.simulate import StructuralModel
    >>> model = StructuralModel(["a", "b"], parents=[[], [0]], arities=[0, 0],
    ...                         effects=[[], [{"weight": 2.0, "function": "linear"}]],
    ...                         noise=[1.0, 0.5], intercepts=[[], []])
    >>> model
    StructuralModel(n_vars=2, n_edges=1, continuous=2)
    >>> data = model.sample(500, seed=0)
    >>> data.to_frame().shape, bool(np.corrcoef(data.values.T)[0, 1] > 0.9)
    ((500, 2), True)
    """

    def __init__(self, names: Sequence[str], parents: Sequence[Sequence[int]],
                 arities: Sequence[int], effects: Sequence[Sequence[dict]],
                 noise: Sequence[float], intercepts: Sequence[Sequence[float]],
                 meta: dict | None = None) -> None:
        self.names = [str(n) for n in names]
        v = len(self.names)
        self.parents = [np.sort(np.asarray(p, dtype=np.int64).reshape(-1)) for p in parents]
        self.arities = np.asarray(arities, dtype=np.int64).reshape(-1)
        if len(self.parents) != v or len(self.arities) != v or len(effects) != v:
            raise InputError(f"{v} names need {v} parent sets, arities and effect lists")
        if np.any((self.arities == 1) | (self.arities < 0)):
            raise InputError("an arity is 0 (continuous) or at least 2")
        self.effects = [[dict(e) for e in node] for node in effects]
        for k, (pa, eff) in enumerate(zip(self.parents, self.effects)):
            if len(pa) != len(eff):
                raise InputError(f"node {self.names[k]!r}: {len(eff)} effects, {len(pa)} parents")
            for e in eff:
                if e.get("function", "linear") not in FUNCTIONS:
                    raise InputError(f"node {self.names[k]!r}: unknown function "
                                     f"{e['function']!r}; one of {', '.join(FUNCTIONS)}")
        self.noise = np.asarray(noise, dtype=np.float64).reshape(-1)
        self.intercepts = [np.asarray(a, dtype=np.float64).reshape(-1) for a in intercepts]
        self.order = topological_order(self.parents, v)
        self.meta = dict(meta or {})

    # ------------------------------------------------------------------ shape
    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def n_edges(self) -> int:
        return int(sum(len(p) for p in self.parents))

    @property
    def is_continuous(self) -> np.ndarray:
        return self.arities == 0

    def __repr__(self) -> str:
        return (f"StructuralModel(n_vars={self.n_vars}, n_edges={self.n_edges}, "
                f"continuous={int(self.is_continuous.sum())})")

    # --------------------------------------------------------------- sampling
    def sample(self, n: int, seed: SeedLike = None,
               observed: Sequence[int] | None = None) -> MixedData:
        """``n`` rows drawn in topological order (seeded), as :class:`MixedData` of all
        nodes or of the ``observed`` ones (the others hidden)."""
        if int(n) != n or n < 2:
            raise InputError(f"n must be an integer >= 2, got {n}")
        rng = np.random.default_rng(seed)
        n = int(n)
        columns: list[np.ndarray | None] = [None] * self.n_vars
        standard: list[np.ndarray | None] = [None] * self.n_vars
        for v in self.order:
            columns[v] = self._draw(int(v), columns, standard, n, rng)
            if self.arities[v] == 0:
                col = columns[v]
                sd = col.std()
                standard[v] = (col - col.mean()) / (sd if sd > 0 else 1.0)
        keep = list(range(self.n_vars)) if observed is None else [int(k) for k in observed]
        cont = [k for k in keep if self.arities[k] == 0]
        disc = [k for k in keep if self.arities[k] > 0]
        values = np.column_stack([columns[k] for k in cont]) if cont else np.zeros((n, 0))
        codes = (np.column_stack([columns[k] for k in disc]).astype(np.int64) if disc
                 else np.zeros((n, 0), np.int64))
        return MixedData(values, codes, [self.arities[k] == 0 for k in keep],
                         [self.names[k] for k in keep], [int(self.arities[k]) for k in disc])

    def _draw(self, v: int, columns, standard, n: int, rng) -> np.ndarray:
        r = int(self.arities[v])
        total = np.zeros(n) if r == 0 else np.tile(self.intercepts[v], (n, 1))
        for p, e in zip(self.parents[v], self.effects[v]):
            if self.arities[p] == 0:
                fz = FUNCTIONS[e.get("function", "linear")](standard[p])
                total += (e["weight"] * fz if r == 0
                          else fz[:, None] * np.asarray(e["weights"])[None, :])
            else:
                lookup = np.asarray(e["shifts"] if r == 0 else e["table"])
                total += lookup[columns[p].astype(np.intp)]
        if r == 0:
            return total + self.noise[v] * rng.standard_normal(n)
        prob = np.exp(total - total.max(axis=1, keepdims=True))
        cum = np.cumsum(prob / prob.sum(axis=1, keepdims=True), axis=1)
        u = rng.random(n)[:, None]
        return np.minimum((u > cum).sum(axis=1), r - 1)

    # ------------------------------------------------------------------ truth
    def dag(self) -> PDAG:
        """The DAG (all edges directed)."""
        edges = [(int(p), v) for v, pa in enumerate(self.parents) for p in pa]
        return PDAG.from_edges(self.n_vars, edges, names=self.names)

    def cpdag(self) -> PDAG:
        """The true CPDAG of the DAG."""
        return dag_to_cpdag(self.dag())

    def edge_labels(self) -> tuple[np.ndarray, np.ndarray]:
        """True edge types of the CPDAG's adjacent pairs (as a BayesianNetwork's)."""
        return self.cpdag().pair_labels()

    def truth_dense(self) -> np.ndarray:
        """The CPDAG's edge type (int8) of every pair, row-major pair order."""
        pairs, labels = self.edge_labels()
        return dense_labels(pairs, labels, self.n_vars)

    def pag_truth(self, observed: Sequence[int]) -> np.ndarray:
        """With the other nodes hidden: the true PAG's edge type (``PAGEdgeType``, int8) of
        every pair of the ``observed`` nodes (:func:`.latent_truth.pag_labels`)."""
        return pag_labels(self.parents, [int(k) for k in observed])

    # --------------------------------------------------------------------- I/O
    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "names": self.names,
                "parents": [p.tolist() for p in self.parents],
                "arities": self.arities.tolist(), "effects": _plain(self.effects),
                "noise": self.noise.tolist(),
                "intercepts": [a.tolist() for a in self.intercepts], "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict, source: str = "model") -> StructuralModel:
        if not isinstance(d, dict) or d.get("format") != FORMAT_NAME:
            raise InputError(f"{source}: not a causalcal structural model (format field)")
        if int(d.get("version", 0)) > FORMAT_VERSION:
            raise InputError(f"{source}: format version {d['version']} is newer than this "
                             "causalcal")
        try:
            return cls(d["names"], d["parents"], d["arities"], d["effects"], d["noise"],
                       d["intercepts"], d.get("meta"))
        except KeyError as err:
            raise InputError(f"{source}: missing field {err}") from None

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as JSON, atomically (floats round-trip exactly)."""
        with atomic_write(path, encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, separators=(",", ":"), allow_nan=False)

    @classmethod
    def load(cls, path: str | os.PathLike) -> StructuralModel:
        path = input_file(path)
        return cls.from_dict(parse_json(path.read_text(encoding="utf-8"), path), str(path))


def _plain(value: Any) -> Any:
    """Effects as JSON values (numpy arrays and scalars as lists and floats)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
