"""Rerunning a finished study writes the same bytes (issue 28 point 7: rerunning the
documented Table 33 command rewrote seven tracked files — the summaries, config.json with
its timing and job count, and a new timing.jsonl line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causalcal.cli import main


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "cache" not in p.relative_to(root).parts}


@pytest.mark.slow
def test_rerunning_a_finished_study_changes_no_file(tmp_path):
    argv = ["study", "--preset", "quick", "--repeats", "1", "--n-boot", "3", "--sizes", "20",
            "--out", str(tmp_path), "--quiet"]
    assert main([*argv, "--jobs", "2"]) == 0
    first = _files(tmp_path)
    assert len((tmp_path / "timing.jsonl").read_text().splitlines()) == 1
    config = json.loads((tmp_path / "results" / "snn" / "config.json").read_text())
    assert not {"seconds", "n_jobs", "plots"} & set(config)
    assert main([*argv, "--jobs", "1"]) == 0  # resumed: nothing computed
    assert _files(tmp_path) == first
