"""Relations of variable pairs as a table ``a,b,relation`` (docs/design.md §3, §9.3).

The same format holds relations known from the literature (``known.csv``, a few pairs)
and the true relations of a simulated network (``truth.csv``, every adjacent pair and
every variable): relation is ``->`` (a → b), ``<-`` (b → a), ``--`` (adjacent, direction
unknown) or ``none``; known relations may also state ``causes`` (a is an ancestor of b)
and ``not-causes`` (it is not), read by :func:`read_known_causal_pairs`. Variable names
are matched to the data's exactly, blanks included; the header names ``a``, ``b``,
``relation`` and the relation cells may carry blanks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from causalcal._io import read_csv_file
from causalcal.errors import InputError
from causalcal.pairs import (
    CAUSAL_RELATION_SYMBOLS,
    RELATION_SYMBOLS,
    EdgeType,
    n_pairs,
    pair_from_index,
    pair_index,
    swap_labels,
)
from causalcal.relation_chains import causal_statements, refuse_contradicting_chains

__all__ = ["CAUSAL_PAIR_COLUMNS", "RELATIONS", "RELATION_COLUMNS", "UNKNOWN", "pairs_frame",
           "read_known_causal_pairs", "read_known_pairs", "truth_frame", "truth_from_csv",
           "variable_indices"]

RELATION_COLUMNS = ("a", "b", "relation")
#: Every relation of an ``a,b,relation`` file: the four edge types, then the two causal ones.
RELATIONS = RELATION_SYMBOLS + CAUSAL_RELATION_SYMBOLS
#: A row that states nothing (the scientist cannot tell): read, then left out.
UNKNOWN = "unknown"
#: What the message of a relation that is none of these lists.
_USE = ("use ->, <-, --, none (edge types), causes, not-causes (causal relations), or "
        "unknown where you cannot tell")
#: Columns of :func:`read_known_causal_pairs`; the middle three in CausalType order.
CAUSAL_PAIR_COLUMNS = ("i", "j", "neither", "forward", "backward", "a", "b", "relation")
# The (neither, a causes b, b causes a) classes each relation allows, read as (a, b);
# ``none`` (not adjacent) allows all three and is dropped instead.
_CAUSAL_CLASSES = {
    "->": (False, True, False), "causes": (False, True, False),
    "<-": (False, False, True), "--": (False, True, True),
    "not-causes": (True, False, True),
}


def _read_table(path: str | os.PathLike) -> pd.DataFrame:
    """The file's cells as written (no blanks stripped), header names stripped."""
    _, frame = read_csv_file(path, comments=True, dtype=str, keep_default_na=False)
    frame.columns = [str(c).strip() for c in frame.columns]
    return _header(frame, str(path))


def _header(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """The frame with ``a, b, relation`` found without case (``A,B,Relation``)."""
    lower = [str(c).strip().lower() for c in frame.columns]
    twice = [c for c in RELATION_COLUMNS if lower.count(c) > 1]
    if twice:
        raise InputError(f"{source}: column {twice[0]!r} given twice (header names are "
                         "read without case or surrounding blanks)")
    frame = frame.copy()
    frame.columns = [low if low in RELATION_COLUMNS else c
                     for c, low in zip(frame.columns, lower, strict=True)]
    return frame


def variable_indices(frame: pd.DataFrame, names: Sequence[str],
                     source: str) -> tuple[np.ndarray, ...]:
    """Variable indices of columns ``a`` and ``b``; a name must match a data name exactly."""
    index = {n: k for k, n in enumerate(names)}
    unknown = sorted((set(frame["a"]) | set(frame["b"])) - set(index))
    for name in unknown:
        near = [n for n in names if str(n).strip() == name.strip()]
        if len(near) == 1:
            raise InputError(f"{source}: variable {name!r} is not in the data, which has "
                             f"{near[0]!r}; names must match exactly, blanks included")
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:20])
        more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
        raise InputError(f"{source}: variables not in the data: {shown}{more}")
    return (frame["a"].map(index).to_numpy(np.int64),
            frame["b"].map(index).to_numpy(np.int64))


