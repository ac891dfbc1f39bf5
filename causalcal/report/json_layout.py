"""A run's report as JSON (``discover``'s ``OUT.json``; docs/design.md §9.3, §9.15):
rendered from the :class:`~causalcal.report.RunReport` alone."""

from __future__ import annotations

import json

from causalcal.errors import InputError
from causalcal.report.model import RunReport

__all__ = ["FORMAT", "report_dict", "report_json"]

#: The ``format`` entry of a discover report file (how ``causalcal`` recognises one).
FORMAT = "causalcal.discover-report"


def report_dict(report: RunReport) -> dict:
    """The report file's entries: the kind's layout of the fit (the map written and its
    cross-validated evidence, the known pairs, the EM's assumed related pairs, the
    design, the answers, the sensitivity of the top candidates), the rows written, the
    replicates, the known relations' own results, the answers to recheck, the run's
    settings (``run``: command, versions) and the figures' data."""
    if report.fit is None:
        raise InputError("a bootstrap's report has no calibration to lay out as OUT.json")
    d = {"format": FORMAT, **report.kind.report(report.fit)}
    d["rows_written"] = report.pairs.written
    if report.pairs.sha256 is not None:
        d["sha256"] = report.pairs.sha256
    d["n_boot"] = report.n_boot
    d["known_relations"] = report.known.to_dict("records")
    d["recheck"] = [e.as_dict() for e in report.recheck]
    d["run"] = report.settings.as_dict()
    figures = report.figures
    d["figures"] = {
        "reliability": figures.reliability and figures.reliability.as_dict(),
        "network": figures.network and figures.network.as_dict()}
    return d


def report_json(report: RunReport) -> str:
    """:func:`report_dict` as indented JSON text."""
    return json.dumps(report_dict(report), indent=1, default=float) + "\n"
