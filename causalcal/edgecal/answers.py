"""Answers to suggested pairs, with the design of their draw (docs/design.md §9.12).

:func:`read_answers` reads known relations — a plain ``a,b,relation`` file, the answered
file of ``causalcal suggest``, or several rounds of it — row by row (:mod:`.answer_rows`),
and returns the :class:`Answers`: one row per pair as the relation kind reads them, each
pair's inclusion rate where it answers a suggested pair, its stated error rate, and the
:class:`AnswerDesign`. The rounds of one draw form one design: each stratum's pairs asked
in every round together are a simple random sample of it (:mod:`.draws`), and the pairs
answered are a simple random sample of those if answers are missing at random within a
stratum, so an answered pair's rate is (answered in its stratum) / (stratum size):

* the selection depends on the pair's probabilities only, not on its truth: no offsets are
  needed, a map of P(related) fitted with weights ``1 / rate`` estimates the population's;
* the number of related pairs has the Horvitz–Thompson estimate Σ_s N_s · r_s / a_s (N_s
  pairs, a_s answered, r_s of them related) with its stratified standard error
  (:meth:`AnswerDesign.related_pairs`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcal.calibration import N_BINS
from causalcal.edgecal.answer_rows import CONFIDENCE_ERRORS, FRAME, AnswerRows, answer_rows
from causalcal.edgecal.draws import Draw
from causalcal.errors import InputError
from causalcal.pairs import pair_index
from causalcal.relations_io import UNKNOWN

__all__ = ["CONFIDENCE_ERRORS", "AnswerDesign", "Answers", "combined_draw", "read_answers"]

#: the middle of each stratum of P(related), for a stratum whose bootstrap mean is not known
_MIDPOINTS = (np.arange(N_BINS) + 0.5) / N_BINS


@dataclass(frozen=True)
class AnswerDesign:
    """The strata of a suggested draw and its answers (arrays over the five strata).

    Attributes
    ----------
    sizes : pairs in each stratum when the draw was made
    drawn : pairs asked in each stratum (every round together)
    answered : pairs answered (not ``unknown``, not blank) in each stratum
    related : answered pairs that are related (adjacent; one causes the other)
    means : the bootstrap's mean P(related) in each stratum (None or NaN: not recorded)
    rounds : the rounds the pairs were asked in
    """

    sizes: np.ndarray
    drawn: np.ndarray
    answered: np.ndarray
    related: np.ndarray
    means: np.ndarray | None = None
    rounds: int = 1

    @property
    def rates(self) -> np.ndarray:
        """Each stratum's inclusion rate of an answered pair (answered / size)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.sizes > 0, self.answered / self.sizes, 0.0)

    @property
    def unanswered(self) -> np.ndarray:
        """(5,) bool: strata holding pairs, none of them answered."""
        return (self.sizes > 0) & (self.answered == 0)

    def stand_in_shares(self) -> np.ndarray:
        """The share of related pairs an unanswered stratum is taken to have: the
        bootstrap's mean P(related) in it, or the stratum's middle when not recorded."""
        means = np.full(N_BINS, np.nan) if self.means is None else np.asarray(self.means)
        return np.where(np.isfinite(means), means, _MIDPOINTS)

    def related_pairs(self, share: np.ndarray | None = None,
                      inflation: np.ndarray | float = 1.0) -> tuple[float, float]:
        """The Horvitz–Thompson estimate of the related pairs among the strata's pairs, and
        its standard error (stratified, with the finite-population correction; a stratum's
        variance uses its share with half a pair added to each kind, so a stratum whose
        answers are all of one kind still counts its uncertainty). A stratum without
        answers is not counted as unrelated: its share is :meth:`stand_in_shares`, with the
        variance of a share seen on one pair, m(1 − m). ``share``: each answered stratum's
        share of related pairs when not the answers' own (answers that may be wrong,
        :func:`~.noisy.stratum_shares`), whose variance is ``inflation`` times the
        answers'."""
        a, n = self.answered.astype(float), self.sizes.astype(float)
        if share is None:
            share = np.divide(self.related, a, out=np.zeros_like(a), where=a > 0)
        smooth = (self.related + 0.5) / (a + 1)
        var = np.divide(smooth * (1 - smooth), a, out=np.zeros_like(a), where=a > 0) * inflation
        fpc = np.divide(n - a, n, out=np.zeros_like(a), where=n > 0)
        stand_in = self.stand_in_shares()
        gap = self.unanswered
        share = np.where(gap, stand_in, share)
        var = np.where(gap, stand_in * (1 - stand_in), var)
        fpc = np.where(gap, 1.0, fpc)
        return float((n * share).sum()), float(np.sqrt((n ** 2 * fpc * var).sum()))

    def as_dict(self) -> dict:
        estimate, se = self.related_pairs()
        out = {"sizes": self.sizes.tolist(), "drawn": self.drawn.tolist(),
               "answered": self.answered.tolist(), "related": self.related.tolist(),
               "related_pairs": estimate, "related_pairs_se": se}
        if self.rounds != 1:
            out["rounds"] = self.rounds
        if self.unanswered.any():
            out["unanswered_strata"] = np.flatnonzero(self.unanswered).tolist()
            out["stand_in_shares"] = self.stand_in_shares()[self.unanswered].tolist()
        return out


