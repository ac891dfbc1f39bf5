"""What a kind of relation supplies to the one pipeline (docs/design.md §9.10):
:class:`RelationKind`, and :class:`StatedEdges`, what the kinds calibrated from stated
edges (``->``, ``<-``, ``--``, ``none``) share — the CPDAG's edge types
(:class:`~causalcal.edgecal.kinds.EdgeTypes`) and a PAG's
(:class:`~causalcal.edgecal.pag_kind.PAGEdges`).
"""

from __future__ import annotations

import os
from typing import ClassVar

import numpy as np
import pandas as pd

from causalcal.causal import CausalProbabilities
from causalcal.edgecal.designed import DesignedAdjacency
from causalcal.edgecal.known import MIN_KNOWN, MonotoneAdjacency, relation_label_sets
from causalcal.edgecal.model import KeepDirectionSplit
from causalcal.edgecal.noisy import corrected_labels
from causalcal.edgecal.report import FitReport, Words
from causalcal.edgecal.simulated import SimulatedPairs
from causalcal.edges import EdgeProbabilities, EdgeType, pair_from_index
from causalcal.errors import InputError
from causalcal.knowledge import BoundKnowledge, check_known_relations
from causalcal.relations_io import read_known_pairs

__all__ = ["RelationKind", "StatedEdges", "pair_table", "ranked", "unknown_rows"]


