"""Edge-type measures of a probabilities file against the true relations (thesis §6.2.4).

Prediction = the most probable of the four edge types. Directed precision/recall/F1 use
thesis Table 32 (a wrong direction is a false positive); undirected and no-edge are
one-vs-rest. MCE and ECE use equal-frequency bins of --bin-size (100) instances: no edge
on p_none, undirected on p_undirected, directed on p_forward and p_backward stacked,
overall on all four columns stacked. Brier beside them.

examples:
  causalcal evaluate probs.npz --truth sim/truth.csv
  causalcal evaluate calibrated.npz --truth sim/truth.csv \\
      --exclude calibrated.calibration.csv --before probs.npz --json scores.json \\
      --plot reliability.png

input files:
  PROBS       edge probabilities (.npz or .csv; causalcal bootstrap or calibrate output)
  --truth     CSV a,b,relation with relation ->, <-, -- (or none); unlisted pairs are none
  --exclude   CSV with columns a,b of pairs to leave out (e.g. the calibration pairs)
  --before    a second probabilities file scored on the same pairs, shown side by side
files written (optional):
  --json      the measures as JSON; --plot  reliability diagrams (PNG, needs matplotlib)
"""

from __future__ import annotations

import argparse

from causalcal.errors import InputError

ROWS = (
    ("directed", ("precision", "recall", "f1", "mce", "ece", "brier")),
    ("undirected", ("precision", "recall", "f1", "mce", "ece", "brier")),
    ("none", ("precision", "recall", "f1", "mce", "ece", "brier")),
    ("overall", ("mce", "ece", "brier")),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("probs", help="edge probabilities to score (.npz or .csv)")
    parser.add_argument("--truth", required=True, help="true relations a,b,relation (CSV)")
    parser.add_argument("--exclude", help="pairs a,b to leave out (CSV), e.g. calibration pairs")
    parser.add_argument("--before", help="probabilities to compare with (e.g. the bootstrap's)")
    parser.add_argument("--bin-size", type=int, default=100,
                        help="instances per MCE/ECE bin (default 100)")
    parser.add_argument("--json", help="write the measures to this JSON file")
    parser.add_argument("--plot", help="write reliability diagrams to this PNG file")
    parser.add_argument("--seed", type=int, default=0,
                        help="unused (evaluation is deterministic); accepted for symmetry")


def _load_exclude(path: str, names: list[str]):
    import numpy as np

    from causalcal._io import read_csv_file
    from causalcal.edges import pair_index

    _, frame = read_csv_file(path, dtype=str, keep_default_na=False)
    missing = [c for c in ("a", "b") if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; need a,b")
    index = {n: k for k, n in enumerate(names)}
    unknown = sorted((set(frame["a"]) | set(frame["b"])) - set(index))
    if unknown:
        raise InputError(f"{path}: variables not in the probabilities file: "
                         f"{', '.join(map(repr, unknown[:20]))}")
    blank = np.flatnonzero(frame[["a", "b"]].isna().any(axis=1).to_numpy())
    if len(blank):
        raise InputError(f"{path}: row {blank[0] + 1} lacks a or b")
    a = frame["a"].map(index).to_numpy(np.int64)
    b = frame["b"].map(index).to_numpy(np.int64)
    same = np.flatnonzero(a == b)
    if len(same):
        raise InputError(f"{path}: row {same[0] + 1} pairs a variable with itself")
    return pair_index(np.minimum(a, b), np.maximum(a, b), len(names))


def run(args: argparse.Namespace) -> int:
    import json

    import numpy as np

    from causalcal._io import atomic_write
    from causalcal.cli import check_output_file
    from causalcal.cli._paths import IMAGE, IMAGE_SUFFIXES, MEASURES, MEASURES_FORMAT, FilePlan
    from causalcal.edges import EdgeProbabilities
    from causalcal.evaluate import edge_type_metrics, reliability_bins
    from causalcal.relations_io import truth_from_csv

    if args.bin_size < 1:
        raise InputError(f"--bin-size must be at least 1, got {args.bin_size}")
    plan = FilePlan(args.force)
    for option, path in (("PROBS", args.probs), ("--before", args.before)):
        plan.read(option, path, sidecar=True)
    plan.read("--truth", args.truth)
    plan.read("--exclude", args.exclude)
    plan.write("--json", args.json, MEASURES)
    plan.write("--plot", args.plot, IMAGE)
    plan.check()  # an output onto an input first, naming both; then the suffixes
    if args.json:
        check_output_file(args.json, "--json", (".json",))
    if args.plot:
        check_output_file(args.plot, "--plot", IMAGE_SUFFIXES)
    probs = EdgeProbabilities.load(args.probs)
    truth = truth_from_csv(args.truth, probs.names)
    keep = np.ones(probs.n_pairs, dtype=bool)
    if args.exclude:
        keep[_load_exclude(args.exclude, probs.names)] = False
    scored = {"probs": probs}
    if args.before:
        before = EdgeProbabilities.load(args.before)
        if before.names != probs.names:
            raise InputError(f"{args.before}: other variables than {args.probs}")
        scored = {"before": before, "after": probs}
    results, bins = {}, {}
    for label, p in scored.items():
        dense = p.dense(np.float32)[keep]
        results[label] = edge_type_metrics(dense, truth[keep], bin_size=args.bin_size)
        bins[label] = reliability_bins(dense, truth[keep])
    counts = np.bincount(truth[keep], minlength=4)
    print(f"{int(keep.sum())} pairs scored (true none {counts[0]}, -> {counts[1]}, "
          f"<- {counts[2]}, -- {counts[3]})")
    labels = list(results)
    print(f"{'measure':<22}" + "".join(f"{x:>10}" for x in labels))
    for kind, measures in ROWS:
        for m in measures:
            key = f"{kind}_{m}"
            print(f"{key:<22}" + "".join(f"{results[x][key]:>10.4f}" for x in labels))
    print(f"{'accuracy':<22}" + "".join(f"{results[x]['accuracy']:>10.4f}" for x in labels))
    if args.json:
        with atomic_write(args.json, encoding="utf-8") as handle:
            json.dump({"format": MEASURES_FORMAT, "n_pairs": int(keep.sum()),
                       "bin_size": args.bin_size, **results}, handle, indent=1)
        print(f"measures -> {args.json}")
    if args.plot:
        from causalcal.figures.plots import matplotlib_available, plot_reliability

        if not matplotlib_available():
            print("no plot: matplotlib is not installed (pip install 'causalcal[plot]')")
        else:
            first = bins[labels[0]]
            second = bins[labels[-1]] if len(labels) > 1 else {}
            plot_reliability(first, second, args.plot, title=args.probs,
                             labels=(labels[0], labels[-1]))
            print(f"reliability diagrams -> {args.plot}")
    return 0