@dataclass(frozen=True)
class Answers:
    """Known relations read with their design: the pairs (one row per pair, as the relation
    kind reads them), each pair's inclusion rate (NaN for a pair the scientist added, whose
    rate is unknown; empty without suggested rows), each pair's stated error rate
    (``errors``: NaN where the ``confidence`` column states none), the design (None without
    suggested rows), the suggested pairs left ``unknown``, blank (not answered yet) or
    without a row (``removed``), the :class:`~.draws.Draw` they answer, and where they were
    read from (``sources``: file names, :data:`~.answer_rows.FRAME` for a frame)."""

    pairs: pd.DataFrame
    rates: np.ndarray
    design: AnswerDesign | None = None
    unknown: int = 0
    errors: np.ndarray = field(default=None)  # type: ignore[assignment]
    blank: int = 0
    removed: int = 0
    draw: Draw | None = None
    sources: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.errors is None:
            object.__setattr__(self, "errors", np.full(len(self.pairs), np.nan))

    @property
    def files(self) -> tuple[str, ...]:
        """The files the answers were read from (frames left out)."""
        return tuple(s for s in self.sources if s != FRAME)

    def without(self, drop: np.ndarray) -> Answers:
        """The answers less the pairs at the rows ``drop`` (bool) marks."""
        pairs = self.pairs[~drop].reset_index(drop=True)
        pairs.attrs = dict(self.pairs.attrs)
        rates = self.rates[~drop] if len(self.rates) else self.rates
        return Answers(pairs, rates, self.design, self.unknown, self.errors[~drop], self.blank,
                       self.removed, self.draw, self.sources)


def read_answers(known: pd.DataFrame | str | os.PathLike | list, names: list[str],
                 kind) -> Answers:
    """The known relations of ``known`` — a file or frame (``a, b, relation``, optionally
    ``confidence``), or a list of them (the rounds of one draw; the scientist's own
    files) — with the design of its suggested rows when it has some (see the module and
    :mod:`.answer_rows`): suggested pairs left blank or ``unknown`` are counted per stratum
    and left out; the others are read by ``kind`` (:meth:`RelationKind.read_known`) like
    any known relation. A file of suggested rows none of which is answered is an
    ``InputError`` that says so."""
    items = list(known) if isinstance(known, (list, tuple)) else [known]
    if not items:
        raise InputError("no known relations given")
    tables = [answer_rows(item, names, kind.name) for item in items]
    seen = [t.source for t in tables if t.source != FRAME]
    twice = sorted({s for s in seen if seen.count(s) > 1})
    if twice:
        raise InputError(f"{twice[0]}: given twice as known relations")
    draw = combined_draw([(t.source, t.draw) for t in tables if t.draw is not None])
    stated = [(t.frame["relation"].str.lower() != UNKNOWN).to_numpy() for t in tables]
    if draw is not None and not any(s.any() for s in stated):
        _refuse_unanswered(tables)
    for t, s in zip(tables, stated, strict=True):
        if s.any():  # each file's rows checked with its own name and row numbers
            pairs = kind.read_known(t.frame, names, t.source)
    sources = tuple(t.source for t in tables)
    if len(tables) > 1:
        pairs = kind.read_known(pd.concat([t.frame for t in tables], ignore_index=True),
                                names, ", ".join(dict.fromkeys(sources)))
    elif not stated[0].any():
        pairs = kind.read_known(tables[0].frame, names, tables[0].source)  # says why
    errors = _pair_errors(pairs, tables, stated, len(names))
    if draw is None:
        return Answers(pairs, np.full(0, np.nan), unknown=int(pairs.attrs.get("unknown", 0)),
                       errors=errors, sources=sources)
    return _with_design(pairs, errors, tables, stated, draw, kind, len(names), sources)


def _refuse_unanswered(tables: list[AnswerRows]) -> None:
    names = ", ".join(t.source for t in tables)
    rows = sum(len(t.frame) for t in tables)
    if all(t.blank[t.round > 0].all() for t in tables):
        raise InputError(f"{names}: no relation filled in yet (the relation column of all "
                         f"{rows} rows is blank): fill it in — ->, <-, --, none (edge types) "
                         "or causes, not-causes (causal relations), unknown where you cannot "
                         "tell — and run discover again")
    raise InputError(f"{names}: every suggested pair is answered unknown or left blank "
                     f"({rows} rows): there is no answer to calibrate on; answer the pairs you "
                     "can tell (an experiment, the literature), or ask others with causalcal "
                     "suggest --more")