class RelationKind:
    """What a kind of relation supplies to the one pipeline (see the module).

    Class attributes: ``name`` (the ``relations=`` word), ``n_classes``, ``swap`` (the
    columns of a pair written the other way round), ``z`` (standard errors a candidate map
    needs, :func:`~causalcal.edgecal.crossval.choose_map`), ``simulated_type`` (the
    counted simulated pairs it takes), ``ancestral`` (its raw probabilities need the
    bootstrap's ancestral counts), ``words``. Instances carry the kind's own options.
    """

    name: ClassVar[str]
    n_classes: ClassVar[int]
    swap: ClassVar[tuple[int, ...]]
    z: ClassVar[dict]
    simulated_type: ClassVar[type]
    ancestral: ClassVar[bool]
    words: ClassVar[Words]
    #: the calibrated table's columns (then the bootstrap's ``boot_…``)
    columns: ClassVar[tuple[str, ...]]
    #: top candidates whose probabilities are reported at half and double the assumed
    #: number of related pairs (0: none)
    sensitivity_rows: ClassVar[int] = 0
    #: whether the calibrator may also see pair features, and the groups it sees
    takes_features: ClassVar[bool] = False
    features: tuple[str, ...] = ()

    @property
    def ranked_by(self) -> str:
        """What the table is ranked by, in words."""
        raise NotImplementedError

    def check_simulations(self, simulations) -> None:
        """``InputError`` for counted simulated pairs of another kind."""
        if isinstance(simulations, SimulatedPairs) and type(simulations) is not \
                self.simulated_type:
            raise InputError(f"relations={self.name!r} needs simulated pairs of its own kind: "
                             f"{self.simulated_type.__name__}, from simulated_pairs(..., "
                             f"relations={self.name!r})")

    # -- known relations ------------------------------------------------------------
    def read_known(self, known: pd.DataFrame | str | os.PathLike, names: list[str],
                   source: str | None = None) -> pd.DataFrame:
        """The known relations as one row per pair (``i, j`` and what the class needs);
        ``source`` names the table in messages (default: the file name)."""
        raise NotImplementedError

    def check_known(self, knowledge, pairs: pd.DataFrame, names: list[str],
                    source: str) -> None:
        """``InputError`` for a known relation the background knowledge contradicts."""
        raise NotImplementedError

    def ignored_rows(self, pairs: pd.DataFrame) -> int:
        """Rows of the known relations read that say nothing of this kind."""
        raise NotImplementedError

    def ignored_note(self, n: int) -> str | None:
        """The summary's line on ``n`` ignored rows (None for none)."""
        raise NotImplementedError

    def label_sets(self, pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, Y)``: each known pair's class as given (−1 for several) and its
        (n, k) allowed classes."""
        raise NotImplementedError

    def check_counts(self, Y: np.ndarray) -> None:
        """``InputError`` unless :data:`MIN_KNOWN` pairs of each kind are known."""
        related, unrelated = self.known_counts(Y)
        if related < MIN_KNOWN or unrelated < MIN_KNOWN:
            raise InputError(self._too_few(related, unrelated))

    def known_counts(self, Y: np.ndarray) -> tuple[int, int]:
        """Known pairs related (class 0 excluded) and stated unrelated."""
        raise NotImplementedError

    def reversed_answer(self, Y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The label set of the answer opposite to one with label set ``Y`` (a pair's
        bootstrap row ``x``): a relation stated becomes none (class 0); none becomes a
        relation (docs/design.md §9.14)."""
        raise NotImplementedError

    def _too_few(self, related: int, unrelated: int) -> str:
        raise NotImplementedError

    def label_counts(self, labels: np.ndarray) -> dict[str, int]:
        """How many pairs of each label."""
        raise NotImplementedError

    # -- probabilities ----------------------------------------------------------------
    def raw(self, probabilities: EdgeProbabilities, knowledge=None
            ) -> EdgeProbabilities | CausalProbabilities:
        """The raw probabilities of every pair from a bootstrap's result (run with the
        background ``knowledge``, which a kind may read)."""
        raise NotImplementedError

    def known_brier(self, S: np.ndarray, Y: np.ndarray,
                    errors: np.ndarray | None = None) -> np.ndarray:
        """Per-pair Brier score of selected probabilities ``S`` on label sets ``Y``; with
        ``errors`` (each label's ``(e0, e1)``) its unbiased estimate under the label-noise
        model (:func:`~causalcal.edgecal.noisy.corrected_labels`: the Brier score
        p² + y (1 − 2p) is affine in the label)."""
        raise NotImplementedError

    def shaped(self, blend, rows: np.ndarray, counts: np.ndarray):
        """The known-relations map to fit, from the evidence blend (all pairs' ``rows``)."""
        return blend

    def written(self, model):
        """What a known-relations fit writes of its fitted ``model``."""
        return model

    def simulated_map(self, pairs: SimulatedPairs, eps: float) -> tuple[object, object]:
        """The simulation-informed map fitted on ``pairs`` and the model it writes."""
        raise NotImplementedError

    def designed_map(self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray, eps: float,
                     rows: np.ndarray, counts: np.ndarray, errors: np.ndarray | None = None
                     ) -> tuple[object, object]:
        """The map fitted on answered suggested pairs (inputs ``X``, label sets ``Y``,
        ``weights`` their inverse inclusion rates, ``errors`` their ``(e0, e1)``) and the
        model it writes (§9.12, §9.14)."""
        raise NotImplementedError

    def simulation_counter(self, network):
        """A function of a simulated data set's bootstrap result that counts its pairs
        against ``network`` (:attr:`SimulatedPairs.table`)."""
        raise NotImplementedError

    def table(self, raw, Q: np.ndarray, known_keys: np.ndarray) -> pd.DataFrame:
        """One row per unknown pair: :meth:`frame`, ranked."""
        raise NotImplementedError

    def frame(self, raw, Q: np.ndarray, keys: np.ndarray) -> pd.DataFrame:
        """The pairs at ``keys`` (pair order, ``a`` before ``b``): names, calibrated ``Q``
        and raw columns."""
        raise NotImplementedError

    def excluded(self, bound: BoundKnowledge, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """(n, k) bool: the classes of the pairs (i, j), i < j, that the knowledge makes
        impossible."""
        raise NotImplementedError

    def related(self, table: pd.DataFrame) -> np.ndarray:
        """Each row's probability of being related (what the summary counts)."""
        raise NotImplementedError

    def candidate_line(self, row) -> str:
        """A top candidate's line of the summary."""
        raise NotImplementedError

    def report(self, fit: FitReport) -> dict:
        """``fit`` laid out as the report file's entries (its keys are the kind's words)."""
        raise NotImplementedError


def unknown_rows(n_pairs: int, known_keys: np.ndarray) -> np.ndarray:
    keep = np.ones(n_pairs, dtype=bool)
    keep[known_keys] = False
    return np.flatnonzero(keep)


def pair_table(raw, keys: np.ndarray, columns: tuple[str, ...], Q: np.ndarray,
               P: np.ndarray, **summary: np.ndarray) -> pd.DataFrame:
    """The result table of the pairs ``keys``: ``a, b``, the ``summary`` columns, the
    calibrated ``columns`` (rows of ``Q``, one per key) and the bootstrap's (``boot_…``,
    rows of ``P``)."""
    i, j = pair_from_index(keys, raw.n_vars)
    names = np.asarray(raw.names, dtype=object)
    table = pd.DataFrame({"a": names[i], "b": names[j], **summary})
    for prefix, values in (("p_", Q), ("boot_", P)):
        for k, col in enumerate(columns):
            table[col.replace("p_", prefix)] = np.asarray(values[:, k], dtype=np.float64)
    return table


def ranked(table: pd.DataFrame, score: np.ndarray) -> pd.DataFrame:
    return table.iloc[np.argsort(-score, kind="stable")].reset_index(drop=True)


class StatedEdges(RelationKind):
    """What the kinds calibrated from stated edges share (docs/design.md §9.3, §9.13):
    the known relations ``->``, ``<-``, ``--`` and ``none`` as label sets of four
    classes — none, "a → b or undecided", "b → a or undecided", undecided — the
    P(adjacent) judged and kept monotone, the bootstrap's split kept, the arcs the
    background knowledge excludes."""

    def read_known(self, known, names, source=None):
        return read_known_pairs(known, names, source)

    def ignored_rows(self, pairs):
        return int(pairs.attrs.get("ignored_causal", 0))

    def ignored_note(self, n):
        return (f"known relations: {n} causes / not-causes rows ignored (they give no edge "
                "type; --relations causal calibrates them)") if n else None

    def check_known(self, knowledge, pairs, names, source):
        check_known_relations(knowledge, pairs[["a", "b", "relation"]].itertuples(index=False),
                              source)

    def label_sets(self, pairs):
        labels = pairs["label"].to_numpy(np.int64)
        return labels, relation_label_sets(labels)

    def known_counts(self, Y):
        return int((~Y[:, 0]).sum()), int((Y[:, 0] & ~Y[:, 1:].any(axis=1)).sum())

    def reversed_answer(self, Y, x):
        out = np.zeros_like(Y)
        out[0] = not Y[0]
        out[1:] = Y[0]  # an arc of either direction, or undecided
        return out

    def _too_few(self, related, unrelated):
        return (f"calibration needs at least {MIN_KNOWN} known arcs (->, <- or --) and "
                f"{MIN_KNOWN} known non-adjacent pairs (none); you have {related} arcs and "
                f"{unrelated} none")

    def label_counts(self, labels):
        counts = np.bincount(labels, minlength=4)
        return {t.symbol: int(counts[t]) for t in EdgeType}

    def known_brier(self, S, Y, errors=None):
        if errors is None:
            return (1.0 - S[:, 0] - (~Y[:, 0]).astype(int)) ** 2
        p = 1.0 - S[:, 0]
        return p ** 2 + corrected_labels(~Y[:, 0], errors) * (1 - 2 * p)

    def shaped(self, blend, rows, counts):
        return MonotoneAdjacency(blend, rows, counts)  # P(adjacent) keeps the bootstrap's order

    def written(self, model):
        return KeepDirectionSplit(model)  # known relations settle adjacency, not direction

    def designed_map(self, X, Y, weights, eps, rows, counts, errors=None):
        fitted = DesignedAdjacency(eps=eps).fit(X, (~Y[:, 0]).astype(int), weights, rows,
                                                counts, errors)
        return fitted, KeepDirectionSplit(fitted, eps)

    def excluded(self, bound, i, j):
        forward, backward = bound.forbids_arcs(i, j), bound.forbids_arcs(j, i)
        required = np.zeros(len(forward), dtype=bool)
        if bound.required:
            n = len(bound.tier)
            keys = np.fromiter((min(a, b) * n + max(a, b) for a, b in bound.required),
                               np.int64)
            required = np.isin(np.asarray(i) * n + np.asarray(j), keys)
        return np.column_stack([required, forward, backward, forward | backward])
