"""The experimental conditions of the Sachs et al. (2005) data: a ``condition`` column for
the pooled file, and a change-point scan that checks where the files were stacked
(issue 40 item 4; docs/results.md "Sachs with context").

``cyto_full_data.csv`` holds 7,466 rows without a condition column. They are taken to be
the nine condition files of Sachs et al.'s supplement stacked in order (file 1 first):
their sizes add up to 7,466, and :func:`change_points` on the log-scaled columns finds
the breaks there (docs/results.md). Write the labelled copy with

    python -m studies.discover_known.sachs_conditions sachs_conditions.csv

and search it with ``--context condition`` (Mooij, Magliacane & Claassen 2020).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal._io import atomic_write
from causalcal.errors import InputError

from .cases import SACHS_DATA, SACHS_DIR


@dataclass(frozen=True)
class Condition:
    """One condition file of Sachs et al. (2005): its name in the supplement, its rows, the
    reagents the cells got, and the measured proteins the added reagent acts on (its
    intervention targets as the paper lists them; empty for a general stimulus)."""

    name: str
    rows: int
    treatment: str
    targets: tuple[str, ...] = ()


#: The nine files in the order they are stacked (supplement files 1–9). CD3/CD28 and
#: ICAM-2 stimulate the T-cell receptor pathway as a whole; the other reagents act on one
#: molecule (Sachs et al. 2005, Table 1): U0126 inhibits MEK's activity (measured: pmek),
#: LY294002 inhibits PI3K (not measured; its product PIP3), PMA activates PKC, β2cAMP PKA.
SACHS_CONDITIONS = (
    Condition("cd3cd28", 853, "anti-CD3/CD28"),
    Condition("cd3cd28icam2", 902, "anti-CD3/CD28 + ICAM-2"),
    Condition("cd3cd28+aktinhib", 911, "anti-CD3/CD28 + AKT inhibitor", ("pakts473",)),
    Condition("cd3cd28+g0076", 723, "anti-CD3/CD28 + G06976 (PKC inhibitor)", ("PKC",)),
    Condition("cd3cd28+psitect", 810, "anti-CD3/CD28 + psitectorigenin (PIP2 inhibitor)",
              ("PIP2",)),
    Condition("cd3cd28+u0126", 799, "anti-CD3/CD28 + U0126 (MEK inhibitor)", ("pmek",)),
    Condition("cd3cd28+ly", 848, "anti-CD3/CD28 + LY294002 (PI3K inhibitor)", ("PIP3",)),
    Condition("pma", 913, "PMA (PKC activator)", ("PKC",)),
    Condition("b2camp", 707, "β2cAMP (PKA activator)", ("PKA",)),
)


def boundaries(sizes: tuple[int, ...]) -> np.ndarray:
    """The row where each condition after the first starts."""
    return np.cumsum(sizes)[:-1]


def label_conditions(frame: pd.DataFrame, sizes: tuple[int, ...],
                     column: str = "condition") -> pd.DataFrame:
    """``frame`` with a ``column`` numbering the stacked blocks of ``sizes`` rows (0, 1, …)
    in order; the sizes must add up to the rows."""
    if column in frame.columns:
        raise InputError(f"the data already has a column {column!r}")
    if any(int(s) < 1 for s in sizes):
        raise InputError(f"condition sizes must be positive, got {list(sizes)}")
    if sum(sizes) != len(frame):
        raise InputError(f"condition sizes add up to {sum(sizes)} rows, the data has "
                         f"{len(frame)}")
    return frame.assign(**{column: np.repeat(np.arange(len(sizes)), sizes)})


def change_points(frame: pd.DataFrame, n_segments: int) -> np.ndarray:
    """The ``n_segments − 1`` breaks (first row of each later segment) that best split the
    rows into contiguous segments of constant mean: the exact least-squares partition
    (dynamic programming; Jackson et al. 2005's optimal partitioning with a fixed number
    of segments) of the columns on log scale, each standardised."""
    x = np.log(np.clip(frame.to_numpy(np.float64), 1e-3, None))
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    n = len(x)
    s1 = np.vstack([np.zeros(x.shape[1]), np.cumsum(x, axis=0)])
    s2 = np.concatenate([[0.0], np.cumsum((x * x).sum(axis=1))])
    best = np.full(n + 1, np.inf)  # cost of the rows [0, j) in k segments
    best[1:] = [s2[j] - (s1[j] ** 2).sum() / j for j in range(1, n + 1)]
    back = np.zeros((n_segments, n + 1), dtype=np.int64)
    for k in range(1, n_segments):
        new = np.full(n + 1, np.inf)
        for j in range(k + 1, n + 1):
            i = np.arange(k, j)
            cost = s2[j] - s2[i] - ((s1[j] - s1[i]) ** 2).sum(axis=1) / (j - i)
            total = best[i] + cost
            m = int(np.argmin(total))
            new[j], back[k, j] = total[m], i[m]
        best = new
    breaks, j = [], n
    for k in range(n_segments - 1, 0, -1):
        j = int(back[k, j])
        breaks.append(j)
    return np.array(breaks[::-1], dtype=np.int64)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.discover_known.sachs_conditions",
        description="Write the Sachs data with a condition column (0-8: the nine files of "
                    "Sachs et al. 2005 in order) and report the change-point scan.")
    parser.add_argument("out", help="output CSV (never the input)")
    parser.add_argument("--data", default=str(SACHS_DIR / SACHS_DATA),
                        help="the stacked file (default: the shipped cyto_full_data.csv)")
    parser.add_argument("--scan", action="store_true",
                        help="also print the best 9-segment change points (about a minute)")
    args = parser.parse_args(argv)
    if Path(args.out).resolve() == Path(args.data).resolve():
        parser.error("OUT must not be the input file")
    frame = pd.read_csv(args.data)
    sizes = tuple(c.rows for c in SACHS_CONDITIONS)
    labelled = label_conditions(frame, sizes)
    with atomic_write(args.out, newline="") as handle:
        labelled.to_csv(handle, index=False)
    print(f"wrote {len(labelled)} rows with a condition column (0-8) to {args.out}")
    if args.scan:
        found = change_points(frame, len(sizes))
        print("expected boundaries:", boundaries(sizes).tolist())
        print("change points found:", found.tolist())
        print("offsets:", (found - boundaries(sizes)).tolist())
    return 0


if __name__ == "__main__":
    sys.exit(main())
