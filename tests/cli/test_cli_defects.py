"""Every defect of issue 16, tried through the command line.

Each bad input must give exactly one line ``causalcal <command>: error: <message>`` naming
the problem (exit 2 for bad input, 1 for a failed run) and no traceback, or the safe
behaviour the issue describes. The kill -9 test is in test_cli_workers.py.
"""

from __future__ import annotations

import errno
import gzip
import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from causalcal.bootstrap import BootstrapSettings
from causalcal.cli import main
from causalcal.edgecal import CalibrationSettings
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Path:
    """A 10-variable simulation with 6 bootstrap replicates (probs.npz)."""
    root = tmp_path_factory.mktemp("sim")
    assert main(["simulate", "--nodes", "10", "--edges", "12", "--samples", "300", "--seed",
                 "2", "--out", str(root)]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "6", "--out",
                 str(root / "probs.npz"), "--quiet", "--jobs", "1"]) == 0
    return root


def cli(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def one_error(capsys, *argv, code: int = 2) -> str:
    """Run ``argv``; assert one error line and exit ``code``; return that line."""
    got, err = cli(capsys, *argv)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"causalcal {argv[0]}: error: ")
    assert got == code, err
    return lines[0]


# --------------------------------------------------------------- tracebacks before
def test_unknown_param_and_option_names(sim, tmp_path, capsys):
    line = one_error(capsys, "calibrate", sim / "probs.npz", "--truth", sim / "truth.csv",
                     "--n-cal", 8, "--out", tmp_path / "c.npz", "--param", "foo=1")
    assert "foo" in line and "n_models" in line  # names the bad and the accepted ones
    line = one_error(capsys, "study", "--preset", "quick", "--out", tmp_path / "s",
                     "--calibrator", "ovr-isotonic", "--param", "bar=2")
    assert "bar" in line
    line = one_error(capsys, "bootstrap", sim / "data.csv", "--n-boot", 2, "--out",
                     tmp_path / "p.npz", "--option", "foo=1")
    assert "'foo'" in line and "max_degree" in line
    assert not (tmp_path / "s").exists() and not (tmp_path / "p.npz").exists()


def test_corrupt_and_empty_npz_and_a_folder_for_a_file(sim, tmp_path, capsys):
    bad, empty = tmp_path / "bad.npz", tmp_path / "empty.npz"
    bad.write_bytes(b"PK\x03\x04 this is no zip archive")
    empty.write_bytes(b"")
    for path in (bad, empty):
        assert str(path) in one_error(capsys, "evaluate", path, "--truth", sim / "truth.csv")
    assert "is a folder" in one_error(capsys, "evaluate", tmp_path, "--truth",
                                      sim / "truth.csv")
    assert "is a folder" in one_error(capsys, "bootstrap", tmp_path, "--out",
                                      tmp_path / "p.npz")
    assert "is a folder" in one_error(capsys, "calibrate", sim / "probs.npz", "--known",
                                      tmp_path, "--out", tmp_path / "c.csv")


