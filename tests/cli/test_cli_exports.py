"""Issue 28, points 4, 5 and 7, through the command line: the estimated threshold of the
averaged network, the graph exports and figures, output suffixes a command cannot
write."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.graph_io import read_graph


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A 14-variable simulation, 6 bootstrap replicates (probs.npz) and a known.csv of 6
    true adjacencies (as their CPDAG edge type) and 6 non-adjacent pairs."""
    root = tmp_path_factory.mktemp("exports")
    assert main(["simulate", "--nodes", "14", "--edges", "18", "--samples", "500", "--seed",
                 "5", "--out", str(root)]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "6", "--out",
                 str(root / "probs.npz"), "--quiet"]) == 0
    truth = pd.read_csv(root / "truth.csv")
    names = list(pd.read_csv(root / "data.csv", nrows=0).columns)
    adjacent = set(zip(truth.a, truth.b)) | set(zip(truth.b, truth.a))
    i, j = pair_from_index(np.arange(len(names) * (len(names) - 1) // 2), len(names))
    none = [(names[a], names[b], "none") for a, b in zip(i, j)
            if (names[a], names[b]) not in adjacent][:6]
    known = pd.concat([truth.head(6), pd.DataFrame(none, columns=["a", "b", "relation"])])
    known.to_csv(root / "known.csv", index=False)
    return root


def _discover(sim, out, *extra) -> int:
    return main(["discover", str(sim / "data.csv"), "--known", str(sim / "known.csv"),
                 "--probabilities", str(sim / "probs.npz"), "--out", str(out), "--quiet",
                 *map(str, extra)])


# ------------------------------------------------------------------------- point 4
def test_graph_threshold_estimated(sim, tmp_path, capsys):
    """bnlearn's estimated threshold (Scutari & Nagarajan 2013) from the command line."""
    probs = EdgeProbabilities.load(sim / "probs.npz")
    assert main(["bootstrap", str(sim / "data.csv"), "--n-boot", "6", "--out",
                 str(tmp_path / "p.npz"), "--quiet", "--graph", str(tmp_path / "net.json"),
                 "--graph-threshold", "estimated"]) == 0
    t = probs.estimated_threshold()
    assert f"> {t:.3g} (estimated)" in capsys.readouterr().out
    net = read_graph(tmp_path / "net.json")
    assert net == probs.averaged_network("estimated")
    strength = 1 - probs.probs[:, 0]
    assert net.n_edges == int(((strength > t) | (strength == 1)).sum())
    assert _discover(sim, tmp_path / "e.csv", "--graph", tmp_path / "d.json",
                     "--graph-threshold", "estimated") == 0
    assert "(estimated)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["bootstrap", str(sim / "data.csv"), "--out", str(tmp_path / "q.npz"),
              "--graph-threshold", "estimate"])
    assert stop.value.code == 2 and "estimated" in capsys.readouterr().err


# ------------------------------------------------------------------------- point 7
@pytest.mark.parametrize("command", ["discover", "evaluate-json", "evaluate-plot"])
def test_an_output_suffix_the_command_cannot_write_is_refused(sim, tmp_path, capsys, command):
    if command == "discover":
        code, wrong = _discover(sim, tmp_path / "x.png"), tmp_path / "x.png"
    else:
        option, wrong = (("--json", tmp_path / "m.png") if command == "evaluate-json"
                         else ("--plot", tmp_path / "r.csv"))
        code = main(["evaluate", str(sim / "probs.npz"), "--truth", str(sim / "truth.csv"),
                     option, str(wrong)])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write '{wrong.suffix}' files" in err and str(wrong) in err
    assert not wrong.exists()
