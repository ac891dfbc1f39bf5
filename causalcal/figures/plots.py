"""Figures: reliability diagrams before and after calibration, the averaged network.

Both return a matplotlib ``Figure`` (built without pyplot, so nothing is shown or kept
open; ``fig.savefig("x.png")`` or a notebook shows it). Needs matplotlib (the optional
``plot`` extra); without it :func:`matplotlib_available` is False and the functions raise
``ImportError`` with the install hint.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write
from causalcal._own import figure_metadata

__all__ = ["matplotlib_available", "plot_network", "plot_reliability", "pool_reliability",
           "save_figure"]

PLOT_HINT = "pip install 'causalcal[plot]'"

#: Panels in order, each drawn when its problem is given: the edge types' and the causal
#: relations' (docs/design.md §9.9: "causes" stacks both directions, every ordered pair).
PANELS = (("none", "no edge"), ("directed", "directed edge"),
          ("undirected", "undirected edge"), ("neither", "no causal relation"),
          ("causes", "X causes Y (ordered pairs)"), ("overall", "overall"))


def matplotlib_available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def pool_reliability(bins: Sequence[Mapping]) -> dict:
    """Sum the per-bin ``count/sum_p/sum_y`` of several runs (as :func:`reliability_bins`)."""
    pooled: dict = {}
    for run in bins:
        for name, b in run.items():
            acc = pooled.setdefault(name, {k: np.zeros(len(b["count"])) for k in b})
            for k, v in b.items():
                acc[k] += np.asarray(v, dtype=np.float64)
    return pooled


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError as err:
        raise ImportError(f"figures need matplotlib, the optional extra: {PLOT_HINT}") from err
    return Figure


def save_figure(fig, path: str | os.PathLike) -> Path:
    """Write ``fig`` atomically, marked as causalcal's in its metadata (so that a later
    run replaces it, and no other image); the format follows the suffix (.png, .pdf,
    .svg).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import matplotlib.pyplot as plt
    >>> from causalcal._own import is_own_figure
    >>> from causalcal.figures.plots import save_figure
    >>> fig, ax = plt.subplots()
    >>> path = save_figure(fig, pathlib.Path(tempfile.mkdtemp()) / "figure.png")
    >>> path.name, is_own_figure(path)
    ('figure.png', True)
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".") or "png"
    with atomic_write(path, "wb") as handle:
        fig.savefig(handle, format=fmt, dpi=100, metadata=figure_metadata(fmt))
    return path


def plot_reliability(
    before: Mapping,
    after: Mapping,
    path: str | os.PathLike | None = None,
    title: str = "",
    labels: tuple[str, str] = ("before", "after"),
):
    """Reliability diagrams (no edge, directed, undirected, overall; or neither, causes,
    overall for causal relations) as a matplotlib Figure.

    ``before``/``after`` map problem → ``{"count", "sum_p", "sum_y"}`` per equal-width
    bin (pooled over runs; a type may be missing, and has no panel then). Each panel
    shows fraction positive against mean prediction for both, the diagonal, and the share
    of instances per bin (log scale) underneath. Returns the Figure
    (``fig.savefig(...)`` is the caller's choice); with ``path`` it is written there
    (atomically) and the path is returned.
    """
    panels = [(key, label) for key, label in PANELS if key in before or key in after]
    fig = _figure_class()(figsize=(1.5 + 3.2 * len(panels), 5.5))
    axes = fig.subplots(2, len(panels), sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [3, 1]})
    for col, (key, label) in enumerate(panels):
        ax, hist = axes[0, col], axes[1, col]
        ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--")
        for data, name, style in ((before, labels[0], "o-"), (after, labels[1], "s-")):
            if key not in data:
                continue
            count = np.asarray(data[key]["count"], dtype=np.float64)
            used = count > 0
            mean_p = np.asarray(data[key]["sum_p"])[used] / count[used]
            frac = np.asarray(data[key]["sum_y"])[used] / count[used]
            ax.plot(mean_p, frac, style, ms=4, label=name)
            n_bins = len(count)
            centers = (np.arange(n_bins) + 0.5) / n_bins
            hist.step(centers, np.where(count > 0, count / count.sum(), np.nan),
                      where="mid", label=name)
        ax.set_title(label)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        hist.set_yscale("log")
        hist.set_xlabel("predicted probability")
        if col == 0:
            ax.set_ylabel("observed frequency")
            hist.set_ylabel("share")
            ax.legend(loc="upper left")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig if path is None else save_figure(fig, path)


