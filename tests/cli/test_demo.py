"""`causalcal demo` runs end to end and is deterministic for a given seed (issue 9)."""


import pytest

ARGS = ["--nodes", "60", "--edges", "60", "--sizes", "20", "--repeats", "2",
        "--n-boot", "8", "--jobs", "1", "--quiet"]


@pytest.mark.slow
def test_demo_is_deterministic(tmp_path, causalcal_cli, causalcal_main):
    """The same table from a fresh interpreter and from this process; another --seed
    gives another table."""
    first = causalcal_cli("demo", "--out", tmp_path / "a", *ARGS)
    second = causalcal_main("demo", "--out", tmp_path / "b", *ARGS)
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    table = (tmp_path / "a" / "results" / "snn" / "table.md").read_text()
    assert table == (tmp_path / "b" / "results" / "snn" / "table.md").read_text()
    assert "| 20 | 60 | before |" in first.stdout and "| 20 | 60 | after |" in first.stdout
    other = causalcal_main("demo", "--out", tmp_path / "c", *ARGS, "--seed", "1")
    assert other.returncode == 0, other.stderr
    assert (tmp_path / "c" / "results" / "snn" / "table.md").read_text() != table


@pytest.mark.slow
def test_demo_help_teaches(causalcal_cli):
    out = causalcal_cli("demo", "--help")
    assert out.returncode == 0
    assert "example:" in out.stdout and "--n-boot" in out.stdout
