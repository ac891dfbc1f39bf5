"""A report's figures, drawn from its data (docs/design.md §9.8, §9.15): matplotlib
``Figure``s (extra ``plot``), and the same as inline SVG for the HTML page."""

from __future__ import annotations

import io

from causalcal.report.model import NetworkData, ReliabilityData

__all__ = ["network_figure", "reliability_figure", "svg_text"]


def reliability_figure(data: ReliabilityData):
    """The reliability diagram of the pairs with a known answer: the bootstrap and, when
    another map was written, that map (:func:`causalcal.figures.plots.plot_reliability`).

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.report import Bins, ReliabilityData, reliability_figure
    >>> bins = Bins(np.array([3.0, 1.0]), np.array([0.3, 0.7]), np.array([0.0, 1.0]))
    >>> fig = reliability_figure(ReliabilityData("none", bins, None, ("bootstrap", ""), ""))
    >>> len(fig.axes) > 0
    True
    """
    from causalcal.figures.plots import plot_reliability

    after = {} if data.after is None else {data.problem: data.after.as_plot()}
    return plot_reliability({data.problem: data.before.as_plot()}, after,
                            labels=data.labels, title=data.title)


def network_figure(data: NetworkData, title: str = ""):
    """The averaged network, known relations in their own colour, tiers as bands
    (:func:`causalcal.figures.plots.plot_network`).

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.edges import EdgeProbabilities
    >>> from causalcal.report import network_data, network_figure
    >>> probs = EdgeProbabilities(["a", "b"], np.array([[0, 1]]), np.array([[0.1, 0.9, 0, 0]]))
    >>> len(network_figure(network_data(probs, 0.5)).axes)
    1
    """
    from causalcal.figures.plots import plot_network

    return plot_network(data.probabilities, data.threshold, known=data.known or (),
                        tiers=data.tiers, title=title)


def svg_text(fig) -> str:
    """``fig`` as an SVG element to inline in a page: text kept as text (not paths, so
    the file stays small and searchable), no XML prologue, scaled by the page.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from causalcal.report import svg_text
    >>> svg_text(Figure(figsize=(1, 1))).startswith("<svg")
    True
    """
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "causalcal"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]