def _pair_errors(pairs: pd.DataFrame, tables: list[AnswerRows], stated: list[np.ndarray],
                 n_vars: int) -> np.ndarray:
    """Each pair's stated error rate: the largest its answered rows state (NaN: none)."""
    keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), n_vars)
    out = np.full(len(pairs), np.nan)
    position = {int(k): p for p, k in enumerate(keys)}
    for t, s in zip(tables, stated, strict=True):
        for k, e in zip(t.keys[s], t.errors[s], strict=True):
            p = position.get(int(k))
            if p is not None and np.isfinite(e):
                out[p] = e if np.isnan(out[p]) else max(out[p], e)
    return out


def _with_design(pairs: pd.DataFrame, errors: np.ndarray, tables: list[AnswerRows],
                 stated: list[np.ndarray], draw: Draw, kind, n_vars: int,
                 sources: tuple[str, ...]) -> Answers:
    stratum_of = {int(k): int(s) for r in draw.rounds
                  for k, s in zip(r.keys, r.strata, strict=True)}
    _, Y = kind.label_sets(pairs)
    related, unrelated = ~Y[:, 0], Y[:, 0] & ~Y[:, 1:].any(axis=1)
    keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), n_vars)
    stratum = np.array([stratum_of.get(int(k), -1) for k in keys], dtype=np.int64)
    settled = (stratum >= 0) & (related | unrelated)  # an answer that settles relatedness
    design = AnswerDesign(draw.sizes, draw.drawn,
                          np.bincount(stratum[settled], minlength=N_BINS),
                          np.bincount(stratum[settled & related], minlength=N_BINS),
                          draw.means, len(draw.rounds))
    rates = np.full(len(pairs), np.nan)
    rates[settled] = design.rates[stratum[settled]]
    # each suggested pair: 2 answered, 1 unknown, 0 blank (the most any of its rows says)
    status: dict[int, int] = {}
    for t, s in zip(tables, stated, strict=True):
        for k, b, a in zip(t.keys, t.blank, s, strict=True):
            if int(k) in stratum_of:
                status[int(k)] = max(status.get(int(k), 0), 2 if a else int(not b))
    counts = np.bincount(list(status.values()), minlength=3)
    removed = len(stratum_of) - len(status) if draw.complete else 0
    return Answers(pairs, rates, design, int(counts[1]), errors, int(counts[0]), removed, draw,
                   sources)


def combined_draw(draws: list[tuple[str, Draw]]) -> Draw | None:
    """One design of the draws of several files: the rounds of one chain (each file's
    record holds the rounds up to its own), or the rounds the frames' cells state; two
    independent draws, or rounds that disagree, are an ``InputError``."""
    if not draws:
        return None
    complete = [(s, d) for s, d in draws if d.complete]
    if complete:
        source, base = max(complete, key=lambda sd: len(sd[1].rounds))
    else:
        source, base = draws[0]
    for other, d in draws:
        if d.complete and (d.strata_fingerprint != base.strata_fingerprint
                           or d.chain != base.chain):
            raise InputError(f"{other} and {source} come from two independent draws (other "
                             "strata or a different first round): one design of several "
                             "rounds is drawn with causalcal suggest --more, each round "
                             "answered in its own file")
        base = _merged(base, d, other, source)
    keys = base.keys
    if len(np.unique(keys)) < len(keys):
        raise InputError(f"{', '.join(s for s, _ in draws)}: a pair is asked in two rounds: "
                         "the files come from independent draws")
    return base


def _merged(base: Draw, d: Draw, other: str, source: str) -> Draw:
    """``base`` with the rounds of ``d`` checked against it (and added, for rounds read from
    the cells of frames)."""
    from dataclasses import replace

    rounds = {r.number: r for r in base.rounds}
    both = (base.sizes > 0) & (d.sizes > 0)
    if (base.sizes[both] != d.sizes[both]).any():
        raise InputError(f"{other}: its strata's sizes {d.sizes.tolist()} differ from "
                         f"{source}'s {base.sizes.tolist()}: the rounds of one design share "
                         "their strata")
    for r in d.rounds:
        mine = rounds.get(r.number)
        if mine is None:
            if base.complete:
                raise InputError(f"{other}: round {r.number} is not among the rounds "
                                 f"{source} records")
            rounds[r.number] = r
            continue
        if (mine.drawn != r.drawn).any() or not np.isin(r.keys, mine.keys).all():
            if not base.complete and not d.complete and (mine.drawn == r.drawn).all():
                keys = np.union1d(mine.keys, r.keys)
                stratum = dict(zip(np.r_[mine.keys, r.keys], np.r_[mine.strata, r.strata],
                                   strict=True))
                strata = np.array([stratum[k] for k in keys], dtype=np.int64)
                if (np.bincount(strata, minlength=N_BINS) <= mine.drawn).all():
                    rounds[r.number] = replace(mine, keys=keys, strata=strata,
                                               p_related=np.full(len(keys), np.nan))
                    continue
            raise InputError(f"{other}: its round {r.number} is not the round {r.number} "
                             f"of {source} (other pairs or counts)")
    sizes = np.maximum(base.sizes, d.sizes)
    return replace(base, sizes=sizes,
                   rounds=tuple(rounds[n] for n in sorted(rounds)))
