"""No drawn edge of the network figure runs through a variable it does not join (issue 41
item 7): the figure is drawn, each edge's drawn line and each label's box are read back
in display coordinates (pixels), and every segment is tested against every box but its
two ends'. Tiered layouts put small tiers on one line and edges across tiers through
the tiers between; the README's diabetes figure drew ``age -> bp`` through ``s4``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from causalcal.bootstrap import edge_probabilities_from_graphs  # noqa: E402
from causalcal.figures.plots import plot_network  # noqa: E402
from causalcal.figures.routes import route_edges, segments_hit_boxes  # noqa: E402
from causalcal.graph import PDAG  # noqa: E402
from causalcal.simulate import random_network  # noqa: E402

NSW = ["age", "educ", "black", "hispanic", "married", "nodegree", "re74", "re75", "treat",
       "re78"]


def _drawn_crossings(fig, names) -> list[tuple]:
    """``(start box, end box, crossed box)`` for every drawn edge segment that meets a box
    other than its ends' (display coordinates, the boxes as drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import FancyArrowPatch

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_text() in names]
    assert sorted(t.get_text() for t in labels) == sorted(names)
    extents = [t.get_bbox_patch().get_window_extent(canvas.get_renderer()) for t in labels]
    low = np.array([[e.x0, e.y0] for e in extents])
    high = np.array([[e.x1, e.y1] for e in extents])
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert arrows
    crossed = []
    for arrow in arrows:
        line = arrow.get_transform().transform(
            arrow.get_path().to_polygons(closed_only=False)[0])
        ends = [int(np.argmin(_distance_to_boxes(line[k], low, high))) for k in (0, -1)]
        hits = segments_hit_boxes(line[:-1], line[1:], low, high).any(axis=0)
        hits[ends] = False
        crossed += [(labels[ends[0]].get_text(), labels[ends[1]].get_text(),
                     labels[k].get_text()) for k in np.flatnonzero(hits)]
    return crossed


def _distance_to_boxes(point, low, high) -> np.ndarray:
    return np.hypot(*np.maximum(np.maximum(low - point, point - high), 0).T)


def _diabetes():
    """The README's `discover` run on the diabetes data (10 replicates): its averaged
    network, known relations and tiers."""
    names = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "target"]
    k = {n: i for i, n in enumerate(names)}
    arcs = [("age", "bp"), ("sex", "s3"), ("bmi", "bp"), ("bmi", "s6"), ("s1", "s4"),
            ("s3", "s4"), ("s4", "s2"), ("s4", "s5"), ("s5", "bmi"), ("s5", "s6"),
            ("s5", "target")]
    graph = PDAG.from_edges(len(names), [(k[a], k[b]) for a, b in arcs],
                            [(k["age"], k["sex"]), (k["s1"], k["s2"])], names=names)
    tiers = {"age": 0, "sex": 0, "target": 2} | {n: 1 for n in names[2:10]}
    known = [("s1", "s4"), ("s3", "s4"), ("age", "bp"), ("bmi", "bp"), ("bmi", "s6")]
    return graph, tiers, known


def _nsw(in_tier: bool):
    """NSW-like: Tetrad-style small tiers (background, schooling, earnings by year,
    treatment, outcome), or three tiers without edges inside them."""
    k = {n: i for i, n in enumerate(NSW)}
    arcs = [("re75", "re78"), ("treat", "re78"), ("black", "re78"), ("re74", "re78"),
            ("re74", "re75"), ("age", "re74"), ("educ", "re75"), ("married", "re78"),
            ("nodegree", "treat"), ("hispanic", "re74"), ("age", "treat")]
    undirected = [("black", "hispanic"), ("educ", "nodegree")] if in_tier else []
    if in_tier:
        tiers = {"age": 0, "black": 0, "hispanic": 0, "married": 1, "educ": 1,
                 "nodegree": 1, "re74": 2, "re75": 3, "treat": 4, "re78": 5}
    else:
        tiers = {n: 0 for n in NSW[:8]} | {"treat": 1, "re78": 2}
    graph = PDAG.from_edges(len(NSW), [(k[a], k[b]) for a, b in arcs],
                            [(k[a], k[b]) for a, b in undirected], names=NSW)
    return graph, tiers, []


def _forty():
    graph = random_network(40, 60, seed=11).cpdag()
    return graph, {n: k // 10 for k, n in enumerate(graph.names)}, []


@pytest.mark.parametrize("case", [_diabetes, lambda: _nsw(True), lambda: _nsw(False),
                                  _forty], ids=["diabetes", "nsw-tetrad-tiers",
                                                "nsw-three-tiers", "forty"])
def test_no_edge_runs_through_another_box(case):
    graph, tiers, known = case()
    fig = plot_network(edge_probabilities_from_graphs([graph]), 0.5, known=known,
                       tiers=tiers)
    assert _drawn_crossings(fig, graph.names) == []


def test_route_goes_around_a_box_in_the_way_and_straight_otherwise():
    """Three boxes on a line: a -> c bends around b (through b's pushed-out corners, by
    hand), a -> b is straight."""
    pos = {"a": (0.0, 0.0), "b": (1.0, 0.0), "c": (2.0, 0.0)}
    sizes = {n: (0.4, 0.2) for n in pos}
    routes = route_edges(pos, sizes, [("a", "c"), ("a", "b")])
    assert routes[("a", "b")].tolist() == [[0.0, 0.0], [1.0, 0.0]]
    around = routes[("a", "c")]
    assert len(around) == 4 and around[0].tolist() == [0, 0] and around[-1].tolist() == [2, 0]
    assert np.allclose(np.abs(around[1:3]), [[0.7, 0.2], [1.3, 0.2]])  # 0.2 + 0.1 margin
    assert np.sign(around[1, 1]) == np.sign(around[2, 1])


def test_segments_hit_boxes_by_hand():
    low, high = np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]])
    p0 = np.array([[-1, 0.5], [-1, 2.0], [0.5, -1], [2, 2], [-1, -1], [0.2, 0.2]])
    p1 = np.array([[2, 0.5], [2, 2.0], [0.5, -0.1], [3, 3], [2, 2], [0.3, 0.3]])
    assert segments_hit_boxes(p0, p1, low, high)[:, 0].tolist() == [
        True, False, False, False, True, True]
