"""Calibrated causal-relation probabilities for real data (thesis §6.2.1).

Bootstraps the structure search on DATA, fits a calibrator on the relations you know
(KNOWN.csv: a,b,relation with ->, <-, --, none; at least 5 arcs and 5 none, or the
answered files of `causalcal suggest`) and ranks every other pair by P(adjacent). The
p_* columns hold the calibrated probabilities only where they beat the bootstrap on
held-out known pairs; otherwise the bootstrap's (the summary says which).

examples:
  causalcal discover data.csv --known known.csv --out edges.csv --n-boot 200 --jobs 2
  causalcal discover data.csv --known ask.csv --out edges.csv --report run.html
  causalcal discover data.csv --known known.csv --relations causal --out causal.csv
  causalcal discover data.csv --known known.csv --search gfci --relations pag --out pag.csv
  causalcal discover data.csv --known known.csv --score dg-bic --out edges.csv  # mixed data
"""

from __future__ import annotations

import argparse
from pathlib import Path

from causalcal.cli import (
    CLIError,
    add_calibrator_arguments,
    add_features_argument,
    add_map_argument,
    check_calibrator,
    check_output_file,
    feature_groups,
    parse_params,
)
from causalcal.cli._real_data_options import (
    add_data_arguments,
    add_graph_arguments,
    add_knowledge_arguments,
    add_search_arguments,
    alpha_option,
    arity_option,
    check_graph_arguments,
    knowledge_from_arguments,
    load_data,
    parse_discretize,
    plan_search_files,
    score_option,
    write_network,
)
from causalcal.cli.bootstrap import bootstrap_settings, resolve_search
from causalcal.cli.report_page import add_report_argument, check_report_file, write_report_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file of data with a header row (discrete, or "
                                      "continuous and mixed with --score sem-bic or dg-bic)")
    what = parser.add_argument_group("what to calibrate, what to write")
    what.add_argument("--known", required=True, nargs="+", metavar="KNOWN.csv",
                      help="CSV of known relations (a,b,relation), or the answered files "
                           "of causalcal suggest (every round: ask.csv ask2.csv …)")
    what.add_argument("--out", required=True, help="output CSV of ranked pairs (and its "
                                                   "details, OUT.json)")
    what.add_argument("--relations", choices=("edges", "causal", "pag"), default="edges",
                      help="edges (default): edge types of the graph, ranked by "
                           "P(adjacent); causal: P(a causes b, possibly through other "
                           "variables), known.csv with causes / not-causes; pag: the edge "
                           "types of a PAG (--search gfci), ranked by P(arc)")
    what.add_argument("--rank-by", choices=("p_adjacent", "p_directed"),
                      default="p_adjacent", help="ranking column (p_adjacent)")
    what.add_argument("--top", type=int, default=None,
                      help="write only the TOP highest-ranked pairs (default: all)")
    add_report_argument(what)
    what.add_argument("--quiet", action="store_true",
                      help="no progress bar, no progress lines (bootstrap, calibration), "
                           "no list of the bins (--discretize)")
    cal = parser.add_argument_group("the calibration")
    add_calibrator_arguments(cal)
    add_map_argument(cal, simulated=True)
    cal.add_argument("--simulations", type=int, default=0, metavar="R",
                     help="also simulate R data sets like the data (from a network fitted "
                          "to it) and bootstrap each the same way; the map learnt on their "
                          "pairs is a candidate the known pairs must confirm (default 0: "
                          "off; resumes with --checkpoint)")
    cal.add_argument("--expected-edges", type=float, default=None,
                     help="adjacent pairs assumed in the population (default: the "
                          "bootstrap's mean number of edges)")
    cal.add_argument("--evidence-strength", type=float, default=5.0,
                     help="known pairs a P(adjacent) bin needs for half weight on the "
                          "calibrated value; bins without known pairs keep the bootstrap's "
                          "probabilities (default 5; 0: calibrate everywhere)")
    cal.add_argument("--answer-error", type=float, default=None, metavar="SHARE",
                     help="answers to suggested pairs: the share assumed wrong, half "
                          "inventing a relation and half denying one, for rows without a "
                          "confidence column (default 0.2, docs/design.md §9.14; 0 takes "
                          "them as right)")
    add_features_argument(cal, "the bootstrap (with --probabilities: those saved with "
                               "them, or the --checkpoint they were computed with)")
    add_search_arguments(parser.add_argument_group("the bootstrap"), n_boot=True)
    add_data_arguments(parser.add_argument_group("reading the data"))
    add_knowledge_arguments(parser)
    net = parser.add_argument_group("the averaged network and figures (edge types)")
    add_graph_arguments(net, "calibrated", pag=False)
    net.add_argument("--graph-known", choices=("include", "omit"), default="include",
                     help="draw the known relations in --graph and --plot (include, "
                          "default: as given, marked known) or leave them out (omit: "
                          "only what was discovered)")
    net.add_argument("--plot", metavar="DIR",
                     help="write DIR/network.png (the averaged network of the calibrated "
                          "probabilities at --graph-threshold; known relations in orange, "
                          "--tiers as columns) and DIR/reliability.png (P(no edge) of the "
                          "known pairs, bootstrap vs calibrated); needs matplotlib: pip "
                          "install 'causalcal[plot]'")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    check_output_file(args.out, "--out", (".csv",))
    check_report_file(args)
    _plan_files(args)  # a missing or clashing file fails here, before the heavy imports
    from causalcal.edgecal import CalibrationSettings, CausalRelations, EdgeTypes, PAGEdges
    from causalcal.report import HEAD_ROWS, summary_text
    from causalcal.workflow.discover import discover

    search = resolve_search(args.search)
    options = score_option(args, arity_option(args, search, alpha_option(args)))
    settings = bootstrap_settings(args, search, options)
    check_graph_arguments(args)
    if args.plot is not None:
        from causalcal.cli import check_output_dir
        from causalcal.figures.plots import matplotlib_available

        if not matplotlib_available():
            raise CLIError("--plot needs matplotlib: pip install 'causalcal[plot]'")
        check_output_dir(args.plot, "--plot")
    parse_discretize(args)
    if args.relations != "edges":
        given = [o for o, v in (("--graph", args.graph), ("--plot", args.plot),
                                ("--features", args.features is not None),
                                ("--rank-by", args.rank_by != "p_adjacent")) if v]
        if given:
            raise CLIError(f"{given[0]} is for CPDAG edge types; not with --relations "
                           f"{args.relations}")
    if args.top is not None and args.top < 1:
        raise CLIError(f"--top must be at least 1, got {args.top}")
    params = parse_params(args.param)
    check_calibrator(args.calibrator, params)
    if args.relations == "edges":
        relations = EdgeTypes(rank_by=args.rank_by, features=feature_groups(args.features))
    else:
        relations = CausalRelations() if args.relations == "causal" else PAGEdges()
    calibration = CalibrationSettings(
        calibrator=args.calibrator, params=params, related_pairs=args.expected_edges,
        evidence_strength=args.evidence_strength, map=args.map, simulations=args.simulations,
        **({} if args.answer_error is None else {"answer_error": args.answer_error}))
    data = load_data(args, settings.options.get("score"))
    settings = replace(settings, knowledge=knowledge_from_arguments(args, data.names))
    result = discover(data, args.known, relations=relations, bootstrap=settings,
                      calibration=calibration, probabilities=args.probabilities)
    rows = len(result.table.head(args.top) if args.top is not None else result.table)
    own = args.graph_known == "include"
    report = result.run_report(command=getattr(args, "command_line", None), out=args.out,
                               rows_written=rows, head=min(rows, HEAD_ROWS),
                               threshold=args.graph_threshold, graph_known=own)
    out, json_path = result.save(args.out, top=args.top, report=report)
    print(summary_text(report))
    print(f"wrote {rows} pairs to {out}; the fit and the map chosen to {json_path}")
    if args.graph is not None:
        threshold = args.graph_threshold
        print(write_network(result.network_probabilities(threshold, own), args.graph,
                            threshold, result.known_edges() if own else None))
    if args.plot is not None:
        print(_write_plots(report, Path(args.plot)))
    if args.report is not None:
        print(write_report_page(report, args.report))
    return 0


