"""Figures users look at (issue 17 item 5): Figures returned, the averaged-network plot,
`discover --plot` is tested in test_averaged_network.py."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from causalcal.edges import EdgeProbabilities  # noqa: E402
from causalcal.figures.plots import plot_network, plot_reliability  # noqa: E402

BINS = {"none": {"count": [5, 0, 5], "sum_p": [0.5, 0, 4.5], "sum_y": [1, 0, 4]}}


def test_reliability_returns_a_figure_and_saves_only_when_asked(tmp_path):
    fig = plot_reliability(BINS, BINS, title="t")
    assert isinstance(fig, Figure) and fig.axes[0].get_title() == "no edge"
    assert not list(tmp_path.iterdir())
    out = plot_reliability(BINS, BINS, tmp_path / "r.png")
    assert out == tmp_path / "r.png" and out.read_bytes()[:4] == b"\x89PNG"


def test_network_edges_drawn_by_strength():
    names = ["A", "B", "C", "D"]
    probs = EdgeProbabilities(names, [[0, 1], [1, 2], [2, 3]],
                              [[0.1, 0.9, 0, 0], [0.4, 0.0, 0.1, 0.5], [0.8, 0.2, 0, 0]])
    fig = plot_network(probs, threshold=0.5)
    assert isinstance(fig, Figure)
    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == 2  # A -> B and B — C; C, D below the threshold
    widths = sorted(a.get_linewidth() for a in arrows)
    np.testing.assert_allclose(widths, [0.6 + 3.4 * 0.6, 0.6 + 3.4 * 0.9])
    styles = {type(a.get_arrowstyle()).__name__ for a in arrows}
    assert styles == {"CurveFilledB", "Curve"}  # an arrow head only on the oriented edge
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"0.90", "0.60", "A", "D"} <= texts


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"causalcal\[plot\]"):
        plot_reliability(BINS, BINS)
