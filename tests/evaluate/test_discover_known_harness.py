"""The issue-26 measuring harness `benchmarks/discover_known.py` on a tiny case."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "discover_known.py"


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("discover_known_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("discover_known")
    harness.main(["--networks", "child", "asia", "--n", "200", "--schemes", "random10",
                  "--draws", "1", "--n-boot", "3", "--out", str(out)])
    return out


def test_record_fields(run):
    record = json.loads((run / "records" / "baseline" / "child-n200" /
                         "random10_d00.json").read_text())
    for key in ("tag", "case", "network", "n", "scheme", "draw", "seed", "n_boot", "known",
                "n_heldout", "base_rate", "raw", "cal", "diagnostics", "seconds",
                "boot_seconds", "version"):
        assert key in record
    assert record["known"] == {"->": 10, "--": 0, "none": 10}
    assert record["n_heldout"] == record["n_pairs"] - 20
    for side in ("raw", "cal"):
        for measure in ("brier", "ece", "auroc", "logloss4", "mce"):
            assert np.isfinite(record[side][measure])
    assert len(json.dumps(record)) < 4000  # no per-pair arrays
    skipped = json.loads((run / "records" / "baseline" / "asia-n200" /
                          "random10_skipped.json").read_text())
    assert skipped["skipped"] and "too few" in skipped["reason"]
    summary = (run / "summary-baseline.md").read_text()
    assert "child-n200 | random10" in summary
    assert "PASS" in summary or "FAIL" in summary


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
