"""One file (or frame) of answers read row by row, its design checked (docs/design.md
§9.12; issue 49 items 4, 9, 10).

A row is a *suggested* row when its :data:`~.draws.DESIGN_COLUMNS` are filled (the row a
``suggest`` round wrote), else the scientist's own: a known relation of §9.3, or a second
row for a suggested pair (the other ``not-causes``). Header names are read without case or
surrounding blanks (``A,B,Relation`` is ``a,b,relation``); rows whose every cell is blank
are skipped. The relation of a suggested row may be blank (not answered yet) or
``unknown`` (the scientist cannot tell); either leaves the pair unanswered. The optional
``confidence`` column holds ``sure``, ``likely``, ``guess`` or an error rate in [0, 0.5)
(:data:`CONFIDENCE_ERRORS`), blank where not stated.

Every design cell is checked where it stands: whole numbers, a stratum 0–4, a stratum no
smaller than what it gave, one size and one count per stratum and round, no more pairs than
the data's variables make; with the design record of :mod:`.answer_file`, every cell and
pair must be the recorded ones. Each problem is an ``InputError`` naming the file, the row
(data rows counted from 1 below the header) and the column.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal._io import read_csv_file
from causalcal.calibration import N_BINS
from causalcal.edgecal.answer_file import read_draw, record_path
from causalcal.edgecal.draws import DESIGN_COLUMNS, Draw, Round
from causalcal.errors import InputError
from causalcal.pairs import n_pairs, pair_index
from causalcal.relations_io import UNKNOWN, variable_indices

__all__ = ["CONFIDENCE_ERRORS", "FRAME", "AnswerRows", "answer_rows"]

#: the error rate each word of the ``confidence`` column stands for (docs/design.md §9.12)
CONFIDENCE_ERRORS = {"sure": 0.02, "likely": 0.1, "guess": 0.33}
#: relations an answer file may hold that leave a pair unanswered: blank, ``unknown``
BLANK = ""
#: how messages name a frame of answers (a file is named by its path)
FRAME = "known relations"


@dataclass(frozen=True)
class AnswerRows:
    """One file's rows (see the module).

    Attributes
    ----------
    source : the file's name, or :data:`FRAME` for a frame
    frame : ``a, b, relation`` (lower case, blanks stripped; ``unknown`` also for a blank
        suggested relation) of every row
    keys : (n,) unordered pair key of each row
    round : (n,) the round of a suggested row, 0 for the scientist's own rows
    errors : (n,) the stated error rate of each row (NaN: not stated)
    blank : (n,) rows whose relation was left blank
    draw : the design these rows answer (the record's, or read from the design cells), or
        None without suggested rows
    """

    source: str
    frame: pd.DataFrame
    keys: np.ndarray
    round: np.ndarray
    errors: np.ndarray
    blank: np.ndarray
    draw: Draw | None


def _frame(known) -> tuple[str, pd.DataFrame, Path | None]:
    if isinstance(known, pd.DataFrame):
        frame = known.astype(object).where(known.notna(), "").astype(str)
        return FRAME, frame, None
    _, frame = read_csv_file(known, comments=True, dtype=str, keep_default_na=False)
    return str(known), frame, Path(known)


def _columns(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """Header names without case or blanks; ``a, b, relation`` required."""
    frame = frame.rename(columns=lambda c: str(c).strip().lower())
    twice = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1})
    if twice:
        raise InputError(f"{source}: column {twice[0]!r} given twice (header names are "
                         "read without case or surrounding blanks)")
    missing = [c for c in ("a", "b", "relation") if c not in frame.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {', '.join(missing)}; need a,b,relation "
                         f"(found {', '.join(map(str, frame.columns[:8]))})")
    cells = frame.apply(lambda col: col.str.strip())
    return frame[(cells != "").any(axis=1).to_numpy()]


def answer_rows(known: pd.DataFrame | str | os.PathLike, names: list[str],
                relations: str) -> AnswerRows:
    """The rows of ``known`` (a file or frame) over the data's ``names``, checked (see the
    module); ``relations`` the kind discovered (a recorded draw of another kind is
    refused)."""
    source, frame, path = _frame(known)
    frame = _columns(frame, source)
    draw = read_draw(path) if path is not None else None
    present = [c for c in DESIGN_COLUMNS if c in frame.columns]
    if draw is not None and len(present) < len(DESIGN_COLUMNS):
        gone = [c for c in DESIGN_COLUMNS if c not in present][0]
        raise InputError(f"{source}: column {gone} is missing, and {record_path(path).name} "
                         "records the draw it belongs to: restore the column as suggest wrote "
                         "it (edit only relation and confidence)")
    if draw is None and present:
        if path is not None and "p_related" in frame.columns and "round" not in present:
            raise InputError(f"{source}: suggested by an earlier causalcal, without a design "
                             "record, so its design cannot be checked: suggest again (the "
                             "pairs you answered may go in as --known rows of your own), or "
                             "remove the design columns to use the rows as known pairs")
        if path is not None:
            raise InputError(f"{source}: the design record {record_path(path).name} is "
                             "missing (causalcal suggest writes it beside the file): keep the "
                             "two together — copy it beside this file under that name — or "
                             "remove the design columns to use the rows as known pairs "
                             "without a design")
        if len(present) < len(DESIGN_COLUMNS):
            gone = [c for c in DESIGN_COLUMNS if c not in present][0]
            raise InputError(f"{source}: column {gone} is missing beside "
                             f"{', '.join(present)}; a suggested row needs all of "
                             f"{', '.join(DESIGN_COLUMNS)}")
    a, b = variable_indices(frame, names, source)
    same = np.flatnonzero(a == b)
    if len(same):
        raise InputError(f"{source}: row {same[0] + 1} pairs {frame['a'].iloc[same[0]]!r} "
                         "with itself")
    keys = pair_index(np.minimum(a, b), np.maximum(a, b), len(names))
    cells = (frame[list(DESIGN_COLUMNS)].apply(lambda c: c.str.strip()).to_numpy()
             if present else np.full((len(frame), 4), BLANK, dtype=object))
    design = _design_cells(cells, source, len(names))
    suggested = design[:, 0] > 0
    if draw is not None:
        draw = _on(draw, names, source)
        if relations and draw.relations and draw.relations != relations:
            raise InputError(f"{source}: the pairs were suggested for relations "
                             f"{draw.relations!r} (their strata are of that kind's "
                             f"P(related)); discover them with --relations {draw.relations}")
        _check_against_record(draw, keys, design, suggested, source)
    elif suggested.any():
        draw = _draw_from_cells(keys, design, suggested, names, source)
    relation = frame["relation"].str.strip().str.lower()
    blank = (relation == BLANK).to_numpy()
    _check_relations(frame, relation, blank, suggested, keys, draw, relations, source)
    rows = pd.DataFrame({"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy(),
                         "relation": np.where(blank, UNKNOWN, frame["relation"].str.strip())})
    errors = _confidence(frame, source)
    return AnswerRows(source, rows, keys, design[:, 0], errors, blank, draw)


def _design_cells(cells: np.ndarray, source: str, n_vars: int) -> np.ndarray:
    """(n, 4) int64 round, stratum, stratum_pairs, stratum_drawn of each row (0 where the
    row has no design); every filled cell checked where it stands."""
    out = np.zeros(cells.shape, dtype=np.int64)
    filled = cells != BLANK
    for r in np.flatnonzero(filled.any(axis=1) & ~filled.all(axis=1)):
        gone = DESIGN_COLUMNS[int(np.argmin(filled[r]))]
        raise InputError(f"{source}: row {r + 1}, column {gone}: blank while the row's other "
                         "design columns are filled; leave them as suggest wrote them")
    limit = n_pairs(n_vars)
    for r in np.flatnonzero(filled.all(axis=1)):
        for c, name in enumerate(DESIGN_COLUMNS):
            out[r, c] = _whole(cells[r, c], source, r, name, limit)
        number, stratum, size, drawn = out[r]
        where = f"{source}: row {r + 1}, column"
        if number < 1:
            raise InputError(f"{where} round: {cells[r, 0]!r}; rounds are numbered from 1")
        if not 0 <= stratum < N_BINS:
            raise InputError(f"{where} stratum: {cells[r, 1]!r}; the strata are 0 to "
                             f"{N_BINS - 1} (the bins of P(related) [0, 0.2) … [0.8, 1])")
        if size < 1:
            raise InputError(f"{where} stratum_pairs: {cells[r, 2]!r}; a stratum a pair was "
                             "drawn from holds at least 1 pair")
        if not 1 <= drawn <= size:
            raise InputError(f"{where} stratum_drawn: {cells[r, 3]!r}, but stratum_pairs says "
                             f"the stratum holds {size}: a stratum gives at most its pairs")
    return out


def _whole(text: str, source: str, r: int, name: str, limit: int) -> int:
    try:
        value = float(text)
    except ValueError:
        value = np.nan
    if not np.isfinite(value) or value != int(value):
        raise InputError(f"{source}: row {r + 1}, column {name}: {text!r} is not a whole "
                         "number; leave the design columns as suggest wrote them")
    if abs(value) > max(limit, 10):
        raise InputError(f"{source}: row {r + 1}, column {name}: {text!r} is more than the "
                         f"{limit} pairs the data's {n_vars_of(limit)} variables make: the "
                         "pairs were drawn on other variables, or the cell was edited")
    return int(value)


def n_vars_of(pairs: int) -> int:
    """The variables that make ``pairs`` pairs."""
    return int(round((1 + np.sqrt(1 + 8 * pairs)) / 2))


def _on(draw: Draw, names: list[str], source: str) -> Draw:
    """``draw`` with its pair keys over the data's ``names`` (same variables, any order)."""
    if list(draw.names) == list(names):
        return draw
    gone, new = sorted(set(draw.names) - set(names)), sorted(set(names) - set(draw.names))
    if gone or new:
        what = "; ".join(filter(None, (
            gone and f"{len(gone)} not in the data ({', '.join(gone[:6])})",
            new and f"{len(new)} of the data's not in it ({', '.join(new[:6])})")))
        raise InputError(f"{source}: the pairs were drawn on {len(draw.names)} variables, "
                         f"the data has {len(names)}: {what}; use the data and options "
                         "(--drop-columns, --discretize, …) the pairs were suggested on")
    from causalcal.pairs import pair_from_index

    index = np.array([names.index(n) for n in draw.names], dtype=np.int64)

    def remap(keys):
        i, j = pair_from_index(keys, len(names))
        x, y = index[i], index[j]
        return pair_index(np.minimum(x, y), np.maximum(x, y), len(names))

    rounds = tuple(Round(r.number, remap(r.keys), r.strata, r.drawn, r.p_related, r.seed,
                         r.allocation) for r in draw.rounds)
    return Draw(draw.relations, tuple(names), draw.sizes, draw.means,
                np.sort(remap(draw.excluded)), draw.strata_fingerprint, rounds)


