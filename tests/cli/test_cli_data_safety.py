"""The command line never destroys or silently alters a user's data: outputs are checked
against inputs and each other before any work, a CSV and its sidecar are one unit,
categories are read as written, suspicious cells and names are refused."""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
import warnings

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities


def run(capsys, *argv) -> tuple[int, str]:
    """Exit code and standard error of ``causalcal ARGV``."""
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A small simulation, its bootstrap probabilities (.csv, .npz) and known relations."""
    out = tmp_path_factory.mktemp("sim")
    assert main(["simulate", "--nodes", "12", "--edges", "14", "--samples", "300", "--seed",
                 "2", "--out", str(out)]) == 0
    for name in ("p.csv", "p.npz"):
        assert main(["bootstrap", str(out / "data.csv"), "--n-boot", "7", "--out",
                     str(out / name), "--quiet", "--jobs", "1"]) == 0
    pd.read_csv(out / "truth.csv").to_csv(out / "known.csv", index=False)
    return out


def write_known(truth, names: list[str], path) -> None:
    """known.csv: the true arcs and 6 true non-adjacent pairs (discover needs 5)."""
    truth = pd.read_csv(truth, dtype=str, keep_default_na=False)
    arcs = truth[truth["relation"] != "none"]
    adjacent = {frozenset(p) for p in zip(arcs["a"], arcs["b"])}
    nones = [(a, b) for k, a in enumerate(names) for b in names[k + 1:]
             if frozenset((a, b)) not in adjacent][:6]
    known = pd.concat([arcs, pd.DataFrame(nones, columns=["a", "b"]).assign(relation="none")])
    known.to_csv(path, index=False)


def unchanged(path, before: bytes) -> bool:
    return path.read_bytes() == before


# ------------------------------------------------------------ 1. outputs over inputs
@pytest.mark.parametrize("case", ["bootstrap-data", "discover-known", "discover-data",
                                  "calibrate-probs", "evaluate-json"])
def test_an_output_that_is_an_input_is_refused(sim, capsys, case):
    argv, victim, options = {
        "bootstrap-data": (["bootstrap", sim / "data.csv", "--n-boot", 2, "--out",
                            sim / "data.csv"], sim / "data.csv", ("--out", "DATA")),
        "discover-known": (["discover", sim / "data.csv", "--known", sim / "known.csv",
                            "--out", sim / "known.csv"], sim / "known.csv",
                           ("--out", "--known")),
        "discover-data": (["discover", sim / "data.csv", "--known", sim / "known.csv",
                           "--out", sim / "data.csv"], sim / "data.csv", ("--out", "DATA")),
        "calibrate-probs": (["calibrate", sim / "p.csv", "--known", sim / "known.csv",
                             "--out", sim / "p.csv"], sim / "p.csv", ("--out", "PROBS")),
        "evaluate-json": (["evaluate", sim / "p.npz", "--truth", sim / "truth.csv", "--json",
                           sim / "p.npz"], sim / "p.npz", ("--json", "PROBS")),
    }[case]
    before = victim.read_bytes()
    code, err = run(capsys, *argv)
    assert code == 2
    assert all(option in err for option in options) and str(victim) in err
    assert unchanged(victim, before)


def test_an_output_onto_a_file_of_another_kind_needs_force(sim, tmp_path, capsys):
    known = tmp_path / "known.csv"
    known.write_bytes((sim / "known.csv").read_bytes())
    code, err = run(capsys, "bootstrap", sim / "data.csv", "--n-boot", 2, "--out", known,
                    "--quiet")
    assert code == 2 and "holds relations" in err and "--force" in err
    assert unchanged(known, (sim / "known.csv").read_bytes())
    assert run(capsys, "bootstrap", sim / "data.csv", "--n-boot", 2, "--out", known,
               "--quiet", "--force")[0] == 0


@pytest.mark.parametrize("header", ["a,b,p_adjacent,p_directed", "a,b,p_a_causes_b,p_b_causes_a",
                                    "a,b,p_arc,p_none"])
def test_a_ranking_of_either_kind_may_be_replaced_by_a_ranking(tmp_path, header):
    """Issue 41 item 8: discover --relations causal refused its own output as 'a data
    table'; the edge-type ranking was replaced fine. Issue 49: a ranking is discover's own
    only while its report records its checksum (an edited one, or one without a report,
    needs --force), never by its columns alone."""
    import json

    from causalcal._own import file_digest
    from causalcal.cli._paths import RANKING, TABLE, FilePlan, describe_file

    out = tmp_path / "ranked.csv"
    out.write_text(f"{header}\nx,y,0.5,0.25\n", encoding="utf-8")
    assert "did not write" in describe_file(out)  # no report beside it
    report = {"format": "causalcal.discover-report", "sha256": file_digest(out)}
    (tmp_path / "ranked.csv.json").write_text(json.dumps(report), encoding="utf-8")
    assert describe_file(out) == RANKING
    plan = FilePlan()
    plan.write("--out", out, RANKING)
    plan.check()
    out.write_text(f"{header}\nx,y,0.5,0.25\nmy,notes,1,0\n", encoding="utf-8")
    assert "edited since causalcal wrote it" in describe_file(out)
    with pytest.raises(ValueError, match="--force"):
        plan.check()
    (tmp_path / "data.csv").write_text("a,b,x\n1,2,3\n", encoding="utf-8")
    assert describe_file(tmp_path / "data.csv") == TABLE


# ------------------------------------------------------ 2. a CSV and its sidecar, one unit
def test_a_csv_write_cut_short_keeps_the_previous_pair(sim, tmp_path):
    """``ulimit -f``: the new CSV cannot be written; the old pair still reads the same."""
    pf = tmp_path / "pf.csv"
    old = EdgeProbabilities.load(sim / "p.csv")
    old.save(pf)

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))

    done = subprocess.run([sys.executable, "-m", "causalcal", "bootstrap", sim / "data.csv",
                           "--n-boot", "10", "--out", pf, "--quiet"], preexec_fn=small_files,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EdgeProbabilities.load(pf) == old


def test_two_writers_of_one_csv_leave_a_matching_pair(sim, tmp_path):
    path = tmp_path / "same.csv"
    first = EdgeProbabilities.load(sim / "p.csv")
    second = EdgeProbabilities(first.names, first.pairs, first.probs[:, [0, 2, 1, 3]],
                               n_boot=first.n_boot)
    threads = [threading.Thread(target=lambda p=p: [p.save(path) for _ in range(15)])
               for p in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EdgeProbabilities.load(path) in (first, second)


# ---------------------------------------------------------- 3. and 4. clashing outputs
def test_graph_onto_the_sidecar_of_out_is_refused(sim, tmp_path, capsys):
    out = tmp_path / "pp.csv"
    code, err = run(capsys, "bootstrap", sim / "data.csv", "--n-boot", 2, "--out", out,
                    "--graph", f"{out}.json", "--quiet")
    assert code == 2 and "--graph" in err and "sidecar" in err
    assert not out.exists()


@pytest.mark.parametrize("command", ["bootstrap", "discover"])
def test_clashing_outputs_are_refused_before_any_work(sim, tmp_path, capsys, monkeypatch,
                                                      command):
    import causalcal.data

    def no_work(*args, **kwargs):
        raise AssertionError("the data were read before the paths were checked")

    monkeypatch.setattr(causalcal.data.DiscreteData, "from_csv", no_work)
    same = tmp_path / "same.npz"
    argv = (["bootstrap", sim / "data.csv", "--out", same, "--checkpoint", same]
            if command == "bootstrap" else
            ["discover", sim / "data.csv", "--known", sim / "known.csv", "--out",
             tmp_path / "e.csv", "--plot", tmp_path / "e.csv"])
    code, err = run(capsys, *argv)
    assert code == 2 and "--out" in err and ("--checkpoint" in err or "--plot" in err)


# ----------------------------------------------------------------- 5. categories as written
def test_categories_are_the_cells_as_written(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("zero,one,flag,num\n01,1,True,1\n1,1.0,true,2\n01,+1,TRUE,1\n1,1e0,True,2\n"
                    "01, 1,true,3\n")
    data = DiscreteData.from_csv(path)
    assert data.categories[0] == ["01", "1"]
    assert sorted(data.categories[1]) == [" 1", "+1", "1", "1.0", "1e0"]
    assert data.categories[2] == ["TRUE", "True", "true"]
    assert data.categories[3] == [1, 2, 3]  # a plain numeric column stays numeric


def test_help_says_how_numbers_are_read(capsys):
    with pytest.raises(SystemExit):
        main(["bootstrap", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "01 and 1" in text and "numeric" in text


# ------------------------------------------------------------------ 6. a stale sidecar
def test_an_edited_csv_is_read_as_written_with_a_warning(tmp_path, capsys):
    probs = EdgeProbabilities(["x", "y", "z"], np.array([[0, 1], [1, 2]]),
                              np.array([[0.2, 0.3, 0.4, 0.1], [0.5, 0.5, 0, 0]]), n_boot=10)
    path = tmp_path / "p.csv"
    probs.save(path)
    frame = pd.read_csv(path)
    frame.loc[0, ["p_none", "p_forward", "p_backward", "p_undirected"]] = [0.25, 0.75, 0, 0]
    frame.to_csv(path, index=False)
    with pytest.warns(UserWarning, match="does not belong to"):
        again = EdgeProbabilities.load(path)
    np.testing.assert_array_equal(again.probs[0], [0.25, 0.75, 0, 0])
    assert again.names == ["x", "y", "z"]


# ------------------------------------------------------- 8. --max-arity reaches the search
@pytest.mark.slow
def test_max_arity_reaches_the_search(tmp_path, capsys):
    rng = np.random.default_rng(0)
    wide = rng.integers(0, 25, 400)
    frame = pd.DataFrame({"w": wide, "a": wide % 3, "b": rng.integers(0, 2, 400)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    code, err = run(capsys, "bootstrap", tmp_path / "d.csv", "--n-boot", 2, "--max-arity", 30,
                    "--out", tmp_path / "p.npz", "--quiet")
    assert code == 0, err


# ----------------------------------------------------------------- 9. names
def test_control_characters_in_names_are_refused(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_bytes(b'"a\rb",c\n0,1\n1,0\n0,1\n1,1\n')
    code, err = run(capsys, "bootstrap", path, "--n-boot", 2, "--out", tmp_path / "p.csv")
    assert code == 2 and "column 1" in err and "control character" in err
    assert not (tmp_path / "p.csv").exists()


def test_formula_like_names_are_flagged(tmp_path):
    frame = pd.DataFrame({"=SUM(A1)": [0, 1, 0], "b": [1, 0, 1]})
    with pytest.warns(UserWarning, match="formula"):
        DiscreteData.from_frame(frame)


@pytest.mark.slow
def test_formula_like_names_are_written_exactly_with_one_warning(tmp_path, capsys):
    """Every CSV written with variable names keeps them as they are (they read back
    identical); each command warns once where the names come in (docs/design.md §10)."""
    from causalcal.simulate import random_network

    net = random_network(8, 10, seed=4)
    names = ["=SUM(A1)", "+x", "-y", "@z", "'q", "a,b", "c", "d"]
    net.names = names
    net.save(tmp_path / "net.json")
    sim = tmp_path / "sim"
    code, err = run(capsys, "simulate", "--load", tmp_path / "net.json", "--samples", 300,
                    "--seed", 1, "--out", sim)
    assert code == 0 and err.count("formula") == 1, err
    write_known(sim / "truth.csv", names, sim / "known.csv")
    commands = {
        "bootstrap": ["bootstrap", sim / "data.csv", "--n-boot", 4, "--out", sim / "p.csv",
                      "--quiet"],
        "calibrate": ["calibrate", sim / "p.csv", "--known", sim / "known.csv", "--out",
                      sim / "c.csv", "--calibrator", "softmax"],
        "discover": ["discover", sim / "data.csv", "--known", sim / "known.csv",
                     "--probabilities", sim / "p.csv", "--out", sim / "e.csv", "--quiet"],
    }
    for argv in commands.values():
        code, err = run(capsys, *argv)
        assert code == 0, err
        assert err.count("formula") == 1, err
    assert EdgeProbabilities.load(sim / "p.csv").names == names
    assert EdgeProbabilities.load(sim / "c.csv").names == names
    for written in ("truth.csv", "p.csv", "c.calibration.csv", "e.csv"):
        frame = pd.read_csv(sim / written, dtype=str, keep_default_na=False)
        assert set(frame["a"]).union(frame["b"]) <= set(names), written
        assert "'=SUM" not in (sim / written).read_text(), written
    ranked = pd.read_csv(sim / "e.csv", dtype=str, keep_default_na=False)
    assert {"+x", "-y", "@z"} <= set(ranked["a"]).union(ranked["b"])
    assert list(pd.read_csv(sim / "data.csv").columns) == names


# -------------------------------------- 10. probabilities and features of one run only
def test_features_from_the_checkpoint_of_another_run_are_refused(sim, tmp_path, capsys):
    """--probabilities computed with seed 0 and pair features from a seed-1 --checkpoint
    are not mixed; a checkpoint of the probabilities' own run is used."""
    assert run(capsys, "bootstrap", sim / "data.csv", "--n-boot", 7, "--seed", 1,
               "--checkpoint", tmp_path / "ck1", "--out", tmp_path / "other.npz",
               "--quiet")[0] == 0
    known = tmp_path / "known.csv"
    write_known(sim / "truth.csv", list(pd.read_csv(sim / "data.csv").columns), known)
    argv = ["discover", sim / "data.csv", "--known", known, "--probabilities", sim / "p.npz",
            "--features", "--out", tmp_path / "e.csv", "--quiet", "--n-boot", 7]
    code, err = run(capsys, *argv, "--checkpoint", tmp_path / "ck1", "--seed", 1)
    assert code == 2 and str(sim / "p.npz") in err and str(tmp_path / "ck1") in err
    assert "seed: 0 for the probabilities, 1 in the checkpoint" in err
    assert not (tmp_path / "e.csv").exists()
    old = EdgeProbabilities.load(sim / "p.npz")
    old.provenance = None  # as written before provenance was recorded
    old.save(tmp_path / "old.npz")
    code, err = run(capsys, *argv[:5], tmp_path / "old.npz", *argv[6:], "--checkpoint",
                    tmp_path / "ck1")
    assert code == 2 and "old.npz records no provenance" in err


