"""Bootstrapped edge-type probabilities of every variable pair (thesis §6.2.3, docs/design.md §6).

Runs the structure search on N_BOOT bootstrap replicates of the data (replicate b's row
multiplicities are a multinomial(n, 1/n) draw seeded by (seed, b), so results do not depend
on --jobs) and writes, for every pair with any edge in some replicate, the fraction of
replicates in which the pair is  a ⋯ b (none), a → b, b → a, a — b.

Example:

    causalcal bootstrap data.csv --n-boot 200 --jobs 2 --seed 0 --out probs.npz \\
        --checkpoint probs.ckpt

writes probs.npz (compact; .csv gives columns a,b,p_none,p_forward,p_backward,p_undirected
with variable names). With --checkpoint DIR every finished replicate is saved in DIR; run
the same command again after an interruption (Ctrl-C, a killed job) to resume. A DIR made
with other data, seed, search or options is refused. With --scheduler tcp://HOST:8786 the
replicates run on a dask.distributed cluster (pip install causalcal[distributed]).

data.csv needs a header row; every column must be discrete (at most --max-arity distinct
values) with no missing values.

With background knowledge (fges and boss):

    causalcal bootstrap data.csv --out probs.csv --knowledge arcs.csv --tiers tiers.csv
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from causalcal.cli._realdata import (
    add_data_arguments,
    add_graph_arguments,
    add_knowledge_arguments,
    arity_option,
    check_graph_arguments,
    knowledge_from_arguments,
    load_data,
    parse_discretize,
    plan_search_files,
    write_network,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file with a header row, one discrete variable a column")
    parser.add_argument("--out", "-o", required=True,
                        help="output file: .npz (compact) or .csv (names, one row per pair)")
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (200)")
    parser.add_argument("--jobs", "-j", type=int, default=1,
                        help="parallel worker processes (1; -1 = all cores; with --scheduler "
                             "every cluster worker is used instead)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--search", default="fges",
                        help="structure search: fges (default; GES's result), boss (best "
                             "order search from it: slower, scores at least as high), ges or "
                             "pc (causal-learn; small data only), or MODULE:FUNCTION for a "
                             "function search(data, weights, **options) -> PDAG")
    parser.add_argument("--checkpoint", metavar="DIR",
                        help="directory to save finished replicates in and resume from")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="dask.distributed scheduler address, e.g. tcp://10.0.0.5:8786")
    parser.add_argument("--max-degree", type=int, default=None,
                        help="passed to the search as max_degree (FGES/GES)")
    parser.add_argument("--max-arity", type=int, default=20,
                        help="a column with more distinct values is refused (20)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="extra search option (repeatable); VALUE is read as a Python "
                             "literal if it parses as one, else as a string")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_data_arguments(parser)
    add_knowledge_arguments(parser)
    add_graph_arguments(parser, "bootstrap")


def _parse_options(items: list[str]) -> dict[str, object]:
    import ast

    from causalcal.cli import CLIError

    options: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise CLIError(f"--option {item!r}: expected KEY=VALUE")
        try:
            options[key.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key.strip()] = value
    return options


def _resolve_search(name: str) -> object:
    from causalcal.bootstrap.searches import available_searches
    from causalcal.cli import CLIError

    names = available_searches()
    if name.lower() in names:
        return name.lower()
    module_name, sep, attr = name.partition(":")
    if not sep:
        raise CLIError(
            f"--search {name!r}: expected one of {', '.join(names)} or MODULE:FUNCTION"
        )
    import importlib

    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise CLIError(f"--search {name!r}: cannot import it ({err})") from None
    if not callable(fn):
        raise CLIError(f"--search {name!r} is not callable")
    return fn


def check_bootstrap_arguments(args: argparse.Namespace) -> None:
    """--n-boot, --jobs, --seed, --max-arity and --checkpoint, before any work (also
    used by ``causalcal discover``)."""
    from causalcal.bootstrap.bootstrap import MAX_N_BOOT
    from causalcal.bootstrap.checkpoint import check_checkpoint_folder
    from causalcal.cli import CLIError

    if not 1 <= args.n_boot <= MAX_N_BOOT:
        raise CLIError(f"--n-boot must be from 1 to {MAX_N_BOOT}, got {args.n_boot}")
    if args.jobs == 0:
        raise CLIError("--jobs must not be 0 (use -1 for all cores)")
    if args.seed < 0:
        raise CLIError(f"--seed must be non-negative, got {args.seed}")
    if args.max_arity < 2:
        raise CLIError(f"--max-arity must be at least 2, got {args.max_arity}")
    if args.checkpoint is not None:
        check_checkpoint_folder(args.checkpoint)


def run(args: argparse.Namespace) -> int:
    from causalcal.cli import check_output_file
    from causalcal.cli._paths import PROBABILITIES

    out = Path(args.out)
    check_output_file(args.out, "--out", (".npz", ".csv"))
    plan_search_files(args, {"--out": (args.out, PROBABILITIES)})
    check_bootstrap_arguments(args)
    check_graph_arguments(args)
    parse_discretize(args.discretize)
    options = _parse_options(args.option)
    if args.max_degree is not None:
        options["max_degree"] = args.max_degree
    search = _resolve_search(args.search)

    from causalcal.bootstrap import bootstrap_edge_probabilities
    from causalcal.bootstrap.bootstrap import check_search_options
    from causalcal.cli import CLIError

    check_search_options(search, options)
    options = arity_option(args, search, options)

    data = load_data(args)
    knowledge = knowledge_from_arguments(args, data.names)
    start = time.perf_counter()
    try:
        probs = bootstrap_edge_probabilities(
            data, n_boot=args.n_boot, search=search, n_jobs=args.jobs, seed=args.seed,
            checkpoint=args.checkpoint, scheduler=args.scheduler, progress=not args.quiet,
            knowledge=knowledge, **options,
        )
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
    return 0