def _check_against_record(draw: Draw, keys: np.ndarray, design: np.ndarray,
                          suggested: np.ndarray, source: str) -> None:
    """Every suggested row is a recorded pair of a recorded round, with its recorded
    stratum, stratum size and count."""
    rounds = {r.number: r for r in draw.rounds}
    held = ", ".join(str(n) for n in rounds)
    for r in np.flatnonzero(suggested):
        number, stratum, size, drawn = design[r]
        where = f"{source}: row {r + 1}"
        if number not in rounds:
            raise InputError(f"{where}, column round: round {number} is not in the design "
                             f"record {record_path(source).name} (it holds round {held}): "
                             "give each round's file as suggest wrote it (discover --known "
                             "ask.csv ask2.csv …), not pasted into another")
        found = np.flatnonzero(rounds[number].keys == keys[r])
        if not len(found):
            raise InputError(f"{where}, columns a, b: round {number} never asked about this "
                             "pair (the design record holds the pairs asked); a pair of your "
                             "own goes in a row without the design columns")
        expected = (int(rounds[number].strata[found[0]]),
                    int(draw.sizes[rounds[number].strata[found[0]]]),
                    int(rounds[number].drawn[rounds[number].strata[found[0]]]))
        for name, value, want in zip(DESIGN_COLUMNS[1:], design[r, 1:], expected, strict=True):
            if value != want:
                raise InputError(f"{where}, column {name}: {value}, but the design record "
                                 f"says {want}: the design columns must stay as suggest "
                                 "wrote them")


