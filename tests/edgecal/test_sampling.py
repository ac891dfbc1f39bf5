"""The thesis's stratified calibration set (:mod:`causalcal.edgecal.sampling`; docs/design.md
§9.1): equal draws per probability bin and class, short bins taken whole, max-min fair
allocation, too small a class named; the suggested pairs' proportional allocation
(§9.12)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal.calibration.selection import probability_bins
from causalcal.edgecal import ClassTooSmallError, allocate_draws, stratified_calibration_set
from causalcal.edgecal.sampling import proportional_draws
from causalcal.edges import EdgeProbabilities

BIN_MID = np.array([0.1, 0.3, 0.5, 0.7, 0.9])


def _constructed(bin_sizes: dict[int, list[int]], seed: int = 0):
    """Pairs of each class with its own-class probability in chosen bins (shuffled)."""
    rng = np.random.default_rng(seed)
    probs, truth = [], []
    for cls, sizes in bin_sizes.items():
        for b, size in enumerate(sizes):
            p = np.full((size, 4), 0.0)
            p[:, cls] = BIN_MID[b] + rng.uniform(-0.09, 0.09, size)
            other = (cls + 1) % 4
            p[:, other] = 1 - p[:, cls]
            probs.append(p)
            truth.append(np.full(size, cls, dtype=np.int8))
    probs, truth = np.vstack(probs), np.concatenate(truth)
    order = rng.permutation(len(truth))
    return probs[order], truth[order]


def test_probability_bins_edges():
    p = np.array([0.0, 0.1999, 0.2, 120 / 200, 0.6 - 1e-12, 0.79, 0.8, 1.0, 160 / 200])
    assert probability_bins(p).tolist() == [0, 0, 1, 3, 3, 3, 4, 4, 4]
    assert probability_bins(np.float32([0.4, 0.6]))[0] == 2


def test_sampler_equal_draws_per_bin_and_class():
    sizes = {0: [50, 40, 30, 60, 500], 1: [20, 20, 20, 20, 20], 2: [8, 9, 10, 11, 12],
             3: [30, 5, 30, 7, 30]}
    probs, truth = _constructed(sizes)
    cal, test, _ = stratified_calibration_set(probs, truth, 80, seed=1)
    assert len(cal) == 80 and len(np.unique(cal)) == 80
    assert test.sum() == len(truth) - 80 and not test[cal].any()
    for cls in range(4):
        mine = cal[truth[cal] == cls]
        assert len(mine) == 20
        bins = np.bincount(probability_bins(probs[mine, cls]), minlength=5)
        assert bins.tolist() == [4, 4, 4, 4, 4]
    # deterministic for a seed, different for another
    again = stratified_calibration_set(probs, truth, 80, seed=1).indices
    other = stratified_calibration_set(probs, truth, 80, seed=2).indices
    assert np.array_equal(cal, again) and not np.array_equal(cal, other)


def test_sampler_short_bins_give_all_and_rest_is_spread():
    # class 3: bins [1, 0, 2, 50, 50]; quota 30 -> 1 and 2 taken whole, 27 over the rest
    sizes = {0: [40] * 5, 1: [40] * 5, 2: [40] * 5, 3: [1, 0, 2, 50, 50]}
    probs, truth = _constructed(sizes)
    for seed in range(5):
        cal = stratified_calibration_set(probs, truth, 120, seed=seed).indices
        mine = cal[truth[cal] == 3]
        bins = np.bincount(probability_bins(probs[mine, 3]), minlength=5)
        assert len(mine) == 30
        assert bins[:3].tolist() == [1, 0, 2]
        assert sorted(bins[3:].tolist()) == [13, 14]


def test_allocate_draws_rules():
    rng = np.random.default_rng(0)
    assert allocate_draws(np.array([10, 10, 10, 10, 10]), 10, rng).tolist() == [2] * 5
    assert allocate_draws(np.array([3, 0, 50, 50, 50]), 20, rng)[:2].tolist() == [3, 0]
    with pytest.raises(ValueError):
        allocate_draws(np.array([1, 1, 1, 1, 1]), 6, rng)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=5, max_size=5), st.integers(0, 60),
       st.integers(0, 2**16))
def test_allocate_draws_is_max_min_fair(available, total, seed):
    available = np.array(available)
    total = min(total, int(available.sum()))
    take = allocate_draws(available, total, np.random.default_rng(seed))
    assert take.sum() == total and np.all(take <= available) and np.all(take >= 0)
    # no bin that still has members is more than one draw behind another bin
    open_bins = take < available
    if open_bins.any():
        assert take.max() - take[open_bins].min() <= 1


def test_proportional_draws_by_hand():
    # 2 from each bin (all of a bin of 1), the other 30 in proportion to the sizes:
    # shares 30·[18, 4, 3, 10, 400]/435 = [1.24, 0.28, 0.21, 0.69, 27.59]: whole parts
    # [1, 0, 0, 0, 27], the 2 left to the largest left-overs (bin 4's 0.69, bin 5's 0.59)
    assert proportional_draws(np.array([18, 4, 3, 10, 400]), 40).tolist() == [3, 2, 2, 3, 30]
    assert proportional_draws(np.array([1, 0, 50, 50, 100]), 11).tolist() == [1, 0, 3, 3, 4]
    # too few draws for 2 from each non-empty bin: 1 from each
    assert proportional_draws(np.array([10, 10, 10, 10, 10]), 6).tolist() == [2, 1, 1, 1, 1]
    with pytest.raises(ValueError):
        proportional_draws(np.array([1, 1, 1, 1, 1]), 6)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 400), min_size=5, max_size=5), st.integers(1, 60))
def test_proportional_draws_properties(available, total):
    available = np.array(available)
    total = min(total, int(available.sum()))
    if total == 0:
        return
    take = proportional_draws(available, total)
    assert take.sum() == total and np.all(take <= available) and np.all(take >= 0)
    minimum = min(2, total // np.count_nonzero(available))
    assert np.all(take >= np.minimum(available, minimum))
    # within one draw of its share, unless a bin is full (its surplus goes to the others)
    base = np.minimum(available, minimum)
    share = base + (total - base.sum()) * available / available.sum()
    if np.all(take < available):
        assert np.all(np.abs(take - share) < 1)


def test_sampler_too_small_class_names_counts():
    probs, truth = _constructed({0: [40] * 5, 1: [40] * 5, 2: [40] * 5, 3: [2, 2, 2, 2, 1]})
    with pytest.raises(ClassTooSmallError, match=r"UNDIRECTED.*UNDIRECTED: 9"):
        stratified_calibration_set(probs, truth, 40, seed=0)
    with pytest.raises(ValueError, match="multiple of 4"):
        stratified_calibration_set(probs, truth, 30, seed=0)


def test_sampler_accepts_edge_probabilities():
    rng = np.random.default_rng(3)
    v = 40
    truth = np.zeros(v * (v - 1) // 2, dtype=np.int8)
    truth[rng.choice(len(truth), 90, replace=False)] = np.repeat([1, 2, 3], 30)
    # stored rows: every true edge plus some no-edge pairs with mass elsewhere
    keys = np.concatenate([np.flatnonzero(truth), np.flatnonzero(truth == 0)[:50]])
    counts = rng.multinomial(20, [0.4, 0.2, 0.2, 0.2], size=len(keys))
    from causalcal.edges import pair_from_index

    i, j = pair_from_index(keys, v)
    ep = EdgeProbabilities.from_counts([f"X{k}" for k in range(v)],
                                       np.column_stack([i, j]), counts, 20)
    a, ta, da = stratified_calibration_set(ep, truth, 40, seed=5)
    b, tb, db = stratified_calibration_set(ep.dense(), truth, 40, seed=5)
    assert np.array_equal(a, b) and np.array_equal(ta, tb)
    np.testing.assert_array_equal(da.rates, db.rates)
