"""What :func:`causalcal.discover` returns: the ranked table and what went into it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcal.edgecal import EdgeCalibration, SimulatedPairs, selected_posterior
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities, EdgeType

__all__ = ["DiscoveryResult"]


@dataclass
class DiscoveryResult:
    """The ranked table of every unknown pair and what went into it.

    Attributes
    ----------
    edges : one row per unknown pair (see :func:`causalcal.discover`)
    probabilities : the bootstrap's :class:`EdgeProbabilities`
    fit : the :class:`~causalcal.edgecal.EdgeCalibration` fitted on the known pairs
    known : the known relations as read (``a, b, relation, i, j, label``)
    diagnostics : what the summary reports (counts, EM, design, cross-validation)
    """

    edges: pd.DataFrame
    probabilities: EdgeProbabilities
    fit: EdgeCalibration
    known: pd.DataFrame
    diagnostics: dict = field(default_factory=dict)

    @property
    def calibrator(self):
        """The fitted calibrator (``predict_proba`` on input rows)."""
        return self.fit.model

    def report_json(self, rows: int | None = None) -> str:
        """The fit's details as JSON: the map written to ``p_*`` and its cross-validated
        evidence, the known pairs, the EM's assumed adjacent pairs, the design, the
        sensitivity of the top candidates; ``rows``: the rows written to the table."""
        import json

        d = {"format": "causalcal.discover-report", **self.diagnostics}
        d["rows_written"] = len(self.edges) if rows is None else int(rows)
        d["n_boot"] = self.probabilities.n_boot
        return json.dumps(d, indent=1, default=float) + "\n"

    def known_reliability(self, n_bins: int = 10) -> tuple[dict, dict]:
        """Reliability-diagram bins of P(no edge) on the known pairs, bootstrap and
        calibrated (in-sample), both as the known pairs' own selected distribution
        (corrected for how they were chosen): ``({"none": bins}, {"none": bins})`` for
        :func:`causalcal.evaluate.plots.plot_reliability`. Only "no edge" is an exact
        label there (a known arc is "→ or —")."""
        calset, offsets = self.fit.calibration_set, self.fit.offsets
        P, eps = calset.X, calset.inputs.eps
        raw = (P[:, :4] + eps) / (1 + 4 * eps)
        y = calset.Y[:, 0].astype(np.float64)
        out = []
        for Q in (raw, self.fit.predict_proba(P)):
            p = selected_posterior(Q, offsets)[:, 0]
            b = np.minimum((p * n_bins).astype(np.int64), n_bins - 1)
            out.append({"none": {"count": np.bincount(b, minlength=n_bins).astype(float),
                                 "sum_p": np.bincount(b, p, minlength=n_bins),
                                 "sum_y": np.bincount(b, y, minlength=n_bins)}})
        return out[0], out[1]

    def network_probabilities(self, threshold: float | str = 0.0) -> EdgeProbabilities:
        """The calibrated probabilities of the candidate pairs with P(adjacent) ≥
        ``threshold`` (``"estimated"``: all, which the estimate needs), and the known
        pairs as certain (``->`` is the arc, ``--`` an undirected edge, ``none`` no edge):
        what :meth:`averaged_network` and :func:`causalcal.evaluate.plots.plot_network`
        draw."""
        names = self.probabilities.names
        index = {n: k for k, n in enumerate(names)}
        low = 0.0 if threshold == "estimated" else threshold
        top = self.edges[self.edges["p_adjacent"] >= low]
        pairs = np.column_stack([top["a"].map(index), top["b"].map(index)]).astype(np.int64)
        probs = top[list(PROBABILITY_COLUMNS)].to_numpy(np.float64)
        known = self.known[self.known["label"] != EdgeType.NONE]
        one_hot = np.eye(4)[known["label"].to_numpy(np.int64)]
        return EdgeProbabilities(
            names, np.concatenate([pairs, known[["i", "j"]].to_numpy(np.int64)]),
            np.concatenate([probs, one_hot]), self.probabilities.n_boot)

    def averaged_network(self, threshold: float | str = 0.5):
        """The averaged network of the calibrated probabilities (known pairs as given):
        :meth:`EdgeProbabilities.averaged_network` of :meth:`network_probabilities`."""
        return self.network_probabilities(threshold).averaged_network(threshold)

    def known_edges(self) -> list[tuple[str, str]]:
        """The known relations that are edges (``->``, ``<-``, ``--``), as name pairs."""
        known = self.known[self.known["label"] != EdgeType.NONE]
        names = self.probabilities.names
        return [(names[i], names[j]) for i, j in known[["i", "j"]].itertuples(index=False)]

    def summary(self, top: int = 10) -> str:
        """A short report: the fit, counts above 0.5 / 0.9, the top candidates with their
        direction split, and how they move with the assumed number of adjacent pairs."""
        e, d = self.edges, self.diagnostics
        lines = [
            *d.get("input", []),  # rows dropped for missing values, untiered variables
            f"{len(e)} candidate pairs scored; {len(self.known)} known pairs used for "
            f"calibration ({d.get('calibrator', '?')}: {d.get('known_arcs', 0)} arcs, "
            f"{d.get('known_none', 0)} none).",
            f"assumed adjacent pairs in the population: {d['expected_edges']:.1f} "
            f"(EM {'converged' if d['em_converged'] else 'stopped'} after "
            f"{d['em_iterations']} steps; --expected-edges to change)",
            *base_rate_report(d.get("adjacent_pairs_estimate")),
            f"pairs with P(adjacent) > 0.5: {int((e['p_adjacent'] > 0.5).sum())}, "
            f"> 0.9: {int((e['p_adjacent'] > 0.9).sum())}",
        ]
        lines.extend(simulations_report(d.get("simulations"), d.get("map")))
        lines.extend(map_report(d.get("map")))
        lines.append(f"top {min(top, len(e))} candidates by {d.get('rank_by', 'p_adjacent')} "
                     "(P(adjacent) if half / double the assumed adjacent pairs):")
        sens = d.get("sensitivity", {})
        for k, row in enumerate(e.head(top).itertuples(index=False)):
            moved = ""
            if sens:
                moved = (f"  [{sens['half'][k]:.3f} / {sens['double'][k]:.3f}]")
            lines.append(
                f"  {row.a} - {row.b}   P(adjacent)={row.p_adjacent:.3f}  "
                f"(->{row.p_forward:.3f}, <-{row.p_backward:.3f}, --{row.p_undirected:.3f}; "
                f"bootstrap {1 - row.boot_none:.3f}){moved}"
            )
        return "\n".join(lines)


_CANDIDATE_TEXT = {"identity": "bootstrap", "calibrated": "calibrated on known pairs",
                   "simulated": "simulation-informed"}


def map_report(choice: dict | None, judged: str = "P(adjacent)") -> list[str]:
    """Summary lines of the map written to the ``p_*`` columns and the held-out evidence
    behind it (:func:`causalcal.edgecal.choose_map`; ``judged``: the probability whose
    Brier score decides); the last line says which columns to trust."""
    if not choice:
        return []
    candidates = choice.get("candidates", {})
    if "identity" in candidates:
        simulated = ("; simulation-informed: not fitted on them" if "simulated" in candidates
                     else "")
        lines = [f"known pairs, Brier of {judged} corrected for their selection "
                 f"(calibrated: {choice['folds']}-fold cross-validated{simulated}):"]
        for name, entry in candidates.items():
            gain = ("" if name == "identity" else
                    f" (improvement {entry['improvement']:.4f} ± {entry['improvement_se']:.4f}"
                    f", written above {entry['z']:g} SE)")
            lines.append(f"  {_CANDIDATE_TEXT[name]:<26} {entry['brier']['mean']:.4f}{gain}; "
                         f"log-loss {entry['log_loss']['mean']:.3f}")
    else:
        lines = ["known pairs: too few of each kind to judge a map on them"]
    chosen, asked = choice["chosen"], choice["asked"]
    if asked != "auto":
        lines.append(f"map written: {chosen} (asked for, --map {asked}); " + (
            "p_* columns equal the bootstrap frequencies boot_*." if chosen == "identity"
            else f"p_* columns are the {_CANDIDATE_TEXT[chosen]} probabilities, boot_* the "
            "bootstrap frequencies."))
    elif chosen != "identity":
        lines.append(f"map written: {chosen} (it beat the bootstrap on known pairs it was "
                     f"not fitted on); p_* columns are the {_CANDIDATE_TEXT[chosen]} "
                     "probabilities, boot_* the bootstrap frequencies.")
    else:
        lines.append("WARNING: no map beat the bootstrap frequencies on held-out known "
                     "pairs; p_* columns hold the bootstrap frequencies (trust those; more "
                     "known pairs, spread over the probability range, give the calibrator "
                     "a chance).")
    return lines


def simulations_diagnostics(simulated: SimulatedPairs | None) -> dict | None:
    """What the report keeps of the simulated pairs behind the simulation-informed map
    (docs/design.md §9.7, §9.9): simulated data sets, the simulated network's edges, the
    replicates each and the seconds it all took."""
    if simulated is None:
        return None
    return {"simulations": simulated.n_simulations, "n_edges": simulated.n_edges,
            "n_boot": simulated.n_boot, "seconds": simulated.seconds}


def simulations_report(sims: dict | None, choice: dict | None) -> list[str]:
    """The summary line of the simulations behind the simulation-informed map."""
    if not sims:
        return []
    fitted = (choice or {}).get("simulated_map", {})
    shape = (f"; its map: logit q = {fitted['slope']:.2f} · logit p + "
             f"{fitted['intercept']:.2f}" if fitted else "")
    return [f"simulations: {sims['simulations']} data sets from a network fitted to the data "
            f"({sims['n_edges']} edges), {sims['n_boot']} replicates each, "
            f"{sims['seconds']:.0f} s{shape}"]


def base_rate_report(est: dict | None) -> list[str]:
    """The summary line of :func:`causalcal.edgecal.estimate_adjacent_pairs`."""
    if not est or not np.isfinite(est["estimate"]):
        return []
    return [f"adjacent pairs estimated from the known pairs (if they are random within "
            f"their class): {est['estimate']:.1f} [{est['low']:.1f}, {est['high']:.1f}] "
            f"({est['level']:.0%} interval); the bootstrap graphs' mean: "
            f"{est['bootstrap_mean']:.1f}"]
