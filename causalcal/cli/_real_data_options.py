"""Options shared by ``causalcal bootstrap`` and ``causalcal discover`` for real data:
reading the data (``--na-values``, ``--discretize``), background knowledge
(``--knowledge``, ``--tiers``) and the averaged network (``--graph``)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

#: The knowledge group's description in --help (the long one: docs/cli/knowledge.md).
KNOWLEDGE_SHORT = ("enforced inside the search, in every replicate (fges, boss, gfci); "
                   "contradictions are errors. Files, rules and context columns: the "
                   "documentation's page 'Background knowledge' (docs/cli/knowledge.md)")


def add_knowledge_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("background knowledge", KNOWLEDGE_SHORT)
    group.add_argument("--knowledge", metavar="FILE",
                       help="CSV a,b,rule of required/forbidden arcs, or a Tetrad knowledge "
                            "file (addtemporal, forbiddirect, requiredirect)")
    group.add_argument("--tiers", metavar="FILE",
                       help="CSV variable,tier: no arc from a later tier into an earlier one")
    group.add_argument("--forbid-within-tiers", action="store_true",
                       help="forbid every edge between two variables of one tier")
    group.add_argument("--context", nargs="+", default=[], metavar="COLUMN",
                       help="condition/regime columns (Joint Causal Inference): nothing "
                            "causes them, kept as their values, never binned")
    group.add_argument("--context-targets", action="append", default=[],
                       metavar="COLUMN:T1,T2",
                       help="known intervention targets of a --context column (repeatable)")


def knowledge_from_arguments(args: argparse.Namespace, names: list[str]):
    """The :class:`causalcal.Knowledge` of ``--knowledge``/``--tiers`` (``None`` without
    them), checked against the data's variable ``names``."""
    from causalcal.errors import InputError
    from causalcal.knowledge import Knowledge

    context = context_from_arguments(args)
    for item in context:  # named here, not as the knowledge's (--context-targets' own)
        unknown = [t for t in [item.column, *(item.targets or ())] if t not in names]
        if unknown:
            option = "--context" if unknown[0] == item.column else "--context-targets"
            raise InputError(f"{option} {unknown[0]!r}: no such column in the data (it has "
                             f"{', '.join(names[:12])}{' …' if len(names) > 12 else ''})")
    if args.knowledge is None and args.tiers is None:
        if args.forbid_within_tiers:
            raise InputError("--forbid-within-tiers needs tiers: --tiers or a Tetrad "
                             "--knowledge file with addtemporal")
        if not context:
            return None
        knowledge = Knowledge()
    else:
        from causalcal.knowledge_files import read_knowledge

        knowledge = read_knowledge(args.knowledge, args.tiers, args.forbid_within_tiers)
    try:
        knowledge = knowledge.with_context(context)
        knowledge.bind(names)
    except InputError as err:
        where = ", ".join(p for p in (args.knowledge, args.tiers) if p) or "--context"
        raise InputError(f"{where}: {err} (the data has {', '.join(names[:12])}"
                         f"{' …' if len(names) > 12 else ''})") from None
    return knowledge


def context_from_arguments(args: argparse.Namespace) -> list:
    """The :class:`causalcal.knowledge.Context` columns of ``--context`` with their
    ``--context-targets``."""
    from causalcal.errors import InputError
    from causalcal.knowledge import Context

    targets: dict[str, list[str]] = {}
    for item in args.context_targets:
        column, sep, names = item.partition(":")
        listed = [t.strip() for t in names.split(",") if t.strip()]
        if not sep or not column.strip() or not listed:
            raise InputError(f"--context-targets {item!r}: expected COLUMN:T1,T2")
        if column.strip() not in args.context:
            raise InputError(f"--context-targets {item!r}: {column.strip()!r} is not a "
                             "--context column")
        if column.strip() in targets:
            raise InputError(f"--context-targets: {column.strip()!r} is given twice")
        targets[column.strip()] = listed
    return [Context(c, targets.get(c)) for c in args.context]


