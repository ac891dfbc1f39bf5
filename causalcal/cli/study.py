"""Run (or resume) the simulation study of thesis §6.2.4–6.2.5 (Tables 33 and 34).

For every grid cell (V nodes, E edges, calibration set size N) and repeat: simulate,
bootstrap, calibrate on N stratified pairs and compare the bootstrap ("before") with the
calibrated ("after") probabilities of all other pairs. Presets: table33 (V=1000),
table34 (V=5000), quick (V=100, < 1 min). Re-running the same command resumes.

examples:
  causalcal study --preset quick --out study-quick              # < 1 min smoke run
  causalcal study --preset table33 --jobs 2 --out study33       # thesis Table 33 (hours)
  causalcal study --preset table33 --calibrator ovr-isotonic --out study33
  causalcal study --preset table33 --relations causal --out study33
"""

from __future__ import annotations

import argparse

from causalcal.cli import (
    CLIError,
    add_calibrator_arguments,
    add_features_argument,
    add_selection_argument,
    check_calibrator,
    check_output_dir,
    feature_groups,
    parse_params,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    grid = parser.add_argument_group("the study grid")
    grid.add_argument("--preset", required=True, choices=("table33", "table34", "quick"),
                      help="the study grid: table33, table34 or quick (docs/cli/study.md)")
    grid.add_argument("--out", required=True, help="output directory (created; resumable)")
    grid.add_argument("--repeats", type=int, help="repeats R per cell (preset: 10)")
    grid.add_argument("--n-boot", type=int, help="bootstrap replicates (preset: 200)")
    grid.add_argument("--samples", type=int, help="samples n per data set (preset: 1000)")
    grid.add_argument("--nodes", type=int, help="override V of the preset")
    grid.add_argument("--edges", type=int, nargs="+", help="override the preset's E values")
    grid.add_argument("--sizes", type=int, nargs="+",
                      help="override the calibration set sizes N (multiples of 4; "
                           "causal: at least 3)")
    cal = parser.add_argument_group("the calibration")
    add_calibrator_arguments(cal)
    add_selection_argument(cal)
    add_features_argument(cal, "the cached bootstrap (results go to "
                               "results/<calibrator>_features[-<groups>]/)")
    cal.add_argument("--relations", choices=("edges", "causal"), default="edges",
                     help="what is calibrated: 'edges', the four CPDAG edge types "
                          "(default, thesis Table 33), or 'causal', the three classes "
                          "neither / A causes B / B causes A, true when A is an ancestor "
                          "of B in the true DAG (docs/cli/study.md)")
    run = parser.add_argument_group("running it")
    run.add_argument("--jobs", type=int, default=1, help="parallel bootstrap workers")
    run.add_argument("--seed", type=int, default=0, help="study seed (default 0)")
    run.add_argument("--no-plots", action="store_true", help="skip reliability diagrams")
    run.add_argument("--quiet", action="store_true", help="no progress bars")


def check_study_folder(out: str, force: bool) -> None:
    """A study writes into its own folder: one holding other files but no study.json (or
    a study.json that is not a study's settings) is refused unless --force."""
    import json
    from pathlib import Path

    folder = Path(out)
    marker = folder / "study.json"
    if not folder.is_dir():
        return
    if marker.is_file():
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            doc = None
        if isinstance(doc, dict) and {"seed", "n_boot", "search"} <= set(doc):
            return
        what = "a study.json that holds no study's settings"
    elif any(folder.iterdir()):
        others = ", ".join(sorted(p.name for p in folder.iterdir())[:3])
        what = f"other files ({others}) and no study.json"
    else:
        return
    if not force:
        raise CLIError(f"--out {out}: the folder holds {what}; not a study's folder: choose "
                       "a new or empty folder, or pass --force to write the study into it")


def run(args: argparse.Namespace) -> int:
    from causalcal.evaluate import PRESETS, preset, run_study

    check_output_dir(args.out, "--out")
    check_study_folder(args.out, args.force)
    if args.seed < 0:
        raise CLIError(f"--seed must be non-negative, got {args.seed}")
    base = PRESETS[args.preset]
    grid = base["grid"]
    if args.nodes is not None or args.edges is not None:
        v = args.nodes if args.nodes is not None else grid[0][0]
        edges = tuple(args.edges) if args.edges is not None else grid[0][1]
        grid = ((v, edges),)
    config = preset(
        args.preset, grid=grid, sizes=tuple(args.sizes) if args.sizes else None,
        repeats=args.repeats, n_boot=args.n_boot, n_samples=args.samples,
        calibrator=args.calibrator, calibrator_params=parse_params(args.param),
        selection=args.selection, n_jobs=args.jobs, seed=args.seed, plots=not args.no_plots,
        features=feature_groups(args.features), relations=args.relations,
    )
    check_calibrator(config.calibrator, config.calibrator_params)
    result = run_study(config, args.out, progress=not args.quiet)
    print(result.table)
    n_ok = sum(r.get("status") == "ok" for r in result.runs)
    skipped = len(result.runs) - n_ok
    print(f"{n_ok} runs" + (f" ({skipped} skipped: a class had too few pairs)" if skipped
                            else "") + f"; this invocation: {result.seconds:.1f} s, "
          f"{result.counts['runs_new']} runs and {result.counts['bootstraps_new']} bootstraps "
          f"computed, {result.counts['runs_resumed']} runs resumed from {args.out} "
          "(timing.jsonl sums all invocations)")
    print(f"results: {result.results_dir}")
    for key in ("table", "summary_csv", "runs_csv"):
        print(f"  {key}: {result.files[key]}")
    plots = [p for k, p in result.files.items() if k.startswith("plot_")]
    if plots:
        print(f"  reliability diagrams: {len(plots)} in {plots[0].parent}")
    return 0
