"""`discover --relations pag` (issue 40, item 3): a PAG search's edge types calibrated from
stated edges; the four groups stated edges settle, spread back over the seven types."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal import Knowledge, PAGEdgeProbabilities
from causalcal._edges_io import PAG_PROBABILITY_COLUMNS
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.edgecal import (
    CalibrationSettings,
    CausalRelations,
    EdgeTypes,
    PAGEdges,
    kind_of,
)
from causalcal.edgecal.pag_kind import GroupedPAG
from causalcal.edges import pair_from_index
from causalcal.errors import InputError
from causalcal.pairs import EdgeType
from causalcal.simulate import latent_confounders

BOOT = [c.replace("p_", "boot_") for c in PAG_PROBABILITY_COLUMNS]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Data with hidden common causes, its GFCI bootstrap and known relations from the
    truth over the observed variables (arcs as stated edges, non-adjacent pairs none)."""
    root = tmp_path_factory.mktemp("pag")
    case = latent_confounders(800, seed=2, n_observed=12, n_edges=14, n_latent=3)
    probs = bootstrap_edge_probabilities(case.data, n_boot=10, search="gfci", seed=0,
                                         progress=False)
    probs.save(root / "probs.npz")
    case.data.to_frame(labels=False).to_csv(root / "data.csv", index=False)
    names = np.asarray(case.names)
    rng = np.random.default_rng(0)
    rows = []
    for label, n in ((EdgeType.FORWARD, 4), (EdgeType.BACKWARD, 3), (EdgeType.NONE, 8)):
        keys = rng.choice(np.flatnonzero(case.edge_truth == label), n, replace=False)
        i, j = pair_from_index(keys, len(names))
        rows += [(a, b, label.symbol) for a, b in zip(names[i], names[j], strict=True)]
    known = pd.DataFrame(rows, columns=["a", "b", "relation"])
    known.to_csv(root / "known.csv", index=False)
    return root, case, probs, known


