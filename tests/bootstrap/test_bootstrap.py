"""Bootstrapped edge-type probabilities: counting, determinism, parallelism, checkpoints, CLI.

The searches here are TEST DOUBLES (small deterministic functions with the search
signature), so the bootstrap machinery is tested independently of FGES; the real
search is exercised in tests/test_bootstrap_fges.py.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from causalcal.bootstrap import (
    CheckpointMismatchError,
    EdgeTypeCounter,
    bootstrap_edge_probabilities,
    bootstrap_weights,
    edge_probabilities_from_graphs,
)
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities, EdgeType, dense_labels, n_pairs
from causalcal.errors import InputError
from causalcal.graph import PDAG

TESTS = Path(__file__).resolve().parent
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "OPENBLAS_NUM_THREADS": "1"}


# ------------------------------------------------------------------ test doubles
def weighted_mi(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Weighted plug-in mutual information of two code vectors (nats)."""
    table = np.zeros((x.max() + 1, y.max() + 1))
    np.add.at(table, (x, y), w)
    p = table / table.sum()
    px, py = p.sum(1, keepdims=True), p.sum(0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log(p[nz] / (px @ py)[nz])).sum())


def _wait_at_gate(gate: Path) -> None:
    """Let the first caller through (an exclusive create decides who is first); hold every
    other until ``gate / "open"`` exists."""
    try:
        os.close(os.open(gate / "first", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return
    except FileExistsError:
        pass
    deadline = time.monotonic() + 600
    while not (gate / "open").exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def threshold_search(data: DiscreteData, weights=None, threshold: float = 0.02) -> PDAG:
    """TEST DOUBLE for a structure search: link pairs whose weighted MI exceeds
    ``threshold``; the edge type is fixed by the indices ((i + j) mod 3 → i→j, j→i, i—j).
    With ``$BOOTSTRAP_TEST_GATE`` (a folder) only the first call runs at once; every other
    call waits until the file ``open`` appears in the folder (at most 10 minutes), so a
    run can be killed mid-way at a point the test controls, whatever the machine's load."""
    gate = os.environ.get("BOOTSTRAP_TEST_GATE")
    if gate:
        _wait_at_gate(Path(gate))
    w = np.ones(data.n_samples) if weights is None else np.asarray(weights, float)
    g = PDAG(data.n_vars, data.names)
    codes = data.codes.astype(np.int64)
    for i in range(data.n_vars):
        for j in range(i + 1, data.n_vars):
            if weighted_mi(codes[:, i], codes[:, j], w) > threshold:
                kind = (i + j) % 3
                if kind == 0:
                    g.add_directed(i, j)
                elif kind == 1:
                    g.add_directed(j, i)
                else:
                    g.add_undirected(i, j)
    return g


def failing_search(data, weights=None, **options):
    raise AssertionError("the search must not run: every replicate is in the checkpoint")


def chain_data(n: int = 150, v: int = 7, seed: int = 1) -> DiscreteData:
    """A noisy chain X0 → X1 → … with arities 2–3, so MI varies across replicates."""
    rng = np.random.default_rng(seed)
    codes = np.zeros((n, v), dtype=np.int64)
    ar = [2 + (k % 2) for k in range(v)]
    codes[:, 0] = rng.integers(0, ar[0], n)
    for k in range(1, v):
        keep = rng.random(n) < 0.55
        codes[:, k] = np.where(keep, codes[:, k - 1] % ar[k], rng.integers(0, ar[k], n))
    return DiscreteData(codes, [f"V{k}" for k in range(v)], ar)


@pytest.fixture(scope="module")
def data() -> DiscreteData:
    return chain_data()


def reference_probabilities(data: DiscreteData, n_boot: int, seed: int, **opts) -> np.ndarray:
    """Brute force: dense label vectors of every replicate, counted per pair."""
    total = n_pairs(data.n_vars)
    counts = np.zeros((total, 4))
    for b in range(n_boot):
        rng = np.random.default_rng([seed, b])
        w = rng.multinomial(data.n_samples, [1 / data.n_samples] * data.n_samples)
        g = threshold_search(data, w, **opts)
        labels = dense_labels(*g.pair_labels(), data.n_vars)
        counts[np.arange(total), labels] += 1
    return counts / n_boot


# ----------------------------------------------------------------------- weights
def test_bootstrap_weights_are_a_seeded_multinomial():
    w = bootstrap_weights(50, seed=3, b=7)
    assert w.dtype == np.int64 and w.shape == (50,) and w.sum() == 50 and w.min() >= 0
    ref = np.random.default_rng([3, 7]).multinomial(50, np.full(50, 1 / 50))
    np.testing.assert_array_equal(w, ref)
    np.testing.assert_array_equal(w, bootstrap_weights(50, 3, 7))
    assert not np.array_equal(w, bootstrap_weights(50, 3, 8))
    assert not np.array_equal(w, bootstrap_weights(50, 4, 7))
    # mean multiplicity 1, variance (1 - 1/n) over many replicates
    many = np.stack([bootstrap_weights(40, 0, b) for b in range(400)])
    assert abs(many.mean() - 1) < 1e-12
    assert abs(many.var() - (1 - 1 / 40)) < 0.08
    with pytest.raises(ValueError):
        bootstrap_weights(0, 0, 0)


# ---------------------------------------------------------------------- counting
def test_probabilities_are_counts_over_n_boot(data):
    probs = bootstrap_edge_probabilities(data, n_boot=12, search=threshold_search, seed=5,
                                         progress=False)
    assert isinstance(probs, EdgeProbabilities) and probs.n_boot == 12
    assert probs.names == data.names
    dense = probs.dense(np.float64)
    np.testing.assert_allclose(dense, reference_probabilities(data, 12, 5), atol=1e-12)
    np.testing.assert_allclose(probs.probs.sum(axis=1), 1.0, atol=1e-12)
    # every stored value is a multiple of 1/n_boot and some pairs are uncertain
    np.testing.assert_allclose(probs.probs * 12, np.round(probs.probs * 12), atol=1e-9)
    assert np.any((probs.probs[:, 0] > 0) & (probs.probs[:, 0] < 1))
    # all three non-NONE types occur
    assert np.all(probs.probs[:, 1:].max(axis=0) > 0)


def test_search_options_reach_the_search(data):
    loose = bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search,
                                         progress=False, threshold=0.0)
    assert len(loose) == n_pairs(data.n_vars)  # MI > 0 for every pair
    strict = bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search,
                                          progress=False, threshold=10.0)
    assert len(strict) == 0


