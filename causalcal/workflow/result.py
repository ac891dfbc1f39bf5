"""What :func:`causalcal.discover` returns: the ranked table and what went into it, its
summary and its files (docs/design.md §9.3, §9.9, §10)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal._io import atomic_write
from causalcal._own import file_digest
from causalcal.association import Association
from causalcal.edgecal import (
    RECHECK_SHOWN,
    EdgeCalibration,
    EdgeTypes,
    FitReport,
    IfWrong,
    Recheck,
    RelatedPairsEstimate,
    RelationKind,
    SimulatedPairs,
    floored_probabilities,
    if_wrong,
    least_found_line,
    map_lines,
    selected_posterior,
    stated_relations,
)
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities, EdgeType
from causalcal.errors import InputError

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

    def report_json(self, rows: int | None = None, sha256: str | None = None) -> str:
        """The fit's details as JSON: the map written to ``p_*`` and its cross-validated
        evidence, the known pairs, the EM's assumed related pairs, the design, the
        sensitivity of the top candidates; ``rows``: the rows written to the table,
        ``sha256``: its checksum (a later run replaces only an unedited table)."""
        d = {"format": "causalcal.discover-report", **self.kind.report(self.report)}
        d["rows_written"] = len(self.table) if rows is None else int(rows)
        if sha256 is not None:
            d["sha256"] = sha256
        d["n_boot"] = self.probabilities.n_boot
        d["known_relations"] = self.known_results.to_dict("records")
        d["recheck"] = self._recheck_records()
        return json.dumps(d, indent=1, default=float) + "\n"

    def _recheck_records(self) -> list[dict]:
        """The answers to recheck as the report file's records."""
        stated = stated_relations(self.known)
        effects = self.recheck_effects
        out = []
        for k, r in enumerate(self.recheck):
            row = self.known.iloc[r.row]
            record = {"a": row["a"], "b": row["b"], "stated": stated[r.row],
                      "p_wrong": r.p_wrong, "p_stated": r.p_stated,
                      "boot_stated": r.boot_stated}
            if self.associations is not None:
                record["association"] = self.associations[r.row].as_dict()
            if k < len(effects):
                record["if_wrong"] = effects[k].as_dict()
            out.append(record)
        return out

    def recheck_lines(self) -> list[str]:
        """The summary's lines on the answers to recheck: the likeliest wrong, each with
        what the calibrated map and the bootstrap say of it, the data's marginal
        association and what changes if it is wrong (docs/design.md §9.14)."""
        effects = self.recheck_effects
        if not effects:
            return []
        w, share = self.kind.words, self.report.answer_error
        how = (f"P(wrong): the calibrated probability of what each states, with {share:.0%} "
               "of the answers assumed wrong" if share else
               "the answers are taken as right (--answer-error 0): ordered by the "
               "calibrated probability of what each states")
        lines = [f"answers to recheck, the likeliest wrong first ({how}; 'if wrong': the "
                 "calibration rerun with the answer reversed):"]
        stated = stated_relations(self.known)
        for r, change in zip(self.recheck, effects):
            wrong = "" if r.p_wrong is None else f"P(wrong) {r.p_wrong:.2f}; "
            assoc = ("" if self.associations is None else
                     f"; {self.associations[r.row].words()}")
            chosen = ("" if change.map[0] == change.map[1] else
                      f", map written {change.map[0]} → {change.map[1]}")
            floor = ("" if not change.floor_pairs else
                     f", {w.counted} of the {change.floor_pairs} pairs the bootstrap never "
                     f"relates {change.floor[0]:.3f} → {change.floor[1]:.3f}")
            lines.append(
                f"  {stated[r.row]}: {wrong}P(as stated) {r.p_stated:.2f} calibrated, "
                f"{r.boot_stated:.2f} bootstrap{assoc}; if wrong: {w.population} "
                f"{change.related_pairs[0]:.1f} → {change.related_pairs[1]:.1f}"
                f"{floor}{chosen}")
        return lines

    def save(self, path: str | Path, top: int | None = None) -> tuple[Path, Path]:
        """Write the table (its ``top`` rows, or all) to the CSV ``path`` and the fit's
        details (:meth:`report_json`) to ``path + ".json"``, each atomically. Returns the
        two paths."""
        rows = self.table if top is None else self.table.head(top)
        out = Path(path)
        with atomic_write(out, newline="") as handle:
            rows.to_csv(handle, index=False, float_format="%.6g")
        report = out.with_name(out.name + ".json")
        with atomic_write(report, encoding="utf-8") as handle:
            handle.write(self.report_json(rows=len(rows), sha256=file_digest(out)))
        return out, report

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
        """A short report: the input, the fit, counts above 0.5 / 0.9, the map written and
        its evidence, the top candidates (for edge types with how they move at half and
        double the assumed number of adjacent pairs)."""
        t, r, w = self.table, self.report, self.kind.words
        related = self.kind.related(t)
        lines = [
            *r.input_notes,
            f"{len(t)} candidate pairs scored; {len(self.known)} {w.known} used for "
            f"calibration ({r.calibrator}: {r.known_related} {w.related}, "
            f"{r.known_unrelated} {w.unrelated}).",
            *_assumed_lines(r, w.population),
            *(_estimate_lines(r.estimate, w.population) if r.answers is None else []),
            *[line for line in (least_found_line(self.known_results),) if line],
            *self.recheck_lines(),
            f"pairs with {w.counted} > 0.5: {int((related > 0.5).sum())}, "
            f"> 0.9: {int((related > 0.9).sum())}",
            *(["with background knowledge the bootstrap's causal frequencies are bounds "
               "(definite relations at most, possible ones at least as often as exact)"]
              if r.knowledge_bounds else []),
            *(["the replicates are PAGs (hidden common causes allowed): their causal "
               "relations are counted as bounds (definite at most, possible at least as "
               "often as exact)"] if r.pag_bounds else []),
            *_simulations_lines(r),
            *map_lines(r.map, w.judged, noisy=r.answer_error > 0),
        ]
        sens = r.sensitivity
        lines.append(f"top {min(top, len(t))} candidates by {self.kind.ranked_by}"
                     + (f" ({w.counted} if half / double the assumed {w.population})"
                        if sens else "") + ":")
        for k, row in enumerate(t.head(top).itertuples(index=False)):
            moved = (f"  [{sens.half[k]:.3f} / {sens.double[k]:.3f}]"
                     if sens and k < len(sens.half) else "")
            lines.append(self.kind.candidate_line(row) + moved)
        return "\n".join(lines)


