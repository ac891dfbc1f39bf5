"""Context columns of Joint Causal Inference (Mooij, Magliacane & Claassen 2020, "Joint
causal inference from multiple contexts"; docs/design.md §5.2): condition or regime
variables set from outside the system, as :class:`causalcal.knowledge.Knowledge` takes
them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from causalcal.errors import InputError

__all__ = ["Context", "contexts"]


@dataclass(frozen=True)
class Context:
    """A context column of Joint Causal Inference (Mooij, Magliacane & Claassen 2020;
    docs/design.md §5.2): a condition or regime index set from outside the system
    (JCI1: no system variable causes it; JCI2: none shares a hidden cause with it).
    ``targets``: the system variables it acts on directly (its only children), or
    ``None`` when unknown (any)."""

    column: str
    targets: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "column", str(self.column))
        if self.targets is not None:
            if isinstance(self.targets, str):
                raise InputError(f"targets of context {self.column!r}: expected names, got "
                                 f"the text {self.targets!r}")
            targets = tuple(sorted({str(t) for t in self.targets}))
            if not targets:
                raise InputError(f"context {self.column!r}: known targets must name at least "
                                 "one variable (leave them out when unknown)")
            if self.column in targets:
                raise InputError(f"context {self.column!r} names itself as a target")
            object.__setattr__(self, "targets", targets)


def contexts(context: Iterable[Context | str]) -> tuple[Context, ...]:
    """Context columns as :class:`Context` values, by column; a column given twice is an
    error."""
    if isinstance(context, (str, Context)):
        context = [context]
    out = [c if isinstance(c, Context) else Context(str(c)) for c in context]
    columns = [c.column for c in out]
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise InputError(f"context column {twice[0]!r} is given twice")
    return tuple(sorted(out, key=lambda c: c.column))