def add_graph_arguments(parser: argparse.ArgumentParser, what: str, pag: bool = True) -> None:
    """--graph and --graph-threshold; ``pag``: the help tells of the averaged PAG a PAG
    search's bootstrap writes (not discover, which exports edge types only)."""
    parser.add_argument(
        "--graph", metavar="NET.gml|NET.graphml|NET.dot|NET.json",
        help=f"also write the averaged network of the {what} probabilities (bnlearn's "
             "averaged.network): a pair is an edge if P(adjacent) = 1 - p_none >= "
             "--graph-threshold, drawn a -> b if more than half of that probability is "
             "a -> b (likewise b -> a), else undirected (one edge with undirected=1). "
             ".gml and .graphml open in Gephi, Cytoscape and networkx, .dot in Graphviz "
             "(if Graphviz is installed: dot -Tpdf NET.dot -o NET.pdf), .json reads back "
             "exactly with causalcal.graph_io.read_graph; edges carry weight (= "
             "P(adjacent)), direction (share of it in the drawn direction)"
             + (". With --search gfci the averaged PAG: each pair at the threshold with its "
                "most frequent PAG edge type (o-o, o->, -->, <->), also as .txt (Tetrad's "
                "graph text); edges carry weight and probability (of the edge type drawn)"
                if pag else " and known (1: a relation of --known, drawn as given; "
                "--graph-known omit leaves them out); edge types only (--relations edges)"))
    parser.add_argument("--graph-threshold", type=threshold_value, default=0.5, metavar="T",
                        help="P(adjacent) an edge needs in the --graph network (0.5), or "
                             "'estimated': bnlearn's threshold estimated from all pairs' "
                             "P(adjacent) (Scutari & Nagarajan 2013); an edge must exceed it")


def threshold_value(text: str) -> float | str:
    """--graph-threshold (and fit's --threshold): a number in (0, 1] or ``estimated``."""
    if text == "estimated":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a number nor 'estimated'") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1] or 'estimated', got {text}")
    return value


def check_graph_arguments(args: argparse.Namespace) -> None:
    """--graph and --graph-threshold, before any work."""
    from causalcal.bootstrap.search.registry import available_pag_searches
    from causalcal.cli import check_output_file
    from causalcal.graph_io import GRAPH_SUFFIXES
    from causalcal.pag_io import PAG_SUFFIXES

    pag = str(getattr(args, "search", "")).lower() in available_pag_searches()
    if args.graph is not None:
        check_output_file(args.graph, "--graph", PAG_SUFFIXES if pag else GRAPH_SUFFIXES)


def add_search_choice(parser: argparse.ArgumentParser) -> None:
    """``--search`` and ``--alpha``, as every command that searches takes them."""
    parser.add_argument("--search", default="fges",
                        help="structure search: fges (default; GES's result), boss (best "
                             "order search from it: slower, scores at least as high), ges or "
                             "pc (the last two: causal-learn, small data, no background "
                             "knowledge), gfci (FGES pruned by G² tests, FCI's orientation: "
                             "hidden common causes allowed; its graphs are PAGs), or "
                             "MODULE:FUNCTION for a function search(data, weights, **options) "
                             "-> PDAG")
    parser.add_argument("--alpha", type=float, default=None,
                        help="significance level of gfci's G² tests (0.01) or pc's (0.05)")


def add_search_arguments(parser: argparse.ArgumentParser, n_boot: bool = False) -> None:
    """The bootstrap options of ``discover`` and ``suggest``: the search, its score, jobs,
    seed, checkpoint, given probabilities and the arity bound (``n_boot``: and
    ``--n-boot``)."""
    if n_boot:
        parser.add_argument("--n-boot", type=int, default=200,
                            help="bootstrap replicates (200)")
    add_search_choice(parser)
    add_jobs_argument(parser)
    add_score_argument(parser)
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--checkpoint", help="directory to save and resume bootstrap replicates")
    parser.add_argument("--probabilities", help="precomputed bootstrap probabilities "
                        "(.npz or .csv from `causalcal bootstrap`); skips the bootstrap")
    parser.add_argument("--max-arity", type=int, default=20,
                        help="most categories a column may have (20); a numeric column with "
                             "more distinct values looks continuous and is refused")


def plan_search_files(args: argparse.Namespace, outputs: dict[str, str | None]):
    """A checked :class:`~causalcal.cli._paths.FilePlan` of a command that reads data
    (DATA, --known, --knowledge, --tiers, --probabilities) and writes ``outputs`` (option ->
    (path, kind)), --checkpoint and --graph; refuses clashes before any work."""
    from causalcal.cli._paths import GRAPH, FilePlan

    plan = FilePlan(getattr(args, "force", False))
    plan.read("DATA", args.data)
    for option in ("--known", "--more"):  # answer files, with their design records
        paths = getattr(args, option[2:], None)
        for path in [paths] if isinstance(paths, str) else paths or []:
            plan.read(option, path)
            if Path(f"{path}.json").is_file():
                plan.read(f"{option}'s design record", f"{path}.json")
    plan.read("--knowledge", args.knowledge)
    plan.read("--tiers", args.tiers)
    plan.read("--probabilities", getattr(args, "probabilities", None), sidecar=True)
    for option, (path, kind) in outputs.items():
        plan.write(option, path, kind)
    plan.write("--checkpoint", args.checkpoint)
    plan.write("--graph", args.graph, GRAPH)
    plan.check()
    return plan


