"""The command line of the harness (``python -m studies.discover_known``).

    python -m studies.discover_known [--networks asia sachs … sachs-real] [--n 500 2000]
        [--schemes random10 random20 cpdag10 easy10] [--draws 10] [--n-boot 200]
        [--jobs 1] [--tag baseline] [--kwargs '{"calibrator": "temperature"}']
        [--simulations R] [--relations edges|causal] [--summary]
        [--out results/discover_known] [--summaries docs/results/discover_known]

Run from the repository root. See the package's docstring for what a run does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import cases as cases_mod
from . import causal as causal_mod
from . import draws as draws_mod
from . import summary as summary_mod
from .records import RecordFile
from .run import folder_tag, run_case

ROOT = Path(__file__).resolve().parents[2]
#: the records (``TAG.jsonl``) and, ignored by git, the bootstrap cache (``cache/``)
RESULTS = ROOT / "results" / "discover_known"
#: the Markdown summaries (``summary-TAG.md``) when ``--out`` is the default
SUMMARIES = ROOT / "docs" / "results" / "discover_known"
NETWORKS = ["asia", "sachs", "child", "insurance", "water", "alarm", "hailfinder", "hepar2",
            "win95pts", "andes", cases_mod.SACHS]
#: the schemes of each ``--relations``
SCHEMES = {"edges": draws_mod.SCHEMES, "causal": causal_mod.SCHEMES}
DEFAULT_SCHEMES = {"edges": list(draws_mod.SCHEMES), "causal": ["random10", "random20"]}


def records_path(args: argparse.Namespace) -> Path:
    """The JSON-lines file of ``args.tag``'s records."""
    return args.out / f"{folder_tag(args.tag, args.relations)}.jsonl"


def summarise(args: argparse.Namespace) -> None:
    """Print the summary of ``args.tag`` and write it as Markdown: of every scheme's
    records, or, with ``--summary --schemes`` given, of those schemes only
    (``summary-TAG-SCHEMES.md``)."""
    name = folder_tag(args.tag, args.relations)
    schemes = args.schemes if args.summary and args.schemes_given else None
    text = summary_mod.summary_text(records_path(args), name, args.relations, schemes)
    print(text)
    suffix = "".join(f"-{s}" for s in schemes) if schemes else ""
    args.summaries.mkdir(parents=True, exist_ok=True)
    (args.summaries / f"summary-{name}{suffix}.md").write_text(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m studies.discover_known",
        description="discover with a scientist's known relations vs raw bootstrap "
                    "frequencies (issues 26 and 30)")
    parser.add_argument("--networks", nargs="+", default=NETWORKS,
                        help=f"shipped networks and/or {cases_mod.SACHS}")
    parser.add_argument("--n", nargs="+", type=int, default=[500, 2000], dest="sizes")
    parser.add_argument("--schemes", nargs="+", default=None,
                        help="edges: " + " ".join(draws_mod.SCHEMES) + " (default all); "
                        "causal: " + " ".join(causal_mod.SCHEMES) + " (default "
                        + " ".join(DEFAULT_SCHEMES["causal"]) + ")")
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1, help="bootstrap processes")
    parser.add_argument("--tag", default="baseline", help="the records' file of this variant")
    parser.add_argument("--kwargs", type=json.loads, default={},
                        help="JSON object of extra keyword arguments of calibrate_draw")
    parser.add_argument("--simulations", type=int, default=0,
                        help="simulated data sets per case (discover's simulations=), "
                        "computed once per case and cached")
    parser.add_argument("--sachs-dir", default=None,
                        help="folder with cyto_full_data.csv and cyto_full_target.csv")
    parser.add_argument("--out", type=Path, default=RESULTS,
                        help="records (TAG.jsonl) and cache (default %(default)s)")
    parser.add_argument("--summaries", type=Path, default=None,
                        help=f"summaries (default {SUMMARIES} with the default --out, "
                        "else OUT)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="bootstrap cache (default OUT/cache)")
    parser.add_argument("--relations", choices=list(SCHEMES), default="edges",
                        help="edge types (default) or causal relations (issue 30)")
    parser.add_argument("--score", choices=["bdeu", "bic"], default="bdeu",
                        help="the searches' local score (bdeu); give a --tag of its own")
    parser.add_argument("--summary", action="store_true",
                        help="only rebuild the summary from the records")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = _parser()
    args = parser.parse_args(argv)
    args.cache = args.cache or args.out / "cache"
    if args.summaries is None:
        args.summaries = SUMMARIES if args.out.resolve() == RESULTS else args.out
    args.schemes_given = args.schemes is not None
    if args.schemes is None:
        args.schemes = DEFAULT_SCHEMES[args.relations]
    unknown = [s for s in args.schemes if s not in SCHEMES[args.relations]]
    if unknown:
        parser.error(f"--relations {args.relations} has no scheme {', '.join(unknown)} "
                     f"(choose from {', '.join(SCHEMES[args.relations])})")
    return args


def main(argv: list[str] | None = None) -> None:
    """Run the missing draws of every case, then print and write the summary."""
    args = parse_args(argv)
    if not args.summary:
        cases, messages = cases_mod.load_cases(args.networks, args.sizes, args.sachs_dir)
        for message in messages:
            print(message, flush=True)
        store = RecordFile(records_path(args))
        for case in cases:
            run_case(case, args, store, args.kwargs)
    summarise(args)
