"""`discover` with a scientist's known relations vs raw bootstrap frequencies (issue 26).

    python benchmarks/discover_known.py [--networks asia sachs … sachs-real] [--n 500 2000]
        [--schemes random10 random20 cpdag10 easy10] [--draws 10] [--n-boot 200]
        [--jobs 1] [--tag baseline] [--kwargs '{"calibrator": "temperature"}']
        [--simulations R] [--relations edges|causal] [--summary]

For every case (a shipped benchmark network sampled at each ``--n``, seeded, columns
shuffled; ``sachs-real``: Sachs et al.'s flow-cytometry data in tertiles with the
consensus network) the bootstrap (``--n-boot`` replicates, seed 0) is computed once and
cached in ``docs/results/discover_known/cache/`` (ignored by git). For every scheme and
draw a known set is drawn (seeded by case, scheme and draw; see
``discover_known_draws``), :func:`calibrate_draw` is called (``causalcal.discover`` with
the cached probabilities; ``--kwargs`` adds keyword arguments), and the raw and calibrated
measures on the held-out pairs are written as one small JSON record to
``docs/results/discover_known/records/TAG/CASE/SCHEME_dNN.json``. Existing records are
kept, so a run resumes; ``--summary`` rebuilds the table and the acceptance checks from
the records alone and writes ``docs/results/discover_known/summary-TAG.md`` (with
``--schemes`` also given, of those schemes only: ``summary-TAG-SCHEME….md``).

``--relations causal`` (issue 30) measures causal relations instead ("a causes b,
possibly through other variables"; ``discover_known_causal``): the same cases, with the
bootstrap's ancestral counts cached as ``CASE_bNBOOT_anc.npz`` (with ``--simulations R``
the simulated causal pairs as ``CASE_bNBOOT_simR_anc.table.npz``), its own schemes (default
``random10 random20``; also ``direct10``), records in ``records/causal-TAG/`` (``TAG``
itself when it begins with ``causal``) and the summary ``summary-causal-TAG.md``
(likewise).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import discover_known_cases as cases_mod  # noqa: E402
import discover_known_causal as causal_mod  # noqa: E402
import discover_known_draws as draws_mod  # noqa: E402
import discover_known_summary as summary_mod  # noqa: E402

import causalcal  # noqa: E402

RESULTS = _HERE.parent / "docs" / "results" / "discover_known"
NETWORKS = ["asia", "sachs", "child", "insurance", "water", "alarm", "hailfinder", "hepar2",
            "win95pts", "andes", cases_mod.SACHS]
calibrate_draw = draws_mod.calibrate_draw
calibrate_causal_draw = causal_mod.calibrate_draw
#: the schemes of each ``--relations``
SCHEMES = {"edges": draws_mod.SCHEMES, "causal": causal_mod.SCHEMES}
DEFAULT_SCHEMES = {"edges": list(draws_mod.SCHEMES), "causal": ["random10", "random20"]}


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON: {type(value).__name__}")


def write_json(path: Path, record: dict) -> None:
    """Write ``record`` atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, default=_json_default) + "\n")
    tmp.replace(path)


