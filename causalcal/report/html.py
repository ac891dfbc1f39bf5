"""A run's report as one self-contained HTML page (``--report FILE.html``;
docs/design.md §9.15): styles, script, data and figures inline, no network access; the
summary, the map's decision, a paged, sortable and searchable table of the top pairs, the
known relations and the answers with their own probabilities, the figures, the columns
explained and the run's settings. Rendered from the :class:`~causalcal.report.RunReport`
alone."""

from __future__ import annotations

from html import escape

from causalcal._report_page import MARKER
from causalcal._version import __version__
from causalcal.edgecal import CANDIDATE_NAMES, map_sentence
from causalcal.report.columns import explained_columns
from causalcal.report.draw import network_figure, reliability_figure, svg_text
from causalcal.report.html_parts import asset, data_script, table
from causalcal.report.model import RunReport
from causalcal.report.text import summary_text

__all__ = ["MARKER", "NETWORK_EDGES", "report_html"]

#: The averaged network's strongest edges the page draws (the whole network: --graph).
NETWORK_EDGES = 40
#: The known relations' columns the page shows, when the table has them.
_KNOWN_COLUMNS = ("a", "b", "stated", "source", "p_stated", "boot_stated", "association_p")


def report_html(report: RunReport, figures: bool = True) -> str:
    """The page (module docstring); ``figures``: draw the figures (needs matplotlib, the
    ``plot`` extra; without, the page says so)."""
    s = report.settings
    title = (f"causalcal {s.what}: {report.pairs.total} pairs of {s.n_vars} variables")
    sections = [_summary(report), _pairs(report), _known(report), _recheck(report),
                _figures(report, figures), _columns(report), _run(report)]
    nav = "".join(f'<a href="#{i}">{escape(t)}</a>' for i, t, body in sections if body)
    main = "".join(f'<section id="{i}"><h2>{escape(t)}</h2>{body}</section>'
                   for i, t, body in sections if body)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n{MARKER}\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{asset('report.css')}</style></head>"
            f"<body><header><h1>{escape(title)}</h1><p class=lede>{escape(_lede(report))}</p>"
            f"<nav>{nav}</nav></header><main>{main}</main>"
            f"<footer>causalcal {escape(__version__)}; this page needs no network access."
            f"</footer>{_pairs_data(report)}<script>{asset('report.js')}</script>"
            "</body></html>\n")


def _lede(report: RunReport) -> str:
    if report.fit is None:
        return (f"Bootstrap frequencies of {report.n_boot} structure searches; no "
                "calibration (causalcal discover calibrates them on known relations).")
    return (f"Calibrated probabilities of {report.kind.words.counted} from {report.n_boot} "
            f"bootstrap replicates and {len(report.known)} {report.kind.words.known}.")


def _card(value, words: str) -> str:
    return f'<div class="card"><b>{escape(str(value))}</b><span>{escape(words)}</span></div>'


def _summary(report: RunReport) -> tuple[str, str, str]:
    pairs, fit = report.pairs, report.fit
    counted = "P(adjacent)" if fit is None else report.kind.words.counted
    cards = [_card(pairs.total, "pairs" if fit is None else "candidate pairs scored"),
             _card(pairs.above_half, f"pairs with {counted} > 0.5"),
             _card(pairs.above_09, f"pairs with {counted} > 0.9")]
    decision = ""
    if fit is not None:
        w = report.kind.words
        cards.insert(1, _card(len(report.known), f"{w.known} used"))
        cards.append(_card(fit.map.chosen, "map written to the p_* columns"))
        if fit.answers_estimate is not None:
            est, se = fit.answers_estimate
            cards.append(_card(f"{est:.1f} ± {se:.1f}", f"{w.population}, from the answers"))
        else:
            cards.append(_card(f"{fit.related_pairs:.1f}", f"{w.population} assumed"))
        sentence = map_sentence(fit.map)
        warn = " warning" if "WARNING" in sentence else ""
        decision = (f'<h3>The map written</h3><p class="decision{warn}">{escape(sentence)}</p>'
                    + _candidates(report))
    text = summary_text(report)
    return ("summary", "Summary",
            f'<div class="cards">{"".join(cards)}</div>{decision}'
            f'<h3>The summary as printed</h3><pre id="summary-text">{escape(text)}</pre>')


