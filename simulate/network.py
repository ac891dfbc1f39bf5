"""Discrete Bayesian networks: CPTs, vectorised ancestral sampling, true CPDAG, JSON I/O.

Thesis §6.2.4 steps 1–2 (docs/design.md §4). A :class:`BayesianNetwork` holds, for every
variable ``v``, its sorted parent indices and a conditional probability table
``cpts[v]`` of shape ``(n_parent_configs, arity[v])``.

Parent-configuration ordering
-----------------------------
Row ``r`` of ``cpts[v]`` is the parent configuration whose codes, taken over the
parents in **ascending index order** ``parents[v] = [p_0 < p_1 < … < p_{k-1}]``,
are ``np.unravel_index(r, arities[parents[v]])`` — C order, so the **last parent
varies fastest**::

    r = ((c[p_0] * a[p_1] + c[p_1]) * a[p_2] + c[p_2]) * … + c[p_{k-1}]

This is pgmpy's ``TabularCPD`` column order when the evidence is listed in the same
parent order (there ``values`` is the transpose, ``(arity, n_parent_configs)``).
A root node has one row.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from causalcal._io import atomic_write, input_file, parse_json
from causalcal._progress import progress as progress_report
from causalcal._validation import check_unique_names, warn_formula_names
from causalcal.data import DiscreteData, smallest_int_dtype
from causalcal.edges import dense_labels
from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag

__all__ = ["BayesianNetwork", "SeedLike"]

SeedLike = int | np.integer | np.random.Generator | np.random.SeedSequence | None

FORMAT_NAME = "causalcal.bayesian_network"
FORMAT_VERSION = 1
#: CPTs with more entries than this are stored in JSON as base64 float64 bytes
#: (exact, ~3× smaller than decimal text); smaller ones as nested lists.
JSON_INLINE_MAX = 4096
#: Tolerance on CPT row sums (rows are then used as given).
ROW_SUM_TOL = 1e-6
PROGRESS_MIN_VARS = 1000


def topological_order(parents: Sequence[np.ndarray], n_vars: int) -> np.ndarray:
    """A topological order (smallest ready index first, networkx's lexicographical
    topological sort); ``InputError`` on a cycle."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(range(n_vars))
    graph.add_edges_from((int(p), v) for v, pa in enumerate(parents) for p in pa)
    try:
        order = list(nx.lexicographical_topological_sort(graph))
    except nx.NetworkXUnfeasible:
        raise InputError("the parent sets contain a directed cycle; a Bayesian network "
                         "needs a DAG") from None
    return np.asarray(order, dtype=np.int64)