def test_groups_sum_and_spread_back():
    pag = PAGEdgeProbabilities(["a", "b", "c"], np.array([[0, 1], [1, 2]]), np.array(
        [[0.2, 0.1, 0.3, 0.0, 0.2, 0.0, 0.2], [0.0, 0.0, 0.0, 0.5, 0.0, 0.5, 0.0]]), 10)
    grouped = GroupedPAG(pag)
    np.testing.assert_allclose(grouped.dense(np.float64), [[0.4, 0.5, 0.0, 0.1],
                                                           [1.0, 0.0, 0.0, 0.0],
                                                           [0.0, 0.0, 1.0, 0.0]])
    keys = np.arange(3)
    np.testing.assert_allclose(grouped.spread(grouped.dense(np.float64), keys),
                               pag.dense(np.float64))
    # a group the bootstrap never saw is split evenly: (a, c)'s arcs a -> b
    Q = np.array([[0.6, 0.3, 0.0, 0.1], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    spread = grouped.spread(Q, keys)
    np.testing.assert_allclose(spread[1], [0.5, 0.0, 0.25, 0.0, 0.25, 0.0, 0.0])
    np.testing.assert_allclose(spread[0], [0.3, 0.1, 0.18, 0.0, 0.12, 0.0, 0.3])
    assert type(kind_of(grouped)) is PAGEdges


def test_a_context_columns_edges_are_definite_arcs():
    # JCI: an edge between a context column (a) and a system variable is a --> x, so a
    # group the bootstrap never gave a pair is not split onto o-> there
    pag = PAGEdgeProbabilities(["a", "b", "c"], np.zeros((0, 2)), np.zeros((0, 7)), 10)
    Q = np.array([[0.6, 0.4, 0.0, 0.0], [0.5, 0.0, 0.5, 0.0], [0.6, 0.4, 0.0, 0.0]])
    spread = GroupedPAG(pag, context=[0]).spread(Q, np.arange(3))
    np.testing.assert_allclose(spread[0], [0.6, 0, 0, 0, 0.4, 0, 0])  # a --> b
    np.testing.assert_allclose(spread[2], [0.6, 0, 0.2, 0, 0.2, 0, 0])  # b, c: even
    knowledge = Knowledge(context=["a"])
    assert PAGEdges().raw(pag, knowledge).context == {0}


def test_identity_map_writes_the_bootstrap_frequencies(world):
    _, case, probs, known = world
    result = causalcal.discover(case.data, known, relations="pag", probabilities=probs,
                                calibration=CalibrationSettings(map="identity"))
    table = result.table
    assert list(table.columns) == ["a", "b", "p_arc", *PAG_PROBABILITY_COLUMNS, *BOOT]
    np.testing.assert_allclose(table[list(PAG_PROBABILITY_COLUMNS)].to_numpy(),
                               table[BOOT].to_numpy(), atol=1e-12)
    assert len(table) == case.data.n_vars * (case.data.n_vars - 1) // 2 - len(known)


def test_calibrated_table(world):
    _, case, probs, known = world
    result = causalcal.discover(case.data, known, relations="pag", probabilities=probs,
                                calibration=CalibrationSettings(map="calibrated"))
    table = result.table
    P = table[list(PAG_PROBABILITY_COLUMNS)].to_numpy()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(table["p_arc"], P[:, 1:6].sum(axis=1), atol=1e-12)
    assert (np.diff(table["p_arc"].to_numpy()) <= 1e-12).all()  # ranked by P(arc)
    # the split within each group is the bootstrap's wherever it saw the group
    boot = table[BOOT].to_numpy()
    seen = boot[:, 2] + boot[:, 4] > 0
    share = P[seen, 4] / np.maximum(P[seen, 2] + P[seen, 4], 1e-300)
    np.testing.assert_allclose(share, boot[seen, 4] / (boot[seen, 2] + boot[seen, 4]),
                               atol=1e-9)
    report = json.loads(result.report_json())
    assert report["relations"] == "pag" and report["known_arcs"] == 7
    assert "P(arc)" in result.summary()


def test_knowledge_is_respected(world):
    _, case, _, known = world
    names = case.names
    a, b = names[0], names[1]
    knowledge = Knowledge(forbidden=[(a, b)])
    keep = known[~(((known.a == a) & (known.b == b)) | ((known.a == b) & (known.b == a)))]
    result = causalcal.discover(
        case.data, keep, relations="pag",
        bootstrap=BootstrapSettings(n_boot=4, search="gfci", knowledge=knowledge,
                                    progress=False),
        calibration=CalibrationSettings(map="calibrated"))
    row = result.table[(result.table.a == a) & (result.table.b == b)].iloc[0]
    # a -> b excluded: a is no ancestor of b, so no o-o, o-> or --> from a to b
    assert row.p_circle_circle == row.p_circle_arrow == row.p_tail_arrow == 0.0


def test_kinds_and_searches_that_do_not_match_are_refused(world):
    _, case, probs, known = world
    with pytest.raises(InputError, match="relations='pag'"):
        causalcal.discover(case.data, known, probabilities=probs)
    cpdag = bootstrap_edge_probabilities(case.data, n_boot=2, progress=False)
    with pytest.raises(InputError, match="search='gfci'"):
        causalcal.discover(case.data, known, relations="pag", probabilities=cpdag)
    with pytest.raises(InputError, match="PAG edge types are calibrated from known"):
        causalcal.discover(case.data, known, relations="pag", probabilities=probs,
                           calibration=CalibrationSettings(simulations=1))


def test_causal_relations_from_pag_replicates(world):
    _, case, _, _ = world
    probs = bootstrap_edge_probabilities(case.data, n_boot=4, search="gfci", seed=0,
                                         progress=False, ancestral=True)
    with pytest.raises(InputError, match="relations='pag'"):
        EdgeTypes().raw(probs)
    rows = CausalRelations().raw(probs).dense(np.float64)
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-6)
    truth = case.causal_truth
    names = np.asarray(case.names)
    known = []
    for cls, n in ((1, 5), (0, 5)):
        i, j = pair_from_index(np.flatnonzero(truth == cls)[:n], len(names))
        for a, b in zip(names[i], names[j], strict=True):
            known += [(a, b, "causes")] if cls else [(a, b, "not-causes"), (b, a, "not-causes")]
    result = causalcal.discover(case.data, pd.DataFrame(known, columns=["a", "b", "relation"]),
                                relations="causal", probabilities=probs)
    assert "the replicates are PAGs" in result.summary()
    assert json.loads(result.report_json())["pag_bounds"] is True


def test_cli(world, causalcal_main, tmp_path):
    root = world[0]
    out = tmp_path / "pag.csv"
    done = causalcal_main("discover", str(root / "data.csv"), "--known",
                          str(root / "known.csv"), "--relations", "pag", "--probabilities",
                          str(root / "probs.npz"), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert table.columns[2] == "p_arc" and "P(arc)" in done.stdout
    assert "P(adjacent)" not in done.stdout  # the sensitivity header too (issue 48)
    refused = causalcal_main("discover", str(root / "data.csv"), "--known",
                             str(root / "known.csv"), "--relations", "pag", "--plot",
                             str(tmp_path / "fig"), "--out", str(tmp_path / "x.csv"))
    assert refused.returncode == 2 and "--plot" in refused.stderr


def test_alpha_option(world, causalcal_main, tmp_path):
    root = world[0]
    common = ("suggest", str(root / "data.csv"), "--n", "10", "--n-boot", "2", "--quiet",
              "--jobs", "1")
    bad = causalcal_main(*common, "--alpha", "2", "--out", str(tmp_path / "a.csv"))
    assert bad.returncode == 2 and "--alpha must be between 0 and 1" in bad.stderr
    fges = causalcal_main(*common, "--alpha", "0.05", "--out", str(tmp_path / "b.csv"))
    assert fges.returncode == 2 and "'alpha'" in fges.stderr  # FGES has no G² tests
    gfci = causalcal_main(*common, "--search", "gfci", "--relations", "pag", "--alpha",
                          "0.05", "--out", str(tmp_path / "c.csv"))
    assert gfci.returncode == 0, gfci.stderr
    assert len(pd.read_csv(tmp_path / "c.csv")) == 10
