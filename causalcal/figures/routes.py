"""How the averaged network's edges run between the label boxes (docs/design.md §9.8).

An edge is a straight line from box to box when that line keeps ``CLEARANCE`` from every
other box; otherwise it is the shortest polyline around the boxes, through their corners
pushed out by ``MARGIN`` (a visibility graph: Lozano-Pérez and Wesley, "An algorithm for
planning collision-free paths among polyhedral obstacles", CACM 1979). So no drawn edge
runs through a variable it does not join, whatever the layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import networkx as nx
import numpy as np

__all__ = ["route_edges", "segments_hit_boxes"]

MARGIN = 0.1  #: inches from a box's corner to the corner a routed edge turns at
CLEARANCE = 0.05  #: inches an edge keeps from the boxes it does not join


def segments_hit_boxes(p0: np.ndarray, p1: np.ndarray, low: np.ndarray,
                       high: np.ndarray) -> np.ndarray:
    """``(S, B)``: whether segment ``p0[s]``–``p1[s]`` meets the inside of box
    ``[low[b], high[b]]`` (axis-aligned; Liang–Barsky clipping)."""
    p0, p1 = np.asarray(p0, float)[:, None, :], np.asarray(p1, float)[:, None, :]
    low, high = np.asarray(low, float)[None], np.asarray(high, float)[None]
    d = p1 - p0
    flat = d == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ta, tb = (low - p0) / d, (high - p0) / d
    inside = (p0 > low) & (p0 < high)  # along an axis the segment does not move
    t_in = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(ta, tb))
    t_out = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(ta, tb))
    enter = np.maximum(t_in.max(axis=2), 0.0)
    leave = np.minimum(t_out.min(axis=2), 1.0)
    return enter < leave


def route_edges(pos: Mapping[str, tuple[float, float]],
                sizes: Mapping[str, tuple[float, float]],
                edges: Iterable[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
    """``{(a, b): points}``: each edge's polyline (``(k, 2)``, inches) from ``a``'s centre
    to ``b``'s; two points where the straight line passes no other box. Deterministic."""
    names = list(pos)
    index = {n: k for k, n in enumerate(names)}
    centre = np.array([pos[n] for n in names], dtype=np.float64).reshape(-1, 2)
    half = np.array([sizes[n] for n in names], dtype=np.float64).reshape(-1, 2) / 2
    low, high = centre - half - CLEARANCE, centre + half + CLEARANCE
    routes, detour = {}, []
    for a, b in edges:
        ia, ib = index[a], index[b]
        hits = segments_hit_boxes(centre[[ia]], centre[[ib]], low, high)[0]
        hits[[ia, ib]] = False
        routes[(a, b)] = centre[[ia, ib]]
        if hits.any():
            detour.append((a, b))
    if detour:
        corners, visible = _corner_graph(centre, half, low, high)
        for a, b in detour:
            path = _shortest_around(index[a], index[b], centre, corners, visible, low, high)
            if path is not None:
                routes[(a, b)] = path
    return routes


def _corner_graph(centre, half, low, high):
    """The boxes' corners pushed out by ``MARGIN`` (those clear of every box) and which
    pairs of them see each other past every box."""
    signs = np.array([(-1, -1), (-1, 1), (1, -1), (1, 1)], dtype=np.float64)
    corners = (centre[:, None, :] + signs[None] * (half[:, None, :] + MARGIN)).reshape(-1, 2)
    free = ~segments_hit_boxes(corners, corners, low, high).any(axis=1)
    corners = corners[free]
    visible = nx.Graph()
    visible.add_nodes_from(range(len(corners)))
    for i in range(len(corners) - 1):
        later = np.arange(i + 1, len(corners))
        blocked = segments_hit_boxes(np.repeat(corners[[i]], len(later), axis=0),
                                     corners[later], low, high).any(axis=1)
        for j in later[~blocked]:
            visible.add_edge(i, int(j), weight=float(np.hypot(*(corners[j] - corners[i]))))
    return corners, visible


def _shortest_around(ia: int, ib: int, centre, corners, visible: nx.Graph, low, high):
    """The shortest polyline from box ``ia``'s centre to box ``ib``'s through the corner
    graph, leaving out the two boxes themselves as obstacles; None when none exists."""
    others = np.ones(len(centre), dtype=bool)
    others[[ia, ib]] = False
    for end, k in (("a", ia), ("b", ib)):
        starts = np.repeat(centre[[k]], len(corners), axis=0)
        seen = ~segments_hit_boxes(starts, corners, low[others], high[others]).any(axis=1)
        visible.add_node(end)
        for j in np.flatnonzero(seen):
            visible.add_edge(end, int(j), weight=float(np.hypot(*(corners[j] - centre[k]))))
    try:
        path = nx.dijkstra_path(visible, "a", "b")
    except nx.NetworkXNoPath:
        return None
    finally:
        visible.remove_nodes_from(["a", "b"])
    return np.array([centre[ia], *(corners[j] for j in path[1:-1]), centre[ib]])