def test_probabilities_record_their_run_in_both_formats(sim, tmp_path):
    """seed, n_boot, search and options go with the probabilities (.npz, CSV sidecar);
    files without them still load."""
    from causalcal.bootstrap import BootstrapSettings

    for name in ("p.npz", "p.csv"):
        probs = EdgeProbabilities.load(sim / name)
        assert probs.provenance["seed"] == 0 and probs.provenance["n_boot"] == 7
        assert probs.provenance["search"] == "fges"
        old = EdgeProbabilities.load(sim / name)
        old.provenance = None
        old.save(tmp_path / name)
        again = EdgeProbabilities.load(tmp_path / name)
        assert again == probs and again.provenance is None
    data = DiscreteData.from_csv(sim / "data.csv")
    run_ = BootstrapSettings(n_boot=7, seed=0, checkpoint=tmp_path / "ck0", progress=False)
    done = run_.run(data, features=True)
    features = run_.checkpoint_features(data, EdgeProbabilities.load(sim / "p.npz"))
    np.testing.assert_array_equal(features, done.pair_features)


# --------------------------------------------------------- 11. simulate keeps files
def test_simulate_keeps_existing_files_unless_force(tmp_path, capsys):
    (tmp_path / "data.csv").write_text("mine,yours\n1,2\n")
    code, err = run(capsys, "simulate", "--nodes", 4, "--edges", 3, "--samples", 20, "--out",
                    tmp_path)
    assert code == 2 and "data.csv" in err and "--force" in err
    assert (tmp_path / "data.csv").read_text() == "mine,yours\n1,2\n"
    assert run(capsys, "simulate", "--nodes", 4, "--edges", 3, "--samples", 20, "--out",
               tmp_path, "--force")[0] == 0


