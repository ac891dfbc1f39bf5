"""Reliability diagrams of edge-type probabilities before and after calibration.

Needs matplotlib (the optional ``plot`` extra); without it :func:`matplotlib_available`
is False and :func:`plot_reliability` raises ``ImportError`` with the install hint.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write

__all__ = ["matplotlib_available", "plot_reliability", "pool_reliability"]

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


def plot_reliability(
    before: Mapping,
    after: Mapping,
    path: str | os.PathLike,
    title: str = "",
    labels: tuple[str, str] = ("before", "after"),
) -> Path:
    """Write a 2 × 2 PNG of reliability diagrams (no edge, directed, undirected, overall).

    ``before``/``after`` map edge type → ``{"count", "sum_p", "sum_y"}`` per equal-width
    bin (pooled over runs). Each panel shows fraction positive against mean prediction for
    both, the diagonal, and the share of instances per bin (log scale) underneath.
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(
            "reliability diagrams need matplotlib: pip install 'causalcal[plot]'"
        ) from err
    path = Path(path)
    fig, axes = plt.subplots(2, 4, figsize=(14, 5.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 1]})
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
    try:
        with atomic_write(path, "wb") as handle:
            fig.savefig(handle, format="png", dpi=100)
    finally:
        plt.close(fig)
    return path
