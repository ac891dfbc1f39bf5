"""The G² test on the BDeu score's counts against causal-learn's ``gsq`` test."""

from __future__ import annotations

import numpy as np
import pytest
from causallearn.utils.cit import CIT

from causalcal.bootstrap.score.discrete import gsquare
from causalcal.bootstrap.score.discrete.bdeu import BDeuScore
from causalcal.bootstrap.score.discrete.gsquare import GSquareTest
from causalcal.errors import InputError
from causalcal.simulate import random_network


def _queries(rng, v, k=150):
    for _ in range(k):
        x, y = rng.choice(v, 2, replace=False).tolist()
        rest = [u for u in range(v) if u not in (x, y)]
        yield x, y, tuple(rng.choice(rest, int(rng.integers(0, 4)), replace=False).tolist())


def test_p_values_match_causallearn():
    data = random_network(8, 10, arities=(2, 3, 4), seed=3).sample(1500, seed=1)
    test = GSquareTest(BDeuScore(data), alpha=0.05)
    reference = CIT(np.asarray(data.codes, dtype=np.int64), "gsq")
    for x, y, s in _queries(np.random.default_rng(0), 8):
        assert test.p_value(x, y, s) == pytest.approx(reference(x, y, list(s)), abs=1e-12)
        assert test(x, y, s) == (reference(x, y, list(s)) > 0.05)


def test_integer_weights_are_row_multiplicities():
    data = random_network(6, 7, arities=(2, 3), seed=4).sample(400, seed=2)
    w = np.random.default_rng(5).poisson(1.0, data.n_samples).astype(float)
    weighted = GSquareTest(BDeuScore(data, w))
    reference = CIT(np.repeat(np.asarray(data.codes, dtype=np.int64), w.astype(int), axis=0),
                    "gsq")
    for x, y, s in _queries(np.random.default_rng(1), 6, 60):
        assert weighted.p_value(x, y, s) == pytest.approx(reference(x, y, list(s)), abs=1e-12)


def test_alpha_is_checked():
    data = random_network(3, 2, seed=0).sample(50, seed=0)
    with pytest.raises(InputError, match="alpha"):
        GSquareTest(BDeuScore(data), alpha=1.5)


@pytest.mark.parametrize("weighted", [False, True])
def test_compiled_cells_equal_numpy_bit_for_bit(weighted):
    """The compiled table (counts, expected counts, degrees of freedom) is numpy's, to
    the last bit: GFCI's results do not depend on numba being present."""
    data = random_network(9, 12, arities=(2, 3, 4), seed=6).sample(700, seed=3)
    w = np.random.default_rng(4).poisson(1.0, data.n_samples) if weighted else None
    score = BDeuScore(data, w)
    w_kernel = gsquare._NO_WEIGHTS if score.weights is None else score.weights
    for x, y, s in _queries(np.random.default_rng(2), 9, 100):
        cfg, size = score._config_index(list(s))
        rx, ry = int(score.arities[x]), int(score.arities[y])
        args = (cfg, score._codes[x], score._codes[y])
        want = gsquare._cells_numpy(*args, score.weights, size, rx, ry)
        got = gsquare._cells_compiled(*args, w_kernel, size, rx, ry)
        assert got[2] == want[2]
        for a, b in zip(got[:2], want[:2]):
            assert a.dtype == np.float64 and b.tobytes() == a.astype(b.dtype).tobytes()
