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

from causalcal.calibration.selection import SelectionDesign
from causalcal.edgecal.inputs import PairInputs
from causalcal.edgecal.known import check_known_counts, relation_label_sets
from causalcal.edgecal.sampling import stratified_calibration_set
from causalcal.edges import EdgeType

__all__ = ["CAUSAL_COLUMNS", "CalibrationSet", "drawn_calibration_set", "known_calibration_set",
           "label_counts"]

#: Where a calibration set's labels come from.
SOURCES = ("drawn", "known")
#: The causal known-relations frame's columns of the classes allowed, in
#: :class:`~causalcal.pairs.CausalType` order.
CAUSAL_COLUMNS = ("neither", "forward", "backward")


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
    """

    inputs: PairInputs
    keys: np.ndarray
    X: np.ndarray
    Y: np.ndarray
    labels: np.ndarray
    source: str
    design: SelectionDesign | None = None

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
                              self.labels[rows], self.source, self.design)


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


def known_calibration_set(inputs: PairInputs, known: pd.DataFrame) -> CalibrationSet:
    """The calibration set of known relations: ``known`` as
    :func:`causalcal.read_known_pairs` returns it (columns ``i, j, label``), or, for
    causal relations, as :func:`causalcal.relations_io.read_known_causal_pairs` does
    (columns ``i, j, neither, forward, backward``: the classes allowed).

    At least 5 known arcs and 5 known non-adjacent pairs are needed (``InputError``);
    for causal relations 5 causally related pairs and 5 stated without an effect.
    """
    if inputs.causal:
        Y = known[list(CAUSAL_COLUMNS)].to_numpy(bool)
        labels = np.where(Y.sum(axis=1) == 1, Y.argmax(axis=1), -1).astype(np.int64)
    else:
        labels = known["label"].to_numpy(np.int64)
        Y = relation_label_sets(labels)
    check_known_counts(Y)
    keys = inputs.keys(known["i"].to_numpy(np.int64), known["j"].to_numpy(np.int64))
    return CalibrationSet(inputs, keys, inputs.rows(keys), Y, labels, "known")


def label_counts(calset: CalibrationSet) -> dict[str, int]:
    """How many pairs of each label (by :attr:`EdgeType.symbol`; causal relations by
    class name, ``several`` for label sets)."""
    if calset.inputs.causal:
        counts = np.bincount(calset.labels + 1, minlength=4)
        return {"neither": int(counts[1]), "causes": int(counts[2]),
                "caused-by": int(counts[3]), "several": int(counts[0])}
    counts = np.bincount(calset.labels, minlength=4)
    return {t.symbol: int(counts[t]) for t in EdgeType}
