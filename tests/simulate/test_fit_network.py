"""Parameter fitting (issue 41 item 5): CPTs by hand, the DAG extension, the BIF that
pgmpy reads back with the labels in order, and ``causalcal fit``."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.data import DiscreteData
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.simulate import bif_text, fit_network, from_bif, to_pgmpy, write_bif
from causalcal.simulate.bif_write import bif_word

LEVELS = ["low", "mid", "high"]  # an order that is not the alphabet's


def _small() -> DiscreteData:
    """a (ordered low < mid < high) and b (no, yes), six rows:
    a = low low mid high high high, b = no yes yes no yes yes."""
    frame = pd.DataFrame({
        "a": pd.Categorical(["low", "low", "mid", "high", "high", "high"], LEVELS,
                            ordered=True),
        "b": ["no", "yes", "yes", "no", "yes", "yes"]})
    return DiscreteData.from_frame(frame)


def test_cpts_by_hand():
    """ESS 2. a is a root: q = 1, r = 3, 2/3 a cell: counts 2 1 3 → (N + 2/3) / (6 + 2).
    b | a: q = 3, r = 2, 1/3 a cell: low (1 no, 1 yes), mid (0, 1), high (1, 2) →
    (N_jk + 1/3) / (N_j + 2/3)."""
    data = _small()
    network = fit_network(data, PDAG.from_edges(2, [(0, 1)], [], data.names), ess=2.0)
    third = 1 / 3
    np.testing.assert_allclose(network.cpts[0], [[(2 + 2 / 3) / 8, (1 + 2 / 3) / 8,
                                                  (3 + 2 / 3) / 8]])
    np.testing.assert_allclose(network.cpts[1], [
        [(1 + third) / (2 + 2 * third), (1 + third) / (2 + 2 * third)],
        [third / (1 + 2 * third), (1 + third) / (1 + 2 * third)],
        [(1 + third) / (3 + 2 * third), (2 + third) / (3 + 2 * third)]])
    assert network.state_names == [LEVELS, ["no", "yes"]]
    assert network.meta["ess"] == 2.0


def test_a_cpdag_is_extended_and_names_may_be_in_any_order():
    rng = np.random.default_rng(0)
    data = DiscreteData(rng.integers(0, 2, size=(50, 3)), names=["x", "y", "z"])
    chain = PDAG.from_edges(3, [], [(0, 1), (1, 2)], ["z", "y", "x"])  # z – y – x
    network = fit_network(data, chain)
    skeleton = {frozenset((int(p), v)) for v, pa in enumerate(network.parents) for p in pa}
    assert skeleton == {frozenset((0, 1)), frozenset((1, 2))}  # x–y, y–z
    assert not any(len(pa) == 2 for pa in network.parents)  # no new v-structure
    with pytest.raises(InputError, match="not the data's"):
        fit_network(data, PDAG.from_edges(3, [], [], ["x", "y", "w"]))
    cycle = PDAG.from_edges(3, [(0, 1), (1, 2), (2, 0)], [], ["x", "y", "z"])
    with pytest.raises(InputError):
        fit_network(data, cycle)


def test_bif_words():
    assert bif_word("< 0.25") == "lt_0.25"
    assert bif_word("[0.25, 1.5)") == "0.25_1.5"
    assert bif_word(">= 1.5") == "ge_1.5"
    assert bif_word("male") == "male" and bif_word("-1.5") == "-1.5"


def _bins_data() -> DiscreteData:
    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    frame = pd.DataFrame({
        "dose mg": pd.cut(x, [-np.inf, -0.5, 0.5, np.inf], labels=["< -0.5", "[-0.5, 0.5)",
                                                                   ">= 0.5"]),
        "grade": pd.Categorical(np.array(LEVELS)[(x > 0).astype(int) + (x > 1)], LEVELS,
                                ordered=True),
        "sex": np.where(rng.random(300) < 0.5, "female", "male")})
    return DiscreteData.from_frame(frame)


def test_pgmpy_reads_the_bif_back_with_the_labels_in_order(tmp_path):
    pytest.importorskip("pgmpy")
    data = _bins_data()
    network = fit_network(data, PDAG.from_edges(3, [(0, 1)], [(1, 2)], data.names), ess=3)
    write_bif(network, tmp_path / "net.bif", {"ess": "3"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.readwrite import BIFReader

        model = BIFReader(str(tmp_path / "net.bif")).get_model()
    states = {cpd.variable: cpd.state_names[cpd.variable] for cpd in model.get_cpds()}
    assert states == {"dose_mg": ["lt_-0.5", "-0.5_0.5", "ge_0.5"], "grade": LEVELS,
                      "sex": ["female", "male"]}
    back = from_bif(tmp_path / "net.bif")
    for v in range(3):
        np.testing.assert_allclose(back.cpts[v], network.cpts[v], rtol=0, atol=1e-15)
    text = bif_text(network, {"ess": "3"})
    assert 'property label = "dose mg";' in text and "property ess = 3;" in text
    assert 'property states = "< -0.5" "[-0.5, 0.5)" ">= 0.5";' in text
    # the pgmpy model of the network itself keeps the labels as they are
    model = to_pgmpy(network)
    assert model.get_cpds("dose mg").state_names["dose mg"] == ["< -0.5", "[-0.5, 0.5)",
                                                                ">= 0.5"]


@pytest.mark.slow
def test_fit_command(tmp_path, capsys):
    pytest.importorskip("pgmpy")
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": np.repeat(["low", "mid", "high"], 40)})
    frame["b"] = np.where((frame["a"] != "low") ^ (rng.random(120) < 0.1), "yes", "no")
    frame["x"] = (frame["b"] == "yes") * 2.0 + rng.normal(size=120)
    frame.to_csv(tmp_path / "data.csv", index=False)
    binned = ["--discretize", "quantile:3"]
    assert main(["bootstrap", str(tmp_path / "data.csv"), *binned, "--n-boot", "10",
                 "--jobs", "1", "--quiet", "--out", str(tmp_path / "boot.csv"),
                 "--graph", str(tmp_path / "net.json")]) == 0
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "data.csv"), *binned, "--probabilities",
                 str(tmp_path / "boot.csv"), "--ess", "4", "--out",
                 str(tmp_path / "net.bif")]) == 0
    out = capsys.readouterr().out
    assert "equivalent sample size 4" in out and "averaged network" in out
    network = from_bif(tmp_path / "net.bif")
    assert network.names == ["a", "b", "x"] and network.n_edges == 2
    assert network.state_names[0] == ["high", "low", "mid"]  # the data's categories
    lower, middle, upper = network.state_names[2]  # the bins in their order, as they were
    assert lower.startswith("< ") and upper.startswith(">= ") and middle.startswith("[")
    # the averaged network written by bootstrap --graph gives the same file
    assert main(["fit", str(tmp_path / "data.csv"), *binned, "--structure",
                 str(tmp_path / "net.json"), "--ess", "4", "--quiet", "--out",
                 str(tmp_path / "net2.bif")]) == 0
    assert (tmp_path / "net2.bif").read_text() == (tmp_path / "net.bif").read_text()
    for bad in (["--out", str(tmp_path / "net.txt")],  # not a .bif
                ["--ess", "0", "--out", str(tmp_path / "n.bif")],
                ["--out", str(tmp_path / "data.csv")]):  # the input
        assert main(["fit", str(tmp_path / "data.csv"), *binned, "--structure",
                     str(tmp_path / "net.json"), *bad]) == 2


def test_names_as_they_were_round_trip_through_the_bif(tmp_path):
    """Issue 49: the "name as it was" properties wrote '"' as "'" and ';' as ',', and kept a
    raw line break inside the line; escaped now, and read back by from_bif."""
    rng = np.random.default_rng(3)
    names = ['dose "mg"', "a;b c", "back\\slash {x} // not a comment", "plain"]
    frame = pd.DataFrame({names[0]: rng.choice(['lo "1"', "hi;2"], 120),
                          names[1]: rng.choice(["x\ny", "z"], 120),
                          names[2]: rng.choice(["a", "b", "c"], 120),
                          names[3]: rng.choice(["u\u2028v", "w\r"], 120)})
    data = DiscreteData.from_frame(frame)
    network = fit_network(data, PDAG.from_edges(4, [(0, 1), (2, 1)], [], data.names), ess=2)
    write_bif(network, tmp_path / "net.bif", {"ess": "2"})
    text = (tmp_path / "net.bif").read_text(encoding="utf-8")
    assert 'property label = "dose \\"mg\\"";' in text
    assert 'property label = "a\\u003bb c";' in text  # ';' would end the property
    assert 'property states = "x\\ny" "z";' in text  # no line break inside the line
    assert all(line.count('"') % 2 == 0 for line in text.split("\n"))
    from causalcal.simulate.bif_write import bif_labels

    labels = bif_labels(text)
    assert labels["a_b_c"] == ("a;b c", ["x\ny", "z"])
    pytest.importorskip("pgmpy")
    back = from_bif(tmp_path / "net.bif")  # pgmpy's reader, then the names as they were
    assert back.names == network.names and back.state_names == network.state_names
    for v in range(4):
        np.testing.assert_allclose(back.cpts[v], network.cpts[v], rtol=0, atol=1e-15)


def test_a_bif_of_an_older_causalcal_reads_its_plain_labels():
    from causalcal.simulate.bif_write import bif_labels

    text = ('variable dose_mg {\n  type discrete [ 2 ] { a, b };\n'
            "  property label = \"dose 'mg'\";\n  property states = \"a\\q\" \"b\";\n}\n")
    assert bif_labels(text) == {"dose_mg": ("dose 'mg'", ["a\\q", "b"])}
