"""`causalcal fit` and PAGs (issue 49 item 7): a PAG's marks are not arcs (`X3 <-> X8`, a
hidden common cause only, was fitted as X3 → X8; `X11 <-o X12` as X11 → X12, against its
arrowhead): a PAG file or a GFCI bootstrap is refused by name."""

from __future__ import annotations

import pytest

from causalcal.cli import main
from causalcal.pag import PAG
from causalcal.pag_io import write_pag


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    root = tmp_path_factory.mktemp("fit")
    assert main(["simulate", "--nodes", "6", "--edges", "6", "--samples", "300", "--seed",
                 "7", "--out", str(root), "--quiet"]) == 0
    return root


@pytest.mark.parametrize("suffix", [".dot", ".gml", ".graphml", ".json"])
@pytest.mark.parametrize("edge", ["<->", "<-o", "o-o"])
def test_a_pag_file_is_refused_naming_the_edge(sim, tmp_path, capsys, suffix, edge):
    names = [f"X{k}" for k in range(6)]
    pag = PAG.from_edges(6, [(0, "-->", 1), (3, edge, 4)], names)
    path = tmp_path / f"pag{suffix}"
    write_pag(pag, path)
    code, err = run(capsys, "fit", sim / "data.csv", "--structure", path, "--out",
                    tmp_path / "net.bif")
    assert code == 2 and str(path) in err and "PAG" in err
    if suffix != ".json":
        assert f"X3 {edge} X4" in err
    assert not (tmp_path / "net.bif").exists()


def test_a_dot_with_marks_at_both_ends_is_refused(sim, tmp_path, capsys):
    path = tmp_path / "hand.dot"
    path.write_text("digraph { X0 -> X1; X2 -> X3 [dir=both, arrowtail=odot]; }\n")
    code, err = run(capsys, "fit", sim / "data.csv", "--structure", path, "--out",
                    tmp_path / "net.bif")
    assert code == 2 and "X2 o-> X3" in err and "PAG" in err


@pytest.mark.slow
def test_probabilities_of_a_gfci_bootstrap_are_refused(sim, tmp_path, capsys):
    """An AttributeError (an internal error) before."""
    probs = tmp_path / "gfci.npz"
    assert main(["bootstrap", str(sim / "data.csv"), "--search", "gfci", "--n-boot", "2",
                 "--jobs", "1", "--quiet", "--out", str(probs)]) == 0
    code, err = run(capsys, "fit", sim / "data.csv", "--probabilities", probs, "--out",
                    tmp_path / "net.bif")
    assert code == 2 and f"{probs}: a PAG's edge types" in err and "internal" not in err


@pytest.mark.parametrize("ess", ["inf", "nan", "0", "-1"])
def test_ess_must_be_a_positive_number(sim, tmp_path, capsys, ess):
    """--ess inf printed numpy's warnings, then a CPT error."""
    (tmp_path / "g.json").write_text('{"format": "causalcal.graph", "nodes": ["X0", "X1", '
                                     '"X2", "X3", "X4", "X5"], "directed": [], '
                                     '"undirected": []}')
    code, err = run(capsys, "fit", sim / "data.csv", "--structure", tmp_path / "g.json",
                    "--ess", ess, "--out", tmp_path / "net.bif")
    assert code == 2 and "--ess must be a positive number" in err
    assert "warning" not in err


def test_a_pag_of_arcs_alone_is_fitted_as_its_arcs(sim, tmp_path, capsys):
    """--> is an arc (<-- the other way round): what the marks allow."""
    names = [f"X{k}" for k in range(6)]
    write_pag(PAG.from_edges(6, [(0, "-->", 1), (2, "<--", 3)], names), tmp_path / "p.gml")
    assert run(capsys, "fit", sim / "data.csv", "--structure", tmp_path / "p.gml", "--out",
               tmp_path / "net.bif")[0] == 0
    text = (tmp_path / "net.bif").read_text()
    assert "probability ( X1 | X0 )" in text and "probability ( X2 | X3 )" in text
