"""Fit a calibrator on labelled pairs of a probabilities file; write calibrated probabilities.

The labelled pairs come either from a list of known relations (--known, real data), or
from a full truth file of a simulation (--truth with --n-cal N: a stratified calibration
set of N pairs, N/4 per edge type and equal draws from five probability bins, thesis
§6.2.4). The calibrator (SNN by default) maps each pair's bootstrap 4-vector
(p_none, p_forward, p_backward, p_undirected) to calibrated probabilities, which are
written for every pair (.npz or .csv by the suffix of --out).

examples:
  causalcal calibrate probs.npz --known known.csv --out calibrated.csv
  causalcal calibrate probs.npz --truth sim/truth.csv --n-cal 80 --seed 1 \\
      --calibrator ovr-isotonic --out calibrated.npz
  causalcal evaluate calibrated.npz --truth sim/truth.csv \\
      --exclude calibrated.calibration.csv --before probs.npz

input files:
  PROBS              bootstrap probabilities (causalcal bootstrap --out …, .npz or .csv)
  --known / --truth  CSV with columns a,b,relation; relation one of ->, <-, --, none.
                     With --truth, pairs not listed are 'none' (as causalcal simulate writes).
files written:
  --out              calibrated probabilities of all pairs (a,b,p_none,p_forward,…)
  <out>.calibration.csv   the labelled pairs the calibrator was fitted on (a,b,relation)
"""

from __future__ import annotations

import argparse

from causalcal.cli import add_calibrator_arguments, add_selection_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("probs", help="bootstrap edge probabilities (.npz or .csv)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--known", help="known relations a,b,relation: all are used for fitting")
    source.add_argument("--truth", help="full truth a,b,relation (unlisted pairs: none); "
                                        "needs --n-cal")
    parser.add_argument("--n-cal", type=int,
                        help="with --truth: calibration set size N (multiple of 4)")
    add_selection_argument(parser)
    parser.add_argument("--expected-edges", type=float, default=None,
                        help="with --known: adjacent pairs assumed in the population "
                             "(default: the bootstrap's mean number of edges)")
    parser.add_argument("--out", required=True, help="calibrated probabilities (.npz or .csv)")
    add_calibrator_arguments(parser)
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the calibration-set draw and the calibrator (default 0)")


def _fit_on_truth(args, probs, params):
    """Stratified calibration set from a full truth file; fit (selection-aware)."""
    from causalcal.calibration.apply import edge_calibrator, fit_calibrator
    from causalcal.cli import CLIError
    from causalcal.edges import pair_from_index
    from causalcal.evaluate import stratified_calibration_set
    from causalcal.evaluate.study import derive_seed
    from causalcal.evaluate.truth import truth_from_csv

    if args.n_cal is None:
        raise CLIError("--truth needs --n-cal N (the calibration set size)")
    truth = truth_from_csv(args.truth, probs.names)
    keys, _, design = stratified_calibration_set(probs, truth, args.n_cal,
                                                 seed=derive_seed(args.seed, 0))
    labels = truth[keys].astype("int64")
    P = probs.lookup(*pair_from_index(keys, probs.n_vars))
    aware = args.selection == "design"
    model = edge_calibrator(args.calibrator, params, derive_seed(args.seed, 1),
                            n_boot=probs.n_boot, equivariant=aware)
    fit_calibrator(model, P, labels, design.pooled([1, 2]).offsets(P) if aware else None)
    return model, keys, labels


def _fit_on_known(args, probs, params):
    """Known relations: set-valued labels, inclusion rates estimated by EM."""
    from causalcal.calibration.apply import distinct_rows, edge_calibrator
    from causalcal.calibration.known_relations import (
        EvidenceBlend,
        fit_known_relations,
        relation_label_sets,
    )
    from causalcal.cli import CLIError
    from causalcal.edges import pair_index
    from causalcal.evaluate.discover import read_known_pairs
    from causalcal.evaluate.study import derive_seed

    if args.n_cal is not None:
        raise CLIError("--n-cal applies to --truth; with --known every listed pair is used")
    known = read_known_pairs(args.known, probs.names)
    i, j = known["i"].to_numpy(), known["j"].to_numpy()
    labels = known["label"].to_numpy("int64")
    model = EvidenceBlend(edge_calibrator(args.calibrator, params, derive_seed(args.seed, 1),
                                          n_boot=probs.n_boot))
    rows, counts, _ = distinct_rows(probs)
    fit_known_relations(model, probs.lookup(i, j), relation_label_sets(labels), rows, counts,
                        args.expected_edges)
    return model, pair_index(i, j, probs.n_vars), labels


def _plan_files(args: argparse.Namespace, cal_path) -> None:
    """The files calibrate reads and writes, checked against each other."""
    from causalcal.cli._paths import PROBABILITIES, RELATIONS, FilePlan

    plan = FilePlan(args.force)
    plan.read("PROBS", args.probs, sidecar=True)
    plan.read("--known", args.known)
    plan.read("--truth", args.truth)
    plan.write("--out", args.out, PROBABILITIES)
    plan.write("--out's calibration pairs", cal_path, RELATIONS)
    plan.check()


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import numpy as np

    from causalcal._io import atomic_write
    from causalcal.calibration.apply import calibrate_all_pairs
    from causalcal.cli import CLIError, check_calibrator, check_output_file, parse_params
    from causalcal.edges import EdgeProbabilities, EdgeType, pair_from_index
    from causalcal.evaluate.truth import pairs_frame

    out = Path(args.out)
    check_output_file(args.out, "--out", (".npz", ".csv"))
    cal_path = out.with_name(out.stem + ".calibration.csv")
    _plan_files(args, cal_path)
    if args.seed < 0:
        raise CLIError(f"--seed must be non-negative, got {args.seed}")
    params = parse_params(args.param)
    check_calibrator(args.calibrator, params)
    probs = EdgeProbabilities.load(args.probs)
    fit = _fit_on_truth if args.truth is not None else _fit_on_known
    model, keys, labels = fit(args, probs, params)
    dense = calibrate_all_pairs(model, probs, dtype=np.float64)
    dense /= dense.sum(axis=1, keepdims=True)
    all_i, all_j = pair_from_index(np.arange(probs.n_pairs), probs.n_vars)
    calibrated = EdgeProbabilities(probs.names, np.column_stack([all_i, all_j]), dense,
                                   n_boot=probs.n_boot)
    calibrated.save(out)
    with atomic_write(cal_path, newline="", encoding="utf-8") as handle:
        pairs_frame(keys, labels, probs.names).to_csv(handle, index=False)
    counts = np.bincount(labels, minlength=4)
    print(f"fitted {args.calibrator} on {len(keys)} pairs ("
          + ", ".join(f"{t.symbol}: {counts[t]}" for t in EdgeType) + ")")
    print(f"calibrated probabilities of {probs.n_pairs} pairs -> {out}")
    print(f"calibration pairs -> {cal_path} (exclude them when evaluating)")
    return 0