def plot_network(probabilities, threshold: float | str = 0.5, *,
                 known: Collection[tuple[str, str]] = (), tiers: Mapping[str, int] | None = None,
                 title: str = ""):
    """The averaged network of ``probabilities`` (an
    :class:`~causalcal.edges.EdgeProbabilities`; ``threshold`` as in its
    ``averaged_network``) as a matplotlib Figure (docs/design.md §9.8).

    Edge width grows with P(adjacent) = 1 − p_none (bnlearn's strength plot); arrows for
    oriented edges, plain lines for undirected ones; edges of ``known`` pairs (names,
    either order: relations given, not found) in another colour; the others labelled with
    their P(adjacent) where there are at most 40 edges. Every variable is a
    label in a box, placed by :func:`causalcal.figures.layout.network_layout` (``tiers``
    as bands, each with its header); the figure grows with the number of variables so
    that labels stay readable. Deterministic."""
    import networkx as nx

    from causalcal.figures.layout import network_layout
    from causalcal.figures.routes import route_edges
    from causalcal.graph_io import KNOWN_COLOUR

    graph = probabilities.averaged_network(threshold)
    strength = probabilities.edge_strengths(graph, known)
    drawn = nx.Graph()
    drawn.add_nodes_from(graph.names)
    drawn.add_edges_from(strength)
    sizes = _label_sizes(graph.names)
    pos = network_layout(drawn, sizes, tiers)
    xy = np.array([pos[n] for n in graph.names]).reshape(-1, 2)
    half = np.array([sizes[n] for n in graph.names]).reshape(-1, 2) / 2
    low, high = (xy - half).min(axis=0) - 0.3, (xy + half).max(axis=0) + 0.3
    if tiers:
        high[1] += 0.3  # the bands' headers
    width, height = high - low
    fig = _figure_class()(figsize=(max(width, 6.0), height + 1.2))
    ax = fig.add_axes((0, 0.6 / (height + 1.2), 1, height / (height + 1.2)))
    ax.set_xlim(low[0] - (max(width, 6.0) - width) / 2, high[0] + (max(width, 6.0) - width) / 2)
    ax.set_ylim(low[1], high[1])
    ax.set_axis_off()
    for name in graph.names:
        ax.text(*pos[name], name, ha="center", va="center", fontsize=LABEL_SIZE, zorder=3,
                bbox={"boxstyle": f"round,pad={PAD}", "fc": "#dde8f5", "ec": "#35608f",
                      "lw": 0.8})
    if tiers:
        _band_headers(ax, pos, tiers, high[1] - 0.25)
    index = {n: k for k, n in enumerate(graph.names)}
    routes = route_edges(pos, sizes, strength)
    for k, ((a, b), data) in enumerate(strength.items()):
        given = data.get("known") == 1
        edge = ax.add_patch(_edge_arrow(routes[(a, b)], sizes[a], sizes[b],
                                        graph.has_directed(index[a], index[b]),
                                        0.6 + 3.4 * data["weight"],
                                        KNOWN_COLOUR if given else "#35608f"))
        edge.set_gid(f"edge-{'known' if given else 'discovered'}-{k}")  # named in an SVG
        if len(strength) <= MOST_EDGE_LABELS and not given:
            ax.text(*_halfway(routes[(a, b)]), f"{data['weight']:.2f}", fontsize=6.5,
                    ha="center", va="center", zorder=2.5, color="#35608f",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
    mine = int(sum(d.get("known", 0) for d in strength.values())) if known else None
    _network_legend(fig, threshold, graph, probabilities, mine, title)
    return fig


LABEL_SIZE = 8  #: points, the variables' labels
MOST_EDGE_LABELS = 40  #: edges labelled with their P(adjacent) up to this many
PAD = 0.35  #: the label box's padding, in units of LABEL_SIZE


def _band_headers(ax, pos: Mapping, tiers: Mapping[str, int], y: float) -> None:
    """"tier t" over each tier's band, "no tier" over the untiered variables'."""
    bands: dict = {}
    for name, (x, _) in pos.items():
        bands.setdefault(tiers.get(name), []).append(x)
    for tier, xs in bands.items():
        ax.text((min(xs) + max(xs)) / 2, y, "no tier" if tier is None else f"tier {tier}",
                ha="center", va="center", fontsize=LABEL_SIZE, color="0.4", style="italic")


def _label_sizes(names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Each label's box (width, height) in inches, measured with matplotlib's Agg."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer = RendererAgg(10, 10, 72)  # at 72 dpi a pixel is a point
    font = FontProperties(size=LABEL_SIZE)
    pad = 2 * PAD * LABEL_SIZE
    out = {}
    for name in names:
        w, h, _ = renderer.get_text_width_height_descent(name, font, ismath=False)
        out[name] = ((w + pad) / 72.0, (max(h, LABEL_SIZE) + pad) / 72.0)
    return out


def _edge_arrow(points: np.ndarray, size_a, size_b, directed: bool, width: float,
                colour: str):
    """An arrow (or line) along ``points`` (box ``a``'s centre to box ``b``'s, as
    :func:`~causalcal.figures.routes.route_edges`), ending at the boxes' edges."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path as CurvePath

    points = np.array(points, dtype=float)
    start = _border(points[0], points[1], size_a)
    end = _border(points[-1], points[-2], size_b)
    if len(points) == 2 and np.dot(end - start, points[1] - points[0]) < 0:
        end = start  # boxes that (nearly) touch: nothing to draw between them
    points[0], points[-1] = start, end
    return FancyArrowPatch(path=CurvePath(points), arrowstyle="-|>" if directed else "-",
                           mutation_scale=12, lw=width, color=colour, zorder=2, alpha=0.9)


def _border(centre: np.ndarray, towards: np.ndarray, size) -> np.ndarray:
    """Where the line from a box's ``centre`` towards ``towards`` leaves the box (plus
    0.03 inch)."""
    d = towards - centre
    length = float(np.hypot(*d)) or 1.0
    reach = min(size[0] / 2 / max(abs(d[0]) / length, 1e-9),
                size[1] / 2 / max(abs(d[1]) / length, 1e-9)) + 0.03
    return centre + d * min(reach / length, 1.0)


def _halfway(points: np.ndarray) -> np.ndarray:
    """The point half-way along the polyline ``points``."""
    steps = np.hypot(*np.diff(points, axis=0).T)
    along = np.concatenate([[0.0], np.cumsum(steps)])
    k = min(int(np.searchsorted(along, along[-1] / 2, side="right")), len(points) - 1)
    t = (along[-1] / 2 - along[k - 1]) / max(steps[k - 1], 1e-12)
    return points[k - 1] + t * (points[k] - points[k - 1])


def _network_legend(fig, threshold, graph, probabilities, known: int | None,
                    title: str) -> None:
    """Title and legend: what width and colour mean; with ``known`` (how many edges are
    known relations, None without any) the title says how many were discovered."""
    from matplotlib.lines import Line2D

    from causalcal.graph_io import KNOWN_COLOUR

    rule = (f"> {probabilities.estimated_threshold():.3g} (estimated)"
            if threshold == "estimated" else f">= {threshold:g}")
    edges = graph.n_directed + graph.n_undirected
    mine = "" if known is None else (f"; {known} your known relations, {edges - known} "
                                     "discovered" + ("" if edges > known else
                                                     " — none discovered above the threshold"))
    text = title or (f"averaged network: P(adjacent) {rule} ({graph.n_directed} "
                     f"directed, {graph.n_undirected} undirected{mine})")
    # wrapped to the figure's width (about 12 characters of 10 pt an inch)
    fig.suptitle(textwrap.fill(text, max(40, int(fig.get_figwidth() * 12))), fontsize=10)
    handles = [Line2D([], [], color="#35608f", lw=0.6 + 3.4 * p, label=f"P(adjacent) {p:g}")
               for p in (0.5, 0.75, 1.0)]
    if known is not None:
        handles.append(Line2D([], [], color=KNOWN_COLOUR, lw=4.0, label="known (given)"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8,
               frameon=False)
