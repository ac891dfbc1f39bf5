"""Pairs the tool asks the scientist to check, drawn in rounds whose inclusion rates are
known exactly (docs/design.md §9.12; issues 39 and 48).

Every pair not already known or decided by the background knowledge (the *population*)
falls in a stratum of its bootstrap P(related) — the five bins of §9.1. A round draws
``n`` pairs uniformly within each stratum from the pairs not yet asked, with an allocation
that depends only on the strata's sizes and on the counts drawn so far (never on the
answers): ``"proportional"`` gives each stratum its share of the *cumulative* total
(:func:`~causalcal.edgecal.sampling.proportional_draws`: 2 at least, the rest in
proportion to the sizes) less what earlier rounds drew, ``"equal"`` shares the round
equally over what is left (water-filling). Conditional on the counts, round k is then a
simple random sample of what earlier rounds left, so the union of the rounds is a simple
random sample of each stratum, and a pair's inclusion rate is (drawn so far) / (stratum
size) — the same for every pair of a stratum, whichever round drew it.

A :class:`Draw` is that design: the population's strata, the rounds (each pair drawn, its
stratum and bootstrap P(related)) and a fingerprint of the strata, so that a later round
is drawn on the same strata. :mod:`.answer_file` writes it beside the suggested file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from causalcal.calibration import N_BINS, probability_bins
from causalcal.edgecal.sampling import allocate_draws, proportional_draws
from causalcal.errors import InputError
from causalcal.pairs import pair_from_index

__all__ = ["ALLOCATIONS", "ANSWER_COLUMNS", "DESIGN_COLUMNS", "Draw", "Round", "draw_round",
           "round_draws", "suggest_pairs"]

#: how a round shares its draws between the strata
ALLOCATIONS = ("proportional", "equal")
#: the columns the scientist fills in (``confidence`` optional)
ANSWER_COLUMNS = ("a", "b", "relation", "confidence")
#: the columns of a suggested row's design, after the answer: its round, its stratum, the
#: stratum's size and how many of it the round drew
DESIGN_COLUMNS = ("round", "stratum", "stratum_pairs", "stratum_drawn")


@dataclass(frozen=True)
class Round:
    """One round of a draw: the pairs asked (pair keys over :attr:`Draw.names`), each
    pair's stratum and bootstrap P(related), and how many each stratum gave."""

    number: int
    keys: np.ndarray
    strata: np.ndarray
    drawn: np.ndarray
    p_related: np.ndarray
    seed: int = 0
    allocation: str = "proportional"


@dataclass(frozen=True)
class Draw:
    """The design of pairs asked in rounds (see the module).

    Attributes
    ----------
    relations : the relation kind whose P(related) made the strata (``"edges"``,
        ``"causal"``, ``"pag"``; ``""`` when not recorded)
    names : the variables the pair keys are over
    sizes : (5,) pairs of the population in each stratum
    means : (5,) the bootstrap's mean P(related) in each stratum (NaN: not recorded)
    excluded : sorted pair keys outside the population (known or decided already)
    strata_fingerprint : SHA-256 of every pair's stratum (excluded pairs apart): equal for
        two bootstraps that put every pair in the same stratum
    rounds : the rounds drawn so far
    complete : whether each round's ``keys`` are all its pairs (a draw read back from the
        columns of rows, :mod:`.answers`, knows only the pairs of the rows it has)
    """

    relations: str
    names: tuple[str, ...]
    sizes: np.ndarray
    means: np.ndarray
    excluded: np.ndarray
    strata_fingerprint: str
    rounds: tuple[Round, ...] = ()
    complete: bool = True

    @property
    def drawn(self) -> np.ndarray:
        """(5,) pairs asked so far in each stratum, all rounds together."""
        total = np.zeros(N_BINS, dtype=np.int64)
        for r in self.rounds:
            total += r.drawn
        return total

    @property
    def keys(self) -> np.ndarray:
        """Every pair asked so far (all rounds, in order)."""
        return (np.concatenate([r.keys for r in self.rounds]) if self.rounds
                else np.zeros(0, np.int64))

    @property
    def chain(self) -> str:
        """An identifier of this sequence of rounds: its strata and its first round's
        pairs (two independent draws on the same strata differ)."""
        first = self.rounds[0].keys if self.rounds else np.zeros(0, np.int64)
        h = hashlib.sha256(self.strata_fingerprint.encode())
        h.update(np.ascontiguousarray(first, dtype="<i8").tobytes())
        return h.hexdigest()[:16]

    def rates(self) -> np.ndarray:
        """(5,) each stratum's inclusion rate of a pair asked so far: drawn / size."""
        return np.divide(self.drawn, self.sizes, out=np.zeros(N_BINS),
                         where=self.sizes > 0)

    def table(self, number: int | None = None) -> pd.DataFrame:
        """The rows of round ``number`` (the last by default) as the suggested file holds
        them: ``a, b``, the answer columns left blank and :data:`DESIGN_COLUMNS`, ordered
        by stratum from the most likely related down."""
        r = self.rounds[-1] if number is None else self.rounds[number - 1]
        i, j = pair_from_index(r.keys, len(self.names))
        names = np.asarray(self.names, dtype=object)
        return pd.DataFrame({"a": names[i], "b": names[j], "relation": "", "confidence": "",
                             "round": r.number, "stratum": r.strata,
                             "stratum_pairs": self.sizes[r.strata],
                             "stratum_drawn": r.drawn[r.strata]})