class BayesianNetwork:
    """A discrete Bayesian network (DAG + one CPT per variable).

    Parameters
    ----------
    names : variable names (unique).
    arities : number of states of each variable (≥ 1).
    parents : for each variable, its parent indices (any order; stored sorted ascending).
    cpts : for each variable, an array ``(n_parent_configs, arity)`` whose rows sum to 1,
        rows ordered as described in the module docstring.
    state_names : for each variable, its state labels (default ``0 … arity−1``).
    meta : free-form provenance (generator, seed, source file), saved with the network.
    """

    def __init__(
        self,
        names: Sequence[str],
        arities: Sequence[int],
        parents: Sequence[Sequence[int]],
        cpts: Sequence[np.ndarray],
        state_names: Sequence[Sequence[Any]] | None = None,
        meta: dict | None = None,
    ) -> None:
        self.names = [str(n) for n in names]
        v = len(self.names)
        check_unique_names(self.names, "variable name")
        warn_formula_names(self.names)
        self.arities = np.asarray(arities, dtype=np.int64).reshape(-1)
        if len(self.arities) != v:
            raise InputError(f"{len(self.arities)} arities for {v} variables")
        if v and self.arities.min() < 1:
            k = int(np.argmin(self.arities))
            raise InputError(f"variable {self.names[k]!r}: arity {self.arities[k]} < 1")
        if len(parents) != v:
            raise InputError(f"{len(parents)} parent sets for {v} variables")
        if len(cpts) != v:
            raise InputError(f"{len(cpts)} CPTs for {v} variables")
        self.parents: list[np.ndarray] = []
        for k, pa in enumerate(parents):
            arr = np.asarray(pa, dtype=np.int64).reshape(-1)
            arr = np.sort(arr)
            if len(arr) and (arr[0] < 0 or arr[-1] >= v):
                raise InputError(f"variable {self.names[k]!r}: parent index out of 0..{v - 1}")
            if np.any(arr == k):
                raise InputError(f"variable {self.names[k]!r} is its own parent")
            if np.any(arr[1:] == arr[:-1]):
                raise InputError(f"variable {self.names[k]!r}: a parent listed twice")
            self.parents.append(arr)
        self.cpts: list[np.ndarray] = []
        for k, table in enumerate(cpts):
            t = np.asarray(table, dtype=np.float64)
            rows = int(np.prod(self.arities[self.parents[k]], dtype=np.int64))
            shape = (rows, int(self.arities[k]))
            if t.shape != shape:
                raise InputError(
                    f"variable {self.names[k]!r}: CPT shape {t.shape}, expected {shape} "
                    f"(parent configurations × arity)"
                )
            if not np.all(np.isfinite(t)) or (t.size and t.min() < 0):
                raise InputError(
                    f"variable {self.names[k]!r}: CPT has negative or non-finite entries"
                )
            off = np.flatnonzero(np.abs(t.sum(axis=1) - 1.0) > ROW_SUM_TOL)
            if len(off):
                raise InputError(
                    f"variable {self.names[k]!r}: CPT row {off[0]} sums to "
                    f"{t[off[0]].sum():.9g}, not 1"
                )
            self.cpts.append(t)
        if state_names is None:
            state_names = [list(range(int(a))) for a in self.arities]
        if len(state_names) != v:
            raise InputError(f"{len(state_names)} state-name lists for {v} variables")
        self.state_names = [list(s) for s in state_names]
        for k, s in enumerate(self.state_names):
            if len(s) != self.arities[k]:
                raise InputError(
                    f"variable {self.names[k]!r}: {len(s)} state names for arity {self.arities[k]}"
                )
            if len({str(x) for x in s}) != len(s):
                raise InputError(f"variable {self.names[k]!r}: duplicate state names")
        self.order = topological_order(self.parents, v)
        self.meta = dict(meta or {})
        self._cum: list[np.ndarray] | None = None

    # ------------------------------------------------------------------ shape
    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def n_edges(self) -> int:
        return int(sum(len(p) for p in self.parents))

    @property
    def n_parameters(self) -> int:
        """Number of free CPT parameters, ``Σ_v rows_v · (arity_v − 1)``."""
        return int(sum(t.shape[0] * (t.shape[1] - 1) for t in self.cpts))

    def __repr__(self) -> str:
        return f"BayesianNetwork(n_vars={self.n_vars}, n_edges={self.n_edges})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BayesianNetwork):
            return NotImplemented
        return (
            self.names == other.names
            and np.array_equal(self.arities, other.arities)
            and all(np.array_equal(a, b) for a, b in zip(self.parents, other.parents))
            and all(np.array_equal(a, b) for a, b in zip(self.cpts, other.cpts))
            and self.state_names == other.state_names
        )

    def index(self, name: str) -> int:
        """Position of variable ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no variable named {name!r}") from None

    def parent_config(self, v: int, codes: np.ndarray) -> np.ndarray:
        """CPT row index of variable ``v`` for each row of ``codes`` (n × V, or n × k parents)."""
        pa = self.parents[v]
        codes = np.asarray(codes)
        cols = codes[:, pa] if codes.shape[1] == self.n_vars else codes
        cfg = np.zeros(codes.shape[0], dtype=np.int64)
        for col, p in zip(cols.T, pa):
            cfg *= self.arities[p]
            cfg += col
        return cfg

    # --------------------------------------------------------------- sampling
    def _cumulative(self) -> list[np.ndarray]:
        """Per variable, cumulative CPT columns ``(arity − 1, rows)`` (the last, 1, dropped)."""
        if self._cum is None:
            self._cum = [
                np.ascontiguousarray(np.cumsum(t, axis=1)[:, :-1].T) for t in self.cpts
            ]
        return self._cum

    def sample(
        self, n: int, seed: SeedLike = None, progress: bool | None = False
    ) -> DiscreteData:
        """Draw ``n`` i.i.d. samples by forward (ancestral) sampling.

        Variables are visited in topological order; for each, the parent
        configurations of all ``n`` samples are computed at once and one uniform
        per sample is inverted through the CPT row's cumulative sums, so the only
        Python loop is over variables. The same ``seed`` gives the same data.
        ``progress`` shows a tqdm bar (``None``: only for ≥ 1000 variables).
        """
        n = _check_count(n, "n")
        rng = np.random.default_rng(seed)
        cum = self._cumulative()
        dtype = smallest_int_dtype(int(max(self.arities.max(initial=1), 1)))
        buf = np.zeros((self.n_vars, n), dtype=dtype)  # variable-major: rows are contiguous
        cfg = np.empty(n, dtype=np.int64)
        for v in progress_report(self.order, desc="sampling", unit="var", leave=False,
                                 enabled=progress, min_total=PROGRESS_MIN_VARS):
            u = rng.random(n)
            c = cum[v]
            pa = self.parents[v]
            out = buf[v]
            if len(pa):
                cfg[:] = buf[pa[0]]
                for p in pa[1:]:
                    cfg *= self.arities[p]
                    cfg += buf[p]
                for column in c:  # code = number of cumulative sums ≤ u
                    out += u >= column[cfg]
            else:
                for column in c:
                    out += u >= column[0]
        codes = np.ascontiguousarray(buf.T)
        return DiscreteData(codes, self.names, self.arities, self.state_names)

    def log_probability(self, codes: np.ndarray) -> np.ndarray:
        """Log joint probability of each row of integer ``codes`` (n × V)."""
        codes = np.asarray(codes, dtype=np.int64)
        if codes.ndim != 2 or codes.shape[1] != self.n_vars:
            raise InputError(f"codes must have shape (n, {self.n_vars}), got {codes.shape}")
        out = np.zeros(codes.shape[0])
        with np.errstate(divide="ignore"):
            for v in range(self.n_vars):
                out += np.log(self.cpts[v][self.parent_config(v, codes), codes[:, v]])
        return out

    # ------------------------------------------------------------------ truth
    def dag(self) -> PDAG:
        """The network's DAG as a :class:`~causalcal.PDAG` (all edges directed)."""
        edges = [(int(p), v) for v, pa in enumerate(self.parents) for p in pa]
        return PDAG.from_edges(self.n_vars, edges, names=self.names)

    def edges(self) -> np.ndarray:
        """Array (E, 2) of edges ``(parent, child)``, sorted by child then parent."""
        rows = [(int(p), v) for v, pa in enumerate(self.parents) for p in pa]
        return np.asarray(rows, dtype=np.int64).reshape(-1, 2)

    def cpdag(self) -> PDAG:
        """The true CPDAG (essential graph) of the DAG, via :func:`causalcal.graph.dag_to_cpdag`."""
        return dag_to_cpdag(self.dag())

    def edge_labels(self) -> tuple[np.ndarray, np.ndarray]:
        """True edge types of the adjacent pairs: ``(pairs (m, 2) with i < j, int8 labels)``.

        Labels are :class:`~causalcal.EdgeType` values of the CPDAG; unlisted pairs are NONE.
        """
        return self.cpdag().pair_labels()

    def truth_dense(self) -> np.ndarray:
        """Edge-type label (int8) of every one of the ``V(V−1)/2`` pairs, row-major pair order."""
        pairs, labels = self.edge_labels()
        return dense_labels(pairs, labels, self.n_vars)

    # --------------------------------------------------------------------- I/O
    def to_dict(self) -> dict:
        """A JSON-serialisable dict (see :meth:`save`)."""
        cpts: list[Any] = []
        for t in self.cpts:
            if t.size <= JSON_INLINE_MAX:
                cpts.append(t.tolist())
            else:
                raw = np.ascontiguousarray(t, dtype="<f8").tobytes()
                cpts.append({"shape": list(t.shape),
                             "float64_le_base64": base64.b64encode(raw).decode("ascii")})
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "parent_config_order": "C order over parents in ascending index order "
            "(last parent varies fastest)",
            "names": self.names,
            "arities": [int(a) for a in self.arities],
            "state_names": [[_json_scalar(s) for s in states] for states in self.state_names],
            "parents": [[int(p) for p in pa] for pa in self.parents],
            "cpts": cpts,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, d: dict, source: str = "network") -> BayesianNetwork:
        """Inverse of :meth:`to_dict`."""
        if not isinstance(d, dict) or d.get("format") != FORMAT_NAME:
            raise InputError(f"{source}: not a causalcal Bayesian network (format field missing)")
        if int(d.get("version", 0)) > FORMAT_VERSION:
            raise InputError(
                f"{source}: format version {d['version']} is newer than this causalcal"
            )
        missing = [k for k in ("names", "arities", "parents", "cpts") if k not in d]
        if missing:
            raise InputError(f"{source}: missing fields {', '.join(missing)}")
        cpts = []
        for k, c in enumerate(d["cpts"]):
            if isinstance(c, dict):
                try:
                    raw = base64.b64decode(c["float64_le_base64"], validate=True)
                    arr = np.frombuffer(raw, dtype="<f8").astype(np.float64)
                    cpts.append(arr.reshape(c["shape"]))
                except (KeyError, ValueError) as err:
                    raise InputError(f"{source}: CPT {k} is malformed ({err})") from None
            else:
                arr = np.asarray(c, dtype=np.float64)
                if arr.ndim == 1 and arr.size == 0:
                    arr = arr.reshape(0, 0)
                cpts.append(arr)
        try:
            return cls(d["names"], d["arities"], d["parents"], cpts,
                       d.get("state_names"), d.get("meta"))
        except ValueError as err:
            raise InputError(f"{source}: {err}") from None

    def save(self, path: str | os.PathLike) -> None:
        """Write the network as JSON, atomically (temporary file + rename).

        Fields: ``names``, ``arities``, ``state_names``, ``parents`` (sorted indices),
        ``cpts`` (row-per-configuration lists, or ``{"shape", "float64_le_base64"}``
        for tables over 4096 entries), ``meta``. Floats round-trip exactly.
        """
        with atomic_write(path, encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, separators=(",", ":"), allow_nan=False)

    @classmethod
    def load(cls, path: str | os.PathLike) -> BayesianNetwork:
        """Read a network written by :meth:`save`."""
        path = input_file(path)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise InputError(f"{path}: not valid JSON ({err})") from None
        d = parse_json(text, path)
        return cls.from_dict(d, source=str(path))


def _json_scalar(x: Any) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    return str(x)


def _check_count(n: Any, what: str, minimum: int = 1) -> int:
    """``n`` as an int ≥ ``minimum``, else an ``InputError`` naming ``what``."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        if isinstance(n, (float, np.floating)) and float(n).is_integer():
            n = int(n)
        else:
            raise InputError(f"{what} must be an integer, got {n!r}")
    n = int(n)
    if n < minimum:
        raise InputError(f"{what} must be >= {minimum}, got {n}")
    return n