def _read_rows(known: pd.DataFrame | str | os.PathLike, names: Sequence[str],
               source: str | None = None) -> tuple[str, pd.DataFrame, np.ndarray, np.ndarray,
                                                   np.ndarray]:
    """The validated rows of a known-relations table: its source (``source``, else the file
    name or ``known pairs``), its ``a, b, relation`` cells (relation without surrounding
    blanks), the variable indices of ``a`` and ``b`` and each row's number in the table
    (from 1), rows ``unknown`` left out (``attrs["unknown"]`` counts them). Any of the six
    relations is accepted."""
    if not isinstance(known, pd.DataFrame):
        source = source or str(known)
        known = _read_table(known)
    source = source or "known pairs"
    known = _header(known, source)
    missing = [c for c in RELATION_COLUMNS if c not in known.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {', '.join(missing)}; need a,b,relation")
    if len(known) == 0:
        raise InputError(f"{source}: no known pairs")
    blank = np.flatnonzero(known[list(RELATION_COLUMNS)].isna().any(axis=1).to_numpy())
    if len(blank):
        raise InputError(f"{source}: row {blank[0] + 1} lacks a, b or relation")
    frame = known[list(RELATION_COLUMNS)].astype(str)
    frame["relation"] = frame["relation"].str.strip()
    relations = frame["relation"].str.lower()
    a, b = variable_indices(frame, list(names), source)
    empty = np.flatnonzero((relations == "").to_numpy())
    if len(empty):
        raise InputError(f"{source}: row {empty[0] + 1}, column relation: blank; {_USE}")
    bad = np.flatnonzero(~relations.isin((*RELATIONS, UNKNOWN)).to_numpy())
    if len(bad):
        rows = ", ".join(f"row {r + 1} ({frame['relation'].iloc[r]!r})" for r in bad[:10])
        raise InputError(f"{source}: unknown relation at {rows}; {_USE}")
    same = np.flatnonzero(a == b)
    if len(same):
        raise InputError(f"{source}: row {same[0] + 1} pairs {frame['a'].iloc[same[0]]!r} "
                         "with itself")
    stated = (relations != UNKNOWN).to_numpy()
    if not stated.any():
        raise InputError(f"{source}: every row is unknown ({len(frame)}): no relation is "
                         "stated, so there is nothing to calibrate on; fill in what you know")
    unknown = int((~stated).sum())
    frame = frame[stated].reset_index(drop=True)
    frame.attrs["unknown"] = unknown
    return source, frame, a[stated], b[stated], np.flatnonzero(stated) + 1


def read_known_pairs(known: pd.DataFrame | str | os.PathLike, names: Sequence[str],
                     source: str | None = None) -> pd.DataFrame:
    """Validate known relations and orient them to the data's variable order.

    Input columns ``a, b, relation`` with relation one of ``->``, ``<-``, ``--``, ``none``.
    Names in ``a`` and ``b`` must equal one of ``names`` exactly (a name that matches only
    without its surrounding blanks is an error showing both spellings). Returns columns
    ``i, j`` (variable indices, ``i < j``), ``label`` (:class:`EdgeType` of the pair read
    as (i, j)), plus the original ``a, b, relation``. A pair listed twice with the same
    relation is kept once; with conflicting relations it is an error. Rows ``causes`` and
    ``not-causes`` (no exact edge type, see :func:`read_known_causal_pairs`) are validated,
    then skipped; ``attrs["ignored_causal"]`` counts them (docs/design.md §3); rows
    ``unknown`` state nothing and are skipped (``attrs["unknown"]``). ``source`` names the
    table in messages (default: the file name).
    """
    source, frame, a, b, _ = _read_rows(known, names, source)
    unknown = frame.attrs["unknown"]
    names = list(names)
    causal = frame["relation"].str.lower().isin(CAUSAL_RELATION_SYMBOLS).to_numpy()
    if causal.all():
        raise InputError(f"{source}: no known pairs: the file holds only causal relations "
                         "(causes, not-causes), which give no edge type; read it as causal "
                         "relations (--relations causal)")
    frame, a, b = frame[~causal], a[~causal], b[~causal]
    relations = frame["relation"].str.lower()
    label = np.array([EdgeType.from_symbol(r) for r in relations], dtype=np.int64)
    swap = a > b
    # Reading the pair the other way round swaps forward and backward.
    label[swap] = swap_labels(label[swap])
    out = frame.assign(i=np.minimum(a, b), j=np.maximum(a, b), label=label)
    conflicts = out.groupby(["i", "j"])["label"].nunique()
    conflicts = conflicts[conflicts > 1]
    if len(conflicts):
        i, j = conflicts.index[0]
        rows = out[(out["i"] == i) & (out["j"] == j)]
        listed = "; ".join(f"{r.a} {r.relation} {r.b}" for r in rows.itertuples())
        raise InputError(
            f"{source}: pair ({names[i]}, {names[j]}) listed with conflicting relations: {listed}"
        )
    out = out.drop_duplicates(["i", "j"]).reset_index(drop=True)
    out.attrs["ignored_causal"] = int(causal.sum())
    out.attrs["unknown"] = unknown
    return out


def read_known_causal_pairs(known: pd.DataFrame | str | os.PathLike, names: Sequence[str],
                            source: str | None = None) -> pd.DataFrame:
    """Known relations as causal statements (docs/design.md §3, §3.1): per pair, the
    :class:`~causalcal.pairs.CausalType` classes they allow.

    Input as :func:`read_known_pairs`, with any of the six relations. Read as (a, b):
    ``causes`` and ``->`` allow only "a causes b", ``<-`` only "b causes a", ``--`` either
    direction, ``not-causes`` "neither" or "b causes a". ``none`` says nothing about
    causation: its rows are dropped and counted in ``attrs["ignored_none"]`` (a pair with
    ``none`` and an arc or ``--`` is an error). Rows of one pair, in either orientation,
    combine by intersection; an empty one is an error naming the pair and the rows.

    Returns one row per pair, in order of first appearance: ``i, j`` (``i < j``),
    ``neither, forward, backward`` (bool, the classes allowed for the pair read as
    (i, j)), and ``a, b, relation`` of its first row; when a pair has several distinct
    statements, ``relation`` joins them as ``a relation b`` separated by ``"; "``.
    """
    source, frame, a, b, numbers = _read_rows(known, names, source)
    unknown = frame.attrs["unknown"]
    names = list(names)
    relations = frame["relation"].str.lower().to_numpy()
    i, j = np.minimum(a, b), np.maximum(a, b)
    _refuse_none_beside_adjacent(frame, relations, i, j, names, source)
    keep = np.flatnonzero(relations != "none")
    if not len(keep):
        raise InputError(f"{source}: no causal relations: 'none' (not adjacent) says nothing "
                         "about causation")
    groups: dict[tuple[int, int], list[int]] = {}
    for r in keep:
        groups.setdefault((int(i[r]), int(j[r])), []).append(int(r))
    rows = []
    for (pi, pj), members in groups.items():
        allowed = np.array([_causal_classes(relations[r], a[r] > b[r]) for r in members])
        reached = np.logical_and.accumulate(allowed, axis=0).any(axis=1)
        first = frame.iloc[members[0]]
        statements = dict.fromkeys(_statement(frame, r) for r in members)
        if not reached[-1]:
            upto = members[:int(np.argmin(reached)) + 1]
            listed = "; ".join(f"row {numbers[r]}: {_statement(frame, r)}" for r in upto)
            raise InputError(f"{source}: pair ({names[pi]}, {names[pj]}) listed with "
                             f"contradictory causal relations: {listed}")
        rows.append((pi, pj, *allowed.all(axis=0), first["a"], first["b"],
                     first["relation"] if len(statements) == 1 else "; ".join(statements)))
    out = pd.DataFrame(rows, columns=CAUSAL_PAIR_COLUMNS).astype(
        {"i": np.int64, "j": np.int64, "neither": bool, "forward": bool, "backward": bool})
    refuse_contradicting_chains(causal_statements(out, names), names, source)
    out.attrs["ignored_none"] = int(len(relations) - len(keep))
    out.attrs["unknown"] = unknown
    return out


def _causal_classes(relation: str, swap: bool) -> tuple[bool, bool, bool]:
    """The (neither, forward, backward) classes ``relation`` allows, read as (a, b), or
    as (b, a) when ``swap`` (forward and backward exchanged)."""
    neither, forward, backward = _CAUSAL_CLASSES[relation]
    return (neither, backward, forward) if swap else (neither, forward, backward)


def _statement(frame: pd.DataFrame, r: int) -> str:
    row = frame.iloc[r]
    return f"{row['a']} {row['relation']} {row['b']}"


def _refuse_none_beside_adjacent(frame: pd.DataFrame, relations: np.ndarray, i: np.ndarray,
                                 j: np.ndarray, names: Sequence[str], source: str) -> None:
    """A pair both ``none`` and adjacent (``->``, ``<-``, ``--``) is an error, as in
    :func:`read_known_pairs`."""
    pairs = {}
    for r, rel in enumerate(relations):
        if rel in RELATION_SYMBOLS:
            pairs.setdefault((int(i[r]), int(j[r])), []).append(r)
    for (pi, pj), members in pairs.items():
        kinds = {relations[r] == "none" for r in members}
        if len(kinds) == 2:
            listed = "; ".join(_statement(frame, r) for r in members)
            raise InputError(f"{source}: pair ({names[pi]}, {names[pj]}) listed with "
                             f"conflicting relations: {listed}")


def truth_from_csv(path: str | os.PathLike | pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """Dense int8 :class:`EdgeType` label of every pair of ``names`` (row-major pair order).

    ``path`` holds columns ``a,b,relation`` with relation ``->``, ``<-``, ``--`` or ``none``
    (as ``causalcal simulate`` writes ``truth.csv``); pairs not listed are NONE. Every
    variable of ``names`` must appear in some row (a variable without any edge in a
    ``none`` row, see :func:`truth_frame`): a file covering fewer variables would
    silently count all their pairs as NONE. Unknown or missing variables, unknown
    relations and conflicting duplicates are errors naming the file.
    """
    names = list(names)
    pairs = read_known_pairs(path, names)
    if pairs.attrs["unknown"]:
        source = "truth" if isinstance(path, pd.DataFrame) else str(path)
        raise InputError(f"{source}: a truth file states every relation; {pairs.attrs['unknown']} "
                         "rows are unknown")
    if pairs.attrs["ignored_causal"]:
        source = "truth" if isinstance(path, pd.DataFrame) else str(path)
        raise InputError(f"{source}: a truth file lists edge types (->, <-, --, none), "
                         "not causes or not-causes")
    listed = np.zeros(len(names), dtype=bool)
    listed[pairs["i"].to_numpy()] = listed[pairs["j"].to_numpy()] = True
    if len(names) > 1 and not listed.all():
        source = "truth" if isinstance(path, pd.DataFrame) else str(path)
        absent = [names[k] for k in np.flatnonzero(~listed)]
        shown = ", ".join(map(repr, absent[:5])) + (" …" if len(absent) > 5 else "")
        raise InputError(
            f"{source}: covers {int(listed.sum())} of the {len(names)} variables ({len(absent)} "
            f"never appear: {shown}); their pairs would all count as 'none'. Use the truth "
            "of these variables, or list a variable without any edge in a row with "
            "relation none (as causalcal simulate does)"
        )
    labels = np.zeros(n_pairs(len(names)), dtype=np.int8)
    keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), len(names))
    labels[keys] = pairs["label"].to_numpy(np.int8)
    return labels


