"""Figures: reliability diagrams before and after calibration, the averaged network.

Both return a matplotlib ``Figure`` (built without pyplot, so nothing is shown or kept
open; ``fig.savefig("x.png")`` or a notebook shows it). Needs matplotlib (the optional
``plot`` extra); without it :func:`matplotlib_available` is False and the functions raise
``ImportError`` with the install hint.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write

__all__ = ["matplotlib_available", "plot_network", "plot_reliability", "pool_reliability"]

PLOT_HINT = "pip install 'causalcal[plot]'"

PANELS = (("none", "no edge"), ("directed", "directed edge"),
          ("undirected", "undirected edge"), ("overall", "overall"))


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


def _save(fig, path: str | os.PathLike) -> Path:
    """Write ``fig`` atomically; the format follows the suffix (.png, .pdf, .svg)."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".") or "png"
    with atomic_write(path, "wb") as handle:
        fig.savefig(handle, format=fmt, dpi=100)
    return path


def plot_reliability(
    before: Mapping,
    after: Mapping,
    path: str | os.PathLike | None = None,
    title: str = "",
    labels: tuple[str, str] = ("before", "after"),
):
    """Reliability diagrams (no edge, directed, undirected, overall) as a matplotlib Figure.

    ``before``/``after`` map edge type → ``{"count", "sum_p", "sum_y"}`` per equal-width
    bin (pooled over runs; a type may be missing). Each panel shows fraction positive
    against mean prediction for both, the diagonal, and the share of instances per bin
    (log scale) underneath. Returns the Figure (``fig.savefig(...)`` is the caller's
    choice); with ``path`` it is written there (atomically) and the path is returned.
    """
    fig = _figure_class()(figsize=(14, 5.5))
    axes = fig.subplots(2, 4, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    for col, (key, label) in enumerate(PANELS):
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
    return fig if path is None else _save(fig, path)


def plot_network(probabilities, threshold: float = 0.5, *, seed: int = 0, title: str = ""):
    """The averaged network of ``probabilities`` (an :class:`~causalcal.edges.EdgeProbabilities`)
    drawn with edge width by P(adjacent) = 1 − p_none (bnlearn's strength plot): arrows
    for oriented edges, plain lines for undirected ones, each labelled with its
    P(adjacent). Variables without an edge are drawn apart. Returns a matplotlib Figure;
    the layout is networkx's spring layout seeded by ``seed``.
    """
    import networkx as nx

    graph = probabilities.averaged_network(threshold)
    strength = probabilities.edge_strengths(graph)
    names = graph.names
    fig = _figure_class()(figsize=(8, 6.5))
    ax = fig.subplots()
    drawn = nx.Graph()
    drawn.add_nodes_from(names)
    drawn.add_edges_from((a, b) for a, b in strength)
    pos = nx.spring_layout(drawn, seed=seed, k=1.5 / max(len(names), 1) ** 0.5)
    nx.draw_networkx_nodes(drawn, pos, ax=ax, node_color="#dde8f5", edgecolors="#35608f",
                           node_size=900)
    nx.draw_networkx_labels(drawn, pos, ax=ax, font_size=8)
    for directed, edges in ((True, graph.directed_edges()), (False, graph.undirected_edges())):
        pairs = [(names[i], names[j]) for i, j in edges.tolist()]
        if not pairs:
            continue
        widths = [0.5 + 5.5 * strength[p]["weight"] for p in pairs]
        nx.draw_networkx_edges(nx.DiGraph(pairs), pos, ax=ax, edgelist=pairs, width=widths,
                               arrows=True, arrowstyle="-|>" if directed else "-",
                               arrowsize=14, node_size=900, edge_color="#35608f")
        nx.draw_networkx_edge_labels(
            nx.DiGraph(pairs), pos, ax=ax, font_size=7,
            edge_labels={p: f"{strength[p]['weight']:.2f}" for p in pairs})
    ax.set_axis_off()
    ax.set_title(title or f"averaged network: P(adjacent) >= {threshold:g} "
                          f"({graph.n_directed} directed, {graph.n_undirected} undirected)")
    fig.tight_layout()
    return fig
