"""The report of a ``discover`` run, built once from its result
(:class:`~causalcal.report.RunReport`; docs/design.md §9.15): the text summary, the JSON
and the HTML page are rendered from it."""

from __future__ import annotations

from causalcal.edgecal import EdgeTypes, stated_relations
from causalcal.report import (
    HEAD_ROWS,
    Bins,
    Figures,
    PairsHead,
    RecheckEntry,
    ReliabilityData,
    RunReport,
    Settings,
    network_data,
)

__all__ = ["discovery_report"]


def discovery_report(result, *, command: str | None = None, out: str | None = None,
                     rows_written: int | None = None, head: int = HEAD_ROWS,
                     threshold: float | str = 0.5, graph_known: bool = True,
                     tiers: dict | None = None) -> RunReport:
    """The :class:`~causalcal.report.RunReport` of a
    :class:`~causalcal.workflow.result.DiscoveryResult`.

    Parameters
    ----------
    result : the result of :func:`causalcal.discover`
    command : the command line that reproduces the run (None: not recorded)
    out : the file the whole table was written to (None: not written)
    rows_written : the rows written to ``out`` (default: every row)
    head : the top rows the report holds
    threshold : the averaged network's P(adjacent) threshold (or ``"estimated"``)
    graph_known : draw the known relations in the network (else only what was discovered)
    tiers : variable → tier, drawn as bands (default: the bootstrap's knowledge's tiers)

    Returns
    -------
    RunReport"""
    kind, table = result.kind, result.table
    related = kind.related(table)
    pairs = PairsHead(table.head(head).reset_index(drop=True), len(table),
                      len(table) if rows_written is None else int(rows_written),
                      kind.ranked_by, out, int((related > 0.5).sum()),
                      int((related > 0.9).sum()))
    figures = Figures()
    if isinstance(kind, EdgeTypes):
        knowledge = None if result.bootstrap is None else result.bootstrap.knowledge
        if tiers is None and knowledge is not None:
            tiers = knowledge.tiers or None
        known = result.known_edges() if graph_known else None
        figures = Figures(_reliability(result),
                          network_data(result.network_probabilities(threshold, graph_known),
                                       threshold, known, tiers))
    return RunReport(_settings(result, command), kind, pairs, result.report,
                     result.known_results, _recheck(result), figures)


def _settings(result, command: str | None) -> Settings:
    """The run's settings: the bootstrap's as its probabilities record them (else as
    given), the calibration's."""
    provenance = result.probabilities.provenance or {}
    boot = result.bootstrap
    search = provenance.get("search", None if boot is None else boot.search)
    options = provenance.get("search_options", {} if boot is None else boot.options)
    seed = provenance.get("seed", None if boot is None else boot.seed)
    cal = result.fit.settings
    calibration = (("calibrator", str(cal.calibrator)), ("map", cal.map),
                   ("evidence_strength", f"{cal.evidence_strength:g}"),
                   ("related_pairs", "bootstrap's mean" if cal.related_pairs is None
                    else f"{cal.related_pairs:g}"),
                   ("answer_error", f"{cal.answer_error:g}"),
                   *((k, str(v)) for k, v in sorted(cal.params.items())))
    return Settings(command, "discover", result.kind.name, result.probabilities.n_vars,
                    result.probabilities.n_boot,
                    None if search is None else getattr(search, "__name__", str(search)),
                    None if seed is None else int(seed),
                    tuple((str(k), str(v)) for k, v in sorted(dict(options).items())),
                    calibration)


def _recheck(result) -> tuple[RecheckEntry, ...]:
    """The answers to recheck, with what the first few change if wrong."""
    if not result.recheck:
        return ()
    stated = stated_relations(result.known)
    effects = result.recheck_effects
    out = []
    for k, r in enumerate(result.recheck):
        row = result.known.iloc[r.row]
        out.append(RecheckEntry(
            str(row["a"]), str(row["b"]), stated[r.row], r.p_wrong, r.p_stated,
            r.boot_stated,
            None if result.associations is None else result.associations[r.row],
            effects[k] if k < len(effects) else None))
    return tuple(out)


def _reliability(result) -> ReliabilityData:
    """The known pairs' reliability diagram: the bootstrap and the map written (only the
    bootstrap when it was written)."""
    before, after = result.known_reliability()
    written = result.report.map.chosen
    identity = written == "identity"
    return ReliabilityData(
        "none", Bins(**before["none"]), None if identity else Bins(**after["none"]),
        ("bootstrap (written)", "") if identity else ("bootstrap", f"{written} map (written)"),
        "known pairs, in-sample, corrected for their selection")
