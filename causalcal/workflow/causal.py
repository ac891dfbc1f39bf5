"""The real-data workflow for causal relations: "A causes B, possibly through other
variables" (issue 30; docs/design.md §9.9).

From the same bootstrap as the edge types, with its ancestral counts
(``ancestral=True``), every unordered pair gets raw probabilities of "a causes b",
"b causes a" and "neither" (:class:`~causalcal.causal.CausalProbabilities`); the
calibrate stage fits them on the known causal relations with the same rules as edge
types (EM-estimated inclusion rates, evidence blend, the do-no-harm choice judged by the
Brier score of P(a causes b) on the directions the known pairs settle; with simulations
the map of P(a causes b) learnt on simulated worlds is a third candidate), and every
other pair is ranked by its larger causal probability.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcal.bootstrap import BootstrapSettings
from causalcal.causal import CausalProbabilities
from causalcal.data import DiscreteData
from causalcal.edgecal import (
    EdgeCalibration,
    PairInputs,
    SimulatedCausalPairs,
    estimate_adjacent_pairs,
    fit_edge_calibrator,
    known_calibration_set,
)
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.errors import InputError
from causalcal.knowledge import check_known_causal_relations
from causalcal.relations_io import read_known_causal_pairs
from causalcal.workflow.result import (
    base_rate_report,
    map_report,
    simulations_diagnostics,
    simulations_report,
)
from causalcal.workflow.simulations import given_or_simulated

__all__ = ["CAUSAL_COLUMNS", "CausalDiscoveryResult", "discover_causal"]

#: The calibrated columns of the ranking, then the bootstrap's (``boot_…``).
CAUSAL_COLUMNS = ("p_a_causes_b", "p_b_causes_a", "p_neither")
_BOOT_COLUMNS = tuple(c.replace("p_", "boot_") for c in CAUSAL_COLUMNS)
_ORDER = [1, 2, 0]  # CausalType columns (neither, forward, backward) in CAUSAL_COLUMNS order
log = logging.getLogger(__name__)


def causal_probabilities(data: DiscreteData, probabilities: EdgeProbabilities | None,
                         bootstrap: BootstrapSettings) -> tuple[EdgeProbabilities,
                                                                CausalProbabilities]:
    """The bootstrap (unless ``probabilities`` are given) with its ancestral counts, and
    the raw causal probabilities of every pair."""
    if probabilities is None:
        probabilities = bootstrap.run(data, ancestral=True)
    if probabilities.ancestral is None:
        raise InputError("the probabilities carry no ancestral counts: compute them with "
                         "ancestral=True (causalcal bootstrap --ancestral --out FILE.npz)")
    return probabilities, CausalProbabilities.from_counts(probabilities.ancestral,
                                                          probabilities.names)


def causal_table(causal: CausalProbabilities, Q: np.ndarray,
                 known_keys: np.ndarray) -> pd.DataFrame:
    """One row per unknown pair: ``a, b, p_a_causes_b, p_b_causes_a, p_neither`` and the
    bootstrap's ``boot_…``, ranked by the larger of the two causal probabilities."""
    keep = np.ones(causal.n_pairs, dtype=bool)
    keep[known_keys] = False
    i, j = pair_from_index(np.flatnonzero(keep), causal.n_vars)
    names = np.asarray(causal.names, dtype=object)
    table = pd.DataFrame({"a": names[i], "b": names[j]})
    for col, values in zip(CAUSAL_COLUMNS + _BOOT_COLUMNS,
                           np.hstack([Q[keep][:, _ORDER], causal.probs[keep][:, _ORDER]]).T,
                           strict=True):
        table[col] = values.astype(np.float64)
    larger = np.maximum(table["p_a_causes_b"], table["p_b_causes_a"]).to_numpy()
    return table.iloc[np.argsort(-larger, kind="stable")].reset_index(drop=True)


