"""The report page of a V = 1000 run: what it weighs and how fast it opens in a headless
Chromium (issue 51: at most 5 MB, open within 3 s).

    python -m benchmarks.report_page [--folder DIR] [--loads 5]

Simulates V = 1000, E = 2000, n = 1000, bootstraps two replicates, runs ``causalcal
discover … --report run.html`` (80 known pairs, the fast ``temperature`` calibrator: the
page, not the fit, is measured) and opens the page ``--loads`` times in a fresh Chromium,
printing the file's size and each load's time (the browser's own navigation timing, to
the end of the load event, by which the page's script has filled the table) against the
targets. Needs ``chromium``, ``chromium-driver`` and selenium (benchmarks/chromium.py).
The browser tests (tests/report/test_report_browser.py) build the same run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

#: The targets of issue 51.
MAX_MB, MAX_SECONDS = 5.0, 3.0
_SYMBOLS = np.array(["none", "->", "<-", "--"])


def write_large_run(root: Path) -> Path:
    """V = 1000, E = 2000, n = 1000; two replicates; 40 known arcs (the 20 the bootstrap
    finds most often and 20 others) and 40 known non-adjacent pairs; ``discover
    --report``. Returns the page's path (``edges.csv`` and its JSON beside it)."""
    from causalcal.bootstrap import bootstrap_edge_probabilities
    from causalcal.cli import main
    from causalcal.data import DiscreteData
    from causalcal.edges import pair_from_index
    from causalcal.simulate import random_network

    net = random_network(1000, 2000, seed=0)
    net.sample(1000, seed=1).to_csv(root / "data.csv")
    # the data as discover reads them: the probabilities record their fingerprint
    data = DiscreteData.from_csv(root / "data.csv")
    probs = bootstrap_edge_probabilities(data, n_boot=2, n_jobs=2, seed=0, progress=False)
    probs.save(root / "probs.npz")
    truth = net.truth_dense()
    arcs = np.flatnonzero(truth > 0)
    found = arcs[np.argsort(probs.dense(np.float64)[arcs, 0], kind="stable")]
    rng = np.random.default_rng(0)
    keys = np.concatenate([found[:20], rng.choice(found[20:], 20, replace=False),
                           rng.choice(np.flatnonzero(truth == 0), 40, replace=False)])
    i, j = pair_from_index(keys, len(data.names))
    names = np.asarray(data.names)
    pd.DataFrame({"a": names[i], "b": names[j], "relation": _SYMBOLS[truth[keys]]}).to_csv(
        root / "known.csv", index=False)
    code = main(["discover", str(root / "data.csv"), "--known", str(root / "known.csv"),
                 "--probabilities", str(root / "probs.npz"), "--calibrator", "temperature",
                 "--quiet", "--out", str(root / "edges.csv"),
                 "--report", str(root / "run.html")])
    if code != 0:
        raise SystemExit(f"discover failed (exit {code})")
    return root / "run.html"


def open_seconds(page: Path, loads: int) -> list[float]:
    """Each load's seconds to the end of its load event, in one fresh browser."""
    from benchmarks.chromium import missing, start_chromium

    reason = missing()
    if reason is not None:
        raise SystemExit(f"needs Chromium: {reason}")
    driver = start_chromium()
    try:
        out = []
        for _ in range(loads):
            driver.get("about:blank")
            driver.get(page.as_uri())
            ms = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "return n.loadEventEnd - n.startTime")
            rows = driver.execute_script(
                "return document.querySelectorAll('#pairs-table tbody tr').length")
            if not rows:
                raise SystemExit("the page's table has no rows")
            out.append(ms / 1000)
        return out
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", help="where to write the run (default: a temporary "
                                         "folder)")
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    root = Path(args.folder or tempfile.mkdtemp(prefix="report-page-"))
    root.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    page = write_large_run(root)
    print(f"the V = 1000 run and its page: {time.perf_counter() - start:.0f} s ({page})")
    mb = page.stat().st_size / 1e6
    seconds = open_seconds(page, args.loads)
    print(f"page weight: {mb:.2f} MB (target <= {MAX_MB:g} MB: {mb / MAX_MB:.2f} of it)")
    print("open times: " + ", ".join(f"{s:.2f}" for s in seconds) + " s; median "
          f"{statistics.median(seconds):.2f} s (target <= {MAX_SECONDS:g} s: "
          f"{statistics.median(seconds) / MAX_SECONDS:.2f} of it)")


if __name__ == "__main__":
    main()
