"""Running the harness's draws: one record per (case, scheme, draw), appended to the
tag's JSON-lines file (:mod:`.records`) unless its key is there already.

The method under test is called in one place per kind of relation:
:func:`.draws.calibrate_draw` (edge types) and :func:`.causal.calibrate_draw` (causal
relations), each a single call of ``causalcal.discover``.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import numpy as np

import causalcal

from . import cases as cases_mod
from . import causal as causal_mod
from . import draws as draws_mod
from .records import RecordFile

_HERE = Path(__file__).resolve().parent


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
    """The records' file (and summary) name of ``tag``: itself for edges; for causal
    relations ``causal-TAG``, or ``TAG`` when it already begins with ``causal``."""
    if relations == "edges" or tag.startswith("causal"):
        return tag
    return f"causal-{tag}"


def base_record(case, scheme: str, tag: str, n_boot: int, relations: str = "edges") -> dict:
    """The fields every record of ``case`` and ``scheme`` starts with."""
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
    edges, diagnostics = draws_mod.calibrate_draw(case.data, known, probs, seed, **kwargs,
                                                  **extra)
    seconds = time.perf_counter() - start
    keys = draws_mod.known_keys(known, case.names)
    record = base_record(case, scheme, tag, probs.n_boot)
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
    :func:`.causal.causal_truth` (computed if not given); ``simulations``: the case's
    cached :class:`SimulatedCausalPairs`, or None."""
    seed = cases_mod.stable_seed(case.name, "causal", scheme, draw)
    if truth is None:
        truth = causal_mod.causal_truth(case.n_vars, case.arcs)
    known = causal_mod.draw_known(case, scheme, truth, np.random.default_rng(seed))
    if isinstance(known, str):
        return known
    start = time.perf_counter()
    extra = {} if simulations is None else {"simulations": simulations}
    table, diagnostics = causal_mod.calibrate_draw(case.data, known, probs, seed, **kwargs,
                                                   **extra)
    seconds = time.perf_counter() - start
    if simulations is not None:
        kwargs = {**kwargs, "simulations": simulations.n_simulations}
    keys = draws_mod.known_keys(known, case.names)
    record = base_record(case, scheme, tag, probs.n_boot, "causal")
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


def _simulations(case, probs, args, ancestral: bool = False):
    """The case's cached simulated pairs with ``--simulations R``, else None."""
    if not args.simulations:
        return None
    sims = cases_mod.cached_simulations(case, probs, args.simulations, args.cache, args.jobs,
                                        ancestral=ancestral)
    print(f"# {case.name}: {args.simulations} simulations"
          f"{' (ancestral)' if ancestral else ''}: {sims.seconds:.1f} s", flush=True)
    return sims


def run_draws(case, args, store: RecordFile, relations: str, draw_one) -> None:
    """Every draw of every scheme of ``case`` not in ``store``: ``draw_one(scheme, draw)``
    returns the record, or the reason the scheme cannot be drawn (then a skip record)."""
    for scheme in args.schemes:
        for draw in range(args.draws):
            if store.has(case.name, scheme, draw):
                continue
            result = draw_one(scheme, draw)
            score = {} if args.score == "bdeu" else {"score": args.score}
            if isinstance(result, str):
                record = base_record(case, scheme, args.tag, args.n_boot, relations)
                store.append({**record, **score, "skipped": True, "reason": result})
                print(f"{case.name:16s} {scheme:9s} skipped: {result}", flush=True)
                break
            store.append({**result, **score})
            print(_line(result), flush=True)


def run_causal_case(case, args, store: RecordFile, kwargs: dict) -> None:
    """Ancestral bootstrap (cached) and every missing causal draw of ``case``."""
    probs, boot_seconds = cases_mod.cached_bootstrap(case, args.n_boot, args.cache, args.jobs,
                                                     ancestral=True, score=args.score)
    truth = causal_mod.causal_truth(case.n_vars, case.arcs)
    mutual = int((truth == causal_mod.MUTUAL).sum())
    print(f"# {case.name}: {case.n_vars} variables, {case.data.n_samples} rows, ancestral "
          f"bootstrap {args.n_boot} x: {boot_seconds:.1f} s; {int((truth > 0).sum())} causal,"
          f" {int((truth == 0).sum())} unrelated"
          + (f", {mutual} mutual pairs (a cycle: left out)" if mutual else ""), flush=True)
    sims = _simulations(case, probs, args, ancestral=True)
    run_draws(case, args, store, "causal", lambda scheme, draw: run_causal_draw(
        case, probs, scheme, draw, tag=args.tag, kwargs=kwargs, boot_seconds=boot_seconds,
        truth=truth, simulations=sims))


def run_case(case, args, store: RecordFile, kwargs: dict) -> None:
    """Bootstrap (cached) and every missing draw of ``case``."""
    if args.relations == "causal":
        run_causal_case(case, args, store, kwargs)
        return
    probs, boot_seconds = cases_mod.cached_bootstrap(case, args.n_boot, args.cache, args.jobs,
                                                     score=args.score)
    print(f"# {case.name}: {case.n_vars} variables, {case.data.n_samples} rows, bootstrap "
          f"{args.n_boot} x: {boot_seconds:.1f} s", flush=True)
    p_adjacent = 1.0 - probs.dense(np.float64)[:, 0]
    sims = _simulations(case, probs, args)
    run_draws(case, args, store, "edges", lambda scheme, draw: run_draw(
        case, probs, scheme, draw, tag=args.tag, kwargs=kwargs, boot_seconds=boot_seconds,
        p_adjacent=p_adjacent, simulations=sims))