def test_counter_and_from_graphs_match_dense_count():
    rng = np.random.default_rng(0)
    v = 9
    graphs = []
    for _ in range(25):
        g = PDAG(v)
        for i in range(v):
            for j in range(i + 1, v):
                r = rng.random()
                if r < 0.15:
                    g.add_directed(i, j)
                elif r < 0.25:
                    g.add_directed(j, i)
                elif r < 0.3:
                    g.add_undirected(i, j)
        graphs.append(g)
    ref = np.zeros((n_pairs(v), 4))
    for g in graphs:
        ref[np.arange(n_pairs(v)), dense_labels(*g.pair_labels(), v)] += 1
    probs = edge_probabilities_from_graphs(graphs)
    np.testing.assert_allclose(probs.dense(np.float64), ref / 25)
    counter = EdgeTypeCounter(v, flush_size=7)  # many small merges
    for g in graphs:
        counter.add_graph(g)
    pairs, counts = counter.pair_counts()
    assert counts.sum() == sum(g.n_edges for g in graphs)
    assert counter.probabilities(probs.names) == probs
    # lookup agrees on orientation: FORWARD of (i, j) is BACKWARD of (j, i)
    i, j = pairs[0]
    np.testing.assert_allclose(probs.lookup([j], [i])[0][[1, 2]], probs.lookup([i], [j])[0][[2, 1]])
    assert EdgeType.FORWARD == 1


# ------------------------------------------------------------------- parallelism
@pytest.mark.slow
def test_identical_for_one_and_two_jobs(data):
    one = bootstrap_edge_probabilities(data, n_boot=10, search=threshold_search, n_jobs=1,
                                       seed=2, progress=False)
    two = bootstrap_edge_probabilities(data, n_boot=10, search=threshold_search, n_jobs=2,
                                       seed=2, progress=False)
    assert one == two
    threads = bootstrap_edge_probabilities(data, n_boot=10, search=threshold_search, n_jobs=2,
                                           seed=2, progress=False, backend="threading")
    assert one == threads
    other_seed = bootstrap_edge_probabilities(data, n_boot=10, search=threshold_search,
                                              seed=3, progress=False)
    assert other_seed != one