def _draw_from_cells(keys: np.ndarray, design: np.ndarray, suggested: np.ndarray,
                     names: list[str], source: str) -> Draw:
    """The design the rows' cells state (no record: a frame), checked for consistency."""
    sizes = np.zeros(N_BINS, dtype=np.int64)
    first: dict[tuple, int] = {}
    stratum_of: dict[int, tuple[int, int, int]] = {}
    for r in np.flatnonzero(suggested):
        number, stratum, size, drawn = (int(v) for v in design[r])
        earlier = first.setdefault((number, stratum), r)
        if tuple(design[earlier, 2:]) != (size, drawn):
            c = 2 if design[earlier, 2] != size else 3
            raise InputError(f"{source}: rows {earlier + 1} and {r + 1}, column "
                             f"{DESIGN_COLUMNS[c]}: {design[earlier, c]} and {design[r, c]} "
                             "for one round and stratum, which has one; leave the design "
                             "columns as suggest wrote them")
        if sizes[stratum] and sizes[stratum] != size:
            raise InputError(f"{source}: row {r + 1}, column stratum_pairs: {size}, but "
                             f"another round says stratum {stratum} holds {sizes[stratum]}")
        sizes[stratum] = size
        seen = stratum_of.setdefault(int(keys[r]), (number, stratum, r))
        if seen[:2] != (number, stratum):
            raise InputError(f"{source}: rows {seen[2] + 1} and {r + 1} give one pair two "
                             "designs (rounds or strata): each pair is asked once")
    if sizes.sum() > n_pairs(len(names)):
        raise InputError(f"{source}: the design's strata hold {int(sizes.sum())} pairs, but the "
                         f"data's {len(names)} variables make {n_pairs(len(names))}: the pairs "
                         "were drawn on other variables")
    rounds = []
    for number in sorted({n for n, _ in first}):
        members = sorted(k for k, v in stratum_of.items() if v[0] == number)
        strata = np.array([stratum_of[k][1] for k in members], dtype=np.int64)
        drawn = np.zeros(N_BINS, dtype=np.int64)
        for (n, s), r in first.items():
            if n == number:
                drawn[s] = design[r, 3]
        over = np.flatnonzero(np.bincount(strata, minlength=N_BINS) > drawn)
        if len(over):
            raise InputError(f"{source}: round {number} has more pairs in stratum {over[0]} "
                             f"than its stratum_drawn ({drawn[over[0]]})")
        rounds.append(Round(number, np.array(members, dtype=np.int64), strata, drawn,
                            np.full(len(members), np.nan)))
    return Draw("", tuple(names), sizes, np.full(N_BINS, np.nan), np.zeros(0, np.int64), "",
                tuple(rounds), complete=False)


