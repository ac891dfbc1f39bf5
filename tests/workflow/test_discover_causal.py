"""`discover --relations causal` (issue 30 item 3): known causal relations in, calibrated
P(a causes b) of every other pair out."""

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal import Knowledge
from causalcal.ancestry import causal_truth
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.causal import CausalProbabilities
from causalcal.edgecal import (
    CAUSAL_COLUMNS,
    CalibrationSettings,
    EdgeTypes,
    SimulatedCausalPairs,
    SimulatedPairs,
)
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.errors import InputError
from causalcal.simulate import random_network
from causalcal.workflow import DiscoveryResult, simulated_pairs


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A simulated network's data, its bootstrap with ancestral counts and a known.csv of
    true causes (cause first) and pairs with no causal relation (not-causes both ways)."""
    root = tmp_path_factory.mktemp("causal")
    net = random_network(20, 26, seed=4)
    data = net.sample(500, seed=1)
    probs = bootstrap_edge_probabilities(data, n_boot=20, seed=0, ancestral=True,
                                         progress=False)
    probs.save(root / "probs.npz")
    data.to_frame(labels=False).to_csv(root / "data.csv", index=False)
    truth = causal_truth(net.dag())
    rng = np.random.default_rng(0)
    names = np.asarray(data.names)
    rows = []
    for cls, n in ((1, 4), (2, 4), (0, 8)):
        keys = rng.choice(np.flatnonzero(truth == cls), size=n, replace=False)
        i, j = pair_from_index(keys, len(names))
        for a, b in zip(names[i], names[j], strict=True):
            if cls == 1:
                rows.append((a, b, "causes"))
            elif cls == 2:
                rows.append((b, a, "causes"))
            else:
                rows += [(a, b, "not-causes"), (b, a, "not-causes")]
    rows.append((names[i[0]], names[j[0]], "none"))  # ignored for causal relations
    known = pd.DataFrame(rows, columns=["a", "b", "relation"])
    known.to_csv(root / "known.csv", index=False)
    return root, data, probs, known, truth


def test_causal_discovery_table(world):
    _, data, probs, known, _ = world
    result = causalcal.discover(data, known, probabilities=probs, relations="causal")
    assert isinstance(result, DiscoveryResult)
    table = result.table
    assert list(table.columns) == ["a", "b", *CAUSAL_COLUMNS,
                                   *[c.replace("p_", "boot_") for c in CAUSAL_COLUMNS]]
    assert len(table) == probs.n_pairs - 16  # 8 causes and 8 pairs without relation
    P = table[list(CAUSAL_COLUMNS)].to_numpy()
    assert np.allclose(P.sum(axis=1), 1) and (P >= 0).all()
    larger = np.maximum(P[:, 0], P[:, 1])
    assert (np.diff(larger) <= 1e-12).all()  # ranked
    # the boot_ columns are the raw rule of docs/design.md §6.1, pair by pair
    raw = CausalProbabilities.from_counts(probs.ancestral, probs.names)
    index = {n: k for k, n in enumerate(probs.names)}
    i, j = table["a"].map(index).to_numpy(), table["b"].map(index).to_numpy()
    expected = raw.lookup(i, j)[:, [1, 2, 0]]
    np.testing.assert_allclose(table[["boot_a_causes_b", "boot_b_causes_a",
                                      "boot_neither"]].to_numpy(), expected, atol=1e-6)
    summary = result.summary()
    assert "known causal pairs" in summary and "1 'none' rows ignored" in summary
    assert "needs 2 standard errors" in summary  # the causal map needs two of them
    assert '"relations": "causal"' in result.report_json()


def test_identity_map_writes_the_bootstrap(world):
    _, data, probs, known, _ = world
    result = causalcal.discover(data, known, relations="causal",
                                calibration=CalibrationSettings(map="identity"),
                                probabilities=probs)
    t = result.table
    np.testing.assert_allclose(t[list(CAUSAL_COLUMNS)].to_numpy(),
                               t[[c.replace("p_", "boot_") for c in CAUSAL_COLUMNS]].to_numpy(),
                               atol=1e-6)


def test_causal_refusals(world):
    _, data, probs, known, _ = world
    plain = EdgeProbabilities(probs.names, probs.pairs, probs.probs, probs.n_boot)
    with pytest.raises(InputError, match="ancestral"):
        causalcal.discover(data, known, probabilities=plain, relations="causal")
    with pytest.raises(InputError, match="needs simulations"):
        causalcal.discover(data, known, relations="causal",
                           calibration=CalibrationSettings(map="simulated"), probabilities=probs)
    edge_sims = SimulatedPairs(np.ones((probs.n_boot + 1, 4), np.int64), 1, 3)
    with pytest.raises(InputError, match="SimulatedCausalPairs"):
        causalcal.discover(data, known, relations="causal",
                           calibration=CalibrationSettings(simulations=edge_sims),
                           probabilities=probs)
    causal_sims = SimulatedCausalPairs(np.ones((2 * probs.n_boot + 1, 2), np.int64), 1, 3)
    with pytest.raises(InputError, match="relations='edges' needs simulated pairs of its own"):
        causalcal.discover(data, known, calibration=CalibrationSettings(simulations=causal_sims),
                           probabilities=probs)
    with pytest.raises(InputError, match="relations"):
        causalcal.discover(data, known, probabilities=probs, relations="ancestors")


def test_causal_discovery_offers_forces_and_reports_the_simulated_map(world):
    _, data, probs, known, _ = world
    sims = simulated_pairs(data, probs, BootstrapSettings(n_boot=probs.n_boot, seed=0,
                                                          progress=False), 1, relations="causal")
    auto = causalcal.discover(data, known, relations="causal",
                              calibration=CalibrationSettings(simulations=sims),
                              probabilities=probs)
    choice = auto.report.map
    assert set(choice.candidates) == {"identity", "calibrated", "simulated"}
    assert choice.candidates["simulated"].z == 2.0
    assert auto.report.simulations.simulations == 1
    summary = auto.summary()
    assert "simulations: 1 data sets" in summary and "simulation-informed" in summary
    assert '"simulated_map"' in auto.report_json()
    forced = causalcal.discover(data, known, relations="causal",
                                calibration=CalibrationSettings(simulations=sims, map="simulated"),
                                probabilities=probs)
    assert forced.report.map.chosen == "simulated"
    fitted = forced.report.map.simulated_map
    assert fitted.slope > 0
    t = forced.table
    P = t[list(CAUSAL_COLUMNS)].to_numpy()
    np.testing.assert_allclose(P.sum(axis=1), 1)
    # each direction monotone in the bootstrap's own, where the two do not need scaling
    for col in ("a_causes_b", "b_causes_a"):
        p, q = t[f"boot_{col}"].to_numpy(), t[f"p_{col}"].to_numpy()
        free = P[:, 2] > 1e-9
        order = np.argsort(p[free], kind="stable")
        assert np.all(np.diff(q[free][order]) >= -1e-12)
    # the simulations themselves, run by discover, are the same counts (seeded)
    again = causalcal.discover(data, known, relations="causal",
                               bootstrap=BootstrapSettings(progress=False),
                               calibration=CalibrationSettings(simulations=1, map="simulated"),
                               probabilities=probs)
    np.testing.assert_allclose(again.table[list(CAUSAL_COLUMNS)].to_numpy(), P)


@pytest.mark.slow
def test_causal_cli(world, causalcal_cli, causalcal_main):
    root = world[0]
    # a fresh interpreter first; the commands after it run in this process
    out = causalcal_cli("discover", "data.csv", "--known", "known.csv", "--relations", "causal",
                        "--probabilities", "probs.npz", "--out", "causal.csv", "--quiet",
                        cwd=root)
    assert out.returncode == 0, out.stderr
    table = pd.read_csv(root / "causal.csv")
    assert list(table.columns[:5]) == ["a", "b", *CAUSAL_COLUMNS]
    assert "P(a causes b)" in out.stdout
    again = causalcal_main("discover", "data.csv", "--known", "known.csv", "--relations",
                           "causal", "--probabilities", "probs.npz", "--out", "causal.csv",
                           "--quiet", cwd=root)  # its own output is replaced (issue 41 item 8)
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(pd.read_csv(root / "causal.csv"), table)
    sim = causalcal_main("discover", "data.csv", "--known", "known.csv", "--relations",
                         "causal", "--probabilities", "probs.npz", "--out", "sim.csv",
                         "--simulations", 1, "--map", "simulated", "--quiet", cwd=root)
    assert sim.returncode == 0, sim.stderr
    assert "simulations: 1 data sets" in sim.stdout and "map written: simulated" in sim.stdout
    refused = causalcal_main("discover", "data.csv", "--known", "known.csv", "--relations",
                             "causal", "--probabilities", "probs.npz", "--out", "c2.csv",
                             "--graph", "g.dot", cwd=root)
    assert refused.returncode == 2 and "--graph" in refused.stderr
    boot = causalcal_main("bootstrap", "data.csv", "--ancestral", "--n-boot", 3, "--out",
                          "p.csv", cwd=root)
    assert boot.returncode == 2 and "--ancestral needs an .npz" in boot.stderr
    boot = causalcal_main("bootstrap", "data.csv", "--ancestral", "--n-boot", 3, "--out",
                          "p3.npz", "--quiet", cwd=root)
    assert boot.returncode == 0, boot.stderr
    assert EdgeProbabilities.load(root / "p3.npz").ancestral.n_boot == 3


def test_edge_discovery_reports_causal_rows_it_ignores(world):
    from causalcal.workflow.discover import _input_notes

    notes = _input_notes(world[1], None, EdgeTypes().ignored_note(3))
    assert any("3 causes / not-causes rows ignored" in n for n in notes)
    assert _input_notes(world[1], None, EdgeTypes().ignored_note(0)) == ()


def test_causal_discovery_with_tiers(world):
    _, data, _, known, truth = world
    order = np.argsort(np.argsort(_topological_rank(world)))  # a true causal order
    tiers = Knowledge(tiers={name: int(order[k] // 5) for k, name in enumerate(data.names)})
    result = causalcal.discover(data, known, relations="causal",
                                bootstrap=BootstrapSettings(n_boot=6, progress=False,
                                                            knowledge=tiers))
    assert "bounds" in result.summary()
    counts = result.probabilities.ancestral
    tier = order // 5
    assert not counts.possible[tier[:, None] > tier[None, :]].any()
    # a known cause against the tiers is refused before any search, naming the pair
    late, early = (data.names[int(np.argmax(tier))], data.names[int(np.argmin(tier))])
    bad = pd.concat([known, pd.DataFrame([(late, early, "causes")], columns=known.columns)])
    with pytest.raises(InputError, match=f"{late} causes {early}"):
        causalcal.discover(data, bad, relations="causal",
                           bootstrap=BootstrapSettings(n_boot=6, progress=False, knowledge=tiers))


def _topological_rank(world) -> np.ndarray:
    """Each variable's position in a topological order of the true DAG."""
    _, data, _, _, truth = world
    from causalcal.pairs import pair_from_index

    v = data.n_vars
    ancestor = np.zeros((v, v), dtype=bool)
    i, j = pair_from_index(np.arange(len(truth)), v)
    ancestor[i[truth == 1], j[truth == 1]] = True
    ancestor[j[truth == 2], i[truth == 2]] = True
    return ancestor.sum(axis=0)  # number of ancestors: increases along every arc


