"""Known causal statements against background knowledge (docs/design.md §9.3).

"a causes b" is possible only where a directed path of arcs the knowledge allows leads
from a to b (:meth:`~causalcal.knowledge.BoundKnowledge.may_cause`) and no path of
required arcs leads from b to a; "neither" only where no path of required arcs leads
either way. :func:`check_known_causal_relations` refuses a statement whose every class is
excluded, naming the pair and the rule in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from causalcal.errors import InputError
from causalcal.knowledge import Knowledge

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["check_known_causal_relations"]


def check_known_causal_relations(knowledge: Knowledge | None, pairs: pd.DataFrame,
                                 names: Sequence[str], source: str = "known relations") -> None:
    """Refuse known causal statements (``pairs``, as ``read_known_causal_pairs`` returns
    them, over the data's ``names``) that ``knowledge`` makes impossible (docs/design.md
    §9.3): every class a pair allows is excluded. "x causes y" is excluded when no directed
    path of arcs the knowledge allows leads from x to y (:meth:`BoundKnowledge.may_cause`:
    e.g. every arc into y forbidden; x in a later tier than y when every variable is
    tiered, or both in one tier whose edges are forbidden), or when required arcs lead
    from y to x; "neither" when required arcs lead from one to the other. The error names
    the pair, the relation and the rule."""
    if knowledge is None or knowledge.is_empty:
        return
    names = [str(n) for n in names]
    tiers_decide = not knowledge.untiered(names)
    bound = knowledge.bind(names)
    may, allowed = bound.may_cause(), bound.arcs_allowed()
    children: dict[str, list[str]] = {}
    for a, b in knowledge.required:
        children.setdefault(a, []).append(b)
    for row in pairs.itertuples(index=False):
        x, y = names[row.i], names[row.j]
        xy, yx = _directed_path(children, x, y), _directed_path(children, y, x)
        forward = (_cannot_cause(knowledge, x, y, tiers_decide)
                   or _no_path(may, allowed, names, row.i, row.j) or _causes(yx))
        backward = (_cannot_cause(knowledge, y, x, tiers_decide)
                    or _no_path(may, allowed, names, row.j, row.i) or _causes(xy))
        excluded = (_causes(xy or yx), forward, backward)
        allowed_classes = [bool(row.neither), bool(row.forward), bool(row.backward)]
        reasons = [why for why, ok in zip(excluded, allowed_classes) if ok]
        if reasons and all(reasons):
            relation = str(row.relation).strip()  # several statements are joined whole
            stated = relation if "; " in relation else f"{row.a} {relation} {row.b}"
            raise InputError(f"{source}: the known relation {stated} of the pair ({x}, {y}) "
                             "contradicts the background knowledge: "
                             f"{'; '.join(dict.fromkeys(reasons))}")


def _no_path(may: np.ndarray, allowed: np.ndarray, names: list[str], a: int,
             b: int) -> str | None:
    """Why no chain of allowed arcs leads from ``a`` to ``b`` (None: one does)."""
    if may[a, b]:
        return None
    if not allowed[:, b].any():
        return (f"no arc into {names[b]} is allowed (forbidden, or into an earlier tier), "
                f"so nothing causes {names[b]}")
    if not allowed[a, :].any():
        return (f"no arc out of {names[a]} is allowed (forbidden, or into an earlier tier), "
                f"so {names[a]} causes nothing")
    return (f"no chain of arcs the knowledge allows leads from {names[a]} to {names[b]} "
            "(forbidden arcs and tiers)")


def _cannot_cause(knowledge: Knowledge, a: str, b: str, tiers_decide: bool) -> str | None:
    """Why the tiers keep ``a`` from causing ``b``, or ``None`` (always while
    ``tiers_decide`` is false: an untiered variable may lie on the path)."""
    ta, tb = knowledge.tiers.get(a), knowledge.tiers.get(b)
    columns = knowledge.context_columns
    if b in columns and a not in columns:
        return f"{b} is a context column, and no system variable causes one"
    if not tiers_decide:
        return None
    if ta is not None and tb is not None and ta > tb:
        return (f"{a} is in tier {ta}, after {b}'s tier {tb}, and no causal path leads into "
                "an earlier tier")
    if ta is not None and ta == tb and ta in knowledge.forbidden_within:
        return (f"{a} and {b} are both in tier {ta}, within which edges are forbidden, and "
                "a causal path cannot leave the tier and come back")
    return None


def _causes(path: list[str] | None) -> str | None:
    return None if path is None else (f"the required arcs {' -> '.join(path)} make "
                                      f"{path[0]} a cause of {path[-1]}")


def _directed_path(children: Mapping[str, Sequence[str]], a: str, b: str) -> list[str] | None:
    """A shortest directed path from ``a`` to ``b`` along ``children``, or ``None``."""
    parent: dict[str, str | None] = {a: None}
    queue = [a]
    for node in queue:
        for nxt in children.get(node, ()):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    if b not in parent:
        return None
    path = [b]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    return path[::-1]
