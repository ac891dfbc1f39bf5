"""Pairs to ask a scientist about, so that the calibration can learn where the bootstrap
is wrong (docs/design.md §9.12).

A few relations known from the literature sit at the ends of the probability range and
say little about the middle, where decisions are made. `suggest` bootstraps the data (or
reads --probabilities) and draws --n pairs across the range of P(related) — adjacent for
edge types, one causes the other for --relations causal —, from the five strata
[0, .2), [.2, .4), [.4, .6), [.6, .8), [.8, 1]: 2 from each and the rest in proportion
to the strata's sizes (--allocation proportional, the default: most answers go to the
many pairs the bootstrap never relates, whose share of related pairs the calibration
must place), or equally (--allocation equal, as the thesis's calibration sets; a short
stratum gives all it has), at random within each. The file it writes records each
pair's stratum, the stratum's size and how many were asked, so the draw's inclusion
rates travel with it.

example:
  causalcal suggest data.csv --n 40 --out ask.csv --n-boot 200 --jobs 2
  # fill in the relation column, then
  causalcal discover data.csv --known ask.csv --out edges.csv --n-boot 200 --jobs 2

Fill in `relation` with what you know of each pair (an experiment, the literature):
  edge types:  ->  <-  --  none   (a arc a -> b; b -> a; adjacent, direction unknown;
                                   not adjacent)
  causal:      causes (a causes b), or swap a and b for "b causes a"; "neither causes
               the other" as two rows, a,b,not-causes and b,a,not-causes
  unknown      when you cannot tell: such rows are left out, and the strata's rates
               count only the answered pairs (fine if you could not tell for reasons
               that have nothing to do with the answer)
Your own known relations may be added as more rows (no stratum columns); --known KNOWN
leaves them out of the draw. Rows you add for a suggested pair (the second not-causes)
may leave the stratum columns empty. With the answers, `discover` fits a map of
P(related) on them weighted by their inclusion rates, judges every candidate map on them
(the answered pairs stand for all pairs), and estimates the number of related pairs
from them; the summary says how many answers it used and what more would buy.

The file is also a list of experiments worth doing: pairs from every stratum, where the
bootstrap is least sure and where a mistake would cost most.
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
from causalcal.cli.bootstrap import bootstrap_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file of discrete data with a header row")
    parser.add_argument("--out", required=True,
                        help="output CSV: a,b,relation (unknown: fill it in), p_related, "
                             "stratum, stratum_pairs, stratum_drawn")
    parser.add_argument("--n", type=int, default=40, help="pairs to suggest (40)")
    parser.add_argument("--allocation", choices=("proportional", "equal"),
                        default="proportional",
                        help="share the pairs between the strata in proportion to their "
                             "sizes, 2 at least (default), or equally")
    parser.add_argument("--relations", choices=("edges", "causal", "pag"), default="edges",
                        help="stratify by P(adjacent) (edges, default), by P(a causes b "
                             "or b causes a) (causal: the bootstrap counts ancestors) or by "
                             "P(arc) of a PAG (pag: --search gfci)")
    parser.add_argument("--known", help="known relations a,b,relation already in hand: "
                                        "left out of the draw")
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (200)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar, no list of the bins (--discretize)")
    add_search_arguments(parser)
    add_data_arguments(parser)
    add_knowledge_arguments(parser)
    parser.set_defaults(graph=None)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from causalcal.cli import check_output_file
    from causalcal.cli._paths import RELATIONS

    check_output_file(args.out, "--out", (".csv",))
    plan_search_files(args, {"--out": (args.out, RELATIONS)})
    from causalcal._io import atomic_write
    from causalcal.edgecal import relation_kind, suggest_pairs
    from causalcal.edges import EdgeProbabilities, pair_index
    from causalcal.errors import InputError

    search = args.search.lower()
    settings = bootstrap_settings(args, search, score_option(
        args, arity_option(args, search, alpha_option(args))))
    parse_discretize(args)
    data = load_data(args, settings.options.get("score"))
    settings = replace(settings, knowledge=knowledge_from_arguments(args, data.names))
    kind = relation_kind(args.relations)
    exclude = None
    if args.known is not None:
        known = kind.read_known(args.known, data.names)
        exclude = pair_index(known["i"].to_numpy(), known["j"].to_numpy(), data.n_vars)
    if args.probabilities:
        probs = EdgeProbabilities.load(args.probabilities)
        if probs.names != data.names:
            raise InputError(f"{args.probabilities}: computed for other variables than the "
                             "data's")
    else:
        probs = settings.run(data, ancestral=kind.ancestral)
    table = suggest_pairs(kind.raw(probs), args.n, seed=args.seed, exclude=exclude,
                          allocation=args.allocation)
    with atomic_write(args.out, newline="") as handle:
        table.to_csv(handle, index=False, float_format="%.6g")
    counts = table.groupby("stratum").size()
    print(f"wrote {len(table)} pairs to {args.out}, from the strata of P(related) "
          + ", ".join(f"[{s * 0.2:.1f}, {s * 0.2 + 0.2:.1f}): {n}" for s, n in counts.items())
          + "; fill in the relation column (unknown where you cannot tell), then "
          f"causalcal discover {args.data} --known {args.out} …")
    return 0
