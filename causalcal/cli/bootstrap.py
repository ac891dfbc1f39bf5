"""Bootstrapped edge-type probabilities of every variable pair (thesis §6.2.3, docs/design.md §6).

Runs the structure search on --n-boot bootstrap replicates of DATA and writes, for every
pair, the share of replicates in which it is a ⋯ b (none), a → b, b → a or a — b;
results do not depend on --jobs. --checkpoint DIR resumes after an interruption;
--scheduler runs the replicates on a dask cluster.

examples:
  causalcal bootstrap data.csv --n-boot 200 --jobs 2 --seed 0 --out probs.npz \\
      --checkpoint probs.ckpt
  causalcal bootstrap data.csv --out probs.csv --knowledge arcs.csv --tiers tiers.csv
  causalcal bootstrap data.csv --out probs.npz --ancestral   # for --relations causal
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from causalcal.cli._real_data_options import (
    add_data_arguments,
    add_graph_arguments,
    add_jobs_argument,
    add_knowledge_arguments,
    add_score_argument,
    add_search_choice,
    alpha_option,
    arity_option,
    check_graph_arguments,
    jobs,
    knowledge_from_arguments,
    load_data,
    parse_discretize,
    plan_search_files,
    score_option,
    write_network,
)
from causalcal.cli.report_page import add_report_argument, check_report_file, write_report_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file with a header row, one variable a column "
                                      "(discrete, or continuous with --score sem-bic or dg-bic)")
    out = parser.add_argument_group("what to write")
    out.add_argument("--out", "-o", required=True,
                     help="output file: .npz (compact) or .csv (names, one row per pair)")
    out.add_argument("--ancestral", action="store_true",
                     help="also count definite and possible ancestors of every ordered "
                          "pair (causal relations; needs an .npz --out)")
    add_report_argument(out)
    out.add_argument("--quiet", "-q", action="store_true",
                     help="no progress bar, no list of the bins (--discretize)")
    search = parser.add_argument_group("the search")
    add_search_choice(search)
    search.add_argument("--max-degree", type=int, default=None,
                        help="passed to the search as max_degree (FGES/GES)")
    search.add_argument("--max-arity", type=int, default=20,
                        help="a column with more distinct values is refused (20)")
    search.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="extra search option (repeatable); VALUE is read as a Python "
                             "literal if it parses as one, else as a string; e.g. "
                             "--option structure_prior=2 (fges, boss)")
    add_score_argument(search)
    run = parser.add_argument_group("running it")
    run.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (200)")
    add_jobs_argument(run, "; with --scheduler every cluster worker is used instead")
    run.add_argument("--seed", type=int, default=0, help="random seed (0)")
    run.add_argument("--checkpoint", metavar="DIR",
                     help="directory to save finished replicates in and resume from")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="dask.distributed scheduler address, e.g. tcp://10.0.0.5:8786")
    run.add_argument("--device", default=None,
                     help="torch device for the fges count products, e.g. cuda for a GPU "
                          "(default: numpy on the CPU; same CPDAGs)")
    add_data_arguments(parser.add_argument_group("reading the data"))
    add_knowledge_arguments(parser)
    add_graph_arguments(parser.add_argument_group("the averaged network"), "bootstrap")


def resolve_search(name: str) -> object:
    """``--search``: a search's name (lower-cased; the library checks it) or the function
    ``MODULE:FUNCTION`` imported (an ``InputError`` naming it if it cannot be)."""
    from causalcal.cli import CLIError

    module_name, sep, attr = name.partition(":")
    if not sep:
        return name.lower()  # a search name: the library checks it
    import importlib

    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise CLIError(f"--search {name!r}: cannot import it ({err})") from None
    if not callable(fn):
        raise CLIError(f"--search {name!r} is not callable")
    return fn


#: Library parameter -> the command-line option that sets it, for error messages.
_OPTION_NAMES = {"n_boot": "--n-boot", "seed": "--seed", "n_jobs": "--jobs"}


def bootstrap_settings(args: argparse.Namespace, search, options: dict):
    """The bootstrap's settings from the command line (also used by ``causalcal
    discover``); the library checks the values, before any work, and its message names
    the option. --max-arity and --checkpoint are checked here (the data and the folder
    are the command line's)."""
    from causalcal.bootstrap import BootstrapSettings
    from causalcal.bootstrap.checkpoint import check_checkpoint_folder
    from causalcal.cli import CLIError
    from causalcal.errors import InputError

    if args.max_arity < 2:
        raise CLIError(f"--max-arity must be at least 2, got {args.max_arity}")
    if args.checkpoint is not None:
        check_checkpoint_folder(args.checkpoint)
    try:
        return BootstrapSettings(
            n_boot=args.n_boot, search=search, options=options, seed=args.seed,
            n_jobs=jobs(args), checkpoint=args.checkpoint, progress=not args.quiet,
            scheduler=getattr(args, "scheduler", None))
    except InputError as err:
        message = str(err)
        if message.startswith("unknown search"):
            raise CLIError(f"--search {args.search!r}: {message}, or MODULE:FUNCTION") from None
        for name, option in _OPTION_NAMES.items():
            if message.startswith(f"{name} "):
                message = option + message[len(name):]
        raise CLIError(message) from None


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from causalcal.cli import CLIError, check_output_file, parse_params
    from causalcal.cli._paths import HTML_REPORT, PROBABILITIES

    out = Path(args.out)
    check_output_file(args.out, "--out", (".npz", ".csv"))
    if args.ancestral and out.suffix.lower() != ".npz":
        raise CLIError("--ancestral needs an .npz --out (the CSV holds edge types only)")
    check_report_file(args)
    plan_search_files(args, {"--out": (args.out, PROBABILITIES),
                             "--report": (args.report, HTML_REPORT)})
    options = alpha_option(args, parse_params(args.option, "--option", "KEY"))
    if args.max_degree is not None:
        options["max_degree"] = args.max_degree
    if args.device is not None:
        options["device"] = args.device
    search = resolve_search(args.search)
    options = score_option(args, arity_option(args, search, options))
    settings = bootstrap_settings(args, search, options)
    check_graph_arguments(args)
    parse_discretize(args)
    data = load_data(args, settings.options.get("score"))
    settings = replace(settings, knowledge=knowledge_from_arguments(args, data.names))
    start = time.perf_counter()
    try:
        probs = settings.run(data, ancestral=args.ancestral)
    except ImportError as err:
        raise CLIError(str(err)) from None
    probs.save(out)
    elapsed = time.perf_counter() - start
    print(
        f"{args.n_boot} replicates over {data.n_vars} variables in {elapsed:.1f} s; "
        f"{len(probs)} pairs with an edge in some replicate; wrote {out}"
    )
    if args.graph is not None:
        print(write_network(probs, args.graph, args.graph_threshold))
    if args.report is not None:
        from causalcal.report import bootstrap_report

        tiers = settings.knowledge.tiers if settings.knowledge is not None else None
        report = bootstrap_report(probs, command=args.command_line, out=str(out),
                                  threshold=args.graph_threshold, tiers=tiers or None)
        print(write_report_page(report, args.report))
    return 0