def _check_relations(frame: pd.DataFrame, relation: pd.Series, blank: np.ndarray,
                     suggested: np.ndarray, keys: np.ndarray, draw: Draw | None,
                     relations: str, source: str) -> None:
    """Blank relations only for suggested pairs; a suggested pair answered in the other
    kind's words (``none`` for causal relations; ``causes`` for edges) is refused by name."""
    asked = np.isin(keys, draw.keys) if draw is not None else suggested
    for r in np.flatnonzero(blank & ~asked):
        raise InputError(f"{source}: row {r + 1}, column relation: blank; a row of your own "
                         f"({frame['a'].iloc[r]}, {frame['b'].iloc[r]}) needs a relation — "
                         "write unknown where you cannot tell, or delete the row")
    if relations == "causal":
        wrong = np.flatnonzero(asked & (relation == "none").to_numpy())
        if len(wrong):
            raise InputError(f"{source}: row {wrong[0] + 1}, column relation: none (not "
                             "adjacent) says nothing of causation, so an answer 'none' would "
                             "be lost; for causal relations answer causes (a causes b; swap a "
                             "and b for the other way), not-causes in both directions (two "
                             "rows: neither causes the other), or unknown")
    elif relations:
        wrong = np.flatnonzero(asked & relation.isin(("causes", "not-causes")).to_numpy())
        if len(wrong):
            raise InputError(f"{source}: row {wrong[0] + 1}, column relation: "
                             f"{relation.iloc[wrong[0]]} is a causal relation, but the pairs "
                             f"are asked as {relations} (->, <-, --, none, or unknown); "
                             "suggest --relations causal asks causal questions")


def _confidence(frame: pd.DataFrame, source: str) -> np.ndarray:
    """(n,) each row's stated error rate (NaN where the column is absent or blank)."""
    out = np.full(len(frame), np.nan)
    if "confidence" not in frame.columns:
        return out
    for r, cell in enumerate(frame["confidence"].str.strip().str.lower()):
        if cell == BLANK:
            continue
        if cell in CONFIDENCE_ERRORS:
            out[r] = CONFIDENCE_ERRORS[cell]
            continue
        try:
            value = float(cell)
        except ValueError:
            value = np.nan
        if not 0 <= value < 0.5:
            raise InputError(f"{source}: row {r + 1}, column confidence: {cell!r}; write "
                             f"{', '.join(CONFIDENCE_ERRORS)} or the chance that the answer "
                             "is wrong, a number from 0 to below 0.5 (blank: not stated)")
        out[r] = value
    return out
