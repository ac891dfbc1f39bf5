"""What a known-relations fit reports, as typed values (docs/design.md §9.3, §9.6).

:class:`FitReport` carries one set of fields for every relation kind; the kind lays it out
in the report file (``OUT.json``) with its own words (:meth:`RelationKind.report
<causalcal.edgecal.kinds.RelationKind.report>`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from causalcal.edgecal.answers import AnswerDesign
from causalcal.edgecal.crossval import MapChoice
from causalcal.edgecal.simulated import SimulatedPairs

__all__ = ["FitReport", "RelatedPairsEstimate", "Sensitivity", "SimulationsNote", "Words"]


@dataclass(frozen=True)
class Words:
    """How the summary names a kind's things."""

    #: the known pairs ("known pairs"), those related ("arcs") and unrelated ("none")
    known: str
    related: str
    unrelated: str
    #: pairs related in the population ("adjacent pairs")
    population: str
    #: the probability whose Brier score judges a map ("P(adjacent)")
    judged: str
    #: the probability the summary counts pairs by
    counted: str


@dataclass(frozen=True)
class RelatedPairsEstimate:
    """The number of related pairs estimated from the known pairs by moments
    (:func:`~causalcal.edgecal.estimate_adjacent_pairs`), with its percentile interval,
    beside the bootstrap graphs' mean; ``estimate`` is NaN when not identified."""

    estimate: float
    low: float
    high: float
    level: float
    bootstrap_mean: float
    n_pairs: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Sensitivity:
    """P(related) of the top candidates when half and double the assumed number of
    related pairs are assumed (docs/design.md §9.3)."""

    half: list[float]
    half_related: float
    double: list[float]
    double_related: float

    def as_dict(self) -> dict:
        """The report's layout."""
        return {"half": self.half, "half_expected_edges": self.half_related,
                "double": self.double, "double_expected_edges": self.double_related}


@dataclass(frozen=True)
class SimulationsNote:
    """The simulations behind the simulation-informed map (docs/design.md §9.7): simulated
    data sets, the simulated network's edges, the replicates each, the seconds it took."""

    simulations: int
    n_edges: int
    n_boot: int
    seconds: float

    @classmethod
    def of(cls, pairs: SimulatedPairs | None) -> SimulationsNote | None:
        if pairs is None:
            return None
        return cls(pairs.n_simulations, pairs.n_edges, pairs.n_boot, pairs.seconds)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class FitReport:
    """What the summary and the report say of a known-relations fit.

    Attributes
    ----------
    calibrator : its name
    known_related, known_unrelated : known pairs of each kind used (arcs and ``none``;
        causally related and ``not-causes``)
    known_ignored : rows of the known relations that say nothing of this kind
    related_pairs : related pairs assumed in the population (the EM's pin)
    em_iterations, em_converged : the EM's steps and whether it converged
    design : the estimated selection design (counts and rates)
    map : the :class:`~causalcal.edgecal.crossval.MapChoice`
    estimate : the :class:`RelatedPairsEstimate` from the known pairs
    simulations : the :class:`SimulationsNote`, or None
    input_notes : lines on the input (rows dropped, untiered variables, rows ignored)
    sensitivity : the top candidates at half and double ``related_pairs``, or None
    knowledge_bounds : whether background knowledge made the raw frequencies bounds
    pag_bounds : whether the replicates were PAGs, whose causal relations are counted as
        bounds (docs/design.md §6.2)
    answers : the :class:`~causalcal.edgecal.answers.AnswerDesign` of the answered
        suggested pairs, or None; ``unknown_answers`` how many were left ``unknown``,
        ``blank_answers`` how many blank (not answered yet), ``removed_answers`` how many
        have no row left in the files; ``answer_files`` the files of the answers;
        ``answers_estimate`` the related pairs estimated from them, allowing for their
        errors, and its standard error; ``answer_error`` the share of wrong answers
        assumed (docs/design.md §9.14)
    known_forced : the known relations left out of the fit because the background
        knowledge already forces them (as stated)
    """

    calibrator: str
    known_related: int
    known_unrelated: int
    known_ignored: int
    related_pairs: float
    em_iterations: int
    em_converged: bool
    design: dict | None
    map: MapChoice
    estimate: RelatedPairsEstimate
    simulations: SimulationsNote | None = None
    input_notes: tuple[str, ...] = ()
    sensitivity: Sensitivity | None = None
    knowledge_bounds: bool = False
    pag_bounds: bool = False
    answers: AnswerDesign | None = None
    unknown_answers: int = 0
    answers_estimate: tuple[float, float] | None = None
    answer_error: float = 0.0
    known_forced: tuple[str, ...] = ()
    blank_answers: int = 0
    removed_answers: int = 0
    answer_files: tuple[str, ...] = ()

    def shared_entries(self) -> dict:
        """The report file's entries every kind shares: the known pairs the knowledge
        forces, the EM, the design, the answers, the map."""
        answers = ({} if self.answers is None else
                   {"answers": {**self.answers.as_dict(), "unknown": self.unknown_answers,
                                "related_pairs": self.answers_estimate[0],
                                "related_pairs_se": self.answers_estimate[1],
                                "answer_error": self.answer_error,
                                **({"blank": self.blank_answers} if self.blank_answers
                                   else {}),
                                **({"removed": self.removed_answers} if self.removed_answers
                                   else {})}})
        forced = {"known_forced": list(self.known_forced)} if self.known_forced else {}
        return {**forced, "em_iterations": self.em_iterations,
                "em_converged": self.em_converged, "design": self.design, **answers,
                "map": self.map.as_dict()}
