"""An output replaces only a file the same command made and nobody edited since (issue 49
item 3): recognised by causalcal's mark or the checksum beside it, never by its suffix or
its column names; anything else needs --force."""

from __future__ import annotations

import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.cli._paths import BIF, GRAPH, IMAGE, describe_file


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A small simulation and its bootstrap probabilities."""
    out = tmp_path_factory.mktemp("owned")
    assert main(["simulate", "--nodes", "8", "--edges", "9", "--samples", "300", "--seed",
                 "3", "--out", str(out), "--quiet"]) == 0
    assert main(["bootstrap", str(out / "data.csv"), "--n-boot", "4", "--out",
                 str(out / "p.csv"), "--quiet", "--jobs", "1"]) == 0
    truth = pd.read_csv(out / "truth.csv")
    arcs = truth[truth["relation"] != "none"]
    adjacent = {frozenset(p) for p in zip(arcs["a"], arcs["b"])}
    names = [f"X{k}" for k in range(8)]
    nones = [(a, b, "none") for k, a in enumerate(names) for b in names[k + 1:]
             if frozenset((a, b)) not in adjacent][:6]
    pd.concat([arcs, pd.DataFrame(nones, columns=["a", "b", "relation"])]).to_csv(
        out / "known.csv", index=False)
    return out


HAND_BIF = "network hand {\n}\nvariable a {\n  type discrete [ 2 ] { x, y };\n}\n"


@pytest.mark.parametrize("content", [HAND_BIF, "my notes, not a network\n", "X0,X1\n0,1\n"])
def test_fit_never_replaces_a_file_it_did_not_make(sim, tmp_path, capsys, content):
    """A hand-written network, a text file, a data CSV renamed: judged by the suffix alone,
    each was replaced."""
    victim = tmp_path / "notes.bif"
    victim.write_text(content, encoding="utf-8")
    code, err = run(capsys, "fit", sim / "data.csv", "--probabilities", sim / "p.csv",
                    "--out", victim)
    assert code == 2 and "causalcal did not write" in err and "--force" in err
    assert victim.read_text(encoding="utf-8") == content
    assert run(capsys, "fit", sim / "data.csv", "--probabilities", sim / "p.csv", "--out",
               victim, "--force")[0] == 0
    assert describe_file(victim) == BIF


def test_fit_replaces_its_own_network_but_not_an_edited_one(sim, tmp_path, capsys):
    out = tmp_path / "net.bif"
    argv = ["fit", sim / "data.csv", "--probabilities", sim / "p.csv", "--out", out]
    assert run(capsys, *argv)[0] == 0
    assert out.read_text().startswith("// written by causalcal: a Bayesian network (BIF)")
    assert run(capsys, *argv, "--ess", "3")[0] == 0  # its own: replaced
    assert "property ess = 3;" in out.read_text()
    edited = out.read_text().replace("property ess = 3;", "property ess = 3; // checked")
    out.write_text(edited)
    code, err = run(capsys, *argv)
    assert code == 2 and "edited since causalcal wrote it" in err
    assert out.read_text() == edited


def test_graph_outputs_replace_only_their_own(sim, tmp_path, capsys):
    """``--graph net.dot`` replaced any .dot: the graph the user edited for fit
    --structure, say."""
    net = tmp_path / "net.dot"
    argv = ["bootstrap", sim / "data.csv", "--n-boot", "2", "--jobs", "1", "--quiet",
            "--out", tmp_path / "p.npz", "--graph", net]
    assert run(capsys, *argv)[0] == 0
    assert describe_file(net) == GRAPH
    assert run(capsys, *argv)[0] == 0  # its own, again
    mine = net.read_text().replace("digraph causalcal {", "digraph mine {")
    net.write_text(mine)
    code, err = run(capsys, *argv)
    assert code == 2 and "--graph" in err and "edited since causalcal wrote it" in err
    hand = tmp_path / "hand.gml"
    hand.write_text("graph [\n directed 1\n node [ id 0 label \"X0\" ]\n]\n")
    argv[-1] = hand
    code, err = run(capsys, *argv)
    assert code == 2 and "did not write" in err
    assert net.read_text() == mine


@pytest.mark.slow
def test_calibration_pairs_never_replace_known_relations(sim, tmp_path, capsys):
    """calibrate's OUT.calibration.csv was judged by its columns a,b,relation: a known.csv
    of that name was replaced."""
    known = tmp_path / "cal.calibration.csv"
    pd.read_csv(sim / "truth.csv").to_csv(known, index=False)
    before = known.read_bytes()
    argv = ["calibrate", sim / "p.csv", "--known", sim / "known.csv", "--calibrator",
            "ovr-histogram", "--map", "calibrated", "--out", tmp_path / "cal.csv"]
    code, err = run(capsys, *argv)
    assert code == 2 and "--out's calibration pairs" in err and known.read_bytes() == before
    known.unlink()
    assert run(capsys, *argv)[0] == 0
    assert (tmp_path / "cal.calibration.csv.json").is_file()  # its checksum
    assert run(capsys, *argv)[0] == 0  # its own: replaced


@pytest.mark.slow
def test_figures_replace_only_causalcal_figures(sim, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    plot = tmp_path / "fig.png"
    Figure().savefig(plot)  # the user's own figure
    before = plot.read_bytes()
    argv = ["evaluate", sim / "p.csv", "--truth", sim / "truth.csv", "--plot", plot]
    code, err = run(capsys, *argv)
    assert code == 2 and "did not draw" in err and plot.read_bytes() == before
    plot.unlink()
    assert run(capsys, *argv)[0] == 0 and describe_file(plot) == IMAGE
    assert run(capsys, *argv)[0] == 0


def test_probabilities_without_their_sidecar_need_force(sim, tmp_path, capsys):
    """A CSV with the columns a,b,p_none is causalcal's only with its sidecar's checksum."""
    table = tmp_path / "mine.csv"
    table.write_text("a,b,p_none,p_forward,p_backward,p_undirected\nX0,X1,1,0,0,0\n")
    code, err = run(capsys, "bootstrap", sim / "data.csv", "--n-boot", "2", "--jobs", "1",
                    "--quiet", "--out", table)
    assert code == 2 and "did not write" in err
    assert run(capsys, "bootstrap", sim / "data.csv", "--n-boot", "2", "--jobs", "1",
               "--quiet", "--out", table, "--force")[0] == 0
    assert run(capsys, "bootstrap", sim / "data.csv", "--n-boot", "2", "--jobs", "1",
               "--quiet", "--out", table)[0] == 0  # now its own


@pytest.mark.parametrize("command", ["study", "demo"])
def test_a_study_writes_only_into_a_folder_of_its_own(tmp_path, cli, command):
    """A folder holding other files (or a study.json that is no study's) is refused
    unless --force: the study writes study.json, timing.jsonl and results/ there."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "study.json").write_text('{"my": "settings"}')
    argv = [command, "--out", mine, "--n-boot", "2", "--quiet"]
    argv += ["--preset", "quick"] if command == "study" else []
    code, _, err = cli(*argv)
    assert code == 2 and "study.json that holds no study's settings" in err
    assert (mine / "study.json").read_text() == '{"my": "settings"}'
    (mine / "study.json").unlink()
    (mine / "notes.txt").write_text("mine")
    code, _, err = cli(*argv)
    assert code == 2 and "other files (notes.txt) and no study.json" in err
