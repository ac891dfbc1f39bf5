"""What the inputs alone decide is refused before the first replicate (issue 48 item 4;
docs/design.md §9.3, §9.12): the relation kind against the search, too few known pairs
once the knowledge's forced ones are out, an answer file nobody answered, ``none`` in a
causal answer file, causal known relations the knowledge excludes, graph options against
the kind. Each test gives a --checkpoint folder and checks that no replicate (no folder)
was written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A 6-variable data set: trt randomised (independent of the rest), the others in a
    chain."""
    root = tmp_path_factory.mktemp("before")
    rng = np.random.default_rng(0)
    n = 400
    x = {"trt": rng.integers(0, 2, n), "age": rng.integers(0, 3, n)}
    x["chol"] = (x["age"] + rng.integers(0, 2, n)) % 3
    x["bili"] = (x["chol"] + x["trt"] + rng.integers(0, 2, n)) % 3
    x["ast"] = (x["bili"] + rng.integers(0, 2, n)) % 3
    x["edema"] = (x["ast"] + rng.integers(0, 2, n)) % 2
    pd.DataFrame(x).to_csv(root / "data.csv", index=False)
    return root


def _refused(args: list[str], data, tmp_path, capsys, message: str) -> None:
    checkpoint = tmp_path / "replicates"
    code = main([args[0], str(data / "data.csv"), *args[1:], "--checkpoint", str(checkpoint),
                 "--n-boot", "4", "--jobs", "1", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err, err
    assert not checkpoint.exists() or not any(checkpoint.iterdir())  # no replicate written


def _known(tmp_path, rows, name="known.csv") -> str:
    path = tmp_path / name
    pd.DataFrame(rows, columns=["a", "b", "relation"]).to_csv(path, index=False)
    return str(path)


ARCS = [("age", "chol", "->"), ("chol", "bili", "->"), ("bili", "ast", "->"),
        ("ast", "edema", "->"), ("trt", "bili", "->")]
NONES = [("age", "edema", "none"), ("age", "ast", "none"), ("chol", "edema", "none"),
         ("trt", "age", "none"), ("trt", "edema", "none")]


def test_gfci_needs_relations_pag_and_pag_needs_gfci(data, tmp_path, capsys):
    known = _known(tmp_path, ARCS + NONES)
    _refused(["discover", "--known", known, "--out", str(tmp_path / "o.csv"), "--search",
              "gfci"], data, tmp_path, capsys, "relations='pag' (--relations pag)")
    _refused(["discover", "--known", known, "--out", str(tmp_path / "o.csv"), "--relations",
              "pag"], data, tmp_path, capsys, "bootstrap with search='gfci'")
    _refused(["suggest", "--out", str(tmp_path / "a.csv"), "--search", "gfci"], data,
             tmp_path, capsys, "relations='pag' (--relations pag)")


def test_too_few_known_pairs_once_the_forced_ones_are_out(data, tmp_path, capsys):
    # the knowledge forbids every arc between trt and age: "trt none age" is forced
    knowledge = tmp_path / "k.csv"
    pd.DataFrame({"a": ["trt", "age"], "b": ["age", "trt"], "rule": ["forbidden"] * 2}).to_csv(
        knowledge, index=False)
    known = _known(tmp_path, ARCS + NONES)
    _refused(["discover", "--known", known, "--out", str(tmp_path / "o.csv"), "--knowledge",
              str(knowledge)], data, tmp_path, capsys, "1 more left out: the background "
             "knowledge already forces them (trt none age)); or let the tool pick pairs for "
             "you to answer: causalcal suggest")


def test_an_answer_file_nobody_filled_in(data, tmp_path, capsys):
    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(data / "data.csv"), "--n", "8", "--n-boot", "4", "--jobs",
                 "1", "--quiet", "--out", str(ask)]) == 0
    capsys.readouterr()
    _refused(["discover", "--known", str(ask), "--out", str(tmp_path / "o.csv")], data,
             tmp_path, capsys, "no relation filled in yet")
    table = pd.read_csv(ask, dtype=str, keep_default_na=False)
    table.assign(relation="unknown").to_csv(ask, index=False)
    _refused(["discover", "--known", str(ask), "--out", str(tmp_path / "o.csv")], data,
             tmp_path, capsys, "every suggested pair is answered unknown")


def test_none_in_a_causal_answer_file_is_refused_by_name(data, tmp_path, capsys):
    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(data / "data.csv"), "--n", "8", "--n-boot", "4", "--jobs",
                 "1", "--quiet", "--relations", "causal", "--out", str(ask)]) == 0
    capsys.readouterr()
    table = pd.read_csv(ask, dtype=str, keep_default_na=False)
    table.assign(relation="none").to_csv(ask, index=False)
    _refused(["discover", "--known", str(ask), "--out", str(tmp_path / "o.csv"),
              "--relations", "causal"], data, tmp_path, capsys,
             "row 1, column relation: none (not adjacent) says nothing of causation")


def test_a_causal_relation_the_forbidden_arcs_exclude(data, tmp_path, capsys):
    # every arc into trt forbidden (it is randomised): nothing causes trt
    knowledge = tmp_path / "k.csv"
    others = ["age", "chol", "bili", "ast", "edema"]
    pd.DataFrame({"a": others, "b": ["trt"] * 5, "rule": ["forbidden"] * 5}).to_csv(
        knowledge, index=False)
    rows = [("age", "chol", "causes"), ("chol", "bili", "causes"), ("bili", "ast", "causes"),
            ("ast", "edema", "causes"), ("chol", "trt", "causes")] + [
        (a, b, "not-causes") for a, b in (("edema", "age"), ("ast", "age"), ("edema", "chol"),
                                          ("bili", "age"), ("ast", "chol"))]
    _refused(["discover", "--known", _known(tmp_path, rows), "--out", str(tmp_path / "o.csv"),
              "--relations", "causal", "--knowledge", str(knowledge)], data, tmp_path, capsys,
             "chol causes trt of the pair (trt, chol) contradicts the background knowledge: no "
             "arc into trt is allowed")


def test_graph_options_against_the_kind(data, tmp_path, capsys):
    known = _known(tmp_path, ARCS + NONES)
    _refused(["discover", "--known", known, "--out", str(tmp_path / "o.csv"), "--relations",
              "causal", "--graph", str(tmp_path / "g.gml")], data, tmp_path, capsys,
             "--graph is for CPDAG edge types")
    with pytest.raises(SystemExit):
        main(["discover", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "averaged PAG" not in text and "edge types only" in text
