"""Tables of edge-type probabilities: :class:`EdgeProbabilities` and its files.

Thesis §6.2.3: for every pair (A, B) the bootstrap counts four edge classes,
``A ⋯ B``, ``A → B``, ``B → A`` and ``A — B``. docs/design.md §3 fixes their order;
:class:`EdgeType` and the pair indexing live in :mod:`causalcal.pairs` and are
re-exported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal._edges_io import (
    PROBABILITY_COLUMNS,
    read_csv,
    read_npz,
    read_npz_features,
    seen_rows,
    write_csv,
)
from causalcal._io import atomic_write, input_file, read_npz_arrays
from causalcal._validation import check_probability_rows, warn_formula_names
from causalcal.ancestry import AncestralCounts
from causalcal.averaging import adjacent_at, l1_threshold
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.pairs import (
    EDGE_SWAP,
    EdgeType,
    n_pairs,
    pair_arguments,
    pair_from_index,
    pair_index,
)

__all__ = [
    "EdgeType",
    "EdgeProbabilities",
    "adjacent_at",
    "dense_labels",
    "l1_threshold",
    "n_pairs",
    "pair_from_index",
    "pair_index",
]


class EdgeProbabilities:
    """Four-class edge-type probabilities for all pairs of ``names``.

    Only pairs with some non-``NONE`` mass are stored, as rows
    ``(i, j, p_none, p_forward, p_backward, p_undirected)`` with ``i < j``;
    every other pair is implicitly ``(1, 0, 0, 0)``.

    Parameters
    ----------
    names : variable names, length V.
    pairs : int array (m, 2) of stored pairs, ``pairs[:, 0] < pairs[:, 1]``.
    probs : float array (m, 4), rows summing to 1, columns ordered as :class:`EdgeType`.
    n_boot : number of bootstrap replicates behind the probabilities (0 if unknown).
    """

    #: columns per pair, and their names in files and tables
    n_classes = 4
    columns: tuple[str, ...] = PROBABILITY_COLUMNS
    #: the graphs whose edge types these are
    graph_type: type = PDAG
    #: values a replicate can add to a class (one edge type each)
    counts_per_replicate = 1
    #: the swap of the columns when a pair is written the other way round
    swap = EDGE_SWAP

    def __init__(
        self,
        names: Sequence[str],
        pairs: np.ndarray,
        probs: np.ndarray,
        n_boot: int = 0,
    ) -> None:
        self.names = [str(n) for n in names]
        n_vars = len(self.names)
        if len(set(self.names)) != n_vars:
            raise InputError("variable names must be unique")
        pairs = np.asarray(pairs, dtype=np.int64)
        probs = np.asarray(probs, dtype=np.float64)
        if pairs.size == 0:
            pairs = pairs.reshape(0, 2)
        if probs.size == 0:
            probs = probs.reshape(0, self.n_classes)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise InputError(f"pairs must have shape (m, 2), got {pairs.shape}")
        if probs.ndim != 2 or probs.shape[1] != self.n_classes:
            raise InputError(f"probs must have shape (m, {self.n_classes}), got {probs.shape}")
        if len(pairs) != len(probs):
            raise InputError(f"{len(pairs)} pairs but {len(probs)} probability rows")
        if len(pairs):
            if pairs.min() < 0 or pairs.max() >= n_vars:
                raise InputError(f"pair index out of range for {n_vars} variables")
            bad = np.flatnonzero(pairs[:, 0] >= pairs[:, 1])
            if len(bad):
                raise InputError(f"pair row {bad[0]} is not ordered i < j: {pairs[bad[0]]}")
            bad_p = ~(np.isfinite(probs) & (probs >= 0)).all(axis=1)
            if bad_p.any():
                i, j = pairs[np.flatnonzero(bad_p)[0]]
                raise InputError(
                    f"probabilities of pair {self._pair_text(i, j)} must be "
                    "finite and non-negative"
                )
            check_probability_rows(probs, message=lambda row, total: (
                f"probabilities of pair {self._pair_text(*pairs[row])} sum to {total:.6g}, "
                "not 1"))
        keys = pair_index(pairs[:, 0], pairs[:, 1], n_vars)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        if len(keys) > 1 and np.any(keys[1:] == keys[:-1]):
            dup = int(order[np.flatnonzero(keys[1:] == keys[:-1])[0] + 1])
            i, j = pairs[dup]
            raise InputError(f"pair {self._pair_text(i, j)} listed twice")
        if int(n_boot) < 0:
            raise InputError(f"n_boot must be non-negative (0 if unknown), got {n_boot}")
        self.pairs = pairs[order]
        self.probs = probs[order]
        self.n_boot = int(n_boot)
        #: optional (n_pairs, k) features of every pair in pair order (the bootstrap's
        #: ``features=True``; causalcal.bootstrap.pair_features.FEATURE_NAMES)
        self.pair_features: np.ndarray | None = None
        #: optional definite and possible ancestor counts of every ordered pair (the
        #: bootstrap's ``ancestral=True``; docs/design.md §6.1)
        self.ancestral: AncestralCounts | None = None
        #: the bootstrap run that made them (seed, n_boot, search, search_options, data
        #: fingerprint; :func:`causalcal.bootstrap.checkpoint.run_provenance`), or ``None``
        self.provenance: dict | None = None
        #: the file they were read from (:meth:`load`), or ``None``
        self.source: str | None = None

    # ------------------------------------------------------------------ basics
    def _pair_text(self, i: int, j: int) -> str:
        """``(a, b)`` for messages; a name that is not printable (a newline) as its repr."""
        a, b = (n if n.isprintable() else repr(n) for n in (self.names[i], self.names[j]))
        return f"({a}, {b})"

    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def n_pairs(self) -> int:
        """Number of all unordered pairs, stored or implicit."""
        return n_pairs(self.n_vars)

    def __len__(self) -> int:
        return len(self.pairs)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n_vars={self.n_vars}, stored_pairs={len(self)}, "
            f"n_boot={self.n_boot})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EdgeProbabilities):
            return NotImplemented
        mine, theirs = seen_rows(self.probs), seen_rows(other.probs)  # 1,0,0,0 is implicit
        return (
            self.names == other.names
            and self.n_boot == other.n_boot
            and np.array_equal(self.pairs[mine], other.pairs[theirs])
            and np.array_equal(self.probs[mine], other.probs[theirs])
        )

    @classmethod
    def from_counts(
        cls, names: Sequence[str], pairs: np.ndarray, counts: np.ndarray, n_boot: int
    ) -> EdgeProbabilities:
        """Build from per-pair counts of each edge type over ``n_boot`` graphs.

        ``counts`` may omit the ``NONE`` column (shape (m, k − 1)); it is then
        ``n_boot`` minus the others.
        """
        if n_boot <= 0:
            raise InputError("n_boot must be positive")
        k = cls.n_classes
        counts = np.asarray(counts, dtype=np.float64)
        if counts.size == 0:
            counts = counts.reshape(0, k)
        if counts.ndim != 2 or counts.shape[1] not in (k - 1, k):
            raise InputError(f"counts must have shape (m, {k - 1}) or (m, {k}), "
                             f"got {counts.shape}")
        if counts.shape[1] == k - 1:
            counts = np.column_stack([n_boot - counts.sum(axis=1), counts])
        return cls(names, pairs, counts / n_boot, n_boot=n_boot)

    # --------------------------------------------------------------- lookups
    def lookup(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Probabilities (…, k) of arbitrary pairs (i, j), i ≠ j, in either order.

        ``i`` and ``j`` are broadcast together; the result has their shape plus a last
        axis of :attr:`n_classes`. For ``i > j`` the columns are permuted by :attr:`swap`
        (forward and backward exchanged), so column 1 is the probability of ``i → j``.
        """
        i, j, shape = pair_arguments(i, j, self.n_vars)
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        out = np.zeros((len(lo), self.n_classes))
        out[:, 0] = 1.0
        stored = pair_index(self.pairs[:, 0], self.pairs[:, 1], self.n_vars)
        want = pair_index(lo, hi, self.n_vars)
        pos = np.searchsorted(stored, want)
        pos_c = np.minimum(pos, max(len(stored) - 1, 0))
        hit = (pos < len(stored)) & (len(stored) > 0)
        if len(stored):
            hit &= stored[pos_c] == want
        out[hit] = self.probs[pos_c[hit]]
        swap = i > j
        out[swap] = out[swap][:, list(self.swap)]
        return out.reshape(*shape, self.n_classes)

    def dense(self, dtype: type = np.float32) -> np.ndarray:
        """All ``V(V−1)/2`` pairs in row-major pair order (see :func:`pair_index`)."""
        out = np.zeros((self.n_pairs, self.n_classes), dtype=dtype)
        out[:, 0] = 1
        keys = pair_index(self.pairs[:, 0], self.pairs[:, 1], self.n_vars)
        out[keys] = self.probs
        return out

    def column(self, k: int) -> np.ndarray:
        """Class ``k``'s probability of every pair (float32, pair order)."""
        col = np.full(self.n_pairs, 1.0 if k == 0 else 0.0, dtype=np.float32)
        col[pair_index(self.pairs[:, 0], self.pairs[:, 1], self.n_vars)] = self.probs[:, k]
        return col

    def distinct_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct rows of all pairs (float64), how many pairs have each, and which
        row each has: ``inverse[0]`` that of the implicit (1, 0, 0, 0) of every pair never
        adjacent, ``inverse[1:]`` those of the stored pairs in order."""
        rows = np.vstack([np.eye(1, self.n_classes), self.probs])
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        counts = np.bincount(inverse[1:], minlength=len(unique)).astype(np.int64)
        counts[inverse[0]] += self.n_pairs - len(self)
        return unique, counts, inverse

    def scatter(self, values: np.ndarray, inverse: np.ndarray, dtype=np.float32) -> np.ndarray:
        """Every pair's row (pair order) of ``values`` given per distinct row
        (:meth:`distinct_rows`), without a dense index of all pairs."""
        out = np.empty((self.n_pairs, values.shape[1]), dtype=dtype)
        out[:] = values[inverse[0]]
        if len(self):
            out[pair_index(self.pairs[:, 0], self.pairs[:, 1], self.n_vars)] = values[inverse[1:]]
        return out

    def iter_dense(self, chunk_size: int = 1_000_000) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(pair_positions, probs)`` chunks covering all pairs in order."""
        keys = pair_index(self.pairs[:, 0], self.pairs[:, 1], self.n_vars)
        total = self.n_pairs
        for start in range(0, total, chunk_size):
            stop = min(start + chunk_size, total)
            positions = np.arange(start, stop, dtype=np.int64)
            block = np.zeros((stop - start, self.n_classes), dtype=np.float32)
            block[:, 0] = 1
            lo, hi = np.searchsorted(keys, [start, stop])
            block[keys[lo:hi] - start] = self.probs[lo:hi]
            yield positions, block

    # -------------------------------------------------------------------- I/O
    def averaged_network(self, threshold: float | str = 0.5) -> PDAG:
        """The averaged network (bnlearn's ``averaged.network``; Friedman et al. 1999) as
        a :class:`~causalcal.graph.PDAG`: see :func:`averaged_network`;
        ``threshold="estimated"`` takes :meth:`estimated_threshold`."""
        return averaged_network(self.names, self.pairs, self.probs, threshold)

    def estimated_threshold(self) -> float:
        """bnlearn's estimated significance threshold of P(adjacent) over all V(V−1)/2
        pairs (Scutari & Nagarajan 2013): see :func:`l1_threshold`."""
        return l1_threshold(1.0 - self.probs[:, 0], self.n_pairs)

    def edge_strengths(self, graph: PDAG, known: Collection[tuple[str, str]] | None = None,
                       ) -> dict[tuple[str, str], dict[str, float]]:
        """For each edge ``(a, b)`` of ``graph`` (a directed one as drawn): ``weight`` =
        1 − p_none (bnlearn's strength) and ``direction`` = the share of that adjacency
        in the drawn direction (undirected: in no direction) — for
        :func:`causalcal.graph_io.write_graph`'s ``edge_data``. With ``known`` (pairs of
        names, either order): ``known`` = 1 on those edges, 0 on the others."""
        index_pairs = [(int(i), int(j), True) for i, j in graph.directed_edges()]
        index_pairs += [(int(i), int(j), False) for i, j in graph.undirected_edges()]
        if not index_pairs:
            return {}
        i, j, directed = (np.array(c) for c in zip(*index_pairs))
        p = self.lookup(np.minimum(i, j), np.maximum(i, j))
        adjacent = 1.0 - p[:, 0]
        drawn = np.where(~directed, p[:, 3], np.where(i < j, p[:, 1], p[:, 2]))
        share = np.divide(drawn, adjacent, out=np.zeros_like(drawn), where=adjacent > 0)
        out = {(self.names[a], self.names[b]): {"weight": float(w), "direction": float(d)}
               for a, b, w, d in zip(i.tolist(), j.tolist(), adjacent, share)}
        if known is not None:
            given = {frozenset(p) for p in known}
            for pair, data in out.items():
                data["known"] = float(frozenset(pair) in given)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Stored rows as a DataFrame ``a, b, p_none, p_forward, p_backward, p_undirected``."""
        names = np.asarray(self.names, dtype=object)
        frame = pd.DataFrame(
            {"a": names[self.pairs[:, 0]], "b": names[self.pairs[:, 1]]}
        )
        for k, col in enumerate(self.columns):
            frame[col] = self.probs[:, k]
        return frame

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically as ``.npz`` (compact, exact) or ``.csv`` (by the file's suffix).

        The CSV is a plain table ``a,b,p_none,p_forward,p_backward,p_undirected`` of every
        pair in pair order (as bnlearn's ``boot.strength``: a pair never adjacent reads
        ``1,0,0,0``, and is not stored when read back) that ``pandas.read_csv(path)``
        reads as it is, probabilities with at most 8 significant digits; its metadata
        (every variable name, ``n_boot`` and the CSV's SHA-256) go to the JSON sidecar
        ``PATH.json``, and the two are replaced as one unit (see
        :func:`causalcal._edges_io.write_csv`); the :attr:`provenance` goes with them
        (the ``.npz`` or the sidecar). Bootstrap frequencies (multiples of 1/n_boot) read
        back exactly; other values to 8 significant digits. :attr:`pair_features` and
        :attr:`ancestral` go only to a ``.npz``.
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".npz", ".csv"):
            raise InputError(f"{path}: unknown format, use a .npz or .csv file name")
        if suffix == ".csv":
            write_csv(path, self._all_pairs_frames(), self.names, self.n_boot,
                      self._on_grid(), self.provenance, self.columns)
            return
        with atomic_write(path, "wb") as handle:
            np.savez_compressed(
                handle,
                names=np.asarray(self.names, dtype=str),
                # numpy strips trailing NULs from str arrays; JSON keeps names exact
                names_json=np.asarray(json.dumps(self.names)),
                pairs=self.pairs.astype(np.int32),
                probs=self.probs,
                n_boot=np.int64(self.n_boot),
                **({} if self.pair_features is None
                   else {"pair_features": np.asarray(self.pair_features)}),
                **({} if self.provenance is None
                   else {"provenance_json": np.asarray(json.dumps(self.provenance))}),
                **({} if self.ancestral is None
                   else {"ancestral_definite": self.ancestral.definite,
                         "ancestral_possible": self.ancestral.possible}),
            )

    def _all_pairs_frames(self, chunk_size: int = 1_000_000) -> Iterator[pd.DataFrame]:
        """:meth:`to_frame`'s columns for every pair, in pair order, a chunk at a time."""
        names = np.asarray(self.names, dtype=object)
        keys = pair_index(self.pairs[:, 0], self.pairs[:, 1], self.n_vars)
        for start in range(0, max(self.n_pairs, 1), chunk_size):
            stop = min(start + chunk_size, self.n_pairs)
            i, j = pair_from_index(np.arange(start, stop, dtype=np.int64), self.n_vars)
            block = np.zeros((stop - start, self.n_classes))
            block[:, 0] = 1
            lo, hi = np.searchsorted(keys, [start, stop])
            block[keys[lo:hi] - start] = self.probs[lo:hi]
            frame = pd.DataFrame({"a": names[i], "b": names[j]})
            for k, col in enumerate(self.columns):
                frame[col] = block[:, k]
            yield frame

    @classmethod
    def _table_class(cls, n_columns: int, path) -> type[EdgeProbabilities]:
        """The class of a file's table of ``n_columns`` probability columns: ``cls``, or
        (when asked of this base class) the subclass with that many (a PAG's edge types,
        :class:`causalcal.pag_edges.PAGEdgeProbabilities`)."""
        if n_columns == cls.n_classes:
            return cls
        if cls is EdgeProbabilities:
            for sub in cls.__subclasses__():
                if sub.n_classes == n_columns:
                    return sub
        raise InputError(f"{path}: a table of {n_columns} probability columns, not the "
                         f"{cls.n_classes} of {cls.__name__}")

    def _on_grid(self) -> bool:
        """Whether every probability is a multiple of 1 / n_boot (bootstrap frequencies)."""
        n = self.n_boot
        return bool(n) and bool(np.array_equal(np.round(self.probs * n) / n, self.probs))

    @classmethod
    def load(cls, path: str | os.PathLike) -> EdgeProbabilities:
        """Read a file written by :meth:`save` (``.npz`` or ``.csv``).

        A CSV without its ``PATH.json`` sidecar (or the ``#`` header lines of older
        versions) is accepted: the variable set is then the names that occur in columns
        ``a`` and ``b``, in order of first appearance. Every problem with the file is an
        ``InputError`` (a ``ValueError``) naming it.
        """
        path = input_file(path)
        reader = read_npz if path.suffix.lower() == ".npz" else read_csv
        names, pairs, probs, n_boot, provenance = reader(path)
        try:
            out = cls._table_class(np.shape(probs)[-1], path)(names, pairs, probs, n_boot)
        except ValueError as err:
            raise InputError(f"{path}: {err}") from None
        out.provenance, out.source = provenance, str(path)
        warn_formula_names(out.names)
        if reader is read_npz:
            out.pair_features = read_npz_features(path, out.n_pairs)
            out.ancestral = _read_ancestral(path, out.n_vars, out.n_boot)
        return out


