"""Pairs to ask a scientist about, so that the calibration can learn where the bootstrap
is wrong (docs/design.md §9.12).

Draws --n pairs across the range of the bootstrap's P(related), 2 from each of five strata
and the rest in proportion to their sizes, and writes ask.csv with its design record
ask.csv.json (keep the two together). Fill in `relation` (->, <-, --, none; causal:
causes, not-causes; unknown when you cannot tell) and, if you like, `confidence` (sure,
likely, guess), then give the file to discover.

examples:
  causalcal suggest data.csv --n 20 --out ask.csv --n-boot 200 --jobs 2
  causalcal discover data.csv --known ask.csv --out edges.csv --n-boot 200 --jobs 2
  causalcal suggest data.csv --more ask.csv --n 20 --out ask2.csv --n-boot 200 --jobs 2
"""

from __future__ import annotations

import argparse

from causalcal.cli._real_data_options import (
    add_data_arguments,
    add_knowledge_arguments,
    add_search_arguments,
    alpha_option,
    arity_option,
    knowledge_from_arguments,
    load_data,
    parse_discretize,
    plan_search_files,
    score_option,
)
from causalcal.cli.bootstrap import bootstrap_settings, resolve_search


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file of data with a header row (discrete, or "
                                      "continuous and mixed with --score sem-bic or dg-bic)")
    ask = parser.add_argument_group("what to ask")
    ask.add_argument("--out", required=True,
                     help="output CSV: a,b,relation,confidence (blank: fill them in), round, "
                          "stratum, stratum_pairs, stratum_drawn; and its design record "
                          "OUT.json. Never replaces a file suggest did not write, or one "
                          "with answers, without --force")
    ask.add_argument("--n", type=int, default=40, help="pairs to suggest (40)")
    ask.add_argument("--more", nargs="+", metavar="ASK.csv",
                     help="the earlier rounds' files (answered or not): draw the next round "
                          "of their design, from the pairs not asked yet, on the same "
                          "probabilities (the same data options, --seed and bootstrap)")
    ask.add_argument("--known", nargs="+", metavar="KNOWN.csv",
                     help="known relations a,b,relation already in hand (unknown rows "
                          "state nothing): left out of the draw")
    ask.add_argument("--allocation", choices=("proportional", "equal"),
                     default="proportional",
                     help="share the pairs between the strata in proportion to their "
                          "sizes, 2 at least (default), or equally")
    ask.add_argument("--relations", choices=("edges", "causal", "pag"), default="edges",
                     help="stratify by P(adjacent) (edges, default), by P(a causes b or b "
                          "causes a) (causal: the bootstrap counts ancestors) or by P(arc) "
                          "of a PAG (pag: --search gfci)")
    ask.add_argument("--quiet", action="store_true",
                     help="no progress bar, no list of the bins (--discretize)")
    boot = parser.add_argument_group("the bootstrap (or --probabilities)")
    add_search_arguments(boot, n_boot=True)
    add_data_arguments(parser.add_argument_group("reading the data"))
    add_knowledge_arguments(parser)
    parser.set_defaults(graph=None)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from causalcal.cli import check_output_file
    from causalcal.cli._paths import SUGGESTED, SUGGESTED_RECORD

    check_output_file(args.out, "--out", (".csv",))
    plan_search_files(args, {"--out": (args.out, SUGGESTED),
                             "--out's design record": (args.out + ".json", SUGGESTED_RECORD)})
    from causalcal.workflow.suggest import suggest

    search = resolve_search(args.search)
    settings = bootstrap_settings(args, search, score_option(
        args, arity_option(args, search, alpha_option(args))))
    parse_discretize(args)
    data = load_data(args, settings.options.get("score"))
    settings = replace(settings, knowledge=knowledge_from_arguments(args, data.names))
    result = suggest(data, args.n, relations=args.relations, bootstrap=settings,
                     probabilities=args.probabilities, known=args.known, more=args.more,
                     allocation=args.allocation, seed=args.seed)
    out, record = result.save(args.out)
    rounds = [*(args.more or []), args.out]
    print(f"wrote {out} and its design record {record.name}: {result.summary()}")
    print("fill in the relation column (blank or unknown where you cannot tell; "
          f"optionally confidence), then: causalcal discover {_quoted(args.data)} --known "
          f"{' '.join(_quoted(r) for r in rounds)} --out OUT.csv{_repeated_options(args)}")
    return 0


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(str(text))


def _repeated_options(args: argparse.Namespace) -> str:
    """The options the user gave that discover needs to read the same data the same way
    (and bootstrap it the same way), as they were given: the next-step line works when
    copied."""
    flags = [("--relations", args.relations, "edges"), ("--na-values", args.na_values, None),
             ("--discretize", args.discretize, None),
             ("--drop-columns", args.drop_columns, ""), ("--missing", args.missing, "error"),
             ("--max-arity", args.max_arity, 20), ("--knowledge", args.knowledge, None),
             ("--tiers", args.tiers, None), ("--search", args.search, "fges"),
             ("--alpha", args.alpha, None), ("--score", args.score, None),
             ("--penalty-discount", args.penalty_discount, None),
             ("--sample-prior", args.sample_prior, None), ("--n-boot", args.n_boot, 200),
             ("--seed", args.seed, 0), ("--probabilities", args.probabilities, None),
             ("--checkpoint", args.checkpoint, None)]
    words = [f"{flag} {_quoted(value)}" for flag, value, default in flags if value != default]
    if args.forbid_within_tiers:
        words.append("--forbid-within-tiers")
    if args.context:
        words.append("--context " + " ".join(_quoted(c) for c in args.context))
    words += [f"--context-targets {_quoted(t)}" for t in args.context_targets]
    words += [f"--option {_quoted(o)}" for o in getattr(args, "option", None) or []]
    return "".join(" " + w for w in words)
