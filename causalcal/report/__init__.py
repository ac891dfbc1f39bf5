"""The report of a run (docs/design.md §9.15): one typed value,
:class:`RunReport`, holding what a ``discover`` or ``bootstrap`` run says — its settings
and versions, the map chosen with its candidates and scores, the answers to recheck, the
known relations' own results, the ranked pairs, the figures' data and the command that
reproduces it — and its renderings: the text summary (:func:`summary_text`), the JSON
(:func:`report_json`) and one self-contained HTML page (:func:`report_html`).

* :mod:`.model` — the value; :mod:`.build` — a bootstrap's report (a discover run's:
  :func:`causalcal.workflow.discovery_report`);
* :mod:`.text`, :mod:`.json_layout`, :mod:`.html` — the renderings; :mod:`.draw` — the
  figures from the report's data; :mod:`.columns` — the columns explained.
"""

from causalcal.report.build import bootstrap_report
from causalcal.report.columns import column_words, explained_columns
from causalcal.report.draw import network_figure, reliability_figure, svg_text
from causalcal.report.html import MARKER, report_html
from causalcal.report.json_layout import report_dict, report_json
from causalcal.report.model import (
    HEAD_ROWS,
    Bins,
    Figures,
    NetworkData,
    NetworkEdge,
    PairsHead,
    RecheckEntry,
    ReliabilityData,
    RunReport,
    Settings,
    network_data,
    threshold_words,
    versions,
)
from causalcal.report.text import recheck_lines, summary_text

__all__ = [
    "HEAD_ROWS", "MARKER", "Bins", "Figures", "NetworkData", "NetworkEdge", "PairsHead",
    "RecheckEntry", "ReliabilityData", "RunReport", "Settings", "bootstrap_report",
    "column_words", "explained_columns", "network_data", "network_figure", "recheck_lines",
    "reliability_figure", "report_dict", "report_html", "report_json", "summary_text",
    "svg_text", "threshold_words", "versions",
]
