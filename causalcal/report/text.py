"""A run's report as the text summary ``discover`` prints (docs/design.md §9.3, §9.12,
§9.14, §9.15): rendered from the :class:`~causalcal.report.RunReport` alone."""

from __future__ import annotations

import numpy as np

from causalcal.edgecal import FitReport, RelatedPairsEstimate, least_found_line, map_lines
from causalcal.report.model import RunReport

__all__ = ["recheck_lines", "summary_text"]


def summary_text(report: RunReport, top: int = 10) -> str:
    """The summary: the input, the fit, counts above 0.5 / 0.9, the map written and its
    evidence, the top candidates (for edge types with how they move at half and double
    the assumed number of related pairs); a bootstrap's report: its one line."""
    if report.fit is None:
        return _bootstrap_summary(report)
    pairs, r, kind = report.pairs, report.fit, report.kind
    w = kind.words
    lines = [
        *r.input_notes,
        f"{pairs.total} candidate pairs scored; {len(report.known)} {w.known} used for "
        f"calibration ({r.calibrator}: {r.known_related} {w.related}, "
        f"{r.known_unrelated} {w.unrelated}).",
        *_assumed_lines(r, w.population),
        *(_estimate_lines(r.estimate, w.population) if r.answers is None else []),
        *[line for line in (least_found_line(report.known),) if line],
        *recheck_lines(report),
        f"pairs with {w.counted} > 0.5: {pairs.above_half}, > 0.9: {pairs.above_09}",
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
    head = pairs.table.head(top)
    lines.append(f"top {min(top, pairs.total)} candidates by {pairs.ranked_by}"
                 + (f" ({w.counted} if half / double the assumed {w.population})"
                    if sens else "") + ":")
    for k, row in enumerate(head.itertuples(index=False)):
        moved = (f"  [{sens.half[k]:.3f} / {sens.double[k]:.3f}]"
                 if sens and k < len(sens.half) else "")
        lines.append(kind.candidate_line(row) + moved)
    return "\n".join(lines)


def _bootstrap_summary(report: RunReport) -> str:
    s = report.settings
    return (f"{s.n_boot} replicates over {s.n_vars} variables; {report.pairs.total} pairs "
            "with an edge in some replicate")


def recheck_lines(report: RunReport) -> list[str]:
    """The summary's lines on the answers to recheck: the likeliest wrong, each with
    what the calibrated map and the bootstrap say of it, the data's marginal
    association and what changes if it is wrong (docs/design.md §9.14)."""
    shown = [e for e in report.recheck if e.if_wrong is not None]
    if not shown:
        return []
    w, share = report.kind.words, report.fit.answer_error
    how = (f"P(wrong): the calibrated probability of what each states, with {share:.0%} "
           "of the answers assumed wrong" if share else
           "the answers are taken as right (--answer-error 0): ordered by the "
           "calibrated probability of what each states")
    lines = [f"answers to recheck, the likeliest wrong first ({how}; 'if wrong': the "
             "calibration rerun with the answer reversed):"]
    for e in shown:
        change = e.if_wrong
        wrong = "" if e.p_wrong is None else f"P(wrong) {e.p_wrong:.2f}; "
        assoc = "" if e.association is None else f"; {e.association.words()}"
        chosen = ("" if change.map[0] == change.map[1] else
                  f", map written {change.map[0]} → {change.map[1]}")
        floor = ("" if not change.floor_pairs else
                 f", {w.counted} of the {change.floor_pairs} pairs the bootstrap never "
                 f"relates {change.floor[0]:.3f} → {change.floor[1]:.3f}")
        lines.append(
            f"  {e.stated}: {wrong}P(as stated) {e.p_stated:.2f} calibrated, "
            f"{e.boot_stated:.2f} bootstrap{assoc}; if wrong: {w.population} "
            f"{change.related_pairs[0]:.1f} → {change.related_pairs[1]:.1f}"
            f"{floor}{chosen}")
    return lines


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
