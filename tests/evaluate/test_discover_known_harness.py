"""The issue-26 measuring harness `python -m studies.discover_known` on a tiny case."""

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import causalcal
from studies.discover_known import cases as cases_mod
from studies.discover_known import causal as causal_mod
from studies.discover_known import cli
from studies.discover_known import draws as draws_mod
from studies.discover_known import records as records_mod


@pytest.fixture(scope="module")
def harness():
    """The package's modules under the names the tests use."""
    return SimpleNamespace(main=cli.main, parse_args=cli.parse_args,
                           folder_tag=cli.folder_tag, cases_mod=cases_mod,
                           draws_mod=draws_mod, causal_mod=causal_mod, causalcal=causalcal)


def _record(path, case, scheme, draw=None):
    """The record of ``(case, scheme, draw)`` in the JSON-lines file ``path`` (draw None:
    the setting's skip record)."""
    found = [r for r in records_mod.read_records(path)
             if records_mod.record_key(r) == (case, scheme, draw)]
    assert len(found) == 1, (case, scheme, draw, len(found))
    return found[0]


@pytest.fixture(scope="module")
def run(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("discover_known")
    harness.main(["--networks", "child", "asia", "--n", "200", "--schemes", "random10",
                  "--draws", "1", "--n-boot", "3", "--out", str(out)])
    return out


def test_record_fields(run):
    record = _record(run / "baseline.jsonl", "child-n200", "random10", 0)
    for key in ("tag", "case", "network", "n", "scheme", "draw", "seed", "n_boot", "known",
                "n_heldout", "base_rate", "raw", "cal", "diagnostics", "seconds",
                "boot_seconds", "version"):
        assert key in record
    assert record["known"] == {"->": 10, "--": 0, "none": 10}
    assert record["n_heldout"] == record["n_pairs"] - 20
    for side in ("raw", "cal"):
        for measure in ("brier", "ece", "auroc", "logloss4", "mce", "mce_none",
                        "mce_directed", "mce_undirected"):
            assert np.isfinite(record[side][measure])
    assert len(json.dumps(record)) < 4000  # no per-pair arrays
    skipped = _record(run / "baseline.jsonl", "asia-n200", "random10")
    assert skipped["skipped"] and "too few" in skipped["reason"]
    summary = (run / "summary-baseline.md").read_text()
    assert "child-n200 | random10" in summary
    assert "PASS" in summary or "FAIL" in summary
    assert "per-type ECE (not acceptance lines)" in summary and "- mce_none:" in summary
    assert "- ece_none:" in summary and "k-class ECE" in summary
    assert "cal mce" not in summary  # the overall-MCE line is retired (issue 39 item 4)


def test_known_pairs_are_not_held_out(harness):
    draws, cases = harness.draws_mod, harness.cases_mod
    case = cases.simulated_case("child", 200)
    p_adjacent = np.zeros(len(case.truth))
    known = draws.draw_known(case, "cpdag10", p_adjacent, np.random.default_rng(0))
    if isinstance(known, str):  # child's CPDAG may lack 10 undirected edges
        known = draws.draw_known(case, "random10", p_adjacent, np.random.default_rng(0))
    keys = draws.known_keys(known, case.names)
    assert len(keys) == len(known)
    names = np.asarray(case.names)
    rest = np.setdiff1d(np.arange(len(case.truth)), keys)
    i, j = harness.causalcal.edges.pair_from_index(rest, case.n_vars)
    edges = pd.DataFrame({"a": names[i], "b": names[j]})
    assert np.array_equal(np.sort(draws.heldout_frame(edges, case.names, keys)), rest)
    ki, kj = harness.causalcal.edges.pair_from_index(keys[:1], case.n_vars)
    leaked = pd.concat([edges, pd.DataFrame({"a": names[ki], "b": names[kj]})])
    with pytest.raises(AssertionError):
        draws.heldout_frame(leaked, case.names, keys)
    # known "none" pairs are non-adjacent; known "->" rows are true arcs, cause first
    truth = case.truth[draws.known_keys(known[known["relation"] == "none"], case.names)]
    assert (truth == 0).all()
    index = {n: k for k, n in enumerate(case.names)}
    arcs = {tuple(a) for a in case.arcs.tolist()}
    for row in known[known["relation"] == "->"].itertuples():
        assert (index[row.a], index[row.b]) in arcs


# ------------------------------------------------- --relations causal (issue 30)
@pytest.fixture(scope="module")
def run_causal(harness, run):
    """In the edge run's folder: the ancestral bootstrap is checked against its plain
    one."""
    out = run
    harness.main(["--relations", "causal", "--tag", "causal", "--networks", "child", "asia",
                  "--n", "200", "--schemes", "random10", "direct10", "--draws", "1",
                  "--n-boot", "3", "--out", str(out)])
    return out


def test_causal_record_fields(run_causal):
    path = run_causal / "causal.jsonl"
    record = _record(path, "child-n200", "random10", 0)
    assert record["relations"] == "causal" and record["scheme"] == "random10"
    assert record["known"] == {"causes": 10, "not-causes": 20}
    assert record["n_known_pairs"] == 20
    assert record["n_heldout"] == record["n_pairs"] - 20
    assert record["n_heldout_mutual_left_out"] == 0 and not record["truth_has_cycle"]
    for side in ("raw", "cal"):
        for measure in ("brier", "ece", "auroc", "logloss3", "mce"):
            assert np.isfinite(record[side][measure])
    assert record["diagnostics"]["map"] in ("calibrated", "identity")
    assert len(json.dumps(record)) < 4000
    assert _record(path, "child-n200", "direct10", 0)["scheme"] == "direct10"
    skipped = _record(path, "asia-n200", "random10")
    assert skipped["skipped"] and "unrelated 10" in skipped["reason"]
    assert (run_causal / "cache" / "child-n200_b3_anc.npz").is_file()
    summary = (run_causal / "summary-causal.md").read_text()
    assert "causal relations" in summary and "child-n200 | random10" in summary
    assert "log-loss (3)" in summary
    assert "PASS" in summary or "FAIL" in summary


def test_summary_of_some_schemes(harness, run_causal):
    harness.main(["--relations", "causal", "--tag", "causal", "--summary", "--schemes", "direct10",
                  "--out", str(run_causal)])
    some = (run_causal / "summary-causal-direct10.md").read_text()
    assert "child-n200 | direct10" in some and "child-n200 | random10" not in some
    assert "child-n200 | random10" in (run_causal / "summary-causal.md").read_text()


def test_ancestral_cache_matches_the_plain_one(harness, run_causal):
    cases, edges = harness.cases_mod, harness.causalcal.edges
    plain = edges.EdgeProbabilities.load(run_causal / "cache" / "child-n200_b3.npz")
    anc = edges.EdgeProbabilities.load(run_causal / "cache" / "child-n200_b3_anc.npz")
    assert plain.ancestral is None and anc.ancestral is not None
    cases.check_same_edges(anc, plain, "plain")
    other = edges.EdgeProbabilities.load(run_causal / "cache" / "asia-n200_b3.npz")
    with pytest.raises(AssertionError):
        cases.check_same_edges(anc, other, "asia")


def test_causal_with_simulations(harness, run_causal):
    out = run_causal
    harness.main(["--relations", "causal", "--tag", "causal-sim", "--networks", "child",
                  "--n", "200", "--schemes", "random10", "--draws", "1", "--n-boot", "3",
                  "--simulations", "1", "--out", str(out)])
    cache = out / "cache" / "child-n200_b3_sim1_anc.table.npz"
    with np.load(cache) as z:
        assert z["table"].shape == (7, 2)  # 2 n_boot + 1 values of P(a causes b)
        assert z["table"].sum() == 20 * 19  # every ordered pair of child
    record = _record(out / "causal-sim.jsonl", "child-n200", "random10", 0)
    assert record["kwargs"] == {"simulations": 1}
    assert "simulated" in record["diagnostics"]["cv"]
    assert record["diagnostics"]["map"] in ("calibrated", "identity", "simulated")
    summary = (out / "summary-causal-sim.md").read_text()
    assert "written: calibrated / simulated" in summary
    assert "written: calibrated |" in (out / "summary-causal.md").read_text()


def test_causal_folder_and_schemes(harness):
    assert harness.folder_tag("causal", "causal") == "causal"
    assert harness.folder_tag("x", "causal") == "causal-x"
    assert harness.folder_tag("x") == "x"
    assert harness.parse_args(["--relations", "causal"]).schemes == ["random10", "random20"]
    with pytest.raises(SystemExit):
        harness.parse_args(["--relations", "causal", "--schemes", "easy10"])
    with pytest.raises(SystemExit):
        harness.parse_args(["--schemes", "direct10"])


def _cyclic_case():
    """0 → 1 → 2 → 0 (a cycle), 3 → 0, 4 → 5; 6 and 7 isolated."""
    from types import SimpleNamespace
    arcs = np.array([[0, 1], [1, 2], [2, 0], [3, 0], [4, 5]])
    return SimpleNamespace(names=[f"v{k}" for k in range(8)], n_vars=8, arcs=arcs)


def test_causal_truth_with_a_cycle(harness):
    causal, pairs = harness.causal_mod, harness.causalcal.edges
    case = _cyclic_case()
    truth = causal.causal_truth(case.n_vars, case.arcs)
    key = {(i, j): pairs.pair_index(i, j, case.n_vars) for i in range(8) for j in range(i + 1, 8)}
    for pair in ((0, 1), (0, 2), (1, 2)):  # ancestors of each other
        assert truth[key[pair]] == causal.MUTUAL
    assert truth[key[0, 3]] == 2 and truth[key[1, 3]] == 2 and truth[key[2, 3]] == 2
    assert truth[key[4, 5]] == 1
    assert (truth == causal.MUTUAL).sum() == 3 and (truth > 0).sum() == 4
    assert (truth == 0).sum() == 28 - 7
    # a DAG: the library's truth
    dag = np.array([[0, 1], [1, 2], [3, 0], [4, 5]])
    graph = harness.causalcal.graph.PDAG.from_edges(8, [tuple(a) for a in dag.tolist()])
    from causalcal.ancestry import causal_truth
    assert np.array_equal(causal.causal_truth(8, dag), causal_truth(graph))


def test_causal_draws_leave_mutual_pairs_out(harness):
    causal = harness.causal_mod
    case = _cyclic_case()
    truth = causal.causal_truth(case.n_vars, case.arcs)
    index = {n: k for k, n in enumerate(case.names)}
    causal.SCHEMES["tiny2"] = ("random", 2)
    causal.SCHEMES["tinydirect2"] = ("direct", 1)
    try:
        for seed in range(20):
            known = causal.draw_known(case, "tiny2", truth, np.random.default_rng(seed))
            assert list(known["relation"]) == ["causes"] * 2 + ["not-causes"] * 4
            for row in known.itertuples():
                a, b = index[row.a], index[row.b]
                t = truth[harness.causalcal.edges.pair_index(min(a, b), max(a, b), 8)]
                assert t != causal.MUTUAL
                assert t == 0 if row.relation == "not-causes" else t == (1 if a < b else 2)
            nc = known[known["relation"] == "not-causes"]  # both ways
            assert set(zip(nc["a"], nc["b"])) == set(zip(nc["b"], nc["a"]))
            direct = causal.draw_known(case, "tinydirect2", truth, np.random.default_rng(seed))
            row = direct.iloc[0]
            assert (index[row.a], index[row.b]) in {(3, 0), (4, 5)}  # not the cycle's arcs
        causal.SCHEMES["tiny5"] = ("random", 4)  # only 4 causal pairs: none stays held out
        reason = causal.draw_known(case, "tiny5", truth, np.random.default_rng(0))
        assert isinstance(reason, str) and "causal 4" in reason
    finally:
        for name in ("tiny2", "tinydirect2", "tiny5"):
            causal.SCHEMES.pop(name, None)


def test_causal_measures_by_hand(harness):
    """A record's measures on a hand-made table: the mutual pairs are left out, a row
    written b-first is read the other way round."""
    causal = harness.causal_mod
    case = _cyclic_case()
    truth = causal.causal_truth(case.n_vars, case.arcs)
    known = np.array([harness.causalcal.edges.pair_index(i, j, 8)
                      for i, j in [(i, j) for i in range(8) for j in range(i + 1, 8)]
                      if not {(i, j)} & {(0, 3), (1, 3), (4, 5), (6, 7), (0, 1), (0, 2),
                                          (1, 2), (2, 3)}])
    # held out: (0,3) 3 causes 0; (1,3), (2,3) 3 causes them; (4,5) 4 causes 5; (6,7)
    # neither; the mutual pairs (0,1), (0,2), (1,2)
    rows = [  # a, b, raw (a causes b, b causes a), cal (a causes b, b causes a)
        ("v3", "v0", (0.5, 0.25), (0.6, 0.1)),   # written b-first: 3 causes 0 is true
        ("v1", "v3", (0.2, 0.4), (0.1, 0.7)),
        ("v2", "v3", (0.0, 1.0), (0.05, 0.9)),
        ("v4", "v5", (0.75, 0.0), (0.8, 0.1)),
        ("v6", "v7", (0.125, 0.125), (0.2, 0.3)),
        ("v0", "v1", (0.5, 0.5), (0.5, 0.5)),
        ("v0", "v2", (0.3, 0.3), (0.3, 0.3)),
        ("v1", "v2", (0.0, 0.0), (0.0, 0.0)),
    ]
    table = pd.DataFrame({
        "a": [r[0] for r in rows], "b": [r[1] for r in rows],
        "p_a_causes_b": [r[3][0] for r in rows], "p_b_causes_a": [r[3][1] for r in rows],
        "p_neither": [1 - sum(r[3]) for r in rows],
        "boot_a_causes_b": [r[2][0] for r in rows], "boot_b_causes_a": [r[2][1] for r in rows],
        "boot_neither": [1 - sum(r[2]) for r in rows]})
    out = causal.evaluate_draw(table, case, truth, known, n_boot=4)
    assert out["n_heldout"] == 5 and out["n_heldout_mutual_left_out"] == 3
    assert out["n_heldout_causal"] == 4 and out["base_rate"] == pytest.approx(0.8)
    # ordered pairs (cause, effect) read as (x causes y), truth, raw, cal
    ordered = [  # x causes y for (x, y) in (0,3) (1,3) (2,3) (4,5) (6,7), then reversed
        (0, 0.25, 0.1), (0, 0.2, 0.1), (0, 0.0, 0.05), (1, 0.75, 0.8), (0, 0.125, 0.2),
        (1, 0.5, 0.6), (1, 0.4, 0.7), (1, 1.0, 0.9), (0, 0.0, 0.1), (0, 0.125, 0.3)]
    y = np.array([o[0] for o in ordered], dtype=float)
    for side, col, eps in (("raw", 1, 0.25 / 4), ("cal", 2, 0.0)):
        p = np.array([o[col] for o in ordered])
        got = out[side]
        assert got["brier"] == pytest.approx(np.mean((p - y) ** 2))
        assert got["ece"] == pytest.approx(np.mean(np.abs(p - y)))  # 10 bins of one
        pos, neg = p[y == 1], p[y == 0]
        auc = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
        assert got["auroc"] == pytest.approx(auc)
        # three classes per held-out pair (neither, i causes j, j causes i), true class
        P = np.column_stack([1 - p[:5] - p[5:], p[:5], p[5:]])
        t = np.array([2, 2, 2, 1, 0])  # 3 causes 0, 1, 2; 4 causes 5; 6, 7 neither
        q = (P[np.arange(5), t] + eps) / (1 + 3 * eps)
        assert got["logloss3"] == pytest.approx(-np.mean(np.log(np.maximum(q, 1e-6))))
        assert got["mce"] == pytest.approx(0.0, abs=1e-9)  # 15 < 100: one bin
        p_causal = p[:5] + p[5:]
        assert got["mean_p_causal_unrelated"] == pytest.approx(p_causal[4])
        assert got["mean_p_causal_related"] == pytest.approx(p_causal[:4].mean())
        assert got["sum_p_causal"] == pytest.approx(p_causal.sum())


def test_causal_mce_bins_of_100(harness):
    """The three-class MCE: the columns stacked with one-hot truth, bins of 100."""
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(3), size=100)
    t = rng.integers(0, 3, size=100)
    got = harness.causal_mod.measures(P, t)["mce"]
    p, y = P.ravel(), (t[:, None] == np.arange(3)).ravel()
    order = np.argsort(p)
    chunks = np.split(order, [100, 200])
    assert got == pytest.approx(max(abs(p[c].mean() - y[c].mean()) for c in chunks))


