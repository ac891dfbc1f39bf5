"""The calibration set: the one object a calibrator is fitted on (docs/design.md §9.6).

Two sources make one: a stratified draw of labelled pairs of a simulation (thesis
§6.2.4, :func:`drawn_calibration_set`) and relations known from the literature
(thesis §6.2.1, :func:`known_calibration_set`). Either way the set holds the pairs'
keys, their calibrator inputs (float64), their label sets and what is known of how they
were selected; :func:`causalcal.edgecal.fit_edge_calibrator` does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from causalcal.calibration import SelectionDesign
from causalcal.edgecal.inputs import PairInputs
from causalcal.edgecal.sampling import stratified_calibration_set

__all__ = ["CalibrationSet", "check_known_counts", "drawn_calibration_set", "enough_answers",
           "known_calibration_set", "label_counts"]

#: Where a calibration set's labels come from.
SOURCES = ("drawn", "known")


@dataclass(frozen=True)
class CalibrationSet:
    """Labelled pairs, their inputs and how they were selected.

    Attributes
    ----------
    inputs : every pair's calibrator inputs (the population the set was taken from)
    keys : (n,) int64 pair keys (:func:`causalcal.edges.pair_index`)
    X : (n, k + f) float64 inputs of the pairs, ``inputs.rows(keys)``
    Y : (n, k) bool allowed classes of each pair (one for a drawn pair; a known arc
        ``a -> b`` allows "forward or undirected"; a causal ``not-causes`` two classes)
    labels : (n,) int64 :class:`EdgeType` (or :class:`CausalType`) of each pair as given
        (truth, or the known relation read as (i, j)); −1 for a causal label set of more
        than one class
    source : ``"drawn"`` (a stratified draw with a known design) or ``"known"``
        (relations from the literature; their inclusion rates are estimated by the fit)
    design : the draw's :class:`SelectionDesign` (``"drawn"``), else None
    rates : known relations: each pair's known inclusion rate when it answers a suggested
        pair (:mod:`.answers`), NaN for a pair the scientist added; None without answers
    errors : known relations: each pair's stated error rate (the answer file's
        ``confidence`` column, :data:`~.answers.CONFIDENCE_ERRORS`), NaN where none is
        stated; None for a drawn set
    """

    inputs: PairInputs
    keys: np.ndarray
    X: np.ndarray
    Y: np.ndarray
    labels: np.ndarray
    source: str
    design: SelectionDesign | None = None
    rates: np.ndarray | None = None
    errors: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def y(self) -> np.ndarray:
        """Labels as a calibrator takes them: class indices when every pair has one
        allowed type, else the label-set matrix ``Y``."""
        return self.Y.argmax(axis=1) if (self.Y.sum(axis=1) == 1).all() else self.Y

    def subset(self, rows: np.ndarray) -> CalibrationSet:
        """The pairs at positions ``rows`` (same population and design)."""
        return CalibrationSet(self.inputs, self.keys[rows], self.X[rows], self.Y[rows],
                              self.labels[rows], self.source, self.design,
                              None if self.rates is None else self.rates[rows],
                              None if self.errors is None else self.errors[rows])


def drawn_calibration_set(inputs: PairInputs, truth: np.ndarray, n: int,
                          seed=0) -> tuple[CalibrationSet, np.ndarray]:
    """The N-pair stratified calibration set of thesis §6.2.4 (docs/design.md §9.1) and
    the test mask of all other pairs.

    ``truth`` is the true :class:`EdgeType` of every pair in pair order; see
    :func:`~causalcal.edgecal.sampling.stratified_calibration_set` for the draw.
    """
    truth = np.asarray(truth)
    keys, test, design = stratified_calibration_set(inputs.probabilities, truth, n, seed=seed)
    labels = truth[keys].astype(np.int64)
    Y = np.eye(inputs.n_classes, dtype=bool)[labels]
    return CalibrationSet(inputs, keys, inputs.rows(keys), Y, labels, "drawn", design), test


def known_calibration_set(inputs: PairInputs, known: pd.DataFrame,
                          rates: np.ndarray | None = None,
                          errors: np.ndarray | None = None) -> CalibrationSet:
    """The calibration set of known relations: ``known`` as the inputs' relation kind
    reads them (:meth:`RelationKind.read_known
    <causalcal.edgecal.kinds.RelationKind.read_known>`: for edge types columns ``i, j,
    label``; for causal relations ``i, j, neither, forward, backward``, the classes
    allowed).

    At least 5 pairs of each kind are needed (``InputError``): known arcs and known
    non-adjacent pairs; for causal relations causally related pairs and pairs stated
    without an effect. ``rates``: each pair's known inclusion rate where it answers a
    suggested pair (NaN elsewhere; :func:`~causalcal.edgecal.answers.read_answers`);
    ``errors``: each pair's stated error rate (NaN: not stated; all NaN when None).
    """
    labels, Y = inputs.kind.label_sets(known)
    check_known_counts(inputs.kind, Y, rates)
    keys = inputs.keys(known["i"].to_numpy(np.int64), known["j"].to_numpy(np.int64))
    errors = np.full(len(keys), np.nan) if errors is None else np.asarray(errors, np.float64)
    return CalibrationSet(inputs, keys, inputs.rows(keys), Y, labels, "known",
                          rates=rates if rates is not None and len(rates) else None,
                          errors=errors)


def check_known_counts(kind, Y: np.ndarray, rates: np.ndarray | None) -> None:
    """``InputError`` unless the known pairs (label sets ``Y``) are enough to calibrate on:
    2 related and 2 unrelated answers to suggested pairs (``rates`` not NaN), else the
    kind's minimum of known pairs (docs/design.md §9.3, §9.12)."""
    if not enough_answers(Y, rates):
        kind.check_counts(Y)


def enough_answers(Y: np.ndarray, rates: np.ndarray | None) -> bool:
    """Whether the answered suggested pairs (``rates`` not NaN) hold at least 2 related
    and 2 unrelated ones, the least a map fitted on them and its cross-validation need
    (else they count as known pairs of docs/design.md §9.3 only).

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.edgecal import enough_answers
    >>> Y = np.array([[False], [False], [True], [True]])  # column 0: unrelated
    >>> enough_answers(Y, np.array([0.5, 0.5, 0.5, 0.5]))
    True
    >>> enough_answers(Y, np.array([0.5, np.nan, 0.5, 0.5]))  # one related answer left
    False
    """
    if rates is None or not len(rates):
        return False
    answered, related = ~np.isnan(rates), ~Y[:, 0]
    return min(int((answered & related).sum()), int((answered & ~related).sum())) >= 2


def label_counts(calset: CalibrationSet) -> dict[str, int]:
    """How many pairs of each label (by :attr:`EdgeType.symbol`; causal relations by
    class name, ``several`` for label sets)."""
    return calset.inputs.kind.label_counts(calset.labels)