def test_study_out_is_a_file(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    line = one_error(capsys, "study", "--preset", "quick", "--out", tmp_path / "afile")
    assert "not a folder" in line


def test_edge_csv_with_an_empty_n_boot_line(sim, tmp_path, capsys):
    path = tmp_path / "e.csv"
    path.write_text("# n_boot=\na,b,p_none,p_forward,p_backward,p_undirected\n")
    assert "n_boot" in one_error(capsys, "evaluate", path, "--truth", sim / "truth.csv")


def test_discover_api_takes_a_probabilities_path(sim, tmp_path):
    from causalcal.relations_io import pairs_frame
    from causalcal.workflow.discover import discover

    probs = EdgeProbabilities.load(sim / "probs.npz")
    rng = np.random.default_rng(0)
    keys = rng.choice(probs.n_pairs, 20, replace=False)
    known = pairs_frame(keys, np.repeat([0, 1, 2, 3], 5), probs.names)
    by_path = discover(sim / "data.csv", known, bootstrap=BootstrapSettings(progress=False),
                       calibration=CalibrationSettings(calibrator="temperature"),
                       probabilities=sim / "probs.npz")
    by_object = discover(sim / "data.csv", known, bootstrap=BootstrapSettings(progress=False),
                         calibration=CalibrationSettings(calibrator="temperature"),
                         probabilities=probs)
    assert by_path.table.equals(by_object.table)
    with pytest.raises(ValueError, match="nope.npz: no such file"):
        discover(sim / "data.csv", known, probabilities=tmp_path / "nope.npz")


def test_write_failure_is_one_line_and_keeps_the_old_file(sim, tmp_path, capsys,
                                                           monkeypatch):
    out = tmp_path / "probs.npz"
    out.write_bytes(b"old")

    def disk_full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    line = one_error(capsys, "bootstrap", sim / "data.csv", "--n-boot", 2, "--out", out,
                     "--quiet", "--force", code=1)
    assert f"cannot write {out}" in line and "No space left" in line
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probs.npz"]


def test_output_location_is_checked_before_the_work(sim, tmp_path, capsys, monkeypatch):
    import causalcal.bootstrap

    def never(*args, **kwargs):
        raise AssertionError("the bootstrap ran although its output cannot be written")

    monkeypatch.setattr(causalcal.bootstrap, "bootstrap_edge_probabilities", never)
    (tmp_path / "file").write_text("x")
    line = one_error(capsys, "bootstrap", sim / "data.csv", "--out",
                     tmp_path / "file" / "p.npz")
    assert "is not a folder" in line
    line = one_error(capsys, "discover", sim / "data.csv", "--known", sim / "truth.csv",
                     "--out", tmp_path / "file" / "d.csv")
    assert "is not a folder" in line
    assert "is a folder" in one_error(capsys, "evaluate", sim / "probs.npz", "--truth",
                                      sim / "truth.csv", "--json", tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_read_only_output_folder(sim, tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        line = one_error(capsys, "bootstrap", sim / "data.csv", "--out", folder / "p.npz")
        assert "cannot write in" in line
    finally:
        folder.chmod(0o755)


def test_huge_n_boot(sim, tmp_path, capsys):
    line = one_error(capsys, "bootstrap", sim / "data.csv", "--n-boot", 10**12, "--out",
                     tmp_path / "p.npz")
    assert "--n-boot" in line


def test_empty_and_oddly_delimited_files(sim, tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    line = one_error(capsys, "calibrate", sim / "probs.npz", "--known", empty, "--out",
                     tmp_path / "c.csv")
    assert str(empty) in line and "empty" in line
    line = one_error(capsys, "evaluate", sim / "probs.npz", "--truth", empty)
    assert str(empty) in line
    semi = tmp_path / "semi.csv"
    semi.write_text((sim / "data.csv").read_text().replace(",", ";"))
    line = one_error(capsys, "bootstrap", semi, "--out", tmp_path / "p.npz")
    assert str(semi) in line and "semicolon" in line


# --------------------------------------------------------------- silently accepted
def test_calibrate_refuses_known_pairs_missing_a_relation(sim, tmp_path, capsys):
    truth = (sim / "truth.csv").read_text().splitlines()
    arcs = [row for row in truth[1:] if not row.endswith("none")]
    known = tmp_path / "known.csv"
    known.write_text("\n".join([truth[0], *arcs]) + "\n")  # no 'none' pair at all
    line = one_error(capsys, "calibrate", sim / "probs.npz", "--known", known, "--out",
                     tmp_path / "c.csv")
    assert "and 0 none" in line
    assert not (tmp_path / "c.csv").exists()


def test_discover_negative_top(sim, tmp_path, capsys):
    assert "--top" in one_error(capsys, "discover", sim / "data.csv", "--known",
                                sim / "truth.csv", "--out", tmp_path / "d.csv", "--top", -1,
                                "--probabilities", sim / "probs.npz")


@pytest.mark.parametrize("content, words", [
    ("X,Y,X\n0,1,0\n1,0,1\n", "'X' appears twice"),
    ("0,1,0\n1,0,1\n1,1,0\n", "header row"),
    ("X,Y\n0,1\n\x00,1\n1,0\n", "NUL byte"),
    ("X,Y\n0,\xe9\n1,0\n", "not UTF-8"),
])
def test_data_csv_problems(tmp_path, capsys, content, words):
    path = tmp_path / "data.csv"
    path.write_bytes(content.encode("latin-1"))
    line = one_error(capsys, "bootstrap", path, "--out", tmp_path / "p.npz")
    assert str(path) in line and words in line


@pytest.mark.skipif(importlib.util.find_spec("pgmpy") is None, reason="needs pgmpy")
def test_simulate_bif_that_is_no_bif(tmp_path, capsys, monkeypatch):
    path = tmp_path / "net.bif"
    path.write_text("hello world\n")
    line = one_error(capsys, "simulate", "--bif", path, "--out", tmp_path / "o")
    assert "no variables" in line
    assert not (tmp_path / "o").exists()
    # a .bif.gz is read as a bounded stream, not decompressed whole
    import causalcal.simulate.bif as bif

    monkeypatch.setattr(bif, "MAX_BIF_BYTES", 1000)
    big = tmp_path / "big.bif.gz"
    big.write_bytes(gzip.compress(b"// comment\n" * 200))
    assert "larger than" in one_error(capsys, "simulate", "--bif", big, "--out",
                                      tmp_path / "o")


def test_truth_covering_fewer_variables(sim, tmp_path, capsys):
    rows = (sim / "truth.csv").read_text().splitlines()
    names = EdgeProbabilities.load(sim / "probs.npz").names
    kept = [rows[0]] + [r for r in rows[1:] if names[-1] not in r.split(",")[:2]]
    partial = tmp_path / "truth.csv"
    partial.write_text("\n".join(kept) + "\n")
    line = one_error(capsys, "evaluate", sim / "probs.npz", "--truth", partial)
    assert "covers 9 of the 10 variables" in line and repr(names[-1]) in line
    assert main(["evaluate", str(sim / "probs.npz"), "--truth", str(sim / "truth.csv")]) == 0


# --------------------------------------------------------------------- data safety
def test_checkpoint_in_an_unrelated_folder_is_left_untouched(sim, tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / ".tmp-notes.txt").write_text("precious")
    (folder / "thesis.tex").write_text("precious")
    os.utime(folder, (1_000_000, 1_000_000))
    line = one_error(capsys, "bootstrap", sim / "data.csv", "--n-boot", 2, "--out",
                     tmp_path / "p.npz", "--checkpoint", folder)
    assert "manifest.json" in line
    assert sorted(p.name for p in folder.iterdir()) == [".tmp-notes.txt", "thesis.tex"]
    assert folder.stat().st_mtime == 1_000_000  # not even a probe file came and went


def _spy_renames(monkeypatch) -> list[tuple[str, str]]:
    renames: list[tuple[str, str]] = []
    real = os.replace

    def spy(src, dst, *args, **kwargs):
        renames.append((os.fspath(src), os.fspath(dst)))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", spy)
    return renames


def _renamed_in_place(renames, path: Path) -> bool:
    return any(Path(dst) == path and Path(src).parent == path.parent
               and Path(src).name.startswith(".tmp-") for src, dst in renames)


def test_every_output_is_written_atomically(sim, tmp_path, capsys, monkeypatch):
    renames = _spy_renames(monkeypatch)
    out = tmp_path / "sim"
    assert main(["simulate", "--nodes", "6", "--edges", "5", "--samples", "50", "--out",
                 str(out)]) == 0
    for name in ("network.json", "data.csv", "truth.csv"):
        assert _renamed_in_place(renames, out / name), name
    cal = tmp_path / "cal.csv"
    assert main(["calibrate", str(sim / "probs.npz"), "--truth", str(sim / "truth.csv"),
                 "--n-cal", "4", "--calibrator", "temperature", "--out", str(cal)]) == 0
    assert _renamed_in_place(renames, cal)
    assert _renamed_in_place(renames, tmp_path / "cal.calibration.csv")
    scores = tmp_path / "scores.json"
    assert main(["evaluate", str(cal), "--truth", str(sim / "truth.csv"), "--json",
                 str(scores)]) == 0
    assert _renamed_in_place(renames, scores)
    assert not [p for p in tmp_path.rglob(".tmp-*")]


def test_stale_temp_files_of_dead_processes_are_swept(sim, tmp_path, capsys):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = socket.gethostname()
    stale = tmp_path / f".tmp-p.npz.{host}-{dead.pid}.abc123"
    live = tmp_path / f".tmp-p.npz.{host}-{os.getpid()}.def456"
    other = tmp_path / ".tmp-someone-elses"
    for path in (stale, live, other):
        path.write_text("partial")
    assert main(["bootstrap", str(sim / "data.csv"), "--n-boot", "2", "--out",
                 str(tmp_path / "p.npz"), "--quiet"]) == 0
    assert not stale.exists() and live.exists() and other.exists()


def test_files_respect_the_umask(sim, tmp_path, capsys):
    old = os.umask(0o077)
    try:
        out = tmp_path / "sim"
        assert main(["simulate", "--nodes", "5", "--edges", "4", "--samples", "30", "--out",
                     str(out)]) == 0
        assert main(["bootstrap", str(out / "data.csv"), "--n-boot", "2", "--out",
                     str(tmp_path / "p.csv"), "--quiet"]) == 0
    finally:
        os.umask(old)
    for path in [*out.iterdir(), tmp_path / "p.csv"]:
        assert path.stat().st_mode & 0o077 == 0, path


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_plot_writer_does_not_follow_a_planted_symlink(sim, tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    plot = tmp_path / "rel.png"
    (tmp_path / f".{plot.name}.tmp.png").symlink_to(victim)  # the old predictable name
    assert main(["evaluate", str(sim / "probs.npz"), "--truth", str(sim / "truth.csv"),
                 "--plot", str(plot)]) == 0
    assert victim.read_text() == "precious"
    assert plot.read_bytes().startswith(b"\x89PNG") and not plot.is_symlink()


# ------------------------------------------------------------------ error contract
def test_traceback_option_shows_the_trace(sim, tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("# n_boot=x\na,b,p_none,p_forward,p_backward,p_undirected\n")
    with pytest.raises(InputError, match="n_boot"):
        main(["evaluate", str(path), "--truth", str(sim / "truth.csv"), "--traceback"])


def test_an_internal_error_is_one_line_exit_1(sim, tmp_path, capsys, monkeypatch):
    import causalcal.evaluate

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(causalcal.evaluate, "edge_type_metrics", broken)
    line = one_error(capsys, "evaluate", sim / "probs.npz", "--truth", sim / "truth.csv",
                     code=1)
    assert "RuntimeError: boom" in line and "--traceback" in line


# ---------------------------------------------------------------- progress output
def test_progress_is_plain_lines_off_a_terminal(sim, tmp_path, capsys):
    assert main(["bootstrap", str(sim / "data.csv"), "--n-boot", "40", "--out",
                 str(tmp_path / "p.npz")]) == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "\r" not in err and 1 <= len(lines) <= 11
    assert all(line.startswith("bootstrap: ") for line in lines)
    assert lines[-1].startswith("bootstrap: 40/40 rep (100%)")
    assert main(["bootstrap", str(sim / "data.csv"), "--n-boot", "40", "--out",
                 str(tmp_path / "p.npz"), "--progress"]) == 0
    assert "\r" in capsys.readouterr().err  # a tqdm bar, as asked
