"""Bootstrap on a dask.distributed cluster (loopback LocalCluster) equals the local run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_bootstrap import chain_data, threshold_search  # noqa: E402

from causalcal.bootstrap import bootstrap_edge_probabilities  # noqa: E402


def pid_logging_search(data, weights=None, log_dir="."):
    """TEST DOUBLE: the threshold search, leaving a file named after the running process."""
    Path(log_dir, f"{os.getpid()}.pid").touch()
    return threshold_search(data, weights)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, silence_logs=40,
    ) as cl:
        yield cl


def test_dask_cluster_result_equals_local(cluster, tmp_path):
    data = chain_data()
    local = bootstrap_edge_probabilities(data, n_boot=10, search=threshold_search, seed=6,
                                         progress=False)
    remote = bootstrap_edge_probabilities(
        data, n_boot=10, search=threshold_search, seed=6, progress=False,
        scheduler=cluster.scheduler_address, checkpoint=tmp_path / "ck",
    )
    assert remote == local
    assert len(list((tmp_path / "ck").glob("rep-*.npz"))) == 10
    # the replicates really ran in the cluster's worker processes
    logged = bootstrap_edge_probabilities(
        data, n_boot=10, search=pid_logging_search, seed=6, progress=False,
        scheduler=cluster.scheduler_address, log_dir=str(tmp_path),
    )
    assert logged == local
    pids = {int(p.stem) for p in tmp_path.glob("*.pid")}
    assert pids and os.getpid() not in pids
    # an explicit Client works too and is left open for its owner
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        again = bootstrap_edge_probabilities(data, n_boot=10, search=threshold_search, seed=6,
                                             progress=False, backend="dask", scheduler=client)
        assert again == local
        assert client.status == "running"


def test_missing_scheduler_is_a_clear_error():
    with pytest.raises(ValueError, match="scheduler=ADDRESS"):
        bootstrap_edge_probabilities(chain_data(n=20), n_boot=1, search=threshold_search,
                                     progress=False, backend="dask")


def test_cli_scheduler_option(cluster, tmp_path):
    from causalcal.cli import main
    from causalcal.edges import EdgeProbabilities

    data = chain_data()
    csv, out = tmp_path / "d.csv", tmp_path / "p.npz"
    data.to_csv(csv)
    rc = main(["bootstrap", str(csv), "--n-boot", "4", "--out", str(out), "-q",
               "--search", "test_bootstrap:threshold_search",
               "--scheduler", cluster.scheduler_address])
    assert rc == 0
    from causalcal.data import DiscreteData

    local = bootstrap_edge_probabilities(DiscreteData.from_csv(csv), n_boot=4,
                                         search=threshold_search, progress=False)
    assert EdgeProbabilities.load(out) == local