def pairs_frame(keys: np.ndarray, labels: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """``a,b,relation`` rows for pair positions ``keys`` with edge types ``labels``."""
    i, j = pair_from_index(np.asarray(keys, dtype=np.int64), len(names))
    arr = np.asarray(names, dtype=object)
    symbols = np.array([t.symbol for t in EdgeType], dtype=object)
    return pd.DataFrame({"a": arr[i], "b": arr[j], "relation": symbols[np.asarray(labels)]})


def truth_frame(keys: np.ndarray, labels: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """The ``truth.csv`` table of a graph: its adjacent pairs (positions ``keys``, see
    :func:`~causalcal.pairs.pair_index`) with their ``labels``, plus one ``none`` row for
    each variable without any edge (paired with the first other variable), so that the
    file names every variable; in pair order."""
    n_vars = len(names)
    keys = np.asarray(keys, dtype=np.int64)
    labels = np.asarray(labels, dtype=np.int64)
    i, j = pair_from_index(keys, n_vars)
    isolated = np.setdiff1d(np.arange(n_vars), np.concatenate([i, j])) if n_vars > 1 else []
    if len(isolated):
        partner = np.where(isolated == 0, 1, 0)
        lo, hi = np.minimum(isolated, partner), np.maximum(isolated, partner)
        extra = np.setdiff1d(pair_index(lo, hi, n_vars), keys)
        keys = np.concatenate([keys, extra])
        labels = np.concatenate([labels, np.zeros(len(extra), dtype=np.int64)])
    order = np.argsort(keys, kind="stable")
    return pairs_frame(keys[order], labels[order], names)
