"""Simulation-informed calibration in ``discover``: the simulated pairs, their labels, seeds,
jobs, resuming, and the candidate in the do-no-harm choice (docs/design.md §9.7; causal
relations, ``ancestral=True``: §9.9)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal.ancestry import causal_truth
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.causal import CausalProbabilities
from causalcal.edgecal import CalibrationSettings, SimulatedCausalPairs
from causalcal.edges import dense_labels
from causalcal.errors import InputError
from causalcal.graph import dag_to_cpdag
from causalcal.simulate import fitted_network, load_network
from causalcal.workflow.simulations import STREAM, simulated_pairs, simulation_settings


@pytest.fixture(scope="module")
def asia():
    net = load_network("asia")
    data = net.sample(400, seed=3)
    probs = bootstrap_edge_probabilities(data, n_boot=12, seed=0, progress=False)
    return net, data, probs


def _known(net) -> pd.DataFrame:
    truth = net.truth_dense()
    names = net.names
    arcs = [(names[a], names[b], "->") for a, b in net.edges()[:6]]
    i, j = np.triu_indices(net.n_vars, 1)
    none = [(names[i[k]], names[j[k]], "none") for k in np.flatnonzero(truth == 0)[:6]]
    return pd.DataFrame(arcs + none, columns=["a", "b", "relation"])


def test_table_counts_every_pair_against_the_simulated_networks_cpdag(asia):
    _, data, probs = asia
    settings = BootstrapSettings(n_boot=5, seed=4, progress=False)
    sims = simulated_pairs(data, probs, settings, 2)
    network = fitted_network(data, probs)
    pairs, labels = dag_to_cpdag(network.dag()).pair_labels()
    truth = dense_labels(pairs, labels, data.n_vars)
    expected = np.zeros((probs.n_boot + 1, 4), dtype=np.int64)
    for r in range(2):  # the same simulations by hand, every pair dense
        sample = network.sample(data.n_samples, seed=np.random.SeedSequence([4, STREAM, r]))
        run = simulation_settings(settings, probs.n_boot, r).run(sample)
        hits = np.rint((1 - run.dense(np.float64)[:, 0]) * probs.n_boot).astype(int)
        np.add.at(expected, (hits, truth), 1)
    np.testing.assert_array_equal(sims.table, expected)
    assert sims.n_boot == probs.n_boot and sims.n_edges == network.n_edges
    assert sims.table.sum() == 2 * data.n_vars * (data.n_vars - 1) // 2


def test_causal_table_counts_every_ordered_pair_against_the_simulated_dags_ancestry(asia):
    _, data, probs = asia
    settings = BootstrapSettings(n_boot=5, seed=4, progress=False)
    sims = simulated_pairs(data, probs, settings, 2, relations="causal")
    assert isinstance(sims, SimulatedCausalPairs)
    network = fitted_network(data, probs)
    truth = causal_truth(network.dag())
    steps = 2 * probs.n_boot
    expected = np.zeros((steps + 1, 2), dtype=np.int64)
    for r in range(2):  # the same simulations by hand, every pair dense, both directions
        sample = network.sample(data.n_samples, seed=np.random.SeedSequence([4, STREAM, r]))
        run = simulation_settings(settings, probs.n_boot, r).run(sample, ancestral=True)
        raw = CausalProbabilities.from_counts(run.ancestral, run.names).dense(np.float64)
        for column, cls in ((1, 1), (2, 2)):
            k = np.rint(raw[:, column] * steps).astype(int)
            np.add.at(expected, (k, (truth == cls).astype(int)), 1)
    np.testing.assert_array_equal(sims.table, expected)
    assert sims.n_boot == probs.n_boot and sims.n_edges == network.n_edges
    assert sims.table.sum() == 2 * data.n_vars * (data.n_vars - 1)
    assert sims.table[:, 1].sum() == 2 * (truth != 0).sum()


@pytest.mark.slow
def test_causal_seed_decides_not_jobs_and_an_edge_runs_checkpoint_serves(asia, tmp_path):
    _, data, probs = asia

    def run(seed: int, **options) -> np.ndarray:
        settings = BootstrapSettings(n_boot=12, seed=seed, progress=False, **options)
        return simulated_pairs(data, probs, settings, 2, relations="causal").table

    one = run(1)
    simulated_pairs(data, probs, BootstrapSettings(n_boot=12, seed=1, n_jobs=2,
                                                   checkpoint=tmp_path / "ck",
                                                   progress=False), 2)  # edge types
    np.testing.assert_array_equal(one, run(1, checkpoint=tmp_path / "ck"))
    np.testing.assert_array_equal(one, run(1, n_jobs=2))
    assert not np.array_equal(one, run(2))


@pytest.mark.slow
def test_seed_decides_not_jobs_and_a_checkpoint_resumes(asia, tmp_path):
    _, data, probs = asia
    one = simulated_pairs(data, probs, BootstrapSettings(n_boot=12, seed=1, progress=False), 2)
    two = simulated_pairs(data, probs, BootstrapSettings(n_boot=12, seed=1, n_jobs=2,
                                                         checkpoint=tmp_path / "ck",
                                                         progress=False), 2)
    np.testing.assert_array_equal(one.table, two.table)
    assert sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["simulation-0",
                                                                    "simulation-1"]
    again = simulated_pairs(data, probs, BootstrapSettings(n_boot=12, seed=1,
                                                           checkpoint=tmp_path / "ck",
                                                           progress=False), 2)
    np.testing.assert_array_equal(one.table, again.table)
    other = simulated_pairs(data, probs, BootstrapSettings(n_boot=12, seed=2, progress=False), 2)
    assert not np.array_equal(one.table, other.table)


def test_discover_offers_the_simulated_map_and_reports_it(asia):
    net, data, probs = asia
    known = _known(net)
    sims = simulated_pairs(data, probs, BootstrapSettings(n_boot=12, seed=0, progress=False), 1)
    auto = causalcal.discover(data, known, bootstrap=BootstrapSettings(progress=False),
                              calibration=CalibrationSettings(simulations=sims),
                              probabilities=probs)
    choice = auto.report.map
    assert set(choice.candidates) == {"identity", "calibrated", "simulated"}
    assert auto.report.simulations.simulations == 1
    assert "simulation-informed" in auto.summary() and "simulations: 1 data sets" in \
        auto.summary()
    forced = causalcal.discover(data, known, bootstrap=BootstrapSettings(progress=False),
                                calibration=CalibrationSettings(simulations=sims, map="simulated"),
                                probabilities=probs)
    assert forced.report.map.chosen == "simulated"
    fitted = forced.report.map.simulated_map
    p = 1 - forced.table["boot_none"].to_numpy()
    q = forced.table["p_adjacent"].to_numpy()
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(q[order]) >= -1e-12)  # monotone in the bootstrap's P(adjacent)
    assert fitted.slope > 0


def test_simulations_refused_clearly(asia):
    net, data, probs = asia
    with pytest.raises(InputError, match="needs simulations"):
        causalcal.discover(data, _known(net), bootstrap=BootstrapSettings(progress=False),
                           calibration=CalibrationSettings(map="simulated"), probabilities=probs)
    with pytest.raises(InputError, match="simulations must be"):
        causalcal.discover(data, _known(net), bootstrap=BootstrapSettings(progress=False),
                           calibration=CalibrationSettings(simulations=-1), probabilities=probs)
