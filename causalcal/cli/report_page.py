"""``--report FILE.html`` of ``discover`` and ``bootstrap``: the run's report as one
self-contained page (docs/design.md §9.15)."""

from __future__ import annotations

import argparse

REPORT_HELP = ("also write the run's report as one self-contained HTML page: the summary, "
               "a sortable, searchable table of the top pairs, the known relations and "
               "answers, the figures (with matplotlib), the columns explained; opens "
               "offline in any browser (docs: report.html)")


def add_report_argument(parser) -> None:
    """``--report FILE.html`` on ``parser`` (a parser or an argument group)."""
    parser.add_argument("--report", metavar="FILE.html", help=REPORT_HELP)


def check_report_file(args: argparse.Namespace) -> None:
    """Before any work: ``--report`` names an ``.html`` file that can be written."""
    if getattr(args, "report", None) is not None:
        from causalcal.cli import check_output_file

        check_output_file(args.report, "--report", (".html", ".htm"))


def write_report_page(report, path: str) -> str:
    """Write ``report``'s page to ``path`` atomically (figures when matplotlib is
    installed); a one-line note."""
    from causalcal._io import atomic_write
    from causalcal.figures.plots import matplotlib_available
    from causalcal.report import report_html

    draw = matplotlib_available()
    page = report_html(report, figures=draw)
    with atomic_write(path, encoding="utf-8") as handle:
        handle.write(page)
    size = len(page.encode("utf-8"))
    return (f"wrote the report to {path} ({size / 1e6:.2f} MB"
            + ("" if draw else "; no figures: pip install 'causalcal[plot]'") + ")")