def _assumed_lines(report: FitReport, population: str) -> list[str]:
    """The related pairs assumed: the EM's pin, and the answers' estimate with what more
    answers would buy."""
    lines = []
    if report.em_iterations:
        lines.append(f"assumed {population} in the population: {report.related_pairs:.1f} "
                     f"(EM {'converged' if report.em_converged else 'stopped'} after "
                     f"{report.em_iterations} steps; --expected-edges to change)")
    answers = report.answers
    if answers is not None:
        estimate, se = report.answers_estimate
        rounds = f" in {answers.rounds} rounds" if answers.rounds > 1 else ""
        open_ = [f"{report.unknown_answers} unknown",
                 *([f"{report.blank_answers} not answered yet (blank)"]
                   if report.blank_answers else []),
                 *([f"{report.removed_answers} without a row in the files"]
                   if report.removed_answers else [])]
        files = " ".join(report.answer_files) or "ASK.csv"
        lines.append(
            f"answers: {int(answers.drawn.sum())} pairs suggested{rounds}, "
            f"{int(answers.answered.sum())} answered ({', '.join(open_)}); "
            f"{population} estimated from them: {estimate:.1f} ± {se:.1f} (standard error; "
            f"four times the answers would halve it: causalcal suggest DATA --more {files} "
            f"--n {max(int(answers.drawn.sum()), 10)} --out ASK{answers.rounds + 1}.csv asks "
            "more of the same design)")
        gap = np.flatnonzero(answers.unanswered)
        if len(gap):
            shares = answers.stand_in_shares()
            lines.append(
                "answers: no answer in the strata of P(related) "
                + ", ".join(f"[{s * 0.2:.1f}, {s * 0.2 + 0.2:.1f}) ({int(answers.sizes[s])} "
                            f"pairs, taken as {shares[s]:.2f} related: the bootstrap's mean)"
                            for s in gap)
                + "; not counted as unrelated, their uncertainty is in the ±")
    return lines


def _simulations_lines(report: FitReport) -> list[str]:
    """The summary line of the simulations behind the simulation-informed map."""
    sims, line = report.simulations, report.map.simulated_map
    if sims is None:
        return []
    shape = (f"; its map: logit q = {line.slope:.2f} · logit p + {line.intercept:.2f}"
             if line is not None else "")
    return [f"simulations: {sims.simulations} data sets from a network fitted to the data "
            f"({sims.n_edges} edges), {sims.n_boot} replicates each, "
            f"{sims.seconds:.0f} s{shape}"]


def _estimate_lines(est: RelatedPairsEstimate, population: str) -> list[str]:
    """The summary line of :func:`causalcal.edgecal.estimate_adjacent_pairs`."""
    if not np.isfinite(est.estimate):
        return []
    return [f"{population} estimated from the known pairs (if they are random within "
            f"their class): {est.estimate:.1f} [{est.low:.1f}, {est.high:.1f}] "
            f"({est.level:.0%} interval); the bootstrap graphs' mean: "
            f"{est.bootstrap_mean:.1f}"]
