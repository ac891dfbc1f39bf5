"""Reduced-cost check of the random-network generator against thesis Table 31 (§6.2.4).

The full check (10 networks per row, also V = 5000) is ``benchmarks/table31.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.simulate import random_network

# (V, E): mean directed / undirected CPDAG edges over 10 networks, thesis Table 31.
TABLE31_V1000 = {
    (1000, 1000): (746.6, 253.4),
    (1000, 2000): (1833.1, 166.9),
    (1000, 3000): (2886.5, 113.5),
}


def mean_counts(v: int, e: int, n_networks: int, **kwargs) -> tuple[float, float]:
    d, u = [], []
    for seq in np.random.SeedSequence([0, v, e]).spawn(n_networks):
        cp = random_network(v, e, arities=2, seed=seq, **kwargs).cpdag()
        d.append(cp.n_directed)
        u.append(cp.n_undirected)
    return float(np.mean(d)), float(np.mean(u))


@pytest.mark.parametrize("v, e", list(TABLE31_V1000))
def test_cpdag_edge_counts_match_table31(v, e):
    t_dir, t_und = TABLE31_V1000[(v, e)]
    d, u = mean_counts(v, e, n_networks=4)
    assert d + u == e
    assert abs(d / t_dir - 1) <= 0.05, (d, t_dir)
    assert abs(u / t_und - 1) <= 0.15, (u, t_und)  # looser than 12 %: 4 networks, not 10


def test_table31_check_rejects_another_convention():
    """The check has teeth: in-degree ≤ 3 at E = 2V (and ≤ 1, forests) fail it."""
    d, u = mean_counts(1000, 900, n_networks=2, max_in_degree=1)
    assert u == 900  # forests have no v-structures: every edge undirected
    d, u = mean_counts(1000, 2000, n_networks=2, max_in_degree=3)
    assert abs(u / 166.9 - 1) > 0.15  # ~126 undirected edges
