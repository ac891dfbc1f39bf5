"""Pairs to ask the scientist about, in rounds: :func:`suggest`, what ``causalcal suggest``
does (docs/design.md §9.12; issues 39, 48).

Bootstrap the data (or take given probabilities), leave out the pairs known already and
those the background knowledge decides, and draw a round of pairs across the strata of
P(related) (:func:`causalcal.edgecal.draw_round`); ``more=`` the earlier rounds' files
draws a later round of the same design, from the pairs not asked yet.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal.bootstrap import BootstrapSettings
from causalcal.bootstrap.checkpoint import data_fingerprint
from causalcal.data import DiscreteData, MixedData
from causalcal.edgecal import (
    Draw,
    RelationKind,
    draw_round,
    read_draw,
    relation_kind,
    write_suggested,
)
from causalcal.edgecal.answer_rows import answer_rows
from causalcal.edgecal.answers import combined_draw
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.pairs import pair_index
from causalcal.workflow.inputs import as_data, check_search, decided_pairs, given_probabilities

__all__ = ["Suggestion", "suggest"]


@dataclass(frozen=True)
class Suggestion:
    """A round of pairs to ask about.

    Attributes
    ----------
    draw : the :class:`~causalcal.edgecal.Draw`: the design, every round so far
    probabilities : the bootstrap's result the strata were made from
    data_fingerprint : the data's fingerprint (recorded beside the file)
    known : pairs left out as known already (first round)
    decided : pairs left out because the background knowledge decides them (first round)
    """

    draw: Draw
    probabilities: EdgeProbabilities
    data_fingerprint: str
    known: int = 0
    decided: int = 0

    @property
    def table(self) -> pd.DataFrame:
        """This round's rows, as the suggested file holds them."""
        return self.draw.table()

    @property
    def round(self) -> int:
        return len(self.draw.rounds)

    def save(self, path: str | os.PathLike) -> tuple[Path, Path]:
        """Write the rows to the CSV ``path`` and the design record to ``PATH.json``
        (:func:`causalcal.edgecal.write_suggested`). Returns the two paths."""
        return write_suggested(path, self.draw, self.data_fingerprint)

    def summary(self) -> str:
        """One line: the pairs drawn from each stratum, and the design so far."""
        last = self.draw.rounds[-1]
        counts = ", ".join(f"[{s * 0.2:.1f}, {s * 0.2 + 0.2:.1f}): {int(last.drawn[s])}"
                           for s in range(len(last.drawn))[::-1] if last.drawn[s])
        left = [f"{self.known} known already" if self.known else "",
                f"{self.decided} decided by the background knowledge" if self.decided else ""]
        left = [w for w in left if w]
        out = (f"round {self.round}: {len(last.keys)} pairs from the strata of P(related) "
               f"{counts}")
        if self.round > 1:
            out += (f"; {int(self.draw.drawn.sum())} asked so far of "
                    f"{int(self.draw.sizes.sum())} pairs")
        return out + (f" (left out: {', '.join(left)})" if left else "")


def suggest(
    data: DiscreteData | MixedData | pd.DataFrame | str | os.PathLike,
    n: int = 40,
    *,
    relations: str | RelationKind = "edges",
    bootstrap: BootstrapSettings | None = None,
    probabilities: EdgeProbabilities | str | os.PathLike | None = None,
    known: pd.DataFrame | str | os.PathLike | list | None = None,
    more: list | str | os.PathLike | Suggestion | None = None,
    allocation: str = "proportional",
    seed: int | None = None,
) -> Suggestion:
    """``n`` pairs to ask the scientist about, drawn across the strata of the bootstrap's
    P(related) with inclusion rates known exactly (docs/design.md §9.12).

    Parameters
    ----------
    data : the data (as :func:`causalcal.discover` takes it: discrete, or continuous and
        mixed for a Gaussian score).
    relations : ``"edges"`` (strata of P(adjacent)), ``"causal"`` (of P(a causes b or b
        causes a); the bootstrap counts ancestral relations) or ``"pag"`` (of P(arc), a
        PAG search).
    bootstrap : the :class:`~causalcal.bootstrap.BootstrapSettings`, background knowledge
        included (pairs it decides are never asked).
    probabilities : precomputed bootstrap probabilities (skips the bootstrap).
    known : the scientist's own known relations (files or frames ``a, b, relation``;
        ``unknown`` rows are read and state nothing): left out of the draw. A file of
        suggested pairs is refused here: it goes in ``more``.
    more : the earlier rounds (the files :meth:`Suggestion.save` wrote, answered or not,
        or :class:`Suggestion` objects): draw the next round of their design, on the same
        strata (the same probabilities; an ``InputError`` otherwise), from the pairs not
        asked yet.
    allocation : ``"proportional"`` (default: 2 per stratum, the rest by the strata's
        sizes, the cumulative total of every round) or ``"equal"``.
    seed : the draw's seed (default the bootstrap's); round k draws with ``[seed, k]``.

    Everything the inputs decide is checked before the bootstrap: the kind against the
    search, the known relations, the earlier rounds' records and variables, and that no
    pair the knowledge decides or that is known would join a later round's population.
    """
    kind = relation_kind(relations)
    bootstrap = BootstrapSettings() if bootstrap is None else bootstrap
    data = as_data(data, bootstrap)
    given, data = given_probabilities(probabilities, data)
    check_search(kind, given, bootstrap)
    previous = _previous(more, data.names, kind)
    known_keys = _known_keys(known, data.names, kind)
    decided = decided_pairs(kind, bootstrap.knowledge, data.names)
    exclude = np.union1d(known_keys, decided)
    if previous is not None:
        _check_population(previous, known_keys, decided, data.names)
    if given is None:
        given = bootstrap.run(data, ancestral=kind.ancestral)
    raw = kind.raw(given, bootstrap.knowledge)
    draw = draw_round(raw, n, seed=bootstrap.seed if seed is None else seed,
                      exclude=None if previous is not None else exclude,
                      allocation=allocation, previous=previous, relations=kind.name)
    new = previous is None
    return Suggestion(draw, given, data_fingerprint(data), len(known_keys) if new else 0,
                      len(np.setdiff1d(decided, known_keys)) if new else 0)


