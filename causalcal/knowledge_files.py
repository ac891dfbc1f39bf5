"""Background knowledge from files (docs/design.md §5): a CSV ``a,b,rule`` of required and
forbidden arcs, a CSV ``variable,tier``, or Tetrad's knowledge file (sections
``addtemporal``, ``forbiddirect``, ``requiredirect``). Errors name the file and the row
or line."""

from __future__ import annotations

import os
from collections.abc import Sequence

from causalcal.errors import InputError
from causalcal.knowledge import Knowledge

__all__ = ["RULES", "read_knowledge", "read_tetrad_knowledge"]

#: The rules of an arcs file's ``rule`` column.
RULES = ("required", "forbidden")


def read_knowledge(
    arcs: str | os.PathLike | None = None, tiers: str | os.PathLike | None = None,
    forbid_within_tiers: bool = False,
) -> Knowledge:
    """Knowledge from the command line's files: ``arcs`` a CSV ``a,b,rule`` (rule
    ``required`` or ``forbidden``) or a Tetrad knowledge file (:func:`read_tetrad_knowledge`,
    recognised by its ``/knowledge`` header or first section), ``tiers`` a CSV
    ``variable,tier``; ``forbid_within_tiers`` forbids edges within every tier. Errors
    name the file and row (CSV) or line (Tetrad)."""
    required, forbidden, tier_map, within = [], [], {}, set()
    if arcs is not None and _is_tetrad_file(arcs):
        tetrad = read_tetrad_knowledge(arcs)
        required, forbidden = list(tetrad.required), list(tetrad.forbidden)
        tier_map, within = dict(tetrad.tiers), set(tetrad.forbidden_within)
    elif arcs is not None:
        for row, (a, b, rule) in _csv_rows(arcs, ("a", "b", "rule")):
            rule = str(rule).strip().lower()
            if rule not in RULES:
                raise InputError(f"{arcs}: row {row}: rule {rule!r} is not one of "
                                 f"{', '.join(RULES)}")
            (required if rule == "required" else forbidden).append((a.strip(), b.strip()))
    if tiers is not None:
        for row, (name, tier) in _csv_rows(tiers, ("variable", "tier")):
            try:
                value = int(str(tier).strip())
            except ValueError:
                raise InputError(f"{tiers}: row {row}: tier {tier!r} is not an integer") \
                    from None
            if name.strip() in tier_map:
                raise InputError(f"{tiers}: row {row}: variable {name!r} listed twice "
                                 "(or also tiered in the knowledge file)")
            tier_map[name.strip()] = value
    if forbid_within_tiers and not tier_map:
        raise InputError("edges within tiers are forbidden, but no tiers are given")
    try:
        return Knowledge(required, forbidden, tier_map,
                         forbid_within_tiers=True if forbid_within_tiers else within)
    except InputError as err:
        where = ", ".join(str(p) for p in (arcs, tiers) if p is not None)
        raise InputError(f"{where}: {err}") from None


def _csv_rows(path, columns: Sequence[str]):
    """``(row number, cells)`` of ``columns`` of a CSV (rows counted from 1)."""
    from causalcal._io import read_csv_file

    _, frame = read_csv_file(path, comments=True, dtype=str, skipinitialspace=True,
                             keep_default_na=False)
    _need_columns(frame, columns, path)
    return enumerate(frame[list(columns)].itertuples(index=False), start=1)


#: The sections of a Tetrad knowledge file this reader takes (docs/design.md §5).
TETRAD_SECTIONS = ("addtemporal", "forbiddirect", "requiredirect")


def _tetrad_lines(path: str | os.PathLike):
    """``(line number, text)`` of a Tetrad file's lines that are not blank or comments
    (``//`` or ``#``); errors name the file."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().splitlines()
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    for number, line in enumerate(lines, start=1):
        text = line.split("//", 1)[0].strip()
        if text and not text.startswith("#"):
            yield number, text


def _is_tetrad_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` opens like a Tetrad knowledge file rather than a CSV."""
    for _, text in _tetrad_lines(path):
        return text.lower() == "/knowledge" or text.lower() in TETRAD_SECTIONS
    return False


def read_tetrad_knowledge(path: str | os.PathLike) -> Knowledge:
    """Tetrad's knowledge file: an optional ``/knowledge`` header, then sections
    ``addtemporal`` (lines ``TIER NAME …``, ``TIER*`` forbidding edges within the tier),
    ``forbiddirect`` and ``requiredirect`` (lines ``A B``: the arc A → B). Section names
    are read without case, names are separated by blanks or tabs, blank lines and
    comments (``//``, ``#``) are skipped. Anything else is an error naming the file and
    line."""
    section, tiers, within = None, {}, set()
    arcs: dict[str, list[tuple[str, str]]] = {"forbiddirect": [], "requiredirect": []}
    for number, text in _tetrad_lines(path):
        where = f"{path}: line {number}"
        word = text.lower()
        if word in ("forbiddengroup", "requiredgroup"):
            raise InputError(f"{where}: Tetrad's section {text!r} is not read; list its arcs "
                             "in forbiddirect or requiredirect")
        if word == "/knowledge" or word in TETRAD_SECTIONS:
            section = None if word == "/knowledge" else word
            continue
        tokens = text.split()
        if section is None:
            raise InputError(f"{where}: {text!r} is outside a section; expected one of "
                             f"{', '.join(TETRAD_SECTIONS)} (other sections are not read)")
        if section != "addtemporal":
            if len(tokens) != 2:
                raise InputError(f"{where}: expected two variable names 'A B' (the arc "
                                 f"A -> B) in {section}, got {text!r}")
            arcs[section].append((tokens[0], tokens[1]))
            continue
        tier, star = tokens[0].removesuffix("*"), tokens[0].endswith("*")
        if not tier.isdigit():
            raise InputError(f"{where}: expected a tier number (e.g. '1 a b' or '2* c d'), "
                             f"got {tokens[0]!r}")
        for name in tokens[1:]:
            if name in tiers:
                raise InputError(f"{where}: variable {name!r} is already in tier "
                                 f"{tiers[name]}")
            tiers[name] = int(tier)
        if star:
            within.add(int(tier))
    try:
        return Knowledge(arcs["requiredirect"], arcs["forbiddirect"], tiers,
                         forbid_within_tiers=within & set(tiers.values()))
    except InputError as err:
        raise InputError(f"{path}: {err}") from None


def _need_columns(frame, columns: Sequence[str], path) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; need "
                         f"{','.join(columns)}")