def _read_ancestral(path: Path, n_vars: int, n_boot: int) -> AncestralCounts | None:
    """The optional ancestor counts of an edge-probabilities ``.npz``, or ``None``."""
    names = ("ancestral_definite", "ancestral_possible")
    arrays = read_npz_arrays(path, optional=names)
    if not arrays:
        return None
    if len(arrays) != 2 or any(a.shape != (n_vars, n_vars) for a in arrays.values()):
        raise InputError(f"{path}: {' and '.join(names)} must both be {n_vars} × {n_vars}")
    try:
        return AncestralCounts(arrays[names[0]], arrays[names[1]], n_boot)
    except InputError as err:
        raise InputError(f"{path}: {err}") from None


def averaged_network(names: Sequence[str], pairs: np.ndarray, probs: np.ndarray,
                     threshold: float | str = 0.5) -> PDAG:
    """The network of the pairs whose edge probability reaches ``threshold``.

    A pair is adjacent iff ``1 − p_none ≥ threshold``; it is oriented ``a → b`` iff
    ``p_forward / (1 − p_none) > 0.5``, ``b → a`` likewise with ``p_backward``, else left
    undirected (bnlearn's ``averaged.network`` with its strength and direction rule).
    ``threshold="estimated"``: bnlearn's default, the :func:`l1_threshold` t of all pairs'
    P(adjacent), and a pair is adjacent iff ``1 − p_none > t`` or is 1.
    ``pairs`` (m, 2) with ``i < j`` and ``probs`` (m, 4) as stored by
    :class:`EdgeProbabilities`; unlisted pairs have no edge. The directed arcs may form a
    cycle where the replicates disagree; nothing is dropped.
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    probs = np.asarray(probs, dtype=np.float64).reshape(-1, 4)
    keep = adjacent_at(1.0 - probs[:, 0], n_pairs(len(names)), threshold)
    adjacent = probs[:, 1:].sum(axis=1)  # the same mass, without 1 − p_none's rounding
    forward = keep & (2 * probs[:, 1] > adjacent)
    backward = keep & ~forward & (2 * probs[:, 2] > adjacent)
    undirected = keep & ~forward & ~backward
    return PDAG.from_edges(
        len(names),
        np.concatenate([pairs[forward], pairs[backward][:, ::-1]]),
        pairs[undirected],
        names,
    )


def dense_labels(pairs: np.ndarray, labels: np.ndarray, n_vars: int) -> np.ndarray:
    """Edge-type label (int8) of every pair in row-major pair order; unlisted pairs are NONE.

    ``pairs`` (m, 2) with ``i < j`` and ``labels`` (m,) as returned by
    :meth:`causalcal.graph.PDAG.pair_labels`.
    """
    out = np.zeros(n_pairs(n_vars), dtype=np.int8)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    out[pair_index(pairs[:, 0], pairs[:, 1], n_vars)] = np.asarray(labels, dtype=np.int8)
    return out
