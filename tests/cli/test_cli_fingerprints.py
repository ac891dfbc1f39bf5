"""Probabilities meet their data (issue 49 item 5): the data fingerprint their bootstrap
recorded is compared by fit, discover and suggest; other data with the same columns are
refused naming the file, the same data with the columns reordered are the data."""

from __future__ import annotations

import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Data, other data with the same columns, the data's columns reversed, and the
    data's probabilities (with and without a fingerprint)."""
    root = tmp_path_factory.mktemp("fingerprints")
    for seed, folder in ((4, "a"), (5, "b")):
        assert main(["simulate", "--nodes", "8", "--edges", "9", "--samples", "300",
                     "--seed", str(seed), "--out", str(root / folder), "--quiet"]) == 0
    data = pd.read_csv(root / "a" / "data.csv")
    data[data.columns[::-1]].to_csv(root / "reversed.csv", index=False)
    assert main(["bootstrap", str(root / "a" / "data.csv"), "--n-boot", "4", "--out",
                 str(root / "p.npz"), "--quiet", "--jobs", "1"]) == 0
    truth = pd.read_csv(root / "a" / "truth.csv")
    arcs = truth[truth["relation"] != "none"]
    adjacent = {frozenset(p) for p in zip(arcs["a"], arcs["b"])}
    names = list(data.columns)
    nones = [(a, b, "none") for k, a in enumerate(names) for b in names[k + 1:]
             if frozenset((a, b)) not in adjacent][:6]
    pd.concat([arcs, pd.DataFrame(nones, columns=["a", "b", "relation"])]).to_csv(
        root / "known.csv", index=False)
    old = EdgeProbabilities.load(root / "p.npz")
    old.provenance = None  # as an older causalcal wrote it
    old.save(root / "old.npz")
    return root


def test_data_for_compares_the_fingerprint_up_to_column_order(sim):
    from causalcal.bootstrap import data_for

    probs = EdgeProbabilities.load(sim / "p.npz")
    data = DiscreteData.from_csv(sim / "a" / "data.csv")
    assert data_for(probs, data, "p.npz") is data
    reordered = data_for(probs, DiscreteData.from_csv(sim / "reversed.csv"), "p.npz")
    assert reordered == data  # the columns in the probabilities' order
    with pytest.raises(InputError, match="p.npz: computed from other data than these"):
        data_for(probs, DiscreteData.from_csv(sim / "b" / "data.csv"), "p.npz")
    fewer = DiscreteData(data.codes[:, 1:], data.names[1:], data.arities[1:],
                         data.categories[1:])
    with pytest.raises(InputError, match="other variables.*only in p.npz: 'X0'"):
        data_for(probs, fewer, "p.npz")
    with pytest.warns(UserWarning, match="records no data fingerprint"):
        probs.provenance = None
        assert data_for(probs, data, "p.npz") is data


@pytest.mark.parametrize("command", [
    ["fit", "--out", "{tmp}/net.bif"],
    ["suggest", "--n", "6", "--out", "{tmp}/ask.csv"],
    ["discover", "--known", "{sim}/known.csv", "--out", "{tmp}/edges.csv"],
])
def test_probabilities_of_other_data_are_refused(sim, tmp_path, command, cli):
    """They were used without a word."""
    name, *rest = command
    rest = [a.format(tmp=tmp_path, sim=sim) for a in rest]
    code, _, err = cli(name, sim / "b" / "data.csv", "--probabilities", sim / "p.npz",
                       *rest)
    assert code == 2 and f"{sim / 'p.npz'}: computed from other data than these" in err
    assert not any(tmp_path.iterdir())


def test_reordered_columns_are_the_same_data(sim, tmp_path, cli):
    """They were refused as "other variables"."""
    for data, out in ((sim / "a" / "data.csv", "ask.csv"), (sim / "reversed.csv", "rev.csv")):
        code, _, err = cli("suggest", data, "--n", "6", "--seed", "1",
                           "--probabilities", sim / "p.npz", "--out", tmp_path / out)
        assert code == 0, err
    assert (tmp_path / "ask.csv").read_bytes() == (tmp_path / "rev.csv").read_bytes()
    for data, out in ((sim / "a" / "data.csv", "a.bif"), (sim / "reversed.csv", "r.bif")):
        assert cli("fit", data, "--probabilities", sim / "p.npz", "--out",
                   tmp_path / out)[0] == 0
    from causalcal.simulate import from_bif

    pytest.importorskip("pgmpy")
    a, r = from_bif(tmp_path / "a.bif"), from_bif(tmp_path / "r.bif")
    assert r.names == a.names[::-1]  # the data's order
    for v, name in enumerate(a.names):
        w = r.names.index(name)
        assert [a.names[p] for p in a.parents[v]] == sorted(r.names[p] for p in r.parents[w])


def test_probabilities_without_a_fingerprint_are_used_with_a_warning(sim, tmp_path, cli):
    code, _, err = cli("suggest", sim / "a" / "data.csv", "--n", "6",
                       "--probabilities", sim / "old.npz", "--out", tmp_path / "ask.csv")
    assert code == 0 and "records no data fingerprint" in err
    assert pd.read_csv(tmp_path / "ask.csv")["relation"].isna().all()  # left blank


@pytest.mark.slow
def test_discover_on_reordered_columns_writes_the_same_ranking(sim, tmp_path, cli):
    for data, out in ((sim / "a" / "data.csv", "a.csv"), (sim / "reversed.csv", "r.csv")):
        code, _, err = cli("discover", data, "--known", sim / "known.csv", "--quiet",
                           "--probabilities", sim / "p.npz", "--out", tmp_path / out)
        assert code == 0, err
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "r.csv").read_bytes()
