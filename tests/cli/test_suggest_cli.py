"""`causalcal suggest` and the answered file in `discover` (docs/design.md §9.12)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.edges import EdgeProbabilities


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A 20-variable simulation and its 10-replicate ancestral bootstrap."""
    root = tmp_path_factory.mktemp("suggest")
    assert main(["simulate", "--nodes", "20", "--edges", "30", "--samples", "800", "--seed",
                 "2", "--out", str(root), "--quiet"]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "10", "--ancestral",
                 "--out", str(root / "probs.npz"), "--quiet", "--jobs", "1"]) == 0
    return root


def _answered(sim, ask: pd.DataFrame) -> pd.DataFrame:
    truth = pd.read_csv(sim / "truth.csv")
    arcs = {(r.a, r.b): r.relation for r in truth.itertuples() if r.relation != "none"}
    back = {"->": "<-", "<-": "->", "--": "--"}
    relation = [arcs.get((a, b)) or back.get(arcs.get((b, a)), "none")
                for a, b in zip(ask["a"], ask["b"], strict=True)]
    return ask.assign(relation=relation)


def _answer_in_place(sim, path, unknown: int = 0) -> pd.DataFrame:
    """The suggested file answered from the truth in place (its design record kept), the
    first ``unknown`` rows left unknown."""
    table = _answered(sim, pd.read_csv(path, dtype=str, keep_default_na=False))
    table.loc[table.index[:unknown], "relation"] = "unknown"
    table.to_csv(path, index=False)
    return table


def test_suggest_then_discover_uses_the_answers(sim, tmp_path, capsys):
    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(sim / "data.csv"), "--n", "30", "--probabilities",
                 str(sim / "probs.npz"), "--out", str(ask), "--seed", "1"]) == 0
    assert "fill in the relation column" in capsys.readouterr().out
    table = pd.read_csv(ask, dtype=str, keep_default_na=False)
    # no probability beside the blank answer: the design after it, P(related) in the record
    assert list(table.columns) == ["a", "b", "relation", "confidence", "round", "stratum",
                                   "stratum_pairs", "stratum_drawn"]
    assert (table["relation"] == "").all() and len(table) == 30
    record = json.loads((tmp_path / "ask.csv.json").read_text())
    p = [pair[3] for pair in record["rounds"][0]["pairs"]]
    assert all(len(repr(x)) < 9 for x in p)  # 0.01, not 0.00999999
    _answer_in_place(sim, ask, unknown=3)
    out = tmp_path / "edges.csv"
    assert main(["discover", str(sim / "data.csv"), "--known", str(ask),
                 "--probabilities", str(sim / "probs.npz"), "--out", str(out), "--quiet"]) == 0
    summary = capsys.readouterr().out
    assert "answers: 30 pairs suggested, 27 answered (3 unknown)" in summary
    assert f"--more {ask}" in summary  # what more answers would buy, and how to ask them
    report = json.loads((tmp_path / "edges.csv.json").read_text())
    assert report["answers"]["unknown"] == 3 and sum(report["answers"]["answered"]) == 27
    assert "designed" in report["map"]["candidates"]
    assert len(pd.read_csv(out)) == EdgeProbabilities.load(sim / "probs.npz").n_pairs - 27


def test_a_second_round_asks_other_pairs_and_discover_uses_both(sim, tmp_path, capsys):
    ask, ask2 = tmp_path / "ask.csv", tmp_path / "ask2.csv"
    common = ["--probabilities", str(sim / "probs.npz"), "--seed", "4"]
    assert main(["suggest", str(sim / "data.csv"), "--n", "15", "--out", str(ask),
                 *common]) == 0
    _answer_in_place(sim, ask)
    assert main(["suggest", str(sim / "data.csv"), "--n", "15", "--more", str(ask),
                 "--out", str(ask2), *common]) == 0
    line = capsys.readouterr().out
    assert f"--known {ask} {ask2}" in line and "round 2" in line
    first, second = (pd.read_csv(f, dtype=str, keep_default_na=False) for f in (ask, ask2))
    assert not set(zip(first.a, first.b, strict=True)) & set(zip(second.a, second.b,
                                                                  strict=True))
    assert (second["round"] == "2").all()
    _answer_in_place(sim, ask2)
    out = tmp_path / "edges.csv"
    assert main(["discover", str(sim / "data.csv"), "--known", str(ask), str(ask2),
                 "--probabilities", str(sim / "probs.npz"), "--out", str(out), "--quiet"]) == 0
    assert "30 pairs suggested in 2 rounds, 30 answered" in capsys.readouterr().out
    # the second round pasted into the first round's file: refused by name
    pd.concat([first.assign(relation=_answered(sim, first)["relation"]),
               pd.read_csv(ask2, dtype=str, keep_default_na=False)]).to_csv(ask, index=False)
    assert main(["discover", str(sim / "data.csv"), "--known", str(ask), "--probabilities",
                 str(sim / "probs.npz"), "--out", str(out), "--quiet"]) == 2
    assert "round 2 is not in the design record ask.csv.json" in capsys.readouterr().err