# ------------------------------------------------- the records' JSON-lines files
def test_a_rerun_adds_no_record(harness, run):
    path = run / "baseline.jsonl"
    before = path.read_bytes()
    harness.main(["--networks", "child", "asia", "--n", "200", "--schemes", "random10",
                  "--draws", "1", "--n-boot", "3", "--out", str(run)])
    assert path.read_bytes() == before


def test_a_killed_write_is_ignored_then_cut_off(tmp_path):
    path = tmp_path / "t.jsonl"
    store = records_mod.RecordFile(path)
    first = {"case": "c", "scheme": "s", "draw": 0, "x": 0.1 + 0.2, "n": np.int64(3)}
    store.append(first)
    assert store.has("c", "s", 0) and not store.has("c", "s", 1)
    with open(path, "a") as handle:  # a run killed in the middle of its next line
        handle.write('{"case": "c", "scheme": "s", "dr')
    assert [r["x"] for r in records_mod.read_records(path)] == [0.1 + 0.2]
    store = records_mod.RecordFile(path)
    assert store.keys == {("c", "s", 0)}
    store.append({"case": "c", "scheme": "t", "skipped": True, "reason": "too few"})
    assert store.has("c", "t", 7)  # a skipped setting covers every draw
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0]) == {**first, "n": 3}
    with open(path, "a") as handle:
        handle.write("not json\n")
    with pytest.raises(ValueError, match=":3:"):
        records_mod.read_records(path)


