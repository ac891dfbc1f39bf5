"""`causalcal bootstrap`: output files, resume, clear one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bootstrap"))
from test_bootstrap import chain_data, threshold_search  # noqa: E402

from causalcal.bootstrap import bootstrap_edge_probabilities  # noqa: E402
from causalcal.cli import main  # noqa: E402
from causalcal.data import DiscreteData  # noqa: E402
from causalcal.edges import EdgeProbabilities  # noqa: E402

DOUBLE = "test_bootstrap:threshold_search"


@pytest.fixture()
def csv(tmp_path) -> Path:
    frame = chain_data().to_frame()
    frame["V3"] = frame["V3"].map({0: "lo", 1: "mid", 2: "hi"})  # a text column
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_cli_writes_npz_and_csv_equal_to_the_library(csv, tmp_path, capsys):
    out = tmp_path / "probs.npz"
    rc = main(["bootstrap", str(csv), "--n-boot", "5", "--seed", "3", "--out", str(out),
               "--search", DOUBLE, "-q", "--option", "threshold=0.03"])
    assert rc == 0
    assert "wrote" in capsys.readouterr().out
    data = DiscreteData.from_csv(csv)
    expected = bootstrap_edge_probabilities(data, n_boot=5, seed=3, search=threshold_search,
                                            progress=False, threshold=0.03)
    assert EdgeProbabilities.load(out) == expected
    out_csv = tmp_path / "probs.csv"
    rc = main(["bootstrap", str(csv), "--n-boot", "5", "--seed", "3", "-o", str(out_csv),
               "--search", DOUBLE, "-q", "--option", "threshold=0.03", "--jobs", "2"])
    assert rc == 0
    frame = pd.read_csv(out_csv)  # a plain read: metadata live in the .json sidecar
    assert list(frame.columns) == ["a", "b", "p_none", "p_forward", "p_backward",
                                   "p_undirected"]
    assert set(frame["a"]) | set(frame["b"]) <= set(data.names)
    loaded = EdgeProbabilities.load(out_csv)
    np.testing.assert_allclose(loaded.probs, expected.probs)
    assert loaded.n_boot == 5
    # every pair, also those never adjacent, as bnlearn's boot.strength (issue 41 item 8)
    v = data.n_vars
    assert len(frame) == v * (v - 1) // 2 > len(expected)
    pairs = [(a, b) for k, a in enumerate(data.names) for b in data.names[k + 1:]]
    assert list(zip(frame["a"], frame["b"])) == pairs
    listed = {(data.names[i], data.names[j]) for i, j in expected.pairs}
    unseen = frame[[pair not in listed for pair in pairs]]
    assert len(unseen) and (unseen[["p_none", "p_forward", "p_backward", "p_undirected"]]
                            .to_numpy() == [1, 0, 0, 0]).all()
    assert loaded == expected and len(loaded) == len(expected)


def test_cli_checkpoint_resume_and_mismatch(csv, tmp_path, capsys):
    out, ckpt = tmp_path / "p.npz", tmp_path / "ck"
    args = ["bootstrap", str(csv), "--n-boot", "3", "--out", str(out), "--search", DOUBLE,
            "-q", "--checkpoint", str(ckpt)]
    assert main(args) == 0
    first = EdgeProbabilities.load(out)
    assert len(list(ckpt.glob("rep-*.npz"))) == 3
    assert main(args) == 0
    assert EdgeProbabilities.load(out) == first
    capsys.readouterr()
    assert main([*args, "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "different arguments" in err and "seed: checkpoint 0, now 1" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--out", "p.txt"], ".npz or .csv"),
        (["--n-boot", "0"], "--n-boot"),
        (["--jobs", "0"], "--jobs"),
        (["--search", "nosuch"], "--search 'nosuch'"),
        (["--search", "nosuchmodule:f"], "cannot import"),
        (["--option", "=3"], "KEY=VALUE"),
    ],
)
def test_cli_argument_errors(csv, tmp_path, capsys, extra, message):
    args = ["bootstrap", str(csv), "--out", str(tmp_path / "p.npz"), "--search", DOUBLE, "-q"]
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("causalcal bootstrap: error:")


def test_cli_bad_data_names_the_file_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.integers(0, 2, 50), "x": rng.normal(size=50)}).to_csv(bad,
                                                                                 index=False)
    assert main(["bootstrap", str(bad), "--out", str(tmp_path / "p.npz"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "'x'" in err and "discretize" in err
    missing = tmp_path / "missing.csv"
    assert main(["bootstrap", str(missing), "--out", str(tmp_path / "p.npz"), "-q"]) == 2
    assert "missing.csv" in capsys.readouterr().err


def test_cli_help_teaches(capsys):
    with pytest.raises(SystemExit) as info:
        main(["bootstrap", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "causalcal bootstrap data.csv" in text and "--checkpoint" in text
    assert "--scheduler" in text


def test_cli_device_option_runs_the_torch_path(csv, tmp_path, capsys):
    """--device cpu: fges's count products on CPU torch tensors, the same probabilities;
    a device torch cannot use is a one-line error (exit 2). One job: the replicates run
    here, not in worker processes that would each import torch first."""
    out = tmp_path / "p.npz"
    assert main(["bootstrap", str(csv), "--n-boot", "3", "--out", str(out), "-q",
                 "--device", "cpu", "--jobs", "1"]) == 0
    data = DiscreteData.from_csv(csv)
    assert EdgeProbabilities.load(out) == bootstrap_edge_probabilities(
        data, n_boot=3, progress=False)
    assert main(["bootstrap", str(csv), "--n-boot", "1", "--out", str(out), "-q",
                 "--device", "tpu"]) == 2
    assert "device" in capsys.readouterr().err


def one_argument_search(data):
    raise AssertionError("a search of the wrong signature must be refused before the run")


def keyword_weights_search(data, *, weights, **options):
    raise AssertionError("a search of the wrong signature must be refused before the run")


@pytest.mark.parametrize("search", ["one_argument_search", "keyword_weights_search"])
def test_a_plug_in_of_the_wrong_signature_is_refused_before_the_run(csv, tmp_path, capsys,
                                                                     monkeypatch, search):
    """Issue 42 item 5: ``--search MODULE:FUNCTION`` must be callable as the documented
    ``search(data, weights, **options)``; one that is not is exit 2 naming it, before the
    data are read or any replicate runs."""
    import causalcal.cli.bootstrap as command

    def never(*args, **kwargs):
        raise AssertionError("the data were read although the search cannot be called")

    monkeypatch.setattr(command, "load_data", never)
    name = f"{__name__}:{search}"
    rc = main(["bootstrap", str(csv), "--n-boot", "2", "--out", str(tmp_path / "p.npz"),
               "--search", name, "-q"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"search '{name}' cannot be called as search(data, weights, **options)" in err
    assert not (tmp_path / "p.npz").exists()
