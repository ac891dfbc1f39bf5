"""Crafted or odd files (issue 42 item 4): each is refused as an ``InputError`` naming the
file and what is wrong with it (exit 2, one line), before any work starts."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy

import causalcal.bootstrap
from causalcal.cli import main
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.graph_io import read_graph

NAMES = ["A", "B", "C"]
#: JSON nested far deeper than Python's parser recurses
DEEP_JSON = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def files(tmp_path) -> Path:
    """data.csv, truth.csv and 4-replicate probabilities as probs.npz and probs.csv."""
    (tmp_path / "data.csv").write_text("A,B,C\n" + "0,1,0\n1,1,0\n0,0,1\n1,0,1\n" * 5)
    (tmp_path / "truth.csv").write_text("a,b,relation\nA,B,->\nB,C,--\n")
    probs = EdgeProbabilities.from_counts(NAMES, np.array([[0, 1], [1, 2]]),
                                          np.array([[1, 2, 0], [0, 0, 3]]), 4)
    probs.save(tmp_path / "probs.npz")
    probs.save(tmp_path / "probs.csv")
    return tmp_path


@pytest.fixture
def no_bootstrap(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the bootstrap ran although an input or output is unusable")

    monkeypatch.setattr(causalcal.bootstrap, "bootstrap_edge_probabilities", never)


def one_error(capsys, *argv) -> str:
    """Run ``argv``: one error line, exit 2, no traceback; that line."""
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1 and code == 2, err
    return lines[0]


def test_deeply_nested_sidecar_is_refused_when_read_and_before_a_run(files, capsys,
                                                                     no_bootstrap):
    sidecar = files / "probs.csv.json"
    sidecar.write_text(DEEP_JSON)
    line = one_error(capsys, "evaluate", files / "probs.csv", "--truth", files / "truth.csv")
    assert str(sidecar) in line and "nested too deeply" in line
    line = one_error(capsys, "bootstrap", files / "data.csv", "--out", files / "probs.csv")
    assert "probs.csv.json" in line and "nested too deeply" in line


def _with_header(source: Path, target: Path, member: str, shape: tuple) -> None:
    """A copy of archive ``source`` whose ``member`` declares ``shape`` (float64) and holds
    a few bytes."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == member:
                header = io.BytesIO()
                npy.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                    "shape": shape})
                data = header.getvalue() + bytes(64)
            out.writestr(info.filename, data)


def test_npz_declaring_a_huge_array_is_refused_by_name(files, capsys):
    crafted = files / "huge.npz"
    _with_header(files / "probs.npz", crafted, "probs.npy", (10**11, 4))
    line = one_error(capsys, "evaluate", crafted, "--truth", files / "truth.csv")
    assert str(crafted) in line and "'probs'" in line and "(100000000000, 4)" in line
    from causalcal._io import read_npz_arrays

    with pytest.raises(InputError, match="huge.npz: array 'probs' declares"):
        read_npz_arrays(crafted, "probs")


def test_a_consistent_npz_still_reads(files):
    assert EdgeProbabilities.load(files / "probs.npz") == EdgeProbabilities.load(
        files / "probs.csv")


@pytest.mark.parametrize("text, words", [
    ('<?xml version="1.0"?><graphml><graph><node id="a"></graph>', "mismatched tag"),
    ("<graphml", "graphml graph file"),
    ("\xff\xfe", "graphml graph file"),
])
def test_hostile_graphml_is_an_input_error_naming_the_file(tmp_path, text, words):
    path = tmp_path / "g.graphml"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(InputError, match=words) as info:
        read_graph(path)
    assert str(path) in str(info.value)


def test_deeply_nested_json_graph(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(DEEP_JSON)
    with pytest.raises(InputError, match="g.json: JSON nested too deeply"):
        read_graph(path)


def test_symlink_loop_as_data_and_as_out(files, capsys, no_bootstrap):
    loop = files / "loop.csv"
    os.symlink(loop, loop)
    line = one_error(capsys, "bootstrap", loop, "--out", files / "p.npz")
    assert f"{loop}: a loop of symbolic links" in line
    line = one_error(capsys, "bootstrap", files / "data.csv", "--out", loop)
    assert f"--out {loop}: a loop of symbolic links" in line
    line = one_error(capsys, "bootstrap", files / "data.csv", "--out", files / "p.npz",
                     "--checkpoint", loop)
    assert f"checkpoint {loop}: a loop of symbolic links" in line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_as_data_is_refused_by_name(files, capsys, no_bootstrap):
    pipe = files / "pipe.csv"
    os.mkfifo(pipe)
    line = one_error(capsys, "bootstrap", pipe, "--out", files / "p.npz")
    assert f"{pipe}: is a pipe (FIFO), not a regular file" in line


def _zip_bomb(path: Path, rows: int) -> None:
    """An edge-probabilities .npz over 3 variables whose 'probs' is ``rows`` × 4 zeros,
    deflated (honest headers: only the names bound it)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in (("names", np.asarray(NAMES)), ("pairs", np.zeros((2, 2), np.int64)),
                            ("n_boot", np.int64(4))):
            buffer = io.BytesIO()
            np.save(buffer, array)
            archive.writestr(f"{name}.npy", buffer.getvalue())
        with archive.open("probs.npy", "w", force_zip64=True) as member:
            npy.write_array_header_1_0(member, {"descr": "<f8", "fortran_order": False,
                                                "shape": (rows, 4)})
            block = bytes(1 << 20)
            for _ in range(rows * 32 // len(block)):
                member.write(block)


def test_a_zip_bomb_is_refused_by_its_shapes_before_it_expands(tmp_path, capsys):
    """Issue 49: a 2.4 MB .npz expanded to 4.2 GB before it was refused; the rows an
    edge-probabilities file may hold are bounded by its names."""
    import tracemalloc

    bomb = tmp_path / "bomb.npz"
    _zip_bomb(bomb, 1 << 21)  # 64 MiB of zeros in about 64 KB
    assert bomb.stat().st_size < (1 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"bomb.npz: array 'probs' has shape "
                                             r"\(2097152, 4\); an edge-probabilities file "
                                             r"over 3 variables"):
            EdgeProbabilities.load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20  # never expanded


@pytest.mark.parametrize("probs", [np.int64(3), np.asarray(-1), np.zeros((2, 4, 1))])
def test_probs_of_another_shape_are_refused_by_name(tmp_path, probs):
    """A 0-d 'probs' raised IndexError in EdgeProbabilities.load (found by the property
    test now and then)."""
    path = tmp_path / "p.npz"
    np.savez(path, names=np.asarray(NAMES), pairs=np.asarray([[0, 1]]), probs=probs,
             n_boot=np.int64(3))
    with pytest.raises(InputError, match="p.npz: array 'probs' has shape"):
        EdgeProbabilities.load(path)
