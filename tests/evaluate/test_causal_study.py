"""The causal study (``causalcal study --relations causal``; docs/design.md §9.9): its
configuration, a tiny study end to end on an edge study's cache, resuming, and the edge
study's records left as they were."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from causalcal.ancestry import causal_truth
from causalcal.cli import main
from causalcal.errors import InputError
from causalcal.evaluate import StudyConfig, preset
from causalcal.evaluate.study_files import dumps, load_run
from causalcal.evaluate.study_output import config_record
from causalcal.simulate import BayesianNetwork

GRID = ((40, (50,)),)
# a tiny grid of the quick preset: V = 40, E = 50, n_boot = 5, two repeats
ARGS = ["study", "--preset", "quick", "--nodes", "40", "--edges", "50", "--n-boot", "5",
        "--repeats", "2", "--quiet", "--no-plots"]


def test_edge_records_keep_their_settings():
    """``relations`` is absent from an edge study's run settings and config.json, so its
    existing records and files keep matching byte for byte."""
    config = preset("quick")
    assert config.relations == "edges" and config.tag == "snn"
    assert dumps(config.run_key()) == dumps({
        "seed": 0, "n_samples": 1000, "n_boot": 10, "search": "fges", "search_options": {},
        "network_options": {}, "calibrator": "snn", "calibrator_params": {},
        "selection": "design", "bin_size": 100})
    assert "relations" not in config_record(config)


def test_an_edge_record_written_before_the_field_still_loads(tmp_path):
    old = {"seed": 0, "n_samples": 1000, "n_boot": 10, "search": "fges",
           "search_options": {}, "network_options": {}, "calibrator": "snn",
           "calibrator_params": {}, "selection": "design", "bin_size": 100}
    path = tmp_path / "V100_E100_N20_r0.json"
    path.write_text(json.dumps({"N": 20, "status": "ok", "settings": old}))
    assert load_run(path, preset("quick").run_key())["N"] == 20
    with pytest.raises(InputError, match="relations"):  # a causal study never takes it
        load_run(path, preset("quick", relations="causal").run_key())


def test_causal_configuration():
    config = StudyConfig(grid=GRID, sizes=(6, 40), relations="causal")
    assert config.tag == "snn_causal" and config.run_key()["relations"] == "causal"
    assert config.cache_key() == StudyConfig(grid=GRID, sizes=(40,)).cache_key()
    assert config_record(config)["relations"] == "causal"
    assert StudyConfig(grid=GRID, sizes=(40,), relations="causal",
                       selection="none").tag == "snn_random-sample_causal"
    with pytest.raises(InputError, match="relations must be one of edges, causal"):
        StudyConfig(grid=GRID, sizes=(40,), relations="ancestors")
    with pytest.raises(InputError, match="pair features are for edge types"):
        StudyConfig(grid=GRID, sizes=(40,), relations="causal", features=("degree",))
    with pytest.raises(InputError, match="at least 3"):
        StudyConfig(grid=GRID, sizes=(2,), relations="causal")
    with pytest.raises(InputError, match="multiple of 4"):
        StudyConfig(grid=GRID, sizes=(6,))


def test_cli_refuses_features_with_causal_relations(tmp_path, capsys):
    assert main([*ARGS, "--relations", "causal", "--features", "--out",
                 str(tmp_path / "s")]) == 2
    assert "pair features are for edge types" in capsys.readouterr().err


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """An edge study, then a causal study on its cache."""
    out = tmp_path_factory.mktemp("causal")
    assert main([*ARGS, "--sizes", "12", "--out", str(out)]) == 0
    cache = out / "cache" / "V40_E50_r0"
    stamps = {p.name: p.stat().st_mtime_ns
              for p in [cache / "probs.npz", *sorted((cache / "bootstrap").iterdir())]}
    assert main([*ARGS, "--relations", "causal", "--sizes", "6", "12", "--out",
                 str(out)]) == 0
    return out, stamps


@pytest.mark.slow
def test_causal_study_end_to_end_on_the_edge_cache(studies):
    out, stamps = studies
    cache = out / "cache" / "V40_E50_r0"
    assert stamps == {p.name: p.stat().st_mtime_ns
                      for p in [cache / "probs.npz", *sorted((cache / "bootstrap").iterdir())]}
    timing = [json.loads(line) for line in (out / "timing.jsonl").read_text().splitlines()]
    assert timing[-1]["calibrator"] == "snn_causal" and timing[-1]["bootstraps_new"] == 0
    for r in (0, 1):  # the truth is the true DAG's ancestry
        unit = out / "cache" / f"V40_E50_r{r}"
        assert (unit / "ancestral.npz").exists()
        network = BayesianNetwork.load(unit / "network.json")
        with np.load(unit / "causal_truth.npz") as z:
            assert np.array_equal(z["labels"], causal_truth(network.dag()))
    results = out / "results" / "snn_causal"
    runs = pd.read_csv(results / "runs.csv")
    assert len(runs) == 4 and set(runs["status"]) == {"ok"}
    assert np.all(runs["n_test"] == 40 * 39 // 2 - runs["N"])
    for col in ("before_overall_mce", "after_overall_ece", "after_causes_f1",
                "before_neither_precision", "after_causes_auroc", "after_default_p_neither"):
        assert runs[col].between(0, 1).all(), col
    record = json.loads((results / "runs" / "V40_E50_N6_r0.json").read_text())
    assert record["settings"]["relations"] == "causal" and len(record["true_counts"]) == 3
    assert len(record["calibration_pairs"]) == 6 and len(record["after_default_row"]) == 3
    table = (results / "table.md").read_text()
    assert "Causal probabilities" in table and "| causes P |" in table
    for n in (6, 12):
        assert f"| {n} | 50 | before |" in table and f"| {n} | 50 | after |" in table
    summary = json.loads((results / "summary.json").read_text())
    assert {s["N"] for s in summary} == {6, 12}
    assert all("causes_auroc_after" in s for s in summary)
    assert (out / "results" / "snn" / "runs.csv").exists()  # the edge study's, apart


@pytest.mark.slow
def test_causal_study_resumes_from_its_records(studies):
    out, _ = studies
    results = out / "results" / "snn_causal"
    first = pd.read_csv(results / "runs.csv")
    files = {p: p.read_bytes() for p in (results / "table.md", results / "config.json")}
    kept = results / "runs" / "V40_E50_N6_r0.json"
    stamp = kept.stat().st_mtime_ns
    (results / "runs" / "V40_E50_N12_r1.json").unlink()
    (out / "cache" / "V40_E50_r1" / "ancestral.npz").unlink()  # rebuilt from the checkpoint
    assert main([*ARGS, "--relations", "causal", "--sizes", "6", "12", "--out",
                 str(out)]) == 0
    assert kept.stat().st_mtime_ns == stamp
    again = pd.read_csv(results / "runs.csv")
    cols = [c for c in first.columns if c.startswith(("before_", "after_"))]
    pd.testing.assert_frame_equal(first[cols], again[cols])
    assert all(p.read_bytes() == text for p, text in files.items())