def write_network(probabilities, path: str, threshold: float | str,
                  known: set | None = None) -> str:
    """Write the averaged network of ``probabilities`` to ``path`` (edges of ``known``
    pairs of names marked ``known=1``); a one-line report."""
    from causalcal.graph_io import write_graph
    from causalcal.pag_edges import PAGEdgeProbabilities

    if isinstance(probabilities, PAGEdgeProbabilities):
        return _write_pag(probabilities, path, threshold)
    graph = probabilities.averaged_network(threshold)
    strengths = probabilities.edge_strengths(graph, known)
    write_graph(graph, path, strengths)
    rule = threshold_text(probabilities, threshold)
    return (f"wrote the averaged network (P(adjacent) {rule}: {graph.n_directed} directed, "
            f"{graph.n_undirected} undirected edges{network_note(strengths, known, rule)}) "
            f"to {path}")


def network_note(strengths: dict, known, rule: str) -> str:
    """How many of a drawn network's edges are the user's own known relations and how
    many were discovered, and a warning when none was discovered (``""`` without known
    relations)."""
    if known is None:
        return ""
    mine = int(sum(d.get("known", 0) for d in strengths.values()))
    found = len(strengths) - mine
    note = f"; {mine} of them your known relations, {found} discovered"
    if not found:
        note += (f" — warning: no discovered pair has P(adjacent) {rule}; every edge drawn "
                 "is one you gave (--graph-known omit leaves them out)")
    return note


def _write_pag(probabilities, path: str, threshold: float | str) -> str:
    """Write the averaged PAG of ``probabilities``; each edge's weight is P(adjacent), its
    probability that of the edge type drawn."""
    from causalcal.pag_io import write_pag
    from causalcal.pairs import PAG_EDGE_SYMBOLS

    pag = probabilities.averaged_network(threshold)
    index = {n: k for k, n in enumerate(pag.names)}
    data = {}
    for a, edge, b in pag.edges():
        row = probabilities.lookup(index[a], index[b])
        data[(a, b)] = {"weight": float(1.0 - row[0]),
                        "probability": float(row[PAG_EDGE_SYMBOLS.index(edge)])}
    write_pag(pag, path, data)
    return (f"wrote the averaged PAG (P(adjacent) {threshold_text(probabilities, threshold)}"
            f": {pag.n_edges} edges) to {path}")


def threshold_text(probabilities, threshold: float | str) -> str:
    """``>= 0.5`` or ``> 0.31 (estimated)``: the rule of the averaged network."""
    if threshold == "estimated":
        return f"> {probabilities.estimated_threshold():.3g} (estimated)"
    return f">= {threshold:g}"


#: ``--jobs``'s default: every core this process may use, at most this many.
MAX_DEFAULT_JOBS = 8


def add_jobs_argument(parser: argparse.ArgumentParser, more: str = "") -> None:
    parser.add_argument(
        "--jobs", "-j", type=int, default=None,
        help=f"parallel worker processes (default: every core, at most {MAX_DEFAULT_JOBS} "
             f"and at most --n-boot; 1: none; -1: every core{more}); results do not "
             "depend on it")


def jobs(args: argparse.Namespace) -> int:
    """``--jobs``, or its default: the cores this process may use (its CPU affinity),
    at most :data:`MAX_DEFAULT_JOBS` and at most ``--n-boot``."""
    if args.jobs is not None:
        return args.jobs
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MAX_DEFAULT_JOBS, args.n_boot))


def add_score_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--score", choices=("bdeu", "bic", "sem-bic", "dg-bic"), default=None,
        help="the searches' local score: bdeu (default) or bic on discrete data; sem-bic "
             "(linear Gaussian) on continuous columns, dg-bic (degenerate Gaussian) on "
             "mixed ones, unbinned (docs/cli/data.md)")
    parser.add_argument(
        "--penalty-discount", type=float, default=None, metavar="C",
        help="the BIC scores' penalty discount C (default 1; with --score bic, sem-bic or "
             "dg-bic): larger values favour sparser graphs")
    parser.add_argument(
        "--sample-prior", type=float, default=None, metavar="ESS",
        help="BDeu's equivalent sample size (Tetrad's sample prior, bnlearn's iss) for the "
             "searches fges and boss (default 1); larger values favour denser graphs")