def code_version() -> str:
    """The repository's commit (with ``+dirty`` for uncommitted changes), or ``unknown``."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=_HERE, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=_HERE, text=True, capture_output=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def folder_tag(tag: str, relations: str = "edges") -> str:
    """The records' folder (and summary) name of ``tag``: itself for edges; for causal
    relations ``causal-TAG``, or ``TAG`` when it already begins with ``causal``."""
    if relations == "edges" or tag.startswith("causal"):
        return tag
    return f"causal-{tag}"


def _base_record(case, scheme: str, tag: str, n_boot: int, relations: str = "edges"
                 ) -> dict:
    record = {"tag": tag, "case": case.name, "network": case.network, "n": case.n,
              "n_vars": case.n_vars, "n_pairs": case.n_vars * (case.n_vars - 1) // 2,
              "real": case.name == cases_mod.SACHS, "truth_is_cpdag": case.cpdag,
              "scheme": scheme, "n_boot": n_boot}
    if relations == "causal":
        record = {"relations": "causal", **record, "truth_has_cycle": not case.cpdag}
    return record


def run_draw(case, probs, scheme: str, draw: int, *, tag: str, kwargs: dict,
             boot_seconds: float, p_adjacent: np.ndarray | None = None,
             simulations=None) -> dict | str:
    """One draw: the known set, the calibration and the record (or the skip reason)."""
    seed = cases_mod.stable_seed(case.name, scheme, draw)
    if p_adjacent is None:
        p_adjacent = 1.0 - probs.dense(np.float64)[:, 0]
    known = draws_mod.draw_known(case, scheme, p_adjacent, np.random.default_rng(seed))
    if isinstance(known, str):
        return known
    start = time.perf_counter()
    extra = {} if simulations is None else {"simulations": simulations}
    edges, diagnostics = calibrate_draw(case.data, known, probs, seed, **kwargs, **extra)
    seconds = time.perf_counter() - start
    keys = draws_mod.known_keys(known, case.names)
    record = _base_record(case, scheme, tag, probs.n_boot)
    if simulations is not None:
        kwargs = {**kwargs, "simulations": simulations.n_simulations}
    record.update({"draw": draw, "seed": seed, "kwargs": kwargs, "version": code_version(),
                   "causalcal": causalcal.__version__, "known": draws_mod.known_counts(known),
                   **draws_mod.evaluate_draw(edges, case, keys, probs.n_boot),
                   "diagnostics": draws_mod.small_diagnostics(diagnostics),
                   "seconds": seconds, "boot_seconds": boot_seconds})
    return record


def run_causal_draw(case, probs, scheme: str, draw: int, *, tag: str, kwargs: dict,
                    boot_seconds: float, truth: np.ndarray | None = None,
                    simulations=None) -> dict | str:
    """One draw of ``--relations causal``: the known causal statements, the calibration
    and the record (or the skip reason). ``truth``: the case's
    :func:`discover_known_causal.causal_truth` (computed if not given); ``simulations``:
    the case's cached :class:`SimulatedCausalPairs`, or None."""
    seed = cases_mod.stable_seed(case.name, "causal", scheme, draw)
    if truth is None:
        truth = causal_mod.causal_truth(case.n_vars, case.arcs)
    known = causal_mod.draw_known(case, scheme, truth, np.random.default_rng(seed))
    if isinstance(known, str):
        return known
    start = time.perf_counter()
    extra = {} if simulations is None else {"simulations": simulations}
    table, diagnostics = calibrate_causal_draw(case.data, known, probs, seed, **kwargs,
                                               **extra)
    seconds = time.perf_counter() - start
    if simulations is not None:
        kwargs = {**kwargs, "simulations": simulations.n_simulations}
    keys = draws_mod.known_keys(known, case.names)
    record = _base_record(case, scheme, tag, probs.n_boot, "causal")
    record.update({"draw": draw, "seed": seed, "kwargs": kwargs, "version": code_version(),
                   "causalcal": causalcal.__version__,
                   "known": causal_mod.known_counts(known), "n_known_pairs": len(keys),
                   "n_pairs_mutual": int((truth == causal_mod.MUTUAL).sum()),
                   **causal_mod.evaluate_draw(table, case, truth, keys, probs.n_boot),
                   "diagnostics": causal_mod.small_diagnostics(
                       diagnostics, draws_mod.small_diagnostics),
                   "seconds": seconds, "boot_seconds": boot_seconds})
    return record


def _line(record: dict) -> str:
    raw, cal = record["raw"], record["cal"]
    return (f"{record['case']:16s} {record['scheme']:9s} {record['draw']:3d}  Brier "
            f"{raw['brier']:.4f}->{cal['brier']:.4f}  ECE {raw['ece']:.4f}->{cal['ece']:.4f}"
            f"  MCE {raw['mce']:.3f}->{cal['mce']:.3f}  {record['seconds']:.1f} s")


def run_causal_case(case, args, records: Path, kwargs: dict) -> None:
    """Ancestral bootstrap (cached) and every missing causal draw of ``case``."""
    probs, boot_seconds = cases_mod.cached_bootstrap(case, args.n_boot, args.cache, args.jobs,
                                                     ancestral=True)
    truth = causal_mod.causal_truth(case.n_vars, case.arcs)
    mutual = int((truth == causal_mod.MUTUAL).sum())
    print(f"# {case.name}: {case.n_vars} variables, {case.data.n_samples} rows, ancestral "
          f"bootstrap {args.n_boot} x: {boot_seconds:.1f} s; {int((truth > 0).sum())} causal,"
          f" {int((truth == 0).sum())} unrelated"
          + (f", {mutual} mutual pairs (a cycle: left out)" if mutual else ""), flush=True)
    sims = _simulations(case, probs, args, ancestral=True)
    _run_draws(case, args, records, "causal", lambda scheme, draw: run_causal_draw(
        case, probs, scheme, draw, tag=args.tag, kwargs=kwargs, boot_seconds=boot_seconds,
        truth=truth, simulations=sims))