def test_bad_arguments(data):
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_edge_probabilities(data, n_boot=0, search=threshold_search)
    with pytest.raises(ValueError, match="seed"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, seed=-1)
    with pytest.raises(ValueError, match="n_jobs"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, n_jobs=0)
    with pytest.raises(ValueError, match="backend"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, backend="mpi")
    with pytest.raises(ValueError, match="scheduler"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, backend="loky",
                                     scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InputError, match="returned None, not a causalcal PDAG"):  # issue 49
        bootstrap_edge_probabilities(data, n_boot=2, search=lambda d, w: None, progress=False)
    with pytest.raises(TypeError, match="search"):
        bootstrap_edge_probabilities(data, n_boot=2, search=3)


def test_progress_bar_reports_done_over_total(data, capsys):
    bootstrap_edge_probabilities(data, n_boot=3, search=threshold_search, progress=True)
    err = capsys.readouterr().err
    assert "3/3" in err and "rep" in err


# ------------------------------------------------------------------- checkpoints
def test_checkpoint_resume_skips_finished_replicates(data, tmp_path):
    ckpt = tmp_path / "ck"
    full = bootstrap_edge_probabilities(data, n_boot=6, search=threshold_search, seed=4,
                                        checkpoint=ckpt, progress=False)
    assert full == bootstrap_edge_probabilities(data, n_boot=6, search=threshold_search,
                                                seed=4, progress=False)
    files = sorted(p.name for p in ckpt.iterdir())
    assert files == [".lock", "manifest.json"] + [f"rep-{b:06d}.npz" for b in range(6)]
    manifest = json.loads((ckpt / "manifest.json").read_text())
    assert manifest["n_boot"] == 6 and manifest["seed"] == 4
    assert manifest["search"].endswith("test_bootstrap:threshold_search")
    # A rerun reads everything back; the search is never called (same identity required,
    # so alias the failing double under the original's name).
    failing_search.__qualname__ = threshold_search.__qualname__
    failing_search.__module__ = threshold_search.__module__
    again = bootstrap_edge_probabilities(data, n_boot=6, search=failing_search, seed=4,
                                         checkpoint=ckpt, progress=False)
    assert again == full
    # Fewer replicates reuse a prefix; stale temp files are cleaned up.
    (ckpt / ".tmp-rep-000099.npz.abc").write_bytes(b"partial")
    fewer = bootstrap_edge_probabilities(data, n_boot=4, search=failing_search, seed=4,
                                         checkpoint=ckpt, progress=False)
    assert fewer == bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search,
                                                 seed=4, progress=False)
    assert not any(p.name.startswith(".tmp-") for p in ckpt.iterdir())


def test_checkpoint_extends_to_more_replicates(data, tmp_path):
    calls = []

    def counting_search(d, w=None, **kw):
        calls.append(1)
        return threshold_search(d, w, **kw)

    ckpt = tmp_path / "ck"
    bootstrap_edge_probabilities(data, n_boot=3, search=counting_search, checkpoint=ckpt,
                                 progress=False)
    more = bootstrap_edge_probabilities(data, n_boot=7, search=counting_search,
                                        checkpoint=ckpt, progress=False)
    assert len(calls) == 7  # 3 + 4 new, none repeated
    assert more == bootstrap_edge_probabilities(data, n_boot=7, search=threshold_search,
                                                progress=False)
    assert json.loads((ckpt / "manifest.json").read_text())["n_boot"] == 7


def test_damaged_replicate_file_is_recomputed(data, tmp_path):
    ckpt = tmp_path / "ck"
    full = bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search,
                                        checkpoint=ckpt, progress=False)
    (ckpt / "rep-000002.npz").write_bytes(b"not a zip file")
    with pytest.warns(UserWarning, match="damaged"):
        again = bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search,
                                             checkpoint=ckpt, progress=False)
    assert again == full
    assert (ckpt / "rep-000002.npz").stat().st_size > 100