#: The scores that take --penalty-discount.
_BIC_SCORES = ("bic", "sem-bic", "dg-bic")


def score_option(args: argparse.Namespace, options: dict) -> dict:
    """``options`` with ``score``, ``penalty_discount`` and ``sample_prior`` from
    ``--score``, ``--penalty-discount`` and ``--sample-prior`` (an option given twice, or
    one of the other score's: an error)."""
    from causalcal.cli import CLIError

    given = {"score": args.score, "penalty_discount": args.penalty_discount,
             "sample_prior": args.sample_prior}
    given = {key: value for key, value in given.items() if value is not None}
    for key in given:
        if key in options:
            flag = "--" + key.replace("_", "-")
            raise CLIError(f"{flag} and --option {key}=… both given; use one")
    options = {**options, **given}
    bic = str(options.get("score", "bdeu")).lower() in _BIC_SCORES
    if bic and "sample_prior" in options:
        raise CLIError(f"--sample-prior is BDeu's; --score {options['score']} has "
                       "--penalty-discount")
    if not bic and "penalty_discount" in options:
        raise CLIError("--penalty-discount is the BIC scores'; add --score bic, sem-bic or "
                       "dg-bic")
    return options


def add_data_arguments(parser: argparse.ArgumentParser, column_kinds: bool = True) -> None:
    """The options that read a data file; ``column_kinds``: also ``--continuous`` and
    ``--discrete`` (the Gaussian scores')."""
    parser.add_argument(
        "--na-values", metavar="MARKERS", default=None,
        help="comma-separated cell values that mean 'missing' besides an empty cell, e.g. "
             "'NA,?'; a missing value is an error naming its column and row. Without this "
             "option a cell that looks like a marker (NA, N/A, ?, ., nan, NULL) is an "
             "error too; --na-values '' reads such cells as categories. Cells are "
             "categories as written (01 and 1, True and true differ); a column of numbers "
             "with no two spellings of one number is numeric, sorted by value, and with "
             "more than --max-arity values continuous (see --discretize)")
    parser.add_argument(
        "--discretize", metavar="SPEC",
        help="bin numeric columns into ordered categories first: METHOD:K bins every "
             "numeric column with more than K distinct values into K bins; per column "
             "NAME=METHOD:K, NAME=keep (leave a numeric code, e.g. marital status, as its "
             "values) or NAME=cuts:A,B,C (bins < A, [A, B), [B, C), >= C: each bin holds "
             "its lower cut); comma-separated, e.g. quantile:3, or "
             "age=quantile:4,marital=keep,re74=cuts:1,5000,quantile:3 (named columns as "
             "given, every other numeric one into 3). METHOD: quantile (equal counts), "
             "uniform (equal widths) or kmeans (1-d k-means). Where a METHOD leaves fewer "
             "non-empty bins than K (a value holding most rows, e.g. 70%% zeros) the column "
             "is cut between its distinct values for the most equal counts instead, with a "
             "warning; a constant column is warned about. Independent of --max-arity, "
             "which only bounds the categories a column may have (K must not exceed it); "
             "the bins chosen and their counts are reported on standard error (not with "
             "--quiet). --context columns are kept as their values")
    parser.add_argument(
        "--drop-columns", metavar="NAMES", default="",
        help="comma-separated columns to leave out, e.g. an identifier: a column of "
             "integers or text whose every value is distinct is refused as one")
    if column_kinds:
        _add_column_kinds(parser)
    parser.add_argument(
        "--missing", choices=("error", "drop"), default="error",
        help="error (default): a missing value is an error naming its column and row; "
             "drop: leave out every row holding one (listwise deletion), reported with "
             "the rows dropped (their numbers, data rows counted from 1 below the header; "
             "the first 20, then how many more) and the missing cells per column")


def _add_column_kinds(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--continuous", metavar="COLS", default=None,
        help="with --score sem-bic or dg-bic: comma-separated columns read as numbers "
             "whatever they hold (others detected: numeric with > 10 distinct values)")
    parser.add_argument(
        "--discrete", metavar="COLS", default=None,
        help="with --score dg-bic: comma-separated columns read as categories whatever "
             "they hold (e.g. a numeric code of regions)")


