"""Where the averaged network's variables go (:mod:`causalcal.figures.layout`) and how its
figure draws them: known edges in their own colour, label boxes apart, tiers as bands
left to right, Graphviz's positions when it is installed."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from causalcal.bootstrap import edge_probabilities_from_graphs


def test_network_figure_known_edges_distinct_and_labels_apart():
    pytest.importorskip("matplotlib")
    from matplotlib.patches import FancyArrowPatch

    from causalcal.figures.layout import network_layout
    from causalcal.figures.plots import _label_sizes, plot_network
    from causalcal.graph_io import KNOWN_COLOUR
    from causalcal.simulate import random_network

    cpdag = random_network(31, 36, seed=4).cpdag()
    cpdag.names = [f"variable_{k}" for k in range(31)]
    probs = edge_probabilities_from_graphs([cpdag])
    arcs = cpdag.directed_edges().tolist()[:5]
    known = [(cpdag.names[i], cpdag.names[j]) for i, j in arcs]
    fig = plot_network(probs, 0.5, known=known)
    colours = [p.get_edgecolor() for p in fig.axes[0].patches
               if isinstance(p, FancyArrowPatch)]
    orange = [c for c in colours if np.allclose(c[:3], _rgb(KNOWN_COLOUR), atol=0.01)]
    assert len(orange) == 5 and len(colours) == cpdag.n_edges
    drawn = nx.Graph(probs.edge_strengths(probs.averaged_network(0.5)).keys())
    drawn.add_nodes_from(cpdag.names)
    sizes = _label_sizes(cpdag.names)
    pos = network_layout(drawn, sizes)
    for a in cpdag.names:  # no two label boxes touch
        for b in cpdag.names:
            if a < b:
                dx, dy = abs(np.subtract(pos[a], pos[b]))
                assert (dx >= (sizes[a][0] + sizes[b][0]) / 2
                        or dy >= (sizes[a][1] + sizes[b][1]) / 2), (a, b)
    linked = np.array([pos[n] for n in drawn if drawn.degree(n)])
    alone = np.array([pos[n] for n in drawn if not drawn.degree(n)])
    assert len(alone) and alone[:, 1].max() < linked[:, 1].min()  # in a row underneath


def test_tiers_are_bands_left_to_right():
    pytest.importorskip("matplotlib")
    from causalcal.figures.layout import network_layout
    from causalcal.figures.plots import _label_sizes, plot_network
    from causalcal.simulate import random_network

    cpdag = random_network(30, 40, seed=7).cpdag()
    tiers = {n: k // 10 for k, n in enumerate(cpdag.names[:-3])}  # 3 untiered, last band
    drawn = nx.Graph([(cpdag.names[i], cpdag.names[j]) for i, j in
                      np.concatenate([cpdag.directed_edges(), cpdag.undirected_edges()])])
    drawn.add_nodes_from(cpdag.names)
    sizes = _label_sizes(cpdag.names)
    pos = network_layout(drawn, sizes, tiers)
    bands = [[n for n in cpdag.names if tiers.get(n, 3) == t] for t in range(4)]
    for left, right in zip(bands, bands[1:]):
        assert (max(pos[n][0] + sizes[n][0] / 2 for n in left)
                < min(pos[n][0] - sizes[n][0] / 2 for n in right))
    fig = plot_network(edge_probabilities_from_graphs([cpdag]), 0.5, tiers=tiers)
    headers = {t.get_text() for t in fig.axes[0].texts}
    assert {"tier 0", "tier 1", "tier 2", "no tier"} <= headers


def test_graphviz_layout_when_installed(monkeypatch):
    """With Graphviz's dot on the PATH its positions (points) are used, in inches; a
    Graphviz that fails falls back to Kamada-Kawai."""
    from causalcal.figures import layout

    graph = nx.Graph([("a", "b"), ("b", "c")])
    sizes = {n: (0.3, 0.2) for n in graph}
    monkeypatch.setattr(layout.shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setattr(nx.nx_pydot, "pydot_layout",
                        lambda g, prog: {"a": (0, 144), "b": (0, 72), "c": (72, 0)})
    assert layout.network_layout(graph, sizes) == {"a": (0, 2), "b": (0, 1), "c": (1, 0)}

    def broken(g, prog):
        raise OSError("dot crashed")

    monkeypatch.setattr(nx.nx_pydot, "pydot_layout", broken)
    assert set(layout.network_layout(graph, sizes)) == {"a", "b", "c"}


def _rgb(colour: str) -> tuple:
    return tuple(int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5))
