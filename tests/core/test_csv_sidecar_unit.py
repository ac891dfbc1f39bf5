"""A probabilities CSV and its JSON sidecar are one unit: a write that fails at any step
leaves the previous pair, which reads with the previous values (docs/design.md §3)."""

from __future__ import annotations

import errno
import os
import warnings
from contextlib import contextmanager
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal.edges import EdgeProbabilities, pair_from_index


def random_probabilities(seed: int) -> EdgeProbabilities:
    """Bootstrap frequencies (multiples of 1/n_boot) over 3–6 variables."""
    rng = np.random.default_rng(seed)
    n_vars, n_boot = int(rng.integers(3, 7)), int(rng.choice([3, 7, 10, 11]))
    keys = np.flatnonzero(rng.random(n_vars * (n_vars - 1) // 2) < 0.7)
    counts = rng.multinomial(n_boot, np.ones(4) / 4, size=len(keys))
    i, j = pair_from_index(keys, n_vars)
    names = [f"v{k}{'é' * (seed % 2)}" for k in range(n_vars)]
    return EdgeProbabilities(names, np.column_stack([i, j]), counts / n_boot, n_boot=n_boot)


@contextmanager
def failing_step(step: int):
    """The ``step``-th call of ``os.fsync`` or ``os.replace`` (a write or a rename of the
    CSV or the sidecar) fails as a full disk would; ``step < 0``: none fails."""
    calls = {"n": 0}
    real = {"fsync": os.fsync, "replace": os.replace}

    def hook(name):
        def call(*args):
            calls["n"] += 1
            if calls["n"] == step:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real[name](*args)
        return call

    with mock.patch.object(os, "fsync", hook("fsync")), \
            mock.patch.object(os, "replace", hook("replace")):
        yield


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(-1, 9)), min_size=1,
                max_size=6))
def test_a_write_failing_at_any_step_keeps_the_previous_pair(tmp_path_factory, writes):
    path = tmp_path_factory.mktemp("unit") / "p.csv"
    current = None
    for seed, step in writes:
        new = random_probabilities(seed)
        try:
            with failing_step(step):
                new.save(path)
        except OSError:
            pass  # the previous pair must still be there
        else:
            current = new
        if current is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no stale-sidecar warning either
            assert EdgeProbabilities.load(path) == current
