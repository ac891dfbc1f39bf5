"""Background knowledge for structure search: required and forbidden arcs, tiers.

Tetrad's ``Knowledge`` and bnlearn's whitelist/blacklist: a *required* arc ``A → B`` is
in every graph the search returns, as that directed arc; a *forbidden* arc ``C → D``
never is (an edge ``C — D`` is then oriented ``D → C``); *tiers* give variables a rank,
and no arc points from a later tier into an earlier one (variables without a tier are
unconstrained). The searches enforce it inside the search (docs/design.md §5): operators
that would break it are never considered and the CPDAG completion orients by it (Meek
1995, "Causal inference and causal explanation with background knowledge").

:class:`Knowledge` holds names; :meth:`Knowledge.bind` checks them against a data set's
variables and gives a :class:`BoundKnowledge` over variable indices, used by the searches
and by :func:`causalcal.graph.apply_meek_rules`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from causalcal.errors import InputError

__all__ = ["BoundKnowledge", "Knowledge", "bind_knowledge", "read_knowledge", "with_knowledge"]

RULES = ("required", "forbidden")


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
    ``tiers`` maps a variable to an integer tier (lower = earlier). Contradictions are an
    :class:`~causalcal.errors.InputError`: an arc both required and forbidden, required
    arcs that form a cycle, or a required arc from a later tier into an earlier one.
    """

    def __init__(
        self,
        required: Iterable[Sequence[str]] = (),
        forbidden: Iterable[Sequence[str]] = (),
        tiers: Mapping[str, int] | None = None,
    ) -> None:
        self.required = _pairs(required, "required")
        self.forbidden = _pairs(forbidden, "forbidden")
        self.tiers: dict[str, int] = {}
        for name, tier in sorted((tiers or {}).items(), key=lambda kv: str(kv[0])):
            if isinstance(tier, bool) or int(tier) != tier:
                raise InputError(f"tier of {name!r} must be an integer, got {tier!r}")
            self.tiers[str(name)] = int(tier)
        self._check_consistent()

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
        cycle = _find_cycle(self.required)
        if cycle:
            raise InputError(f"required arcs form a cycle: {' -> '.join(map(repr, cycle))}")

    @property
    def is_empty(self) -> bool:
        return not (self.required or self.forbidden or self.tiers)

    def variables(self) -> set[str]:
        """Every variable the knowledge names."""
        return {v for arc in self.required + self.forbidden for v in arc} | set(self.tiers)

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
        return BoundKnowledge(
            {(index[a], index[b]) for a, b in self.required},
            {(index[a], index[b]) for a, b in self.forbidden},
            tier,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Knowledge):
            return NotImplemented
        return repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:  # canonical: checkpoints identify a run's options by it
        return (
            f"Knowledge(required={list(self.required)!r}, forbidden={list(self.forbidden)!r}, "
            f"tiers={self.tiers!r})"
        )


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
                 tier: list[int | None]) -> None:
        self.required = frozenset(required)
        self.forbidden = frozenset(forbidden)
        self.tier = tier
        self.required_parents: dict[int, set[int]] = {}
        for i, j in self.required:
            self.required_parents.setdefault(j, set()).add(i)

    def forbids(self, i: int, j: int) -> bool:
        """Whether the arc ``i → j`` is excluded: forbidden, against a required ``j → i``,
        or from a later tier into an earlier one."""
        if (i, j) in self.forbidden or (j, i) in self.required:
            return True
        ti, tj = self.tier[i], self.tier[j]
        return ti is not None and tj is not None and ti > tj

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


def read_knowledge(
    arcs: str | os.PathLike | None = None, tiers: str | os.PathLike | None = None
) -> Knowledge:
    """Knowledge from the command line's files: ``arcs`` a CSV ``a,b,rule`` (rule
    ``required`` or ``forbidden``), ``tiers`` a CSV ``variable,tier``; errors name the
    file and row."""
    from causalcal._io import read_csv_file

    required, forbidden, tier_map = [], [], {}
    if arcs is not None:
        _, frame = read_csv_file(arcs, comments=True, dtype=str, skipinitialspace=True,
                                 keep_default_na=False)
        _need_columns(frame, ("a", "b", "rule"), arcs)
        for row, (a, b, rule) in enumerate(frame[["a", "b", "rule"]].itertuples(index=False)):
            rule = str(rule).strip().lower()
            if rule not in RULES:
                raise InputError(f"{arcs}: row {row + 1}: rule {rule!r} is not one of "
                                 f"{', '.join(RULES)}")
            (required if rule == "required" else forbidden).append((a.strip(), b.strip()))
    if tiers is not None:
        _, frame = read_csv_file(tiers, comments=True, dtype=str, skipinitialspace=True,
                                 keep_default_na=False)
        _need_columns(frame, ("variable", "tier"), tiers)
        for row, (name, tier) in enumerate(frame[["variable", "tier"]].itertuples(index=False)):
            try:
                value = int(str(tier).strip())
            except ValueError:
                raise InputError(f"{tiers}: row {row + 1}: tier {tier!r} is not an integer") \
                    from None
            if name.strip() in tier_map:
                raise InputError(f"{tiers}: row {row + 1}: variable {name!r} listed twice")
            tier_map[name.strip()] = value
    try:
        return Knowledge(required, forbidden, tier_map)
    except InputError as err:
        where = ", ".join(str(p) for p in (arcs, tiers) if p is not None)
        raise InputError(f"{where}: {err}") from None


def _need_columns(frame, columns: Sequence[str], path) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; need "
                         f"{','.join(columns)}")
