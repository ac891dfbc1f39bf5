"""Known relations that contradict each other through a chain (docs/design.md §3.1;
issue 41 item 3).

"Causes" is transitive and a DAG has no cycle: ``sex causes ht`` and ``ht causes wt71``
make ``sex not-causes wt71`` impossible, and ``a causes b``, ``b causes c``, ``c causes a``
no causal model of the project (a DAG) can hold. Each statement alone is fine; together
they are refused, naming the chain. Edge types are not checked: a cycle of known arcs
(feedback, as in the Sachs consensus network) contradicts no single pair's edge type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from causalcal.errors import InputError

__all__ = ["Statement", "causal_statements", "refuse_contradicting_chains"]


@dataclass(frozen=True)
class Statement:
    """One known relation read as "``cause`` causes ``effect``" (variable indices) or,
    with ``holds`` false, "``cause`` does not cause ``effect``"; ``text`` as written."""

    cause: int
    effect: int
    holds: bool
    text: str


def refuse_contradicting_chains(statements: Sequence[Statement], names: Sequence[str],
                                source: str) -> None:
    """Refuse statements whose definite causes (``holds``) form a cycle, or lead from a
    variable to one it is stated not to cause: an ``InputError`` naming the chain."""
    graph = nx.DiGraph()
    for s in statements:
        if s.holds and not graph.has_edge(s.cause, s.effect):
            graph.add_edge(s.cause, s.effect, text=s.text)
    if not graph.number_of_edges():
        return
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle is not None:
        chain = ", ".join(graph.edges[u, v]["text"] for u, v in cycle)
        raise InputError(f"{source}: known relations contradict each other: {chain} form a "
                         "cycle (causal relations are read in a DAG: no variable causes "
                         "itself)")
    denied = [s for s in statements if not s.holds and s.cause in graph and s.effect in graph]
    if not denied:
        return
    reach = {u: nx.descendants(graph, u) for u in {s.cause for s in denied}}
    for s in denied:
        if s.effect in reach[s.cause]:
            path = nx.shortest_path(graph, s.cause, s.effect)
            chain = ", ".join(graph.edges[u, v]["text"] for u, v in zip(path, path[1:]))
            raise InputError(
                f"{source}: known relations contradict each other: {chain} (so "
                f"{names[s.cause]} causes {names[s.effect]}), but {s.text}")


def causal_statements(frame, names: Sequence[str]) -> list[Statement]:
    """The statements of a causal known-relations frame (columns ``i, j, neither,
    forward, backward, a, b, relation``): a definite cause where one direction is the only
    class allowed, a denial where a direction is not allowed."""
    out = []
    for row in frame.itertuples(index=False):
        relation = str(row.relation)
        text = relation if "; " in relation else f"{row.a} {relation} {row.b}"
        allowed = (bool(row.neither), bool(row.forward), bool(row.backward))
        for cause, effect, k in ((row.i, row.j, 1), (row.j, row.i, 2)):
            only = allowed[k] and sum(allowed) == 1
            if only or not allowed[k]:
                out.append(Statement(int(cause), int(effect), only, text))
    return out