def test_records_are_read_in_the_old_files_order(tmp_path):
    """The summary reads the records by case, then as the old file names sorted."""
    path = tmp_path / "t.jsonl"
    keys = [("b", "random10", 1), ("a", "random20", 0), ("a", "easy10", None),
            ("a", "easy10", 0), ("b", "cpdag10", 0)]
    records_mod.RecordFile(path).append_all(
        {"case": c, "scheme": s, **({"skipped": True} if d is None else {"draw": d})}
        for c, s, d in keys)
    got = [records_mod.record_key(r) for r in records_mod.sorted_records(path)]
    assert got == [("a", "easy10", 0), ("a", "easy10", None), ("a", "random20", 0),
                   ("b", "cpdag10", 0), ("b", "random10", 1)]


def test_an_old_records_folder_converts_losslessly(tmp_path):
    old = tmp_path / "records"
    (old / "child-n500").mkdir(parents=True)
    records = [{"case": "child-n500", "scheme": "random10", "draw": d, "x": 1 / 3 + d,
                "v": [1.0, 2, None]} for d in range(2)]
    for record in records:
        (old / "child-n500" / f"random10_d{record['draw']:02d}.json").write_text(
            json.dumps(record, indent=1) + "\n")
    assert records_mod.convert_folder(old, tmp_path / "new.jsonl") == 2
    assert records_mod.read_records(tmp_path / "new.jsonl") == records
    with pytest.raises(FileExistsError):
        records_mod.convert_folder(old, tmp_path / "new.jsonl")
    (old / "child-n500" / "random10_d05.json").write_text(json.dumps(records[0]))
    with pytest.raises(ValueError, match="key"):
        records_mod.folder_records(old)


def test_bic_bootstrap_has_its_own_cache_and_records(harness, tmp_path):
    harness.main(["--networks", "asia", "--n", "200", "--schemes", "random10", "--draws", "1",
                  "--n-boot", "3", "--out", str(tmp_path), "--score", "bic", "--tag", "bic"])
    names = sorted(p.name for p in (tmp_path / "cache").glob("*.npz"))
    assert names == ["asia-n200_b3_bic.npz"]
    records = records_mod.read_records(tmp_path / "bic.jsonl")
    assert records and all(r["score"] == "bic" for r in records)
