"""Where the averaged network's variables go in a figure (docs/design.md §9.8).

Positions are in inches of the drawing, for labels of known box sizes, so that a figure
of 30–100 variables keeps every label readable: tiers as bands when given (earliest
left); otherwise Graphviz's ``dot`` when it is installed (through pydot), else networkx's
Kamada–Kawai layout (deterministic; its start is a circle); then boxes that would touch
are pushed apart, and variables without an edge are set in rows under the drawing, so
that they do not push it into a corner.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping

import networkx as nx
import numpy as np

__all__ = ["network_layout"]

GAP = 0.25  #: inches between two label boxes
SPACING = 1.3  #: inches between variables joined by an edge, before overlaps are removed

Sizes = Mapping[str, tuple[float, float]]


def network_layout(graph: nx.Graph, sizes: Sizes, tiers: Mapping[str, int] | None = None,
                   ) -> dict[str, tuple[float, float]]:
    """``{node: (x, y)}`` in inches for boxes of ``sizes`` (``node: (width, height)``).

    With ``tiers`` (``node: tier``, lower is earlier) each tier is a band, left to right,
    and variables without a tier the last band (:func:`_tier_layout`)."""
    if tiers:
        return _tier_layout(graph, sizes, tiers)
    linked = [n for n in graph if graph.degree(n)]
    pos: dict = {}
    if linked:
        sub = graph.subgraph(linked)
        pos = _graphviz(sub) or _kamada_kawai(sub)
        pos = _separate(pos, sizes)
    return {**pos, **_rows([n for n in graph if not graph.degree(n)], sizes, pos)}


def _graphviz(graph: nx.Graph) -> dict | None:
    """Graphviz ``dot`` positions in inches, or None when Graphviz is not installed."""
    if shutil.which("dot") is None:
        return None
    try:
        pos = nx.nx_pydot.pydot_layout(nx.DiGraph(graph), prog="dot")
    except (OSError, ValueError, AssertionError, TypeError):  # a Graphviz that fails
        return None
    return {n: (x / 72.0, y / 72.0) for n, (x, y) in pos.items()}


def _kamada_kawai(graph: nx.Graph) -> dict:
    """Kamada–Kawai positions scaled so that an edge is about ``SPACING`` long."""
    pos = nx.kamada_kawai_layout(graph)
    xy = np.array([pos[n] for n in graph])
    lengths = [np.hypot(*(np.subtract(pos[a], pos[b]))) for a, b in graph.edges]
    scale = SPACING / max(float(np.median(lengths)), 1e-9)
    return {n: (float(x) * scale, float(y) * scale) for n, (x, y) in zip(graph, xy)}


def _separate(pos: dict, sizes: Sizes, rounds: int = 200) -> dict:
    """Push boxes that overlap (with ``GAP``) apart, along the axis that overlaps less;
    deterministic."""
    nodes = list(pos)
    xy = np.array([pos[n] for n in nodes], dtype=np.float64)
    half = np.array([sizes[n] for n in nodes], dtype=np.float64) / 2 + GAP / 2
    for _ in range(rounds):
        d = xy[:, None, :] - xy[None, :, :]
        overlap = half[:, None, :] + half[None, :, :] - np.abs(d)
        hit = (overlap > 0).all(axis=2)
        np.fill_diagonal(hit, False)
        if not hit.any():
            break
        axis = np.argmin(overlap, axis=2)  # 0: push along x, 1: along y
        order = np.sign(np.arange(len(nodes))[:, None] - np.arange(len(nodes))[None, :])
        sign = np.where(d != 0, np.sign(d), order[:, :, None])  # a tie: by index
        push = np.zeros_like(xy)
        for k in (0, 1):
            amount = np.where(hit & (axis == k), overlap[:, :, k] * 0.5 + 1e-3, 0.0)
            push[:, k] = (amount * sign[:, :, k]).sum(axis=1)
        xy += push
    return {n: (float(x), float(y)) for n, (x, y) in zip(nodes, xy)}


def _rows(nodes: list, sizes: Sizes, pos: dict) -> dict:
    """``nodes`` left to right in rows under the drawing of ``pos`` (as wide as it)."""
    if not nodes:
        return {}
    xy = np.array(list(pos.values())) if pos else np.zeros((1, 2))
    left, width = float(xy[:, 0].min()), max(float(np.ptp(xy[:, 0])), 6.0)
    y = float(xy[:, 1].min()) - (1.0 if pos else 0.0)
    out, x = {}, left
    for n in nodes:
        w = sizes[n][0]
        if x > left and x + w > left + width:
            x, y = left, y - max(h for _, h in sizes.values()) - GAP
        out[n] = (x + w / 2, y)
        x += w + GAP
    return out


def _tier_layout(graph: nx.Graph, sizes: Sizes, tiers: Mapping[str, int]) -> dict:
    """A band per tier, left to right, untiered variables last (:func:`_band`); each
    band's variables as near in height to their neighbours in earlier bands as their
    boxes allow, so that edges run across rather than along the bands."""
    levels = sorted({tiers[n] for n in graph if n in tiers})
    band = {n: levels.index(tiers[n]) if n in tiers else len(levels) for n in graph}
    groups = [[n for n in graph if band[n] == b] for b in range(len(levels) + 1)]
    out: dict = {}
    x = 0.0
    for group in (g for g in groups if g):
        pos = _band(group, sizes, graph, out)
        left = min(pos[n][0] - sizes[n][0] / 2 for n in group)
        right = max(pos[n][0] + sizes[n][0] / 2 for n in group)
        out.update({n: (pos[n][0] - left + x, pos[n][1]) for n in group})
        x += right - left + 2.5 * GAP + SPACING
    return out


def _band(group: list, sizes: Sizes, graph: nx.Graph, placed: dict) -> dict:
    """One tier: its variables with edges inside it as a network of their own, turned
    upright (:func:`_upright`), the others as a column on its left (:func:`_column`)."""
    sub = graph.subgraph(group)
    linked = [n for n in group if sub.degree(n)]
    alone = [n for n in group if not sub.degree(n)]
    pos = _column(alone, sizes, graph, placed) if alone else {}
    if linked:
        net = _upright(_separate(_graphviz(sub.subgraph(linked))
                                 or _kamada_kawai(sub.subgraph(linked)), sizes),
                       graph, placed)
        shift_x = (max(sizes[n][0] for n in alone) + 2 * GAP if alone else 0.0) - min(
            x - sizes[n][0] / 2 for n, (x, _) in net.items())
        pos.update({n: (x + shift_x, y) for n, (x, y) in net.items()})
    return pos


def _heights(graph: nx.Graph, placed: dict, nodes) -> dict:
    """Each node's mean neighbour height among those ``placed`` (nodes without one left
    out)."""
    out = {}
    for n in nodes:
        ys = [placed[m][1] for m in graph[n] if m in placed]
        if ys:
            out[n] = float(np.mean(ys))
    return out


def _upright(net: dict, graph: nx.Graph, placed: dict) -> dict:
    """``net`` turned so that its longer extent is vertical, then mirrored (of the four
    ways) and moved up or down to bring its variables nearest their placed neighbours'
    heights; deterministic."""
    nodes = list(net)
    xy = np.array([net[n] for n in nodes]) - np.mean([net[n] for n in nodes], axis=0)
    if np.ptp(xy[:, 0]) > np.ptp(xy[:, 1]):
        xy = xy[:, ::-1]
    target = _heights(graph, placed, nodes)
    rows = [k for k, n in enumerate(nodes) if n in target]
    goal = np.array([target[nodes[k]] for k in rows])
    best = None
    for flip_x, flip_y in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
        trial = xy * (flip_x, flip_y)
        shift = float(np.mean(goal - trial[rows, 1])) if rows else 0.0
        cost = float(np.sum((trial[rows, 1] + shift - goal) ** 2)) if rows else 0.0
        if best is None or cost < best[0] - 1e-9:
            best = (cost, trial + (0.0, shift))
    return {n: (float(x), float(y)) for n, (x, y) in zip(nodes, best[1])}


def _column(group: list, sizes: Sizes, graph: nx.Graph, placed: dict) -> dict:
    """``group`` in a column, each as near the mean height of its neighbours already
    ``placed`` as the boxes allow (those without one underneath, in file order)."""
    height = max(sizes[n][1] for n in group) + GAP
    target = _heights(graph, placed, group)
    low = min(target.values(), default=0.0)
    free = [n for n in group if n not in target]
    target.update({n: low - (k + 1) * height for k, n in enumerate(free)})
    order = sorted(group, key=lambda n: -target[n])  # stable: file order among ties
    ys = np.array([target[n] for n in order])
    for k in range(1, len(ys)):  # top to bottom, each at least a row under the last
        ys[k] = min(ys[k], ys[k - 1] - height)
    ys += float(np.mean([target[n] for n in order]) - ys.mean())
    width = max(sizes[n][0] for n in group)
    return {n: (width / 2, float(y)) for n, y in zip(order, ys)}
