"""Background knowledge for structure search: required and forbidden arcs, tiers.

Tetrad's ``Knowledge`` and bnlearn's whitelist/blacklist: a *required* arc ``A → B`` is
in every graph the search returns, as that directed arc; a *forbidden* arc ``C → D``
never is (an edge ``C — D`` is then oriented ``D → C``); *tiers* give variables a rank,
and no arc points from a later tier into an earlier one (variables without a tier are
unconstrained); in a tier marked *forbidden within* (Tetrad's ``1*``) no two variables
are adjacent. Known relations (``known.csv``) are checked against it
(:func:`check_known_relations`; causal statements:
:func:`causalcal.known_causal_checks.check_known_causal_relations`). Files: a CSV
``a,b,rule``, a CSV ``variable,tier`` or Tetrad's knowledge file
(:func:`causalcal.knowledge_files.read_knowledge`). *Context* columns (:class:`Context`;
Mooij, Magliacane & Claassen 2020, "Joint causal inference from multiple contexts") are
exogenous condition or regime variables: no system variable has an arc into one (so none
causes one), arcs among them are free, and one with known intervention targets has arcs
into those only.
The searches enforce it inside the search (docs/design.md §5): operators that would
break it are never considered and the CPDAG completion orients by it (Meek 1995,
"Causal inference and causal explanation with background knowledge").

:class:`Knowledge` holds names; :meth:`Knowledge.bind` checks them against a data set's
variables and gives a :class:`BoundKnowledge` over variable indices, used by the searches
and by :func:`causalcal.graph.apply_meek_rules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from causalcal.context import Context, contexts
from causalcal.errors import InputError

__all__ = ["BoundKnowledge", "Context", "Knowledge", "bind_knowledge",
           "check_known_relations", "with_knowledge"]


def _pairs(arcs: Iterable[Sequence[str]], what: str) -> tuple[tuple[str, str], ...]:
    out = []
    for arc in arcs:
        if isinstance(arc, str) or len(arc) != 2:
            raise InputError(f"{what} arc {arc!r}: expected a pair (a, b)")
        a, b = str(arc[0]), str(arc[1])
        if a == b:
            raise InputError(f"{what} arc {a!r} -> {b!r} is a self-loop")
        out.append((a, b))
    return tuple(sorted(set(out)))


class Knowledge:
    """Background knowledge over variable names.

    ``required`` and ``forbidden`` are ``(a, b)`` pairs meaning the arc ``a → b``;
    ``tiers`` maps a variable to an integer tier (lower = earlier);
    ``forbid_within_tiers`` (``True``: every tier, or the tier numbers) forbids every
    edge between two variables of one such tier (Tetrad's ``1*``). Contradictions are an
    :class:`~causalcal.errors.InputError`: an arc both required and forbidden, required
    arcs that form a cycle, a required arc from a later tier into an earlier one or
    within a tier whose edges are forbidden.
    ``context``: :class:`Context` columns (or bare column names: targets unknown); they
    contradict a required arc into a context column from a system variable, a required
    arc from one to a variable outside its known targets, and a tier that puts one after
    a system variable.
    """

    def __init__(
        self,
        required: Iterable[Sequence[str]] = (),
        forbidden: Iterable[Sequence[str]] = (),
        tiers: Mapping[str, int] | None = None,
        forbid_within_tiers: bool | Iterable[int] = False,
        context: Iterable[Context | str] = (),
    ) -> None:
        self.required = _pairs(required, "required")
        self.forbidden = _pairs(forbidden, "forbidden")
        self.tiers: dict[str, int] = {}
        for name, tier in sorted((tiers or {}).items(), key=lambda kv: str(kv[0])):
            if isinstance(tier, bool) or int(tier) != tier:
                raise InputError(f"tier of {name!r} must be an integer, got {tier!r}")
            self.tiers[str(name)] = int(tier)
        self.forbidden_within = _within_tiers(forbid_within_tiers, self.tiers)
        self.context = contexts(context)
        self._check_consistent()
        self._check_context()

    def _check_consistent(self) -> None:
        both = sorted(set(self.required) & set(self.forbidden))
        if both:
            a, b = both[0]
            raise InputError(f"arc {a!r} -> {b!r} is both required and forbidden")
        for a, b in self.required:
            ta, tb = self.tiers.get(a), self.tiers.get(b)
            if ta is not None and tb is not None and ta > tb:
                raise InputError(
                    f"required arc {a!r} -> {b!r} points from tier {ta} into the earlier "
                    f"tier {tb}"
                )
            if ta is not None and ta == tb and ta in self.forbidden_within:
                raise InputError(f"required arc {a!r} -> {b!r} lies within tier {ta}, whose "
                                 "edges are forbidden")
        cycle = _find_cycle(self.required)
        if cycle:
            raise InputError(f"required arcs form a cycle: {' -> '.join(map(repr, cycle))}")

    def _check_context(self) -> None:
        columns = self.context_columns
        for c in self.context:
            inner = sorted(set(c.targets or ()) & columns)
            if inner:
                raise InputError(f"context {c.column!r}: its target {inner[0]!r} is itself a "
                                 "context column (arcs among context columns are free)")
            later = [(t, v) for v, t in self.tiers.items()
                     if v not in columns and c.column in self.tiers and t < self.tiers[c.column]]
            if later:
                t, v = min(later)
                raise InputError(f"context column {c.column!r} is in tier "
                                 f"{self.tiers[c.column]}, after the system variable {v!r} "
                                 f"(tier {t}): a context column precedes every system variable")
        for a, b in self.required:
            why = self._context_excludes(a, b)
            if why is not None:
                raise InputError(f"required arc {a!r} -> {b!r} contradicts the context: {why}")

    @property
    def context_columns(self) -> set[str]:
        """The names of the context columns."""
        return {c.column for c in self.context}

    def _context_excludes(self, a: str, b: str) -> str | None:
        """Why the context excludes the arc ``a → b``, or ``None``."""
        columns = self.context_columns
        if b in columns and a not in columns:
            return (f"{b} is a context column: no system variable has an arc into it (JCI: "
                    "nothing in the system causes it)")
        for c in self.context:
            if c.column == a and c.targets is not None and b not in c.targets and \
                    b not in columns:
                return f"{b} is not among the known targets of the context column {a}"
        return None

    def with_context(self, context: Iterable[Context | str]) -> Knowledge:
        """This knowledge with the ``context`` columns added (docs/design.md §5.2)."""
        return Knowledge(self.required, self.forbidden, self.tiers, self.forbidden_within,
                         (*self.context, *contexts(context)))

    @property
    def is_empty(self) -> bool:
        return not (self.required or self.forbidden or self.tiers or self.context)

    def variables(self) -> set[str]:
        """Every variable the knowledge names."""
        return ({v for arc in self.required + self.forbidden for v in arc} | set(self.tiers)
                | self.context_columns | {t for c in self.context for t in c.targets or ()})

    def untiered(self, names: Sequence[str]) -> list[str]:
        """The variables of ``names`` without a tier, when tiers are given (they are free
        to cause and be caused by any variable); ``[]`` without tiers."""
        return [str(n) for n in names if str(n) not in self.tiers] if self.tiers else []

    def excluded(self, a: str, b: str) -> str | None:
        """Why the arc ``a → b`` is excluded (the rule, in words), or ``None``."""
        ta, tb = self.tiers.get(a), self.tiers.get(b)
        if (a, b) in self.forbidden:
            return f"the arc {a} -> {b} is forbidden"
        if (b, a) in self.required:
            return f"the arc {b} -> {a} is required"
        if ta is not None and tb is not None and ta > tb:
            return (f"{a} is in tier {ta}, after {b}'s tier {tb} (no arc into an earlier "
                    "tier)")
        if ta is not None and ta == tb and ta in self.forbidden_within:
            return f"{a} and {b} are both in tier {ta}, within which edges are forbidden"
        return self._context_excludes(a, b)

    def contradiction(self, a: str, b: str, relation: str) -> str | None:
        """Why the known ``relation`` (``->``, ``<-``, ``--``, ``none``) of ``a`` and ``b``
        contradicts the knowledge (the rule, in words), or ``None``."""
        relation = relation.strip().lower()
        if relation == "->":
            return self.excluded(a, b)
        if relation == "<-":
            return self.excluded(b, a)
        if relation == "--":
            ab, ba = self.excluded(a, b), self.excluded(b, a)
            return None if ab is None or ba is None else f"{ab}, and {ba}"
        for x, y in ((a, b), (b, a)):
            if relation == "none" and (x, y) in self.required:
                return f"the arc {x} -> {y} is required"
        return None

    def bind(self, names: Sequence[str]) -> BoundKnowledge:
        """The knowledge over the indices of ``names``; unknown variables are an error."""
        index = {str(n): k for k, n in enumerate(names)}
        unknown = sorted(self.variables() - set(index))
        if unknown:
            raise InputError(
                f"background knowledge names unknown variable(s) "
                f"{', '.join(map(repr, unknown[:10]))}{' …' if len(unknown) > 10 else ''}"
            )
        tier = [None] * len(index)
        for name, t in self.tiers.items():
            tier[index[name]] = t
        forbidden = {(index[a], index[b]) for a, b in self.forbidden}
        context = {index[c] for c in self.context_columns}
        system = [k for k in range(len(index)) if k not in context]
        for c in self.context:
            k = index[c.column]
            forbidden.update((x, k) for x in system)
            if c.targets is not None:
                targets = {index[t] for t in c.targets}
                forbidden.update((k, x) for x in system if x not in targets)
        return BoundKnowledge({(index[a], index[b]) for a, b in self.required}, forbidden,
                              tier, set(self.forbidden_within), context)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Knowledge):
            return NotImplemented
        return repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:  # canonical: checkpoints identify a run's options by it
        within = (f", forbid_within_tiers={list(self.forbidden_within)!r}"
                  if self.forbidden_within else "")  # absent: as before, checkpoints resume
        context = f", context={list(self.context)!r}" if self.context else ""
        return (
            f"Knowledge(required={list(self.required)!r}, forbidden={list(self.forbidden)!r}, "
            f"tiers={self.tiers!r}{within}{context})"
        )


def _within_tiers(which: bool | Iterable[int], tiers: Mapping[str, int]) -> tuple[int, ...]:
    """The tiers whose edges are forbidden: ``True`` every tier, ``False`` none, or the
    tier numbers given (each must hold a variable)."""
    if isinstance(which, bool):
        return tuple(sorted(set(tiers.values()))) if which else ()
    chosen = tuple(sorted({int(t) for t in which}))
    empty = [t for t in chosen if t not in set(tiers.values())]
    if empty:
        raise InputError(f"edges within tier {empty[0]} are forbidden, but no variable is in "
                         "that tier")
    return chosen


def check_known_relations(knowledge: Knowledge | None,
                          relations: Iterable[Sequence[str]], source: str) -> None:
    """Refuse known relations (``(a, b, relation)`` rows of ``source``, a file name) that
    contradict ``knowledge``: a known arc the knowledge excludes, a known ``--`` whose
    both directions it excludes, a known ``none`` where it requires an arc (docs/design.md
    §9.3). The error names the pair and the rule."""
    if knowledge is None:
        return
    for a, b, relation in relations:
        why = knowledge.contradiction(str(a), str(b), str(relation))
        if why is not None:
            raise InputError(f"{source}: the known relation {a} {str(relation).strip()} {b} "
                             f"contradicts the background knowledge: {why}")


def _find_cycle(arcs: Sequence[tuple[str, str]]) -> list[str] | None:
    """A directed cycle among ``arcs`` (as a node list, first node repeated) or ``None``."""
    children: dict[str, list[str]] = {}
    for a, b in arcs:
        children.setdefault(a, []).append(b)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for root in sorted(children):
        if root in state:
            continue
        stack, path = [(root, iter(children.get(root, ())))], [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(children.get(nxt, ()))))
                path.append(nxt)
    return None


class BoundKnowledge:
    """Knowledge over variable indices, as the searches ask it (see :class:`Knowledge`)."""

    def __init__(self, required: set[tuple[int, int]], forbidden: set[tuple[int, int]],
                 tier: list[int | None], forbidden_within: set[int] = frozenset(),
                 context: set[int] = frozenset()) -> None:
        self.required = frozenset(required)
        self.forbidden = frozenset(forbidden)
        self.tier = tier
        self.forbidden_within = frozenset(forbidden_within)
        self.context = frozenset(context)
        self.required_parents: dict[int, set[int]] = {}
        for i, j in self.required:
            self.required_parents.setdefault(j, set()).add(i)

    def forbids(self, i: int, j: int) -> bool:
        """Whether the arc ``i → j`` is excluded: forbidden, against a required ``j → i``,
        from a later tier into an earlier one, or within a tier whose edges are forbidden."""
        if (i, j) in self.forbidden or (j, i) in self.required:
            return True
        ti, tj = self.tier[i], self.tier[j]
        if ti is None or tj is None:
            return False
        return ti > tj or (ti == tj and ti in self.forbidden_within)

    def tiers_forbid(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether the tiers exclude each arc ``i[k] → j[k]`` (a boolean array): into an
        earlier tier, or within a tier whose edges are forbidden."""
        tier = np.array([-1 if t is None else t for t in self.tier], dtype=np.int64)
        ti, tj = tier[np.asarray(i, dtype=np.int64)], tier[np.asarray(j, dtype=np.int64)]
        within = np.isin(ti, list(self.forbidden_within))
        return (ti >= 0) & (tj >= 0) & ((ti > tj) | ((ti == tj) & within))

    @property
    def all_tiered(self) -> bool:
        """Whether every variable has a tier (then tiers rise along every directed path)."""
        return all(t is not None for t in self.tier)

    def forbids_arcs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """:meth:`forbids` of many arcs ``i[k] → j[k]`` at once (a boolean array)."""
        i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
        out = self.tiers_forbid(i, j)
        n = len(self.tier)
        listed = {a * n + b for a, b in self.forbidden} | {b * n + a for a, b in self.required}
        if listed:
            out |= np.isin(i * n + j, np.fromiter(listed, np.int64))
        return out

    def causes_required(self) -> np.ndarray:
        """The V × V boolean ``[a, b]``: required arcs make a directed path from a to b."""
        n = len(self.tier)
        reach = np.zeros((n, n), dtype=bool)
        for a, b in self.required:
            reach[a, b] = True
        for k in range(n):  # Warshall's transitive closure (required arcs are few)
            if reach[:, k].any():
                reach |= reach[:, [k]] & reach[[k], :]
        return reach

    def arcs_allowed(self) -> np.ndarray:
        """The V × V boolean ``[a, b]``: the arc a → b is not excluded (:meth:`forbids`)."""
        tier = np.array([-1 if t is None else t for t in self.tier], dtype=np.int64)
        ti, tj = tier[:, None], tier[None, :]
        within = np.isin(tier, list(self.forbidden_within))[:, None]
        banned = (ti >= 0) & (tj >= 0) & ((ti > tj) | ((ti == tj) & within))
        for a, b in self.forbidden:
            banned[a, b] = True
        for a, b in self.required:
            banned[b, a] = True
        np.fill_diagonal(banned, True)
        return ~banned

    def may_cause(self) -> np.ndarray:
        """The V × V boolean ``[a, b]``: a directed path of arcs the knowledge allows leads
        from a to b, so a may cause b (without one, a causes b in no graph the knowledge
        allows: e.g. every arc into b forbidden). Reachability over the allowed arcs'
        strongly connected components (few: tiers and untiered variables)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        allowed = csr_matrix(self.arcs_allowed())
        k, label = connected_components(allowed, directed=True, connection="strong")
        members = csr_matrix((np.ones(len(label)), (np.arange(len(label)), label)),
                             shape=(len(label), k))
        closure = (members.T @ allowed @ members).toarray() > 0
        for m in range(k):  # Warshall's transitive closure over the components
            closure |= closure[:, [m]] & closure[[m], :]
        return closure[label][:, label]

    def requires_adjacent(self, i: int, j: int) -> bool:
        """Whether ``i`` and ``j`` must stay adjacent (a required arc either way)."""
        return (i, j) in self.required or (j, i) in self.required

    def allows_insert(self, a: int, b: int, t: Sequence[int]) -> bool:
        """GES's Insert(a, b, T) adds ``a → b`` and orients ``t → b``: none may be excluded."""
        return not (self.forbids(a, b) or any(self.forbids(k, b) for k in t))

    def allows_delete(self, x: int, y: int, h: Sequence[int]) -> bool:
        """GES's Delete(x, y, H) removes the edge and orients ``y → h`` and ``x → h``."""
        return not (self.requires_adjacent(x, y)
                    or any(self.forbids(y, k) or self.forbids(x, k) for k in h))

    def context_arc(self, i: int, j: int) -> bool:
        """Whether ``i`` is a context variable and ``j`` a system variable: an edge between
        them is ``i → j`` (JCI1: j does not cause i; JCI2: no hidden common cause), so a
        PAG has a tail at i and an arrowhead at j."""
        return i in self.context and j not in self.context

    def compels(self, i: int, j: int) -> bool:
        """Whether an edge between ``i`` and ``j`` must be ``i → j`` by the knowledge."""
        return self.forbids(j, i) and not self.forbids(i, j)


def bind_knowledge(knowledge: Knowledge | BoundKnowledge | None,
                   names: Sequence[str]) -> BoundKnowledge | None:
    """``knowledge`` over the indices of ``names``; ``None`` when there is none, so that a
    search without knowledge runs exactly as before."""
    if knowledge is None or isinstance(knowledge, BoundKnowledge):
        return knowledge
    if not isinstance(knowledge, Knowledge):
        raise TypeError(f"knowledge must be a causalcal.Knowledge, got {type(knowledge)!r}")
    return None if knowledge.is_empty else knowledge.bind(names)


def with_knowledge(names: Sequence[str], knowledge: Knowledge | None,
                   options: dict[str, Any]) -> dict[str, Any]:
    """A search's ``options`` with ``knowledge`` added, checked against the data's variable
    ``names`` now (before any worker starts); empty knowledge is left out, so such a run is
    the run without it. Knowledge also given among ``options`` is an error."""
    if knowledge is None:
        return options
    if not isinstance(knowledge, Knowledge):
        raise TypeError(f"knowledge must be a causalcal.Knowledge, got {type(knowledge)!r}")
    if knowledge.is_empty:
        return options
    if "knowledge" in options:
        raise InputError("knowledge given twice (as knowledge= and as a search option)")
    knowledge.bind(names)  # unknown variables fail here
    return {**options, "knowledge": knowledge}
