"""`causalcal demo` runs end to end and is deterministic for a given seed (issue 9)."""

import subprocess
import sys

import pytest

ARGS = ["--nodes", "60", "--edges", "60", "--sizes", "20", "--repeats", "2",
        "--n-boot", "8", "--jobs", "1", "--quiet"]


def _demo(out, *extra):
    return subprocess.run([sys.executable, "-m", "causalcal", "demo", "--out", str(out),
                           *ARGS, *extra], capture_output=True, text=True)


@pytest.mark.slow
def test_demo_is_deterministic(tmp_path):
    first = _demo(tmp_path / "a")
    second = _demo(tmp_path / "b")
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    table = (tmp_path / "a" / "results" / "snn" / "table.md").read_text()
    assert table == (tmp_path / "b" / "results" / "snn" / "table.md").read_text()
    assert "| 20 | 60 | before |" in first.stdout and "| 20 | 60 | after |" in first.stdout
    other = _demo(tmp_path / "c", "--seed", "1")
    assert other.returncode == 0, other.stderr
    assert (tmp_path / "c" / "results" / "snn" / "table.md").read_text() != table


@pytest.mark.slow
def test_demo_help_teaches():
    out = subprocess.run([sys.executable, "-m", "causalcal", "demo", "--help"],
                         capture_output=True, text=True)
    assert out.returncode == 0
    assert "example:" in out.stdout and "--n-boot" in out.stdout