def _candidates(report: RunReport) -> str:
    choice = report.fit.map
    if not choice.candidates:
        return ""
    rows = []
    for name, c in choice.candidates.items():
        rows.append([CANDIDATE_NAMES.get(name, name), c.brier.mean, c.improvement,
                     c.improvement_se, c.calibration_p, c.log_loss.mean,
                     "written" if name == choice.chosen else ""])
    header = ["candidate map", f"Brier of {report.kind.words.judged}", "improvement",
              "± standard error", "calibration test p", "log-loss", ""]
    return ('<p class="muted">Each candidate judged on held-out pairs (the lower the Brier '
            'score the better; a map must beat the bootstrap by the rule above).</p>'
            + table(header, rows, table_id="candidates-table", sortable=False, digits=4))


def _pairs(report: RunReport) -> tuple[str, str, str]:
    p = report.pairs
    shown = len(p.table)
    where = (f"; all {p.written} rows written are in {p.out}" if p.out else "")
    more = (f"The top {shown} of {p.total} pairs, ranked by {p.ranked_by}{where}."
            if shown < p.total else f"All {p.total} pairs, ranked by {p.ranked_by}{where}.")
    head = "".join(f'<th scope="col"{" class=text" if k < 2 else ""}>{escape(c)}</th>'
                   for k, c in enumerate(p.table.columns))
    return ("pairs", "Ranked pairs", (
        f"<p>{escape(more)} Click a column to sort; type names to search.</p>"
        '<div class="tools"><input type="search" id="pairs-search" '
        'placeholder="search variables, e.g. PKC" aria-label="search the pairs"></div>'
        f'<div class="scroll"><table id="pairs-table" class="sortable"><thead><tr>{head}'
        "</tr></thead><tbody></tbody></table></div>"
        '<div class="pager"><button id="pairs-prev" type="button">previous</button>'
        '<button id="pairs-next" type="button">next</button>'
        '<span id="pairs-info" class="muted"></span></div>'))


def _pairs_data(report: RunReport) -> str:
    return data_script("pairs-data", report.pairs.table)


def _known(report: RunReport) -> tuple[str, str, str]:
    known = report.known
    if known is None or not len(known):
        return ("known", "Known relations", "")
    columns = [c for c in _KNOWN_COLUMNS if c in known.columns]
    note = ("Each known relation or answer with the bootstrap's frequency and the "
            "calibrated probability of what it states, the least found first. An answer "
            "the bootstrap rarely finds is not contradicted by the data: the G² test "
            "(association_p) says whether the data show the two dependent.")
    return ("known", "Known relations and answers", f"<p>{escape(note)}</p>" + table(
        columns, known[columns].to_numpy().tolist(), table_id="known-table", wrap=(2,)))


def _recheck(report: RunReport) -> tuple[str, str, str]:
    if not report.recheck:
        return ("recheck", "Answers to recheck", "")
    w = report.kind.words
    rows = []
    for e in report.recheck:
        change = e.if_wrong
        rows.append([e.a, e.b, e.stated, e.p_wrong, e.p_stated, e.boot_stated,
                     None if e.association is None else e.association.p_value,
                     None if change is None else change.related_pairs[1],
                     None if change is None else change.map[1]])
    header = ["a", "b", "stated", "p_wrong", "p_stated", "boot_stated", "association_p",
              f"{w.population} if wrong", "map if wrong"]
    note = ("The answers likeliest wrong first. 'if wrong': the calibration rerun with the "
            "answer reversed (the first few only). Mark the answers you are sure of "
            "`sure` in a confidence column and run again.")
    return ("recheck", "Answers to recheck", f"<p>{escape(note)}</p>" + table(
        header, rows, table_id="recheck-table", wrap=(2,)))


