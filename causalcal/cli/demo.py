"""Run the embedded end-to-end demo: the thesis §6.2 pipeline on small simulated networks.

Simulates random discrete Bayesian networks (V nodes, E edges, arities 2-3, Dirichlet(1)
CPTs), draws n = 1000 samples from each, runs FGES with the BDeu score on n_boot bootstrap
replicates, draws a stratified calibration set of N pairs of known truth (N/4 per edge
type), fits the SNN calibrator on it, and compares the bootstrap ("before") and calibrated
("after") edge-type probabilities of every other pair: precision, recall, F1 and maximum
calibration error per edge type, as in the thesis's Tables 33-34. One to two minutes on two
cores; the same seed gives the same table.

example:
  causalcal demo                      # writes demo-out/
  causalcal demo --nodes 300 --edges 600 --n-boot 200 --jobs 2 --out my-demo

files written under --out: results/snn/table.md (the table printed at the end),
summary/runs CSV and JSON, plots/reliability_*.png (with matplotlib installed) and
cache/ (networks, data, bootstrap probabilities; a re-run reuses them).
"""

from __future__ import annotations

import argparse

from causalcal.cli import (
    add_calibrator_arguments,
    add_selection_argument,
    check_calibrator,
    check_output_dir,
    parse_params,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    world = parser.add_argument_group("the simulated worlds")
    world.add_argument("--out", default="demo-out", help="output directory (demo-out)")
    world.add_argument("--nodes", type=int, default=200, help="variables V (200)")
    world.add_argument("--edges", type=int, default=300, help="edges E (300)")
    world.add_argument("--repeats", type=int, default=6,
                       help="networks simulated (6: the fewest for which the Wilcoxon test "
                            "can reach 5 %%)")
    world.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (200)")
    cal = parser.add_argument_group("the calibration")
    cal.add_argument("--sizes", type=int, nargs="+", default=[40, 80],
                     help="calibration set sizes N (40 80)")
    add_calibrator_arguments(cal)
    add_selection_argument(cal)
    run = parser.add_argument_group("running it")
    run.add_argument("--jobs", type=int, default=2, help="parallel processes (2)")
    run.add_argument("--seed", type=int, default=0, help="random seed (0)")
    run.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    from causalcal.cli.study import check_study_folder
    from causalcal.evaluate import StudyConfig, run_study

    check_output_dir(args.out, "--out")
    check_study_folder(args.out, args.force)
    params = parse_params(args.param)
    check_calibrator(args.calibrator, params)
    config = StudyConfig(
        grid=((args.nodes, (args.edges,)),), sizes=tuple(args.sizes), repeats=args.repeats,
        n_boot=args.n_boot, calibrator=args.calibrator,
        calibrator_params=params, selection=args.selection, n_jobs=args.jobs, seed=args.seed,
    )
    result = run_study(config, args.out, progress=not args.quiet)
    print(result.table)
    for row in result.summary:
        print(f"N = {row['N']}: overall MCE {row['overall_mce_before']:.3f} (bootstrap) -> "
              f"{row['overall_mce_after']:.3f} (calibrated), overall ECE "
              f"{row['overall_ece_before']:.4f} -> {row['overall_ece_after']:.4f}, "
              f"mean of {row['n_runs']} networks' held-out pairs")
    print(f"{len(result.runs)} runs in {result.seconds:.1f} s; results in {result.results_dir}")
    plots = [p for k, p in result.files.items() if k.startswith("plot_")]
    for path in plots:
        print(f"reliability diagram: {path}")
    return 0