def discover_causal(data: DiscreteData, known, bootstrap: BootstrapSettings,
                    probabilities: EdgeProbabilities | None, *, calibrator="snn",
                    calibrator_params: dict | None = None,
                    expected_edges: float | None = None, evidence_strength: float = 5.0,
                    map: str = "auto", simulations: int | SimulatedCausalPairs = 0
                    ) -> CausalDiscoveryResult:
    """Calibrated causal-relation probabilities of every pair not in ``known``
    (:func:`causalcal.discover` with ``relations="causal"``; see there). ``simulations``:
    R > 0 simulated worlds (or their counted pairs) whose map of P(a causes b) is a
    candidate of the do-no-harm choice (docs/design.md §9.7, §9.9)."""
    pairs = read_known_causal_pairs(known, data.names)
    knowledge = bootstrap.knowledge or bootstrap.options.get("knowledge")
    check_known_causal_relations(knowledge, pairs, data.names,
                                 "known relations" if isinstance(known, pd.DataFrame)
                                 else str(known))
    probabilities, causal = causal_probabilities(data, probabilities, bootstrap)
    inputs = PairInputs(causal)
    calset = known_calibration_set(inputs, pairs)
    simulated = given_or_simulated(simulations, data, probabilities, bootstrap, ancestral=True)
    if bootstrap.progress:
        log.info("calibrating on %d known causal pairs: inclusion rates by EM, the map "
                 "cross-validated against the bootstrap …", len(pairs))
    fit = fit_edge_calibrator(calset, calibrator, calibrator_params, bootstrap.seed,
                              expected_edges=expected_edges,
                              evidence_strength=evidence_strength, map=map,
                              simulated=simulated)
    table = causal_table(causal, fit.predict_all(np.float64), calset.keys)
    Y, em = calset.Y, fit.em
    diagnostics = {
        "relations": "causal", "calibrator": calibrator,
        "known_related": int((~Y[:, 0]).sum()), "known_unrelated": int(Y[:, 0].sum()),
        "known_none_ignored": int(pairs.attrs.get("ignored_none", 0)),
        "expected_related": em.expected_edges, "em_iterations": em.n_iter,
        "em_converged": em.converged, "design": em.design.describe(), "map": fit.choice,
        "related_pairs_estimate": estimate_adjacent_pairs(calset, seed=bootstrap.seed),
        "knowledge_bounds": knowledge is not None and not knowledge.is_empty,
        "simulations": simulations_diagnostics(simulated),
    }
    return CausalDiscoveryResult(table, probabilities, causal, fit, pairs, diagnostics)


@dataclass
class CausalDiscoveryResult:
    """The ranked causal table of every unknown pair and what went into it.

    Attributes
    ----------
    relations : one row per unknown pair (:func:`causal_table`)
    probabilities : the bootstrap's :class:`EdgeProbabilities`, with ancestral counts
    causal : the raw :class:`CausalProbabilities` of every pair
    fit : the :class:`~causalcal.edgecal.EdgeCalibration` fitted on the known pairs
    known : the known causal relations as read (one row per pair, classes allowed)
    diagnostics : what the summary reports
    """

    relations: pd.DataFrame
    probabilities: EdgeProbabilities
    causal: CausalProbabilities
    fit: EdgeCalibration
    known: pd.DataFrame
    diagnostics: dict = field(default_factory=dict)

    @property
    def edges(self) -> pd.DataFrame:
        """The ranked table (the name :class:`DiscoveryResult` uses)."""
        return self.relations

    def report_json(self, rows: int | None = None) -> str:
        """The fit's details as JSON (the map written and its held-out evidence, the EM,
        the design); ``rows``: the rows written to the table."""
        d = {"format": "causalcal.discover-report", **self.diagnostics}
        d["rows_written"] = len(self.relations) if rows is None else int(rows)
        d["n_boot"] = self.probabilities.n_boot
        return json.dumps(d, indent=1, default=float) + "\n"

    def summary(self, top: int = 10) -> str:
        """A short report: the known pairs, the assumed number of causally related pairs,
        the map written and its evidence, the top candidates."""
        t, d = self.relations, self.diagnostics
        larger = np.maximum(t["p_a_causes_b"], t["p_b_causes_a"])
        ignored = d.get("known_none_ignored", 0)
        lines = [
            f"{len(t)} candidate pairs scored; {len(self.known)} known causal pairs used for "
            f"calibration ({d['calibrator']}: {d['known_related']} causally related, "
            f"{d['known_unrelated']} without an effect stated)"
            + (f"; {ignored} 'none' rows ignored (not adjacent says nothing of causation)"
               if ignored else "") + ".",
            f"assumed causally related pairs in the population: {d['expected_related']:.1f} "
            f"(EM {'converged' if d['em_converged'] else 'stopped'} after "
            f"{d['em_iterations']} steps; --expected-edges to change)",
            *[line.replace("adjacent pairs", "causally related pairs")
              for line in base_rate_report(d.get("related_pairs_estimate"))],
            f"pairs with P(a causes b or b causes a) > 0.5: {int((larger > 0.5).sum())}, "
            f"> 0.9: {int((larger > 0.9).sum())}",
            *(["with background knowledge the bootstrap's causal frequencies are bounds "
               "(definite relations at most, possible ones at least as often as exact)"]
              if d.get("knowledge_bounds") else []),
            *simulations_report(d.get("simulations"), d.get("map")),
            *map_report(d.get("map"), "P(a causes b)"),
            f"top {min(top, len(t))} candidates by the larger causal probability:",
        ]
        for row in t.head(top).itertuples(index=False):
            lines.append(
                f"  {row.a} - {row.b}   P({row.a} causes {row.b})={row.p_a_causes_b:.3f}, "
                f"P({row.b} causes {row.a})={row.p_b_causes_a:.3f}, neither "
                f"{row.p_neither:.3f} (bootstrap {row.boot_a_causes_b:.3f} / "
                f"{row.boot_b_causes_a:.3f})")
        return "\n".join(lines)