def _previous(more, names: list[str], kind: RelationKind) -> Draw | None:
    """The design of the earlier rounds (their records checked, one chain)."""
    if more is None:
        return None
    items = list(more) if isinstance(more, (list, tuple)) else [more]
    draws = []
    for item in items:
        if isinstance(item, Suggestion):
            draws.append(("a suggestion", item.draw))
            continue
        if isinstance(item, pd.DataFrame):
            raise InputError("more= takes the files causalcal suggest wrote (or Suggestion "
                             "objects): a frame carries no design record")
        draw = read_draw(item)
        if draw is None:
            raise InputError(f"{item}: not a file of suggested pairs (no design record "
                             f"{Path(item).name}.json beside it); --more takes the files "
                             "causalcal suggest wrote")
        answer_rows(item, names, kind.name)  # its rows: as the record says
        draws.append((str(item), draw))
    draw = combined_draw(draws)
    if draw.relations != kind.name:
        raise InputError(f"{draws[0][0]}: its pairs were drawn for relations "
                         f"{draw.relations!r}; a later round asks the same kind "
                         f"(--relations {draw.relations})")
    if list(draw.names) != list(names):
        raise InputError(f"{draws[0][0]}: drawn on other variables ({len(draw.names)}: "
                         f"{', '.join(draw.names[:8])}{' …' if len(draw.names) > 8 else ''}) "
                         f"than the data's {len(names)}; a later round needs the data and "
                         "options of the first (--drop-columns, --discretize, …)")
    return draw


def _known_keys(known, names: list[str], kind: RelationKind) -> np.ndarray:
    """Pair keys of the scientist's own known relations (``unknown`` rows state nothing)."""
    if known is None:
        return np.zeros(0, dtype=np.int64)
    keys = []
    for item in (list(known) if isinstance(known, (list, tuple)) else [known]):
        rows = answer_rows(item, names, kind.name)
        if rows.draw is not None:
            raise InputError(f"{rows.source}: a file of suggested pairs; to ask more pairs "
                             f"of its design, give it as --more {rows.source} (more=)")
        pairs = kind.read_known(rows.frame, names, rows.source)
        keys.append(pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), len(names)))
    return np.unique(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)


def _check_population(previous: Draw, known: np.ndarray, decided: np.ndarray,
                      names: list[str]) -> None:
    """A later round keeps the first round's population: a pair known or decided now that
    it holds and that was not asked yet would be asked with a rate the design counts
    wrongly — refused, naming the pairs."""
    outside = np.union1d(previous.excluded, previous.keys)
    for what, keys in (("known (--known)", known),
                       ("decided by the background knowledge", decided)):
        new = np.setdiff1d(keys, outside)
        if len(new):
            from causalcal.pairs import pair_from_index

            i, j = pair_from_index(new[:5], len(names))
            shown = ", ".join(f"{names[a]},{names[b]}" for a, b in zip(i, j, strict=True))
            raise InputError(f"{len(new)} pairs are {what} now but were not when the first "
                             f"round was drawn ({shown}{' …' if len(new) > 5 else ''}): the "
                             "rounds of one design share the first round's pairs; give the "
                             "--known and background knowledge of the first round, or start "
                             "a new design without --more")
