"""The known relations' own results, and known pairs the knowledge already forces
(issue 41 items 2 and 3)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal import Knowledge
from causalcal.ancestry import causal_truth
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.edgecal import CalibrationSettings
from causalcal.edges import pair_from_index
from causalcal.errors import InputError
from causalcal.simulate import random_network


@pytest.fixture(scope="module")
def world():
    net = random_network(14, 18, seed=2)
    data = net.sample(400, seed=3)
    probs = bootstrap_edge_probabilities(data, n_boot=12, seed=0, ancestral=True,
                                         progress=False)
    return data, probs, net


def _edge_known(data, probs, none: int = 6) -> pd.DataFrame:
    """6 of the most often adjacent pairs stated as arcs (some against the bootstrap's
    direction) and ``none`` of the least often adjacent stated as none."""
    ranked = np.argsort(probs.dense(np.float64)[:, 0], kind="stable")
    names = np.asarray(data.names)
    i, j = pair_from_index(np.concatenate([ranked[:6], ranked[-none:]]), data.n_vars)
    return pd.DataFrame({"a": names[i], "b": names[j],
                         "relation": ["->", "<-"] * 3 + ["none"] * none})


def test_edge_known_results_in_the_table_json_and_summary(world, tmp_path):
    data, probs, _ = world
    known = _edge_known(data, probs)
    result = causalcal.discover(data, known, probabilities=probs,
                                bootstrap=BootstrapSettings(progress=False),
                                calibration=CalibrationSettings(map="calibrated"))
    own = result.known_results
    assert len(own) == len(known) and list(own.columns[:7]) == [
        "a", "b", "stated", "source", "p_stated", "boot_stated", "association_p"]
    assert (np.diff(own["boot_stated"]) >= 0).all()  # the least found first
    assert (own["source"] == "own").all() and own["association_p"].between(0, 1).all()
    index = {n: k for k, n in enumerate(data.names)}
    for row in known.itertuples(index=False):
        i, j = index[row.a], index[row.b]
        p = probs.lookup(np.array([min(i, j)]), np.array([max(i, j)]))[0]
        forward = p[1] if i < j else p[2]  # P(a -> b) as written
        expected = {"->": forward + p[3], "<-": (p[1] + p[2] - forward) + p[3],
                    "none": p[0]}[row.relation]
        got = own[own["stated"] == f"{row.a} {row.relation} {row.b}"]
        assert len(got) == 1
        assert got["boot_stated"].iloc[0] == pytest.approx(expected)
        calibrated = got.iloc[0]
        q = {"->": calibrated["p_forward"] if i < j else calibrated["p_backward"]}
        if row.relation == "none":
            assert calibrated["p_stated"] == pytest.approx(calibrated["p_none"])
        elif row.relation == "->":
            assert calibrated["p_stated"] == pytest.approx(q["->"] + calibrated["p_undirected"])
    csv, report = result.save(tmp_path / "edges.csv")
    section = json.loads(report.read_text())["known_relations"]
    assert [r["stated"] for r in section] == list(own["stated"])
    assert section[0]["boot_stated"] == pytest.approx(own["boot_stated"].iloc[0])
    summary = result.summary()
    low = own[own["boot_stated"] < 0.5]
    if len(low):
        assert "the bootstrap finds least often" in summary and low["stated"].iloc[0] in summary
        assert "contradict" not in summary
    else:
        assert "at least half of the replicates" in summary


def test_causal_known_results(world):
    data, probs, net = world
    truth = causal_truth(net.dag())
    names = np.asarray(data.names)
    rows = []
    for cls, n in ((1, 3), (2, 3), (0, 6)):
        keys = np.flatnonzero(truth == cls)[:n]
        i, j = pair_from_index(keys, data.n_vars)
        rows += [(a, b, "causes") if cls == 1 else (b, a, "causes") if cls == 2
                 else (a, b, "not-causes") for a, b in zip(names[i], names[j], strict=True)]
    known = pd.DataFrame(rows, columns=["a", "b", "relation"])
    result = causalcal.discover(data, known, relations="causal", probabilities=probs,
                                bootstrap=BootstrapSettings(progress=False))
    own = result.known_results
    assert len(own) == len(known)
    raw = result.raw
    index = {n: k for k, n in enumerate(data.names)}
    for row in own.itertuples(index=False):
        a, rel, b = row.stated.split(" ")
        i, j = index[a], index[b]
        p = raw.lookup(np.array([min(i, j)]), np.array([max(i, j)]))[0]  # neither, i→j, j→i
        cause = p[1] if i < j else p[2]
        assert row.boot_stated == pytest.approx(cause if rel == "causes" else 1 - cause)


def test_known_pairs_the_knowledge_forces_are_left_out_and_named(world, tmp_path):
    data, probs, _ = world
    known = _edge_known(data, probs, none=8)
    forbidden = [(a, b) for a, b in known[known["relation"] == "none"][["a", "b"]]
                 .itertuples(index=False)][:2]
    knowledge = Knowledge(forbidden=[*forbidden, *[(b, a) for a, b in forbidden]])
    settings = BootstrapSettings(progress=False, knowledge=knowledge)
    # 6 none less the 2 forced are too few, and the error says why
    with pytest.raises(InputError, match="2 more left out: the background knowledge"):
        causalcal.discover(data, known.drop(index=[12, 13]), probabilities=probs,
                           bootstrap=settings)
    result = causalcal.discover(data, known, probabilities=probs, bootstrap=settings)
    stated = {f"{a} none {b}" for a, b in forbidden}
    assert set(result.report.known_forced) == stated
    assert len(result.known) == len(known) - 2 and result.report.known_unrelated == 6
    assert not set(result.known_results["stated"]) & stated
    assert "2 left out of the fit, the background knowledge already forces them" in \
        result.summary()
    report = json.loads(result.save(tmp_path / "e.csv")[1].read_text())
    assert set(report["known_forced"]) == stated
    # a forbidden arc in one direction only does not force "none"
    one_way = causalcal.discover(data, known, probabilities=probs,
                                 bootstrap=BootstrapSettings(progress=False,
                                                             knowledge=Knowledge(
                                                                 forbidden=forbidden)))
    assert one_way.report.known_forced == () and len(one_way.known) == len(known)


def test_reliability_figure_draws_the_map_written(world):
    pytest.importorskip("matplotlib")
    from causalcal.report import reliability_figure

    data, probs, _ = world
    known = _edge_known(data, probs)
    for asked, legend in (("identity", ["bootstrap (written)"]),
                          ("calibrated", ["bootstrap", "calibrated map (written)"])):
        result = causalcal.discover(data, known, probabilities=probs,
                                    bootstrap=BootstrapSettings(progress=False),
                                    calibration=CalibrationSettings(map=asked))
        fig = reliability_figure(result.run_report().figures.reliability)
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert texts == legend