def test_calibrated_output_respects_the_knowledge(world):
    """Forced calibrated maps move every probability, yet a relation the knowledge makes
    impossible stays at exactly 0 (issue 41 item 1), for both kinds."""
    _, data, probs, known, _ = world
    order = np.argsort(np.argsort(_topological_rank(world)))
    tiers = Knowledge(tiers={name: int(order[k] // 5) for k, name in enumerate(data.names)})
    settings = BootstrapSettings(progress=False, knowledge=tiers)
    causal = causalcal.discover(data, known, relations="causal", bootstrap=settings,
                                calibration=CalibrationSettings(map="calibrated"),
                                probabilities=probs)
    tier = {name: int(order[k] // 5) for k, name in enumerate(data.names)}
    t = causal.table
    later = t["a"].map(tier) > t["b"].map(tier)
    assert later.any() and (t.loc[later, "p_a_causes_b"] == 0).all()
    np.testing.assert_allclose(t[list(CAUSAL_COLUMNS)].sum(axis=1), 1)
    # edge types: an arc forbidden both ways stays "no edge" under a forced map
    dense = probs.dense(np.float64)
    ranked = np.argsort(dense[:, 0], kind="stable")  # most often adjacent first
    names = np.asarray(data.names)
    a, b = (str(names[k[0]]) for k in pair_from_index(ranked[:1], data.n_vars))
    i, j = pair_from_index(np.concatenate([ranked[1:7], ranked[-6:]]), data.n_vars)
    rows = pd.DataFrame({"a": names[i], "b": names[j], "relation": ["->"] * 6 + ["none"] * 6})
    edges = causalcal.discover(
        data, rows, probabilities=probs,
        bootstrap=BootstrapSettings(progress=False,
                                    knowledge=Knowledge(forbidden=[(a, b), (b, a)])),
        calibration=CalibrationSettings(map="calibrated", evidence_strength=0))
    row = edges.table[(edges.table["a"] == a) & (edges.table["b"] == b)].iloc[0]
    assert row["boot_none"] < 1 and row["p_none"] == 1 and row["p_adjacent"] == 0