def test_a_replicate_of_another_run_is_recomputed(data, tmp_path):
    """Issue 42 item 1: a replicate file copied from another run's checkpoint (another
    seed, so different multiplicities) is recomputed with a warning, never counted."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    full = bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search, seed=1,
                                        checkpoint=ours, progress=False)
    bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search, seed=2,
                                 checkpoint=theirs, progress=False)
    for b in (0, 3):
        shutil.copyfile(theirs / f"rep-{b:06d}.npz", ours / f"rep-{b:06d}.npz")
    with pytest.warns(UserWarning, match="was not made by this run") as record:
        again = bootstrap_edge_probabilities(data, n_boot=4, search=threshold_search, seed=1,
                                             checkpoint=ours, progress=False)
    assert again == full
    said = " ".join(str(w.message) for w in record)
    assert "rep-000000.npz" in said and "rep-000003.npz" in said
    with warnings.catch_warnings():  # the recomputed replicates carry this run's identity
        warnings.simplefilter("error")
        assert bootstrap_edge_probabilities(data, n_boot=4, search=failing_search_named(),
                                            seed=1, checkpoint=ours, progress=False) == full


def failing_search_named():
    """:func:`failing_search` under :func:`threshold_search`'s name (a checkpoint's runs
    are identified by the search's name): the search must not run at all."""
    def threshold_search(data, weights=None, **options):
        raise AssertionError("the search must not run: every replicate is in the checkpoint")

    threshold_search.__module__ = globals()["threshold_search"].__module__
    threshold_search.__qualname__ = "threshold_search"
    return threshold_search


def test_a_checkpoint_of_unstamped_replicates_is_reused(data, tmp_path):
    """A checkpoint written before replicates carried the run's digest is reused (its
    manifest vouches for them, as before) and its replicates are stamped on opening."""
    ckpt = tmp_path / "ck"
    full = bootstrap_edge_probabilities(data, n_boot=3, search=threshold_search, seed=5,
                                        checkpoint=ckpt, progress=False)
    manifest = json.loads((ckpt / "manifest.json").read_text())
    del manifest["replicate_identity"]
    (ckpt / "manifest.json").write_text(json.dumps(manifest))
    for b in range(3):
        with np.load(ckpt / f"rep-{b:06d}.npz") as z:
            old = {k: z[k] for k in z.files if k != "run"}
        np.savez(ckpt / f"rep-{b:06d}.npz", **old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = bootstrap_edge_probabilities(data, n_boot=3, search=failing_search_named(),
                                             seed=5, checkpoint=ckpt, progress=False)
    assert again == full
    assert "replicate_identity" in json.loads((ckpt / "manifest.json").read_text())
    for b in range(3):
        with np.load(ckpt / f"rep-{b:06d}.npz") as z:
            assert "run" in z.files


def test_mismatched_checkpoint_is_refused(data, tmp_path):
    ckpt = tmp_path / "ck"
    bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, seed=1,
                                 checkpoint=ckpt, progress=False)
    with pytest.raises(CheckpointMismatchError, match=r"seed: checkpoint 1, now 2"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, seed=2,
                                     checkpoint=ckpt, progress=False)
    with pytest.raises(CheckpointMismatchError, match="search options"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, seed=1,
                                     checkpoint=ckpt, progress=False, threshold=0.05)
    other = DiscreteData(data.codes[::-1].copy(), data.names, data.arities)
    with pytest.raises(CheckpointMismatchError, match="data") as info:
        bootstrap_edge_probabilities(other, n_boot=2, search=threshold_search, seed=1,
                                     checkpoint=ckpt, progress=False)
    assert "seed" not in str(info.value) and str(ckpt) in str(info.value)
    with pytest.raises(CheckpointMismatchError, match="search: checkpoint"):
        bootstrap_edge_probabilities(data, n_boot=2, search=weighted_mi_search, seed=1,
                                     checkpoint=ckpt, progress=False)
    # a non-empty folder that is not a checkpoint is refused too
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search,
                                     checkpoint=tmp_path / "junk", progress=False)
    # the refused runs did not touch the checkpoint
    assert sorted(p.name for p in ckpt.glob("rep-*")) == ["rep-000000.npz", "rep-000001.npz"]