def _plan_files(args: argparse.Namespace) -> None:
    """Every file discover reads and writes, checked against each other."""
    from causalcal.cli._paths import HTML_REPORT, IMAGE, RANKING, REPORT

    plots = Path(args.plot) if args.plot is not None else None
    plan_search_files(args, {
        "--out": (args.out, RANKING), "--out's report": (args.out + ".json", REPORT),
        "--plot": (args.plot, None),
        "--plot's network.png": (plots and plots / "network.png", IMAGE),
        "--plot's reliability.png": (plots and plots / "reliability.png", IMAGE),
        "--report": (args.report, HTML_REPORT),
    })


def _write_plots(report, folder: Path) -> str:
    """The report's figures as PNG files: the averaged network (known relations in their
    own colour, or left out; tiers as columns; its title says how many edges are known
    and how many discovered) and the known pairs' reliability diagram."""
    from causalcal.cli._real_data_options import network_note
    from causalcal.figures.plots import save_figure
    from causalcal.report import network_figure, reliability_figure

    net = report.figures.network
    note = network_note({(e.a, e.b): {"known": float(e.known)} for e in net.edges},
                        net.known, net.rule)
    figures = {"network.png": network_figure(net),
               "reliability.png": reliability_figure(report.figures.reliability)}
    for name, fig in figures.items():
        save_figure(fig, folder / name)
    return f"figures -> {folder / 'network.png'}, {folder / 'reliability.png'}{note}"
