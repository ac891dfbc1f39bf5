"""Per-type MCE of the ``discover_known`` harness's draws where a map is written.

    python -m experiments.discover_known_mce win95pts:2000:random20 andes:2000:random20 …

(from the repository root). For each ``NETWORK:N:SCHEME`` the ten draws of the harness
(``python -m studies.discover_known``) are calibrated again
with ``discover``'s defaults (cached bootstraps, no simulations); over the draws where a
map is written (not the bootstrap itself) it prints the mean overall MCE (four stacked
columns) and the MCE of each edge type (``causalcal.evaluate.edge_type_metrics``, bins of
100), raw → calibrated: whether a rise of the overall MCE comes from P(adjacent) itself
or from re-binning the stacked columns (docs/results.md, "Why the overall-MCE line still
fails").
"""

from __future__ import annotations

import sys

import numpy as np

from causalcal.evaluate import edge_type_metrics
from studies.discover_known import cases as cases_mod
from studies.discover_known import draws as draws_mod
from studies.discover_known.cli import RESULTS

CACHE = RESULTS / "cache"
KEYS = ("overall_mce", "none_mce", "directed_mce", "undirected_mce")


def setting_mce(network: str, n: int, scheme: str, draws: int = 10) -> tuple[int, dict]:
    """Draws written and the mean raw and calibrated MCEs (``KEYS``) over them."""
    case = cases_mod.simulated_case(network, n)
    probs, _ = cases_mod.cached_bootstrap(case, 200, CACHE)
    p_adjacent = 1.0 - probs.dense(np.float64)[:, 0]
    values: dict[str, list] = {"raw": [], "cal": []}
    for draw in range(draws):
        seed = cases_mod.stable_seed(case.name, scheme, draw)
        known = draws_mod.draw_known(case, scheme, p_adjacent, np.random.default_rng(seed))
        edges, diagnostics = draws_mod.calibrate_draw(case.data, known, probs, seed)
        if (diagnostics.get("map") or {}).get("chosen") == "identity":
            continue
        keys = draws_mod.heldout_frame(edges, case.names, draws_mod.known_keys(known, case.names))
        y = case.truth[keys].astype(np.int64)
        for side, columns in (("raw", draws_mod.BOOT_COLUMNS),
                              ("cal", list(draws_mod.PROBABILITY_COLUMNS))):
            m = edge_type_metrics(edges[columns].to_numpy(np.float64), y, bin_size=100)
            values[side].append([m[k] for k in KEYS])
    means = {side: np.mean(v, axis=0) if v else None for side, v in values.items()}
    return len(values["raw"]), means


def main(argv: list[str] | None = None) -> None:
    for spec in argv if argv is not None else sys.argv[1:]:
        network, n, scheme = spec.split(":")
        written, means = setting_mce(network, int(n), scheme)
        if not written:
            print(f"{network}-n{n} {scheme}: no map written")
            continue
        cells = "  ".join(f"{k} {a:.3f} -> {b:.3f}"
                          for k, a, b in zip(KEYS, means["raw"], means["cal"]))
        print(f"{network}-n{n} {scheme} written {written}/10: {cells}", flush=True)


if __name__ == "__main__":
    main()