def weighted_mi_search(data, weights=None, **options):
    return threshold_search(data, weights, **options)


_RUNNER = """
import signal, sys
# Ctrl-C as a user's terminal delivers it, even where the test runs with SIGINT ignored
# (a job started in the background by a non-interactive shell inherits that)
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, {tests!r})
from test_bootstrap import chain_data, threshold_search
from causalcal.bootstrap import bootstrap_edge_probabilities
bootstrap_edge_probabilities(chain_data(), n_boot={n_boot}, search=threshold_search,
                             seed=9, checkpoint={ckpt!r}, n_jobs={n_jobs}, progress=False)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "n_jobs, sig, target",
    [(1, signal.SIGKILL, "group"), (2, signal.SIGINT, "group"), (2, signal.SIGKILL, "worker")],
)
def test_killed_run_resumes_to_the_uninterrupted_result(data, tmp_path, n_jobs, sig, target,
                                                        session_processes, poll):
    """Kill the runner (and its workers) — or only one loky worker process — once one
    replicate is on disk while every other search is held at a gate (``_wait_at_gate``):
    the kill always lands mid-run, however loaded the machine; resuming must give the
    uninterrupted result. Every wait is on a condition with a generous deadline."""
    ckpt = tmp_path / "ck"
    n_boot = 14
    code = _RUNNER.format(tests=str(TESTS), n_boot=n_boot, ckpt=str(ckpt), n_jobs=n_jobs)
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {**ENV, "BOOTSTRAP_TEST_GATE": str(gate)}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, start_new_session=True)
    try:
        def replicate_on_disk() -> bool:
            assert proc.poll() is None, "runner exited early"
            return bool(list(ckpt.glob("rep-*.npz")))

        assert poll(replicate_on_disk, timeout=300, interval=0.02)
        if target == "group":
            # kill -9 / Ctrl-C the whole process group (runner and loky workers) mid-run
            os.killpg(proc.pid, sig)
        else:
            psutil = pytest.importorskip("psutil")
            workers = [c for c in psutil.Process(proc.pid).children(recursive=True)
                       if "popen_loky" in " ".join(c.cmdline())]
            assert workers, "no loky worker found"
            workers[0].send_signal(sig)  # the runner sees a dead worker and stops
        proc.wait(timeout=300)
        (gate / "open").touch()  # a worker still held at the gate may finish its shutdown
        # the workers finish their shutdown before the resumed run looks at the folder
        assert poll(lambda: not session_processes(proc.pid), timeout=300, interval=0.1)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=300)
    assert proc.returncode != 0
    finished = list(ckpt.glob("rep-*.npz"))
    assert 1 <= len(finished) < n_boot
    resumed = bootstrap_edge_probabilities(data, n_boot=n_boot, search=threshold_search,
                                           seed=9, checkpoint=ckpt, progress=False)
    uninterrupted = bootstrap_edge_probabilities(data, n_boot=n_boot, search=threshold_search,
                                                 seed=9, progress=False)
    assert resumed == uninterrupted
    assert not any(p.name.startswith(".tmp-") for p in ckpt.iterdir())


def test_checkpoint_in_use_is_refused(data, tmp_path):
    from causalcal.bootstrap.checkpoint import Checkpoint

    ckpt = tmp_path / "ck"
    opts = {"threshold": np.float64(0.02)}  # numpy option values are recorded as numbers
    with Checkpoint.open(ckpt, data, n_boot=2, seed=0, search=threshold_search,
                         search_options=opts):
        with pytest.raises(ValueError, match="in use"):
            bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search,
                                         checkpoint=ckpt, progress=False, **opts)
    # released on close: the same options (as a plain float) are accepted
    bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search, checkpoint=ckpt,
                                 progress=False, threshold=0.02)
    manifest = json.loads((ckpt / "manifest.json").read_text())
    assert manifest["search_options"] == {"threshold": 0.02}


def test_missing_dask_names_the_extra(data, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install causalcal\[distributed\]"):
        bootstrap_edge_probabilities(data, n_boot=2, search=threshold_search,
                                     scheduler="tcp://127.0.0.1:8786", progress=False)
