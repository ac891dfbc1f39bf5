"""The command line of the misspecification benchmark (``python -m studies.misspec``).

    python -m studies.misspec [--families hidden-alarm …] [--n 500 2000 8000]
        [--seeds 0 1 2] [--no-sachs] [--cases NAME …] [--n-boot 200] [--jobs 2]
        [--records results/misspec/raw.jsonl] [--cache results/misspec/cache]
        [--score bdeu|bic] [--summary]

Every case not yet in the records is bootstrapped (or read from the cache) and measured,
and its record appended as one JSON line (resumable by case). ``--summary`` prints the
Markdown tables from the records alone.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from studies.discover_known.records import RecordFile, read_records

from . import cases as cases_mod
from .measures import case_measures

RECORDS = cases_mod.ROOT / "results" / "misspec" / "raw.jsonl"
SCHEME = "raw"

ADJ_COLUMNS = [("share adj.", "adj_share"), ("mean P(adj)", "adj_mean_p"),
               ("Brier", "adj_brier"), ("ECE", "adj_ece"), ("AUROC", "adj_auroc"),
               ("oracle Brier", "adj_oracle_brier"), ("oracle ECE", "adj_oracle_ece")]
CAUSES_COLUMNS = [("share causes", "causes_share"), ("mean P(causes)", "causes_mean_p"),
                  ("Brier", "causes_brier"), ("ECE", "causes_ece"),
                  ("AUROC", "causes_auroc"), ("oracle Brier", "causes_oracle_brier")]


def run_case(name: str, records: RecordFile, n_boot: int, jobs: int,
             cache: Path = cases_mod.CACHE, score: str = "bdeu") -> dict | None:
    """Measure one case and append its record (None if it is already recorded); the
    scheme is ``raw``, or ``raw-SCORE`` with another score than BDeu."""
    scheme = SCHEME if score == "bdeu" else f"{SCHEME}-{score}"
    if records.has(name, scheme, 0):
        return None
    start = time.perf_counter()
    data, probs, edge_truth, causal_truth, meta = cases_mod.cached_case(
        name, cache, n_boot=n_boot, jobs=jobs, score=score)
    family, n, seed = cases_mod.parse_name(name)
    record = {"case": name, "scheme": scheme, "score": score, "draw": 0, "family": family,
              "n": n if n is not None else data.n_samples, "seed": seed,
              "n_vars": data.n_vars, "n_boot": probs.n_boot,
              "description": meta["description"], "bootstrap_seconds": meta["seconds"],
              **case_measures(probs, edge_truth, causal_truth),
              "seconds": time.perf_counter() - start}
    records.append(record)
    return record


def _fmt(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.3f}"


def summary_text(path: Path) -> str:
    """Two Markdown tables (P(adjacent), P(A causes B)), a row per family and n: the
    means over seeds of the records in ``path``."""
    groups: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for record in read_records(path):
        groups[record["family"], record["n"]].append(record)
    order = list(cases_mod.FAMILIES) + list(cases_mod.SACHS_CASES)
    keys = sorted(groups, key=lambda k: (order.index(k[0]), k[1]))
    out = []
    for title, columns in (("P(adjacent), unordered pairs", ADJ_COLUMNS),
                           ("P(A causes B), ordered pairs", CAUSES_COLUMNS)):
        out += [f"**{title}** (raw bootstrap; means over seeds)", "",
                "| family | n | seeds | V | " + " | ".join(c for c, _ in columns) + " |",
                "|---|---|---|---|" + "---|" * len(columns)]
        for key in keys:
            rows = groups[key]
            means = [np.nanmean([r[field] for r in rows]) for _, field in columns]
            out.append(f"| {key[0]} | {key[1]} | {len(rows)} | {rows[0]['n_vars']} | "
                       + " | ".join(_fmt(m) for m in means) + " |")
        out.append("")
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m studies.misspec",
                                     description="the misspecification benchmark (issue 39)")
    parser.add_argument("--families", nargs="+", default=list(cases_mod.FAMILIES),
                        choices=list(cases_mod.FAMILIES))
    parser.add_argument("--n", nargs="+", type=int, default=list(cases_mod.SIZES),
                        dest="sizes")
    parser.add_argument("--seeds", nargs="+", type=int, default=list(cases_mod.SEEDS))
    parser.add_argument("--no-sachs", action="store_true", help="leave out the Sachs cases")
    parser.add_argument("--cases", nargs="+", default=None, help="these case names only")
    parser.add_argument("--n-boot", type=int, default=cases_mod.N_BOOT)
    parser.add_argument("--jobs", type=int, default=2, help="bootstrap processes")
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--cache", type=Path, default=cases_mod.CACHE,
                        help="the bootstraps and truths (default %(default)s)")
    parser.add_argument("--score", choices=["bdeu", "bic"], default="bdeu",
                        help="the searches' local score (bdeu); BIC's bootstraps are cached "
                        "as CASE.bic.npz and recorded as scheme raw-bic")
    parser.add_argument("--summary", action="store_true", help="print the tables only")
    return parser


def main(argv: list[str] | None = None) -> None:
    """Run the cases not yet recorded, or print the summary."""
    args = _parser().parse_args(argv)
    if args.summary:
        print(summary_text(args.records))
        return
    names = args.cases or cases_mod.all_cases(args.families, tuple(args.sizes),
                                              tuple(args.seeds), not args.no_sachs)
    records = RecordFile(args.records)
    for name in names:
        record = run_case(name, records, args.n_boot, args.jobs, args.cache, args.score)
        if record is not None:
            print(f"{name}: adj ECE {record['adj_ece']:.3f} AUROC {record['adj_auroc']:.3f}"
                  f", causes ECE {record['causes_ece']:.3f} "
                  f"({record['bootstrap_seconds']:.0f} s)", flush=True)