def _simulations(case, probs, args, ancestral: bool = False):
    """The case's cached simulated pairs with ``--simulations R``, else None."""
    if not args.simulations:
        return None
    sims = cases_mod.cached_simulations(case, probs, args.simulations, args.cache, args.jobs,
                                        ancestral=ancestral)
    print(f"# {case.name}: {args.simulations} simulations"
          f"{' (ancestral)' if ancestral else ''}: {sims.seconds:.1f} s", flush=True)
    return sims


def _run_draws(case, args, records: Path, relations: str, draw_one) -> None:
    """Every missing draw of every scheme of ``case``: ``draw_one(scheme, draw)`` returns
    the record, or the reason the scheme cannot be drawn (then a skip record)."""
    for scheme in args.schemes:
        folder = records / case.name
        skip_path = folder / f"{scheme}_skipped.json"
        for draw in range(args.draws):
            path = folder / f"{scheme}_d{draw:02d}.json"
            if path.exists() or skip_path.exists():
                continue
            result = draw_one(scheme, draw)
            if isinstance(result, str):
                record = _base_record(case, scheme, args.tag, args.n_boot, relations)
                write_json(skip_path, {**record, "skipped": True, "reason": result})
                print(f"{case.name:16s} {scheme:9s} skipped: {result}", flush=True)
                break
            write_json(path, result)
            print(_line(result), flush=True)


def run_case(case, args, records: Path, kwargs: dict) -> None:
    """Bootstrap (cached) and every missing draw of ``case``."""
    if args.relations == "causal":
        run_causal_case(case, args, records, kwargs)
        return
    probs, boot_seconds = cases_mod.cached_bootstrap(case, args.n_boot, args.cache, args.jobs)
    print(f"# {case.name}: {case.n_vars} variables, {case.data.n_samples} rows, bootstrap "
          f"{args.n_boot} x: {boot_seconds:.1f} s", flush=True)
    p_adjacent = 1.0 - probs.dense(np.float64)[:, 0]
    sims = _simulations(case, probs, args)
    _run_draws(case, args, records, "edges", lambda scheme, draw: run_draw(
        case, probs, scheme, draw, tag=args.tag, kwargs=kwargs, boot_seconds=boot_seconds,
        p_adjacent=p_adjacent, simulations=sims))


def summarise(args) -> None:
    """Print the summary of ``args.tag`` and write it as Markdown: of every scheme's
    records, or, with ``--summary --schemes`` given, of those schemes only
    (``summary-TAG-SCHEMES.md``)."""
    name = folder_tag(args.tag, args.relations)
    schemes = args.schemes if args.summary and args.schemes_given else None
    text = summary_mod.summary_text(args.out / "records" / name, name, args.relations,
                                    schemes)
    print(text)
    suffix = "".join(f"-{s}" for s in schemes) if schemes else ""
    (args.out / f"summary-{name}{suffix}.md").write_text(text)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    parser.add_argument("--tag", default="baseline", help="records folder of this variant")
    parser.add_argument("--kwargs", type=json.loads, default={},
                        help="JSON object of extra keyword arguments of calibrate_draw")
    parser.add_argument("--simulations", type=int, default=0,
                        help="simulated data sets per case (discover's simulations=), "
                        "computed once per case and cached")
    parser.add_argument("--sachs-dir", default=None,
                        help="folder with cyto_full_data.csv and cyto_full_target.csv")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--cache", type=Path, default=None,
                        help="bootstrap cache (default OUT/cache)")
    parser.add_argument("--relations", choices=list(SCHEMES), default="edges",
                        help="edge types (default) or causal relations (issue 30)")
    parser.add_argument("--summary", action="store_true",
                        help="only rebuild the summary from the records")
    args = parser.parse_args(argv)
    args.cache = args.cache or args.out / "cache"
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
        records = args.out / "records" / folder_tag(args.tag, args.relations)
        for case in cases:
            run_case(case, args, records, args.kwargs)
    summarise(args)


if __name__ == "__main__":
    main()