def _strata(raw, exclude: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p, members, strata)``: every pair's P(related), the population's pair keys and
    their strata."""
    p = 1.0 - raw.column(0).astype(np.float64)
    keep = np.ones(len(p), dtype=bool)
    if exclude is not None and len(exclude):
        keep[np.asarray(exclude, dtype=np.int64)] = False
    members = np.flatnonzero(keep)
    return p, members, probability_bins(p[members]).astype(np.int64)


def _fingerprint(n: int, members: np.ndarray, strata: np.ndarray) -> str:
    h = hashlib.sha256(f"{n}|".encode())
    h.update(np.ascontiguousarray(members, dtype="<i8").tobytes())
    h.update(np.ascontiguousarray(strata, dtype=np.uint8).tobytes())
    return h.hexdigest()


def round_draws(sizes: np.ndarray, drawn: np.ndarray, n: int, allocation: str,
                rng: np.random.Generator) -> np.ndarray:
    """How many pairs each stratum gives to a round of ``n``, from its ``sizes`` and the
    pairs ``drawn`` in earlier rounds alone (see the module). ``"proportional"``: one pair
    at a time to the stratum furthest below its share of the cumulative total (the lower
    stratum on a tie), among those with pairs left; the first round is exactly
    :func:`proportional_draws`. ``"equal"``: water-filling over the pairs left
    (:func:`allocate_draws`, its ties broken with ``rng``)."""
    sizes, drawn = np.asarray(sizes, np.int64), np.asarray(drawn, np.int64)
    left = sizes - drawn
    if n > left.sum():
        raise InputError(f"asked for {n} pairs, but only {int(left.sum())} are not asked or "
                         "known already")
    if allocation == "equal":
        return allocate_draws(left, n, rng)
    target = proportional_draws(sizes, int(drawn.sum()) + n)
    take = np.zeros(N_BINS, dtype=np.int64)
    for _ in range(n):
        deficit = np.where(take < left, (target - drawn - take).astype(float), -np.inf)
        take[int(np.argmax(deficit))] += 1
    return take


def draw_round(raw, n: int, *, seed: int = 0, exclude: np.ndarray | None = None,
               allocation: str = "proportional", previous: Draw | None = None,
               relations: str = "") -> Draw:
    """``previous`` with one more round of ``n`` pairs (a new draw when ``previous`` is
    None) from the strata of P(related) = 1 − (probability of class 0) in ``raw``
    (:class:`EdgeProbabilities`, :class:`~causalcal.causal.CausalProbabilities`, or a
    PAG's grouped table), leaving out the pair keys ``exclude`` (a new draw only: a later
    round keeps the first round's population). The first round draws with
    ``numpy.random.default_rng(seed)``, round k with ``default_rng([seed, k])``. An
    ``InputError`` when a later round's strata differ from the first's (other
    probabilities) or too few pairs are left."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"the number of pairs to suggest must be a whole number >= 1, got {n!r}")
    if allocation not in ALLOCATIONS:
        raise InputError(f"allocation must be one of {', '.join(ALLOCATIONS)}, "
                         f"got {allocation!r}")
    if previous is None:
        p, members, strata = _strata(raw, exclude)
        sizes = np.bincount(strata, minlength=N_BINS).astype(np.int64)
        means = np.divide(np.bincount(strata, p[members], minlength=N_BINS), sizes,
                          out=np.full(N_BINS, np.nan), where=sizes > 0)
        excluded = np.setdiff1d(np.arange(len(p)), members)
        previous = Draw(relations, tuple(raw.names), sizes, means, excluded,
                        _fingerprint(len(p), members, strata))
    else:
        p, members, strata = _strata(raw, previous.excluded)
        _check_same_strata(previous, raw, _fingerprint(len(p), members, strata))
    number = len(previous.rounds) + 1
    rng = np.random.default_rng(seed if number == 1 else [seed, number])
    asked = np.isin(members, previous.keys)
    take = round_draws(previous.sizes, previous.drawn, int(n), allocation, rng)
    chosen = [np.sort(rng.choice(members[(strata == s) & ~asked], int(take[s]), replace=False))
              for s in range(N_BINS)]
    keys = np.concatenate(chosen[::-1]).astype(np.int64)
    stratum = probability_bins(p[keys]).astype(np.int64)
    new = Round(number, keys, stratum, take, p[keys], int(seed), allocation)
    return replace(previous, rounds=(*previous.rounds, new))


def _check_same_strata(previous: Draw, raw, fingerprint: str) -> None:
    if tuple(raw.names) != previous.names:
        raise InputError("the earlier rounds were drawn on other variables "
                         f"({len(previous.names)}: {', '.join(previous.names[:8])}"
                         f"{' …' if len(previous.names) > 8 else ''}); a later round needs "
                         "the data and options of the first")
    if fingerprint != previous.strata_fingerprint:
        raise InputError("the bootstrap's probabilities put pairs in other strata than the "
                         "earlier rounds' (another bootstrap, or other data or options): a "
                         "later round must be drawn on the same probabilities — pass the "
                         "first round's --probabilities, or the same bootstrap options and "
                         "--seed")


def suggest_pairs(raw, n: int, seed: int = 0, exclude: np.ndarray | None = None,
                  allocation: str = "proportional") -> pd.DataFrame:
    """``n`` pairs to ask about in one new draw (:func:`draw_round`), as the suggested
    file's rows (:meth:`Draw.table`)."""
    return draw_round(raw, n, seed=seed, exclude=exclude, allocation=allocation).table()
