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

from causalcal.cli import add_calibrator_arguments, add_map_argument, add_selection_argument


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
    add_map_argument(parser)
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the calibration-set draw and the calibrator (default 0)")


def _fit_on_truth(args, inputs, params):
    """Stratified calibration set from a full truth file."""
    from causalcal.cli import CLIError
    from causalcal.edgecal import (
        CalibrationSettings,
        drawn_calibration_set,
        fit_edge_calibrator,
    )
    from causalcal.evaluate.study_config import derive_seed
    from causalcal.relations_io import truth_from_csv

    if args.n_cal is None:
        raise CLIError("--truth needs --n-cal N (the calibration set size)")
    truth = truth_from_csv(args.truth, inputs.probabilities.names)
    calset, _ = drawn_calibration_set(inputs, truth, args.n_cal, seed=derive_seed(args.seed, 0))
    settings = CalibrationSettings(args.calibrator, params, selection=args.selection)
    return fit_edge_calibrator(calset, settings, derive_seed(args.seed, 1))


def _fit_on_known(args, inputs, params):
    """Known relations: set-valued labels, inclusion rates estimated by EM."""
    from causalcal.cli import CLIError
    from causalcal.edgecal import (
        CalibrationSettings,
        fit_edge_calibrator,
        known_calibration_set,
    )
    from causalcal.evaluate.study_config import derive_seed
    from causalcal.relations_io import read_known_pairs

    if args.n_cal is not None:
        raise CLIError("--n-cal applies to --truth; with --known every listed pair is used")
    known = read_known_pairs(args.known, inputs.probabilities.names)
    calset = known_calibration_set(inputs, known)
    settings = CalibrationSettings(args.calibrator, params, selection=args.selection,
                                   related_pairs=args.expected_edges, map=args.map)
    return fit_edge_calibrator(calset, settings, derive_seed(args.seed, 1))


def _plan_files(args: argparse.Namespace, cal_path) -> None:
    """The files calibrate reads and writes, checked against each other."""
    from causalcal.cli._paths import (
        CALIBRATION_PAIRS,
        CALIBRATION_SIDECAR,
        PROBABILITIES,
        FilePlan,
    )

    plan = FilePlan(args.force)
    plan.read("PROBS", args.probs, sidecar=True)
    plan.read("--known", args.known)
    plan.read("--truth", args.truth)
    plan.write("--out", args.out, PROBABILITIES)
    plan.write("--out's calibration pairs", cal_path, CALIBRATION_PAIRS)
    plan.write("--out's calibration pairs' checksum", f"{cal_path}.json", CALIBRATION_SIDECAR)
    plan.check()


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from causalcal._io import atomic_write
    from causalcal._own import write_digest_sidecar
    from causalcal.cli import CLIError, check_calibrator, check_output_file, parse_params
    from causalcal.cli._paths import CALIBRATION_FORMAT
    from causalcal.edgecal import PairInputs, label_counts, map_lines
    from causalcal.edges import EdgeProbabilities
    from causalcal.relations_io import pairs_frame

    out = Path(args.out)
    check_output_file(args.out, "--out", (".npz", ".csv"))
    cal_path = out.with_name(out.stem + ".calibration.csv")
    _plan_files(args, cal_path)
    if args.seed < 0:
        raise CLIError(f"--seed must be non-negative, got {args.seed}")
    if args.n_cal is not None and (args.n_cal < 4 or args.n_cal % 4):
        raise CLIError(f"--n-cal must be a positive multiple of 4 (N/4 pairs of each edge "
                       f"type), got {args.n_cal}")
    params = parse_params(args.param)
    check_calibrator(args.calibrator, params)
    probs = EdgeProbabilities.load(args.probs)
    inputs = PairInputs(probs)
    fit = (_fit_on_truth if args.truth is not None else _fit_on_known)(args, inputs, params)
    fit.calibrated_probabilities().save(out)
    calset = fit.calibration_set
    with atomic_write(cal_path, newline="", encoding="utf-8") as handle:
        pairs_frame(calset.keys, calset.labels, probs.names).to_csv(handle, index=False)
    write_digest_sidecar(cal_path, CALIBRATION_FORMAT, "the labelled pairs causalcal "
                         "calibrate fitted on; exclude them when evaluating")
    print(f"fitted {args.calibrator} on {len(calset)} pairs ("
          + ", ".join(f"{k}: {v}" for k, v in label_counts(calset).items()) + ")")
    if fit.choice is not None:
        print("\n".join(map_lines(fit.choice)))
    print(f"calibrated probabilities of {probs.n_pairs} pairs -> {out}")
    print(f"calibration pairs -> {cal_path} (exclude them when evaluating)")
    return 0