def test_suggest_never_replaces_answers_or_known_relations(sim, tmp_path, capsys):
    ask, known = tmp_path / "ask.csv", tmp_path / "known.csv"
    base = ["suggest", str(sim / "data.csv"), "--n", "12", "--probabilities",
            str(sim / "probs.npz")]
    assert main([*base, "--out", str(ask)]) == 0
    assert main([*base, "--out", str(ask), "--seed", "2"]) == 0  # its own untouched file
    answered = _answer_in_place(sim, ask)
    assert main([*base, "--out", str(ask), "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert "your answers" in err and f"--more {ask}" in err
    assert pd.read_csv(ask, dtype=str, keep_default_na=False).equals(answered)
    pd.read_csv(sim / "truth.csv").head(8).to_csv(known, index=False)
    before = known.read_bytes()
    assert main([*base, "--out", str(known)]) == 2  # a hand-written a,b,relation file
    assert known.read_bytes() == before
    assert main([*base, "--out", str(known), "--force"]) == 0


def test_the_next_step_line_repeats_the_data_options(sim, tmp_path, capsys):
    import shlex

    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(sim / "data.csv"), "--n", "30", "--probabilities",
                 str(sim / "probs.npz"), "--out", str(ask), "--seed", "5", "--max-arity", "25",
                 "--missing", "drop", "--relations", "causal"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    command = line[line.index("causalcal discover"):]
    for option in ("--max-arity 25", "--missing drop", "--relations causal", "--seed 5",
                   f"--probabilities {sim / 'probs.npz'}"):
        assert option in command
    table = pd.read_csv(ask, dtype=str, keep_default_na=False)
    truth = pd.read_csv(sim / "truth.csv")
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(pd.concat([truth.a, truth.b]))
    for r in truth.itertuples():
        if r.relation in ("->", "<-"):
            graph.add_edge(*((r.a, r.b) if r.relation == "->" else (r.b, r.a)))
    rows = []
    for row in table.to_dict("records"):
        a, b = row["a"], row["b"]
        if nx.has_path(graph, a, b) or nx.has_path(graph, b, a):
            first = a if nx.has_path(graph, a, b) else b
            rows.append({**row, "a": first, "b": b if first == a else a, "relation": "causes"})
        else:
            rows += [{**row, "relation": "not-causes"},
                     {"a": b, "b": a, "relation": "not-causes"}]
    pd.DataFrame(rows).fillna("").to_csv(ask, index=False)
    out = tmp_path / "causal.csv"
    words = shlex.split(command.replace("OUT.csv", str(out)))
    assert main([*words[1:], "--quiet"]) == 0  # copied as printed, it runs


def test_suggest_leaves_known_pairs_out_and_refuses_bad_counts(sim, tmp_path):
    known = pd.read_csv(sim / "truth.csv").head(5)
    known.loc[len(known)] = [known.a[0], known.b[1], "unknown"]  # accepted, states nothing
    known.to_csv(tmp_path / "known.csv", index=False)
    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(sim / "data.csv"), "--n", "150", "--probabilities",
                 str(sim / "probs.npz"), "--known", str(tmp_path / "known.csv"),
                 "--out", str(ask), "--relations", "causal"]) == 0
    asked = set(zip(*pd.read_csv(ask)[["a", "b"]].to_numpy().T, strict=True))
    stated = known[~known["relation"].isin(["none", "unknown"])]  # 'none': no causation
    given = {tuple(sorted(p)) for p in zip(stated["a"], stated["b"], strict=True)}
    assert given and not {tuple(sorted(p)) for p in asked} & given
    assert main(["suggest", str(sim / "data.csv"), "--n", "0", "--probabilities",
                 str(sim / "probs.npz"), "--out", str(tmp_path / "x.csv")]) == 2
    assert main(["suggest", str(sim / "data.csv"), "--n", str(10 ** 6), "--probabilities",
                 str(sim / "probs.npz"), "--out", str(tmp_path / "y.csv")]) == 2
    # a suggested file as --known: its design goes on with --more
    assert main(["suggest", str(sim / "data.csv"), "--n", "5", "--probabilities",
                 str(sim / "probs.npz"), "--known", str(ask), "--out",
                 str(tmp_path / "z.csv")]) == 2