def _figures(report: RunReport, draw: bool) -> tuple[str, str, str]:
    figs = report.figures
    if figs.reliability is None and figs.network is None:
        return ("figures", "Figures", "<p>The figures are drawn for CPDAG edge types "
                "(--relations edges).</p>" if report.fit is not None else "")
    parts = [] if draw else ["<p>Figures need matplotlib: pip install "
                             "'causalcal[plot]'.</p>"]
    if figs.reliability is not None and draw:
        parts.append(
            f'<figure id="fig-reliability">{svg_text(reliability_figure(figs.reliability))}'
            "<figcaption>Reliability of P(no edge) on the pairs with a known answer: the "
            "fraction without an edge against the mean probability, per bin; on the "
            "diagonal is calibrated. In-sample (the map was fitted on these pairs), "
            "corrected for how they were chosen.</figcaption></figure>")
    if figs.network is not None:
        parts.append(_network(figs.network, draw))
    return ("figures", "Figures", "".join(parts))


def _network(net, draw: bool) -> str:
    """The averaged network's figure (its strongest edges) and its edges' table, known
    relations and discovered edges told apart."""
    shown = net.strongest(NETWORK_EDGES)
    if not shown.edges:
        return (f"<p>The averaged network has no edge (P(adjacent) {escape(net.rule)}).</p>")
    part = ("" if len(shown.edges) == net.total_edges else
            f" Shown: its {len(shown.edges) - shown.n_known} strongest discovered edges and "
            f"the known relations that touch their variables, {len(shown.edges)} of its "
            f"{net.total_edges} edges; the whole network: --graph.")
    caption = (f"The averaged network: an edge where P(adjacent) {net.rule}, its width by "
               "P(adjacent), an arrow where more than half of it is one direction. "
               f"{shown.n_known} known relations, {len(shown.edges) - shown.n_known} "
               f"discovered.{part}")
    legend = ('<div class="legend"><span class="edge-known"><span class="swatch"></span>'
              'known relation (yours, drawn as given)</span><span class="edge-discovered">'
              '<span class="swatch"></span>discovered (calibrated P(adjacent))</span></div>')
    figure = (f'<figure id="fig-network">{svg_text(network_figure(shown))}'
              f"<figcaption>{escape(caption)}</figcaption>{legend}</figure>" if draw else
              f"<p>{escape(caption)}</p>")
    rows = [[e.a, e.b, e.p_adjacent, "→" if e.directed else "—",
             "known" if e.known else "discovered"] for e in shown.edges]
    classes = ["edge-known" if e.known else "edge-discovered" for e in shown.edges]
    return (figure + "<h3>The network's edges</h3>"
            + table(["a", "b", "P(adjacent)", "drawn", "edge"], rows,
                    table_id="network-table", row_classes=classes))


def _columns(report: RunReport) -> tuple[str, str, str]:
    columns = list(report.pairs.table.columns)
    if report.known is not None:
        columns += [c for c in _KNOWN_COLUMNS if c not in columns] + ["p_wrong"]
    items = "".join(f"<dt>{escape(c)}</dt><dd>{escape(w)}</dd>"
                    for c, w in explained_columns(columns))
    return ("columns", "The columns explained", f'<dl class="columns">{items}</dl>')


def _run(report: RunReport) -> tuple[str, str, str]:
    s = report.settings
    command = (f"<pre id=command>{escape(s.command)}</pre>" if s.command else
               "<p>Not recorded (run from Python: the settings below say how).</p>")
    settings = [("relations", s.relations), ("variables", s.n_vars),
                ("bootstrap replicates", s.n_boot), ("search", s.search),
                ("seed", s.seed), *s.search_options, *s.calibration]
    rows = [[k, "" if v is None else str(v)] for k, v in settings]
    return ("run", "The run", "<h3>The command that reproduces it</h3>" + command
            + "<h3>Settings</h3>" + table(["setting", "value"], rows, table_id="settings",
                                           sortable=False)
            + "<h3>Versions</h3>" + table(["package", "version"],
                                          [list(v) for v in s.versions],
                                          table_id="versions", sortable=False))