# ------------------------------------------------------------ 12. calibrators refuse
@pytest.mark.parametrize("name", ["temperature", "softmax", "dirichlet", "snn"])
def test_calibrators_refuse_one_class_or_one_sample(name):
    from causalcal.calibration import get
    from causalcal.errors import InputError

    P = np.full((6, 4), 0.25)
    with pytest.raises(InputError, match="single class"):
        get(name).fit(P, np.zeros(6, dtype=int))
    with pytest.raises(InputError, match="at least 2 samples"):
        get(name).fit(P[:1], np.zeros(1, dtype=int))


@pytest.mark.parametrize("name", ["isotonic", "platt", "histogram", "bbq"])
def test_binary_calibrators_warn_of_a_constant_fit(name):
    """One class or one sample: a constant fit, as scikit-learn's IsotonicRegression, but
    said, naming the calibrator."""
    from causalcal.calibration import get

    scores = np.array([0.1, 0.4, 0.8])
    what = type(get(name)).__name__
    with pytest.warns(UserWarning, match=f"{what}: every label is 0, a single class") as said:
        get(name).fit(scores, np.zeros(3, dtype=int))
    assert said[0].category.__name__ == "ConstantFitWarning"
    with pytest.warns(UserWarning, match=f"{what}: a training set of 1 sample"):
        get(name).fit(scores[:1], [1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        get(name).fit(scores, [0, 1, 1])


def test_a_fit_beyond_memory_is_refused_with_an_estimate(monkeypatch):
    import causalcal._validation as validation
    from causalcal.calibration import get
    from causalcal.errors import InputError

    monkeypatch.setattr(validation, "_available_memory", lambda: 1e4)
    P = np.tile([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1]], (50, 1))
    with pytest.raises(InputError, match=r"needs about .* GB"):
        get("snn").fit(P, np.tile([0, 1], 50))


# ------------------------------------------------------------- 13. missing values, rows
def test_na_cells_are_reported_unless_na_values_says_what_they_are(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("a,b\nx,1\nNA,2\ny,1\nx,2\n")
    code, err = run(capsys, "bootstrap", path, "--n-boot", 2, "--out", tmp_path / "p.npz")
    assert code == 2 and "column 'a', row 2: 'NA' looks like a missing value" in err
    assert run(capsys, "bootstrap", path, "--n-boot", 2, "--out", tmp_path / "p.npz",
               "--na-values", "", "--quiet")[0] == 0


def test_an_empty_cell_to_be_binned_is_a_missing_value(tmp_path, capsys):
    path = tmp_path / "d.csv"
    values = [f"{v:.3f}" for v in np.linspace(0, 1, 30)]
    values[4] = ""
    path.write_text("x,y\n" + "".join(f"{v},{k % 2}\n" for k, v in enumerate(values)))
    code, err = run(capsys, "bootstrap", path, "--n-boot", 2, "--out", tmp_path / "p.npz",
                    "--discretize", "quantile:3")
    assert code == 2 and "column 'x', row 5: missing value" in err and "nan" not in err


# ------------------------------------------------------------------------ vague ones
def test_simulate_negative_seed_names_the_option(tmp_path, capsys):
    code, err = run(capsys, "simulate", "--nodes", 4, "--edges", 3, "--seed", -3, "--out",
                    tmp_path)
    assert code == 2 and "--seed" in err


def test_pickled_arrays_are_refused_naming_the_file(sim, tmp_path):
    from causalcal._edges_io import read_npz_features
    from causalcal.errors import InputError

    path = tmp_path / "p.npz"
    probs = EdgeProbabilities.load(sim / "p.npz")
    np.savez(path, names=np.asarray(probs.names), pairs=probs.pairs, probs=probs.probs,
             n_boot=probs.n_boot, pair_features=np.array([{"x": 1}] * len(probs), dtype=object))
    with pytest.raises(InputError, match=rf"{path.name}: holds pickled"):
        read_npz_features(path, len(probs))


@pytest.mark.slow
def test_sigterm_is_handled_like_ctrl_c(sim, tmp_path, poll):
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "causalcal", "bootstrap", sim / "data.csv",
                             "--n-boot", "5000", "--jobs", "2", "--out", tmp_path / "p.npz",
                             "--checkpoint", tmp_path / "ck", "--quiet"],
                            stderr=subprocess.PIPE, text=True)
    assert poll(lambda: list((tmp_path / "ck").glob("rep-*.npz")), timeout=300)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 143
    assert "terminated (SIGTERM)" in err and "leaked" not in err


def test_study_negative_seed_names_the_option(tmp_path, capsys):
    code, err = run(capsys, "study", "--preset", "quick", "--seed", -3, "--out",
                    tmp_path / "s")
    assert code == 2 and "--seed" in err and "internal" not in err
    from causalcal.errors import InputError
    from causalcal.evaluate import preset

    with pytest.raises(InputError, match="seed must be a non-negative integer"):
        preset("quick", seed=-1)
