"""What :func:`causalcal.discover` returns: the ranked table and what went into it, its
summary and its files (docs/design.md §9.3, §9.9, §10)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal._io import atomic_write
from causalcal._own import file_digest
from causalcal.association import Association
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import (
    RECHECK_SHOWN,
    EdgeCalibration,
    EdgeTypes,
    FitReport,
    IfWrong,
    Recheck,
    RelationKind,
    SimulatedPairs,
    floored_probabilities,
    if_wrong,
    selected_posterior,
)
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities, EdgeType
from causalcal.errors import InputError
from causalcal.report import report_json, summary_text

__all__ = ["DiscoveryResult"]


@dataclass
class DiscoveryResult:
    """The ranked table of every unknown pair and what went into it.

    Attributes
    ----------
    kind : the :class:`~causalcal.edgecal.RelationKind` calibrated
    table : one row per unknown pair (see :func:`causalcal.discover`)
    probabilities : the bootstrap's :class:`EdgeProbabilities` (with ancestral counts for
        causal relations)
    fit : the :class:`~causalcal.edgecal.EdgeCalibration` fitted on the known pairs
    known : the known relations as read (one row per pair), less those the background
        knowledge forces (``report.known_forced``)
    report : the :class:`~causalcal.edgecal.FitReport`: counts, EM, design, the map
        written and its evidence, the simulations, the sensitivity
    known_results : each known relation's bootstrap and calibrated values, the least
        found by the bootstrap first (:func:`~causalcal.edgecal.known_results`)
    recheck : the answers to suggested pairs, the likeliest wrong first
        (:func:`~causalcal.edgecal.answers_to_recheck`); :attr:`recheck_effects` what
        the first few change if wrong
    associations : each known pair's test of marginal independence in the data
        (:func:`causalcal.association.marginal_association`), in the order of ``known``
    simulated : the simulated pairs the fit used (for refits), or None
    bootstrap : the :class:`~causalcal.bootstrap.BootstrapSettings` of the run (its
        background knowledge; the report's settings where the probabilities record
        none), or None
    """

    kind: RelationKind
    table: pd.DataFrame
    probabilities: EdgeProbabilities
    fit: EdgeCalibration
    known: pd.DataFrame
    report: FitReport
    known_results: pd.DataFrame
    recheck: tuple[Recheck, ...] = ()
    associations: list[Association] | None = None
    simulated: SimulatedPairs | None = None
    bootstrap: BootstrapSettings | None = None

    @cached_property
    def recheck_effects(self) -> tuple[IfWrong, ...]:
        """What each of the first :data:`~causalcal.edgecal.RECHECK_SHOWN` answers to
        recheck changes if it is wrong (:func:`~causalcal.edgecal.if_wrong`: the
        calibration refitted with it reversed), computed when first asked for."""
        return tuple(if_wrong(self.fit, r.row, self.simulated)
                     for r in self.recheck[:RECHECK_SHOWN])

    @property
    def raw(self):
        """The raw probabilities of every pair the calibrator mapped
        (:class:`EdgeProbabilities` or :class:`~causalcal.causal.CausalProbabilities`)."""
        return self.fit.calibration_set.inputs.probabilities

    @property
    def calibrator(self):
        """The fitted calibrator (``predict_proba`` on input rows)."""
        return self.fit.model

    def run_report(self, **options):
        """The :class:`~causalcal.report.RunReport` of this run, from which the summary,
        the JSON and the HTML page are rendered (options:
        :func:`~causalcal.workflow.run_report.discovery_report`'s)."""
        from causalcal.workflow.run_report import discovery_report

        return discovery_report(self, **options)

    def report_json(self, rows: int | None = None, sha256: str | None = None) -> str:
        """The fit's details as JSON (:func:`causalcal.report.report_json` of
        :meth:`run_report`): the map written to ``p_*`` and its cross-validated
        evidence, the known pairs, the EM's assumed related pairs, the design, the
        sensitivity of the top candidates, the answers to recheck, the run's settings and
        the figures' data; ``rows``: the rows written to the table, ``sha256``: its
        checksum (a later run replaces only an unedited table)."""
        report = self.run_report(rows_written=rows)
        if sha256 is not None:
            report = replace(report, pairs=replace(report.pairs, sha256=sha256))
        return report_json(report)

    def save(self, path: str | Path, top: int | None = None, report=None
             ) -> tuple[Path, Path]:
        """Write the table (its ``top`` rows, or all) to the CSV ``path`` and the fit's
        details (:meth:`report_json`, or that of ``report``, a
        :class:`~causalcal.report.RunReport` of this run) to ``path + ".json"``, each
        atomically. Returns the two paths."""
        rows = self.table if top is None else self.table.head(top)
        out = Path(path)
        with atomic_write(out, newline="") as handle:
            rows.to_csv(handle, index=False, float_format="%.6g")
        report = self.run_report(rows_written=len(rows)) if report is None else report
        report = replace(report, pairs=replace(report.pairs, sha256=file_digest(out)))
        path_json = out.with_name(out.name + ".json")
        with atomic_write(path_json, encoding="utf-8") as handle:
            handle.write(report_json(report))
        return out, path_json

    def _edge_types(self, what: str) -> None:
        if not isinstance(self.kind, EdgeTypes):
            raise InputError(f"{what} is drawn from edge types, not {self.kind.name} relations")

    def known_reliability(self, n_bins: int = 10) -> tuple[dict, dict]:
        """Reliability-diagram bins of P(no edge) on the known pairs, bootstrap and
        calibrated (in-sample), both as the known pairs' own selected distribution
        (corrected for how they were chosen): ``({"none": bins}, {"none": bins})`` for
        :func:`causalcal.figures.plots.plot_reliability`. Only "no edge" is an exact
        label there (a known arc is "→ or —")."""
        self._edge_types("the known pairs' reliability diagram")
        calset, offsets = self.fit.calibration_set, self.fit.offsets
        P = calset.X
        raw = floored_probabilities(P[:, :4], calset.inputs.eps)
        y = calset.Y[:, 0].astype(np.float64)
        out = []
        for Q in (raw, self.fit.predict_proba(P)):
            p = selected_posterior(Q, offsets)[:, 0]
            b = np.minimum((p * n_bins).astype(np.int64), n_bins - 1)
            out.append({"none": {"count": np.bincount(b, minlength=n_bins).astype(float),
                                 "sum_p": np.bincount(b, p, minlength=n_bins),
                                 "sum_y": np.bincount(b, y, minlength=n_bins)}})
        return out[0], out[1]

    def network_probabilities(self, threshold: float | str = 0.0,
                              known: bool = True) -> EdgeProbabilities:
        """The calibrated probabilities of the candidate pairs with P(adjacent) ≥
        ``threshold`` (``"estimated"``: all, which the estimate needs), and, with
        ``known``, the known pairs as certain (``->`` is the arc, ``--`` an undirected
        edge, ``none`` no edge; without, they are left out): what :meth:`averaged_network`
        and :func:`causalcal.figures.plots.plot_network` draw."""
        self._edge_types("the averaged network")
        names = self.probabilities.names
        index = {n: k for k, n in enumerate(names)}
        low = 0.0 if threshold == "estimated" else threshold
        top = self.table[self.table["p_adjacent"] >= low]
        pairs = np.column_stack([top["a"].map(index), top["b"].map(index)]).astype(np.int64)
        probs = top[list(PROBABILITY_COLUMNS)].to_numpy(np.float64)
        known = self.known[(self.known["label"] != EdgeType.NONE) & known]
        one_hot = np.eye(4)[known["label"].to_numpy(np.int64)]
        return EdgeProbabilities(
            names, np.concatenate([pairs, known[["i", "j"]].to_numpy(np.int64)]),
            np.concatenate([probs, one_hot]), self.probabilities.n_boot)

    def averaged_network(self, threshold: float | str = 0.5, known: bool = True):
        """The averaged network of the calibrated probabilities (known pairs as given, or
        left out without ``known``): :meth:`EdgeProbabilities.averaged_network` of
        :meth:`network_probabilities`."""
        return self.network_probabilities(threshold, known).averaged_network(threshold)

    def known_edges(self) -> list[tuple[str, str]]:
        """The known relations that are edges (``->``, ``<-``, ``--``), as name pairs."""
        self._edge_types("the known edges")
        known = self.known[self.known["label"] != EdgeType.NONE]
        names = self.probabilities.names
        return [(names[i], names[j]) for i, j in known[["i", "j"]].itertuples(index=False)]

    def summary(self, top: int = 10) -> str:
        """A short report (:func:`causalcal.report.summary_text` of :meth:`run_report`):
        the input, the fit, counts above 0.5 / 0.9, the map written and its evidence, the
        top candidates (for edge types with how they move at half and double the assumed
        number of adjacent pairs)."""
        return summary_text(self.run_report(head=max(top, 0)), top)
