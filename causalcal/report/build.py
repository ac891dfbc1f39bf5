"""The report of a ``bootstrap`` run, built from its probabilities
(docs/design.md §9.15); a ``discover`` run's is built by
:func:`causalcal.workflow.discovery_report`."""

from __future__ import annotations

import numpy as np

from causalcal.edgecal import EdgeTypes, PAGEdges
from causalcal.edges import EdgeProbabilities
from causalcal.pag_edges import PAGEdgeProbabilities
from causalcal.report.model import (
    HEAD_ROWS,
    Figures,
    PairsHead,
    RunReport,
    Settings,
    network_data,
)

__all__ = ["bootstrap_report"]


def bootstrap_report(probabilities: EdgeProbabilities, *, command: str | None = None,
                     out: str | None = None, head: int = HEAD_ROWS,
                     threshold: float | str = 0.5, tiers: dict | None = None) -> RunReport:
    """The :class:`~causalcal.report.RunReport` of bootstrap ``probabilities``: the
    pairs with an edge in some replicate ranked by P(adjacent) (its top ``head``), the
    averaged network at ``threshold`` (edge types; a PAG search's is written by
    ``--graph``), the run's settings as the probabilities record them.

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.edges import EdgeProbabilities
    >>> from causalcal.report import bootstrap_report
    >>> probs = EdgeProbabilities(["a", "b", "c"], np.array([[0, 1]]),
    ...                           np.array([[0.2, 0.8, 0, 0]]), n_boot=10)
    >>> report = bootstrap_report(probs)
    >>> report.pairs.total, report.pairs.above_half, len(report.figures.network.edges)
    (1, 1, 1)
    """
    pag = isinstance(probabilities, PAGEdgeProbabilities)
    frame = probabilities.to_frame()
    frame.insert(2, "p_adjacent", 1.0 - frame["p_none"].to_numpy())
    order = np.argsort(-frame["p_adjacent"].to_numpy(), kind="stable")
    frame = frame.iloc[order].reset_index(drop=True)
    adjacent = frame["p_adjacent"].to_numpy()
    pairs = PairsHead(frame.head(head), len(frame), len(frame),
                      "P(adjacent) = 1 − p_none", out, int((adjacent > 0.5).sum()),
                      int((adjacent > 0.9).sum()))
    provenance = probabilities.provenance or {}
    settings = Settings(
        command, "bootstrap", "pag" if pag else "edges", probabilities.n_vars,
        probabilities.n_boot, provenance.get("search"), provenance.get("seed"),
        tuple((str(k), str(v)) for k, v in sorted(provenance.get("search_options",
                                                                  {}).items())))
    network = None if pag else network_data(probabilities, threshold, None, tiers)
    return RunReport(settings, PAGEdges() if pag else EdgeTypes(), pairs,
                     figures=Figures(network=network))
