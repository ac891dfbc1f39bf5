"""Partial ancestral graphs (PAGs) over observed variables (docs/design.md §5.1; issue 40).

A PAG (Zhang 2008, "On the completeness of orientation rules for causal discovery in
the presence of latent confounders and selection bias") has edges with a mark at each
end: a **tail** (the end's node is an ancestor of the other), an **arrowhead** (it is
not) or a **circle** (undecided). :class:`PAG` keeps the marks in a V × V ``int8``
matrix ``marks[i, j]`` = the mark at ``j`` on the edge between ``i`` and ``j`` (0: no
edge), pcalg's ``amat.pag`` coding (1 circle, 2 arrowhead, 3 tail). Edges are written
with Tetrad's notation: ``o-o``, ``o->``, ``-->``, ``<->`` (and, seen from the other
end, ``<-o``, ``<--``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

import numpy as np

from causalcal._validation import check_unique_names
from causalcal.errors import InputError
from causalcal.pairs import PAG_EDGE_SYMBOLS

__all__ = ["Mark", "PAG"]


class Mark(IntEnum):
    """An edge's mark at one end (pcalg's ``amat.pag`` codes)."""

    NONE = 0
    CIRCLE = 1
    ARROW = 2
    TAIL = 3


_LEFT = {Mark.CIRCLE: "o", Mark.ARROW: "<", Mark.TAIL: "-"}
_RIGHT = {Mark.CIRCLE: "o", Mark.ARROW: ">", Mark.TAIL: "-"}
_FROM_TEXT = {(left, right): (a, b) for a, left in _LEFT.items() for b, right in _RIGHT.items()}
#: the PAGEdgeType code of the marks (at i, at j) of a pair i < j; 0 for none and for
#: the marks of selection bias (tail–tail, tail–circle)
_PAIR_CODE = np.zeros((4, 4), dtype=np.int8)
for _code, _text in enumerate(PAG_EDGE_SYMBOLS[1:], start=1):
    _PAIR_CODE[_FROM_TEXT[(_text[0], _text[2])]] = _code


class PAG:
    """A graph over ``n_vars`` nodes whose edges carry a :class:`Mark` at each end."""

    def __init__(self, n_vars: int, names: Sequence[str] | None = None) -> None:
        if n_vars < 0:
            raise InputError("n_vars must be non-negative")
        self.names = [f"X{k}" for k in range(n_vars)] if names is None else list(map(str, names))
        if len(self.names) != n_vars:
            raise InputError(f"{len(self.names)} names for {n_vars} nodes")
        check_unique_names(self.names, "node name")
        self.marks = np.zeros((n_vars, n_vars), dtype=np.int8)

    @classmethod
    def from_edges(cls, n_vars: int, edges: Iterable[tuple[int, str, int]],
                   names: Sequence[str] | None = None) -> PAG:
        """A PAG from ``(i, "o->", j)`` triples in Tetrad's notation."""
        g = cls(n_vars, names)
        for i, text, j in edges:
            g.add_edge(int(i), int(j), *_parse(text))
        return g

    @classmethod
    def complete(cls, n_vars: int, names: Sequence[str] | None = None) -> PAG:
        """Every pair joined by ``o-o``."""
        g = cls(n_vars, names)
        g.marks[:] = Mark.CIRCLE
        np.fill_diagonal(g.marks, Mark.NONE)
        return g

    def copy(self) -> PAG:
        g = PAG(self.n_vars, self.names)
        g.marks = self.marks.copy()
        return g

    # ------------------------------------------------------------ queries
    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def n_edges(self) -> int:
        return int(np.count_nonzero(np.triu(self.marks)))

    def adjacent(self, i: int, j: int) -> bool:
        return bool(self.marks[i, j])

    def adjacencies(self, v: int) -> list[int]:
        """The nodes adjacent to ``v``, in index order."""
        return np.flatnonzero(self.marks[v]).tolist()

    def mark(self, i: int, j: int) -> Mark:
        """The mark at ``j`` on the edge ``i *-* j`` (``Mark.NONE``: not adjacent)."""
        return Mark(int(self.marks[i, j]))

    def edge(self, i: int, j: int) -> str:
        """The edge between ``i`` and ``j`` read from ``i`` to ``j`` (``""``: none)."""
        if not self.marks[i, j]:
            return ""
        return _LEFT[Mark(int(self.marks[j, i]))] + "-" + _RIGHT[Mark(int(self.marks[i, j]))]

    def edges(self) -> list[tuple[str, str, str]]:
        """Every edge as ``(a, "o->", b)`` with ``a`` before ``b`` in index order."""
        i, j = np.nonzero(np.triu(self.marks))
        return [(self.names[a], self.edge(a, b), self.names[b]) for a, b in zip(i, j)]

    def is_parent(self, i: int, j: int) -> bool:
        """Whether ``i --> j``."""
        return self.marks[j, i] == Mark.TAIL and self.marks[i, j] == Mark.ARROW

    def pair_labels(self) -> tuple[np.ndarray, np.ndarray]:
        """Edge types of all adjacent pairs: ``(pairs (m, 2) with i < j in index order,
        labels (m,))``, :class:`~causalcal.pairs.PAGEdgeType` codes 1–6. A tail–tail or
        tail–circle edge (selection bias, which no search here assumes) is an error."""
        i, j = np.nonzero(np.triu(self.marks))
        codes = _PAIR_CODE[self.marks[j, i], self.marks[i, j]]
        if np.any(codes == 0):
            k = int(np.flatnonzero(codes == 0)[0])
            raise InputError(f"edge {self.names[i[k]]} {self.edge(i[k], j[k])} "
                             f"{self.names[j[k]]} is not a PAG edge without selection bias")
        return np.column_stack([i, j]).astype(np.int64), codes.astype(np.int8)

    @classmethod
    def from_pair_labels(cls, n_vars: int, pairs: np.ndarray, labels: np.ndarray,
                         names: Sequence[str] | None = None) -> PAG:
        """The PAG of :meth:`pair_labels`' ``(pairs, labels)``."""
        g = cls(n_vars, names)
        for (i, j), label in zip(np.asarray(pairs).tolist(), np.asarray(labels).tolist()):
            g.add_edge(i, j, *_parse(PAG_EDGE_SYMBOLS[label]))
        return g

    def skeleton(self) -> np.ndarray:
        """The V × V boolean adjacency matrix."""
        return self.marks != 0

    # ------------------------------------------------------------ changes
    def add_edge(self, i: int, j: int, at_i: Mark = Mark.CIRCLE,
                 at_j: Mark = Mark.CIRCLE) -> None:
        """Join ``i`` and ``j`` with the marks ``at_i`` and ``at_j``."""
        if i == j:
            raise InputError(f"self-loop on node {self.names[i]!r}")
        if Mark.NONE in (at_i, at_j):
            raise InputError("an edge needs a mark at both ends")
        self.marks[j, i], self.marks[i, j] = at_i, at_j

    def remove_edge(self, i: int, j: int) -> None:
        self.marks[i, j] = self.marks[j, i] = Mark.NONE

    def set_mark(self, i: int, j: int, mark: Mark) -> None:
        """Set the mark at ``j`` on the existing edge ``i *-* j``."""
        if not self.marks[i, j]:
            raise InputError(f"{self.names[i]!r} and {self.names[j]!r} are not adjacent")
        self.marks[i, j] = mark

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PAG):
            return NotImplemented
        return self.names == other.names and np.array_equal(self.marks, other.marks)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        shown = ", ".join(f"{a} {e} {b}" for a, e, b in self.edges()[:20])
        more = " …" if self.n_edges > 20 else ""
        return f"PAG({self.n_vars} nodes: {shown}{more})"


def _parse(text: str) -> tuple[Mark, Mark]:
    t = text.strip()
    if len(t) != 3 or t[1] != "-" or (t[0], t[2]) not in _FROM_TEXT:
        raise InputError(f"unknown PAG edge {text!r}; use o-o, o->, <-o, -->, <--, <->")
    return _FROM_TEXT[(t[0], t[2])]