def load_data(args: argparse.Namespace, score=None):
    """The data of ``args.data`` as the search's ``score`` takes it —
    :class:`causalcal.data.DiscreteData` for the discrete scores (and without one),
    :class:`causalcal.data.MixedData` for sem-bic (every column continuous) and dg-bic
    (columns detected, ``--continuous``/``--discrete``) — with ``--na-values``,
    ``--drop-columns``, ``--missing`` and ``--discretize`` applied; with ``--quiet`` the
    bins are not listed (warnings still are)."""
    from causalcal.bootstrap import Score
    from causalcal.cli import CLIError
    from causalcal.data import DISCRETE, ColumnKinds, DiscreteData, MixedData

    markers = (None if args.na_values is None
               else [m.strip() for m in args.na_values.split(",") if m.strip()])
    dropped = [name.strip() for name in args.drop_columns.split(",") if name.strip()]
    kind = score.data_kind if isinstance(score, Score) else DISCRETE
    declared = getattr(args, "continuous", None), getattr(args, "discrete", None)
    if kind == DISCRETE and any(declared):
        raise CLIError(f"--{'continuous' if declared[0] else 'discrete'} declares column kinds "
                       "for the Gaussian scores: add --score sem-bic or dg-bic")
    bins_log = logging.getLogger("causalcal.data.bins")  # a line per binned column
    level = bins_log.level
    if args.quiet:
        bins_log.setLevel(logging.WARNING)
    try:
        if kind == DISCRETE:
            return DiscreteData.from_csv(args.data, max_arity=args.max_arity,
                                         na_values=markers,
                                         discretize_bins=parse_discretize(args),
                                         missing=args.missing, drop_columns=dropped)
        return MixedData.from_csv(
            args.data, data_kind=kind, kinds=ColumnKinds.parse(*declared),
            max_arity=args.max_arity, na_values=markers,
            discretize_bins=args.discretize and parse_discretize(args), missing=args.missing,
            drop_columns=dropped, keep_discrete=getattr(args, "context", []))
    finally:
        bins_log.setLevel(level)


def alpha_option(args: argparse.Namespace, options: dict | None = None) -> dict:
    """``options`` (or none) with the search option of --alpha when given (a search
    without the option refuses it, naming it; --alpha and --option alpha=… together are
    an error)."""
    options = dict(options or {})
    if args.alpha is None:
        return options
    from causalcal.cli import CLIError

    if not 0 < args.alpha < 1:
        raise CLIError(f"--alpha must be between 0 and 1, got {args.alpha}")
    if "alpha" in options:
        raise CLIError("--alpha and --option alpha=… both given; use one")
    return {**options, "alpha": args.alpha}


def arity_option(args: argparse.Namespace, search, options: dict) -> dict:
    """``options`` with ``max_arity`` for the search when --max-arity raises it above the
    searches' default, so that the data read are also searched (a search that takes no
    such option, or an explicit ``--option max_arity=…``, is left alone)."""
    from causalcal.bootstrap.bootstrap import check_search_options
    from causalcal.data import DEFAULT_MAX_ARITY

    if args.max_arity <= DEFAULT_MAX_ARITY or "max_arity" in options:
        return options
    try:
        check_search_options(search, {"max_arity": args.max_arity})
    except ValueError:
        return options
    return {**options, "max_arity": args.max_arity}


def parse_discretize(args: argparse.Namespace):
    """``--discretize`` read (:func:`causalcal.data.parse_discretize`) and checked against
    ``--max-arity``, before any work; ``--context`` columns kept as their values."""
    from causalcal.data import Discretization, Keep
    from causalcal.data import parse_discretize as parse
    from causalcal.errors import InputError

    try:
        spec = parse(args.discretize, args.max_arity)
    except InputError as err:  # the library's "discretize …" is the option --discretize
        text = str(err)
        raise InputError(f"--{text}" if text.startswith("discretize")
                         else f"--discretize {args.discretize}: {text}") from None
    context = getattr(args, "context", [])
    if not context:
        return spec
    for column in context:
        if column in spec.columns and not isinstance(spec.columns[column], Keep):
            raise InputError(f"--discretize {column}={spec.columns[column]}: {column!r} is a "
                             "--context column, kept as its values")
    header = _header(args.data)
    missing = [c for c in context if header is not None and c not in header]
    if missing:
        raise InputError(f"--context {missing[0]!r}: no such column in {args.data}")
    return Discretization({**spec.columns, **dict.fromkeys(context, Keep())}, spec.default)


def _header(path: str) -> list[str] | None:
    """The column names of the CSV file ``path``, or ``None`` where it cannot be read
    (reading the data then says why)."""
    import csv

    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            return next(csv.reader(handle))
    except (OSError, UnicodeDecodeError, StopIteration, csv.Error):
        return None
