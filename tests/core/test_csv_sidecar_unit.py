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


def _as_version_1(path) -> None:
    """Rewrite ``path``'s sidecar as causalcal wrote it before checksums (version 1)."""
    import json

    side = f"{path}.json"
    meta = json.loads(open(side, encoding="utf-8").read())
    old = {k: meta[k] for k in ("format", "file", "n_vars", "n_boot", "frequencies",
                                "columns", "names")}
    with open(side, "w", encoding="utf-8") as handle:
        json.dump({**old, "version": 1}, handle)


def test_a_version_1_sidecar_is_checked_by_the_values(tmp_path):
    """Issue 42 item 2: a version-1 sidecar has no checksum; a CSV whose values are not
    multiples of 1/n_boot any more was edited and is read as written, with a warning,
    never re-quantised (0.25 read as 0.2); an unedited one still reads exactly."""
    import pytest

    probs = EdgeProbabilities(["x", "y", "z"], np.array([[0, 1], [1, 2]]),
                              np.array([[1, 2, 1, 1], [3, 0, 2, 0]]) / 5, n_boot=5)
    path = tmp_path / "p.csv"
    probs.save(path)
    _as_version_1(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EdgeProbabilities.load(path) == probs  # exact multiples of 1/5 again
    lines = path.read_text().splitlines()
    assert lines[1] == "x,y,0.2,0.4,0.2,0.2"
    path.write_text("\n".join([lines[0], "x,y,0.25,0.75,0,0", *lines[2:]]) + "\n")
    with pytest.warns(UserWarning, match="does not belong to"):
        edited = EdgeProbabilities.load(path)
    assert edited.probs[0].tolist() == [0.25, 0.75, 0, 0]  # not 0.2, 0.8: as written
    assert edited.names == ["x", "y", "z"] and edited.probs[1].tolist() == [0.6, 0, 0.4, 0]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_an_unedited_version_1_pair_reads_exactly(tmp_path_factory, seed):
    probs = random_probabilities(seed)
    path = tmp_path_factory.mktemp("v1") / "p.csv"
    probs.save(path)
    _as_version_1(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EdgeProbabilities.load(path) == probs


def test_a_version_1_entry_kept_while_a_csv_is_replaced_is_checked_too(tmp_path):
    """While a save replaces a CSV, the sidecar also describes the CSV in place
    (``previous``); for a version-1 sidecar its frequencies hold only if the values do."""
    from causalcal._edges_io import _current_entry

    path = tmp_path / "p.csv"
    EdgeProbabilities(["x", "y"], np.array([[0, 1]]), np.array([[0.2, 0.4, 0.2, 0.2]]),
                      n_boot=5).save(path)
    _as_version_1(path)
    assert _current_entry(path)["frequencies"] is True
    path.write_text(path.read_text().replace("0.4,0.2,0.2", "0.45,0.15,0.2"))
    assert _current_entry(path)["frequencies"] is False
