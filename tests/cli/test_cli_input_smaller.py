"""Issue 28 point 7, the input side: BDeu's equivalent sample size in ``--help``, a
missing data file refused before the heavy imports, ``simulate --quiet`` like the other
commands (``--no-progress`` kept as a deprecated alias), ``--jobs`` defaulting to the
cores, and a progress line for discover's calibration step (docs/design.md §10)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from test_cli_knowledge_checks import KNOWN, chain_data

from causalcal.cli import main


def help_text(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", ["bootstrap", "discover"])
def test_equivalent_sample_size_is_in_the_help(capsys, command):
    text = help_text(capsys, command)
    assert "--sample-prior ESS" in text and "equivalent sample size" in text


def test_sample_prior_reaches_the_search(tmp_path, capsys):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    assert main(["bootstrap", str(tmp_path / "data.csv"), "--out", str(tmp_path / "p.csv"),
                 "--n-boot", "2", "--quiet", "--sample-prior", "10"]) == 0
    sidecar = json.loads((tmp_path / "p.csv.json").read_text())
    assert '"search_options": {"sample_prior": 10.0}' in json.dumps(sidecar)


def test_a_missing_data_file_fails_before_the_heavy_imports(tmp_path):
    code = ("import sys; from causalcal.cli import main; "
            "code = main(['discover', 'nope.csv', '--known', 'k.csv', '--out', 'e.csv']); "
            "print(code, 'causalcal.workflow' in sys.modules, 'torch' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True)
    assert "nope.csv: no such file" in run.stderr
    assert run.stdout.split() == ["2", "False", "False"]


def test_simulate_says_quiet_and_keeps_no_progress(tmp_path, capsys):
    assert "--quiet" in help_text(capsys, "simulate")
    assert main(["simulate", "--nodes", "4", "--edges", "3", "--samples", "20", "--quiet",
                 "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    assert main(["simulate", "--nodes", "4", "--edges", "3", "--samples", "20",
                 "--no-progress", "--out", str(tmp_path / "b")]) == 0
    assert "--no-progress is deprecated; use --quiet" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["bootstrap", "discover"])
def test_jobs_default_to_the_cores(capsys, command):
    from causalcal.cli import bootstrap, discover
    from causalcal.cli.bootstrap import bootstrap_settings

    parser = argparse.ArgumentParser()
    {"bootstrap": bootstrap, "discover": discover}[command].add_arguments(parser)
    argv = ["data.csv", "--out", "p.csv"] + (["--known", "k.csv"] if command == "discover"
                                              else [])
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert bootstrap_settings(args, "fges", {}).n_jobs == min(cores, 8)
    assert "every core" in help_text(capsys, command)


@pytest.mark.slow
def test_discover_reports_the_calibration_step(tmp_path, capsys):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame(KNOWN, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                                index=False)
    argv = ["discover", str(tmp_path / "data.csv"), "--known", str(tmp_path / "known.csv"),
            "--out", str(tmp_path / "edges.csv"), "--n-boot", "4", "--jobs", "1"]
    assert main(argv) == 0
    assert "calibrating on 10 known pairs" in capsys.readouterr().err
    assert main([*argv, "--quiet"]) == 0
    assert "calibrating" not in capsys.readouterr().err
