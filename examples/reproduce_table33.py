"""Reproduce thesis Table 33: SNN calibration of bootstrapped FGES edge probabilities, V = 1000.

Grid: E ∈ {1000, 2000, 3000} edges, calibration sets of N ∈ {40, 80, 120} pairs, 10 random
networks per E, n = 1000 samples, 200 bootstrap FGES searches each (thesis §6.2.4–6.2.5).
The study is cached and resumable: run this script again after an interruption and it
continues where it stopped. Expect hours on two cores (the bootstraps dominate).

    python examples/reproduce_table33.py                 # full study into ./table33
    python examples/reproduce_table33.py --repeats 2 --out t33-small   # a shorter look
    python examples/reproduce_table33.py --calibrator ovr-isotonic     # same bootstraps

The same study from the command line: ``causalcal study --preset table33 --out table33``.
"""

from __future__ import annotations

import argparse

from causalcal.evaluate import preset, run_study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="table33", help="output directory (default ./table33)")
    parser.add_argument("--repeats", type=int, default=10, help="networks per E (default 10)")
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap searches (200)")
    parser.add_argument("--calibrator", default="snn", help="calibrator name (default snn)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel bootstrap workers (2)")
    parser.add_argument("--seed", type=int, default=0, help="study seed (default 0)")
    args = parser.parse_args()

    config = preset("table33", repeats=args.repeats, n_boot=args.n_boot,
                    calibrator=args.calibrator, n_jobs=args.jobs, seed=args.seed)
    result = run_study(config, args.out)
    print(result.table)
    print(f"study finished in {result.seconds / 60:.1f} min")
    print(f"Markdown table:   {result.files['table']}")
    print(f"per-cell summary: {result.files['summary_csv']}")
    print(f"every run:        {result.files['runs_csv']} and {result.files['runs_json']}")
    print(f"reliability diagrams and cache: {result.results_dir / 'plots'}, "
          f"{result.out / 'cache'}")


if __name__ == "__main__":
    main()
