"""The report of a run: one typed value holding what a ``discover`` or ``bootstrap`` run
says, from which the text summary, the JSON (``OUT.json``) and the HTML page are rendered
(docs/design.md §9.15).

The value is built once from the run's result (:func:`causalcal.workflow.run_report`);
every renderer reads it and nothing else, so the three outputs cannot disagree.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, field, replace
from importlib import metadata

import numpy as np
import pandas as pd

from causalcal.association import Association
from causalcal.edgecal import FitReport, IfWrong, RelationKind
from causalcal.edges import EdgeProbabilities

__all__ = ["HEAD_ROWS", "Bins", "Figures", "NetworkData", "NetworkEdge", "PairsHead",
           "RecheckEntry", "ReliabilityData", "RunReport", "Settings", "network_data",
           "threshold_words", "versions"]

#: The ranked pairs a report holds (the top ones): enough to browse, bounded so that a
#: run of V = 1000 variables (≈ 500,000 pairs) still gives a light page; the full table is
#: the run's ``OUT.csv``.
HEAD_ROWS = 5000

#: The distributions whose versions a report records.
_VERSIONED = ("causalcal", "numpy", "scipy", "pandas", "scikit-learn", "networkx",
              "causal-learn", "torch")


def versions() -> tuple[tuple[str, str], ...]:
    """``(name, version)`` of Python and the libraries a run depends on (those
    installed).

    Examples
    --------
    >>> from causalcal.report import versions
    >>> dict(versions())["causalcal"] == __import__("causalcal").__version__
    True
    """
    out = [("python", platform.python_version())]
    for name in _VERSIONED:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return tuple(out)


@dataclass(frozen=True)
class Settings:
    """How the run was made.

    Attributes
    ----------
    command : the command line that reproduces the run (None: not recorded, e.g. run
        from Python)
    what : ``"discover"`` or ``"bootstrap"``
    relations : the relation kind's word (``edges``, ``causal``, ``pag``)
    n_vars : the data's variables
    n_boot : bootstrap replicates
    search, seed : the bootstrap's search and seed (None where not recorded)
    search_options : the search's options as ``(name, value)`` text pairs
    calibration : the calibrate stage's settings as ``(name, value)`` text pairs
    versions : :func:`versions` when the report was made
    """

    command: str | None
    what: str
    relations: str
    n_vars: int
    n_boot: int
    search: str | None = None
    seed: int | None = None
    search_options: tuple[tuple[str, str], ...] = ()
    calibration: tuple[tuple[str, str], ...] = ()
    versions: tuple[tuple[str, str], ...] = field(default_factory=versions)

    def as_dict(self) -> dict:
        """The JSON layout."""
        return {"command": self.command, "what": self.what, "relations": self.relations,
                "n_vars": self.n_vars, "n_boot": self.n_boot, "search": self.search,
                "seed": self.seed, "search_options": dict(self.search_options),
                "calibration": dict(self.calibration), "versions": dict(self.versions)}


@dataclass(frozen=True)
class PairsHead:
    """The ranked pairs: the top rows and how many there are.

    Attributes
    ----------
    table : the top rows, ranked (the kind's columns: ``a, b``, calibrated ``p_…``,
        bootstrap ``boot_…``)
    total : pairs in the whole table
    written : rows written to the run's table file
    ranked_by : what the rows are ranked by, in words
    out : the file holding the whole table (None: not written)
    above_half, above_09 : pairs whose probability of being related exceeds 0.5 and 0.9
    sha256 : the checksum of the table file as written (None: not written; a later run
        replaces only an unedited table, docs/design.md §10)
    """

    table: pd.DataFrame
    total: int
    written: int
    ranked_by: str
    out: str | None = None
    above_half: int = 0
    above_09: int = 0
    sha256: str | None = None


@dataclass(frozen=True)
class RecheckEntry:
    """An answer to a suggested pair, in the order likeliest wrong first
    (docs/design.md §9.14).

    Attributes
    ----------
    a, b : the pair
    stated : the answer as written
    p_wrong : its probability of being wrong (None: answers taken as right)
    p_stated, boot_stated : the calibrated and bootstrap probability of what it states
    association : the data's test of the pair's marginal independence (None: not run)
    if_wrong : what changes if it is wrong (None: not computed for this one)
    """

    a: str
    b: str
    stated: str
    p_wrong: float | None
    p_stated: float
    boot_stated: float
    association: Association | None = None
    if_wrong: IfWrong | None = None

    def as_dict(self) -> dict:
        """The JSON layout (``OUT.json``'s ``recheck`` records)."""
        record = {"a": self.a, "b": self.b, "stated": self.stated, "p_wrong": self.p_wrong,
                  "p_stated": self.p_stated, "boot_stated": self.boot_stated}
        if self.association is not None:
            record["association"] = self.association.as_dict()
        if self.if_wrong is not None:
            record["if_wrong"] = self.if_wrong.as_dict()
        return record


@dataclass(frozen=True)
class Bins:
    """A reliability diagram's equal-width bins: pairs, summed prediction and summed
    outcome in each."""

    count: np.ndarray
    sum_p: np.ndarray
    sum_y: np.ndarray

    def as_plot(self) -> dict:
        """The layout :func:`causalcal.figures.plots.plot_reliability` takes."""
        return {"count": self.count, "sum_p": self.sum_p, "sum_y": self.sum_y}

    def as_dict(self) -> dict:
        """The JSON layout."""
        return {k: [float(x) for x in v] for k, v in self.as_plot().items()}


@dataclass(frozen=True)
class ReliabilityData:
    """The reliability diagram of the pairs with a known answer: the bootstrap's bins and
    the written map's (None when the bootstrap was written), of one label (``problem``,
    e.g. ``none``: P(no edge))."""

    problem: str
    before: Bins
    after: Bins | None
    labels: tuple[str, str]
    title: str

    def as_dict(self) -> dict:
        return {"problem": self.problem, "before": self.before.as_dict(),
                "after": None if self.after is None else self.after.as_dict(),
                "labels": list(self.labels), "title": self.title}


@dataclass(frozen=True)
class NetworkEdge:
    """An edge of the averaged network: its P(adjacent), whether it is drawn oriented
    ``a → b``, and whether it is one of the user's known relations (drawn as given) or
    discovered."""

    a: str
    b: str
    p_adjacent: float
    directed: bool
    known: bool

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "p_adjacent": self.p_adjacent,
                "directed": self.directed, "known": self.known}


@dataclass(frozen=True)
class NetworkData:
    """The averaged network (docs/design.md §9.8): the probabilities it is drawn from, its
    rule, its edges (known and discovered told apart) and the tiers as bands.

    Attributes
    ----------
    probabilities : what :func:`causalcal.figures.plots.plot_network` draws
    threshold : the P(adjacent) an edge needs (or ``"estimated"``)
    rule : the rule in words (``>= 0.5``)
    known : the known relations drawn (name pairs), or None when none are drawn
    edges : the network's edges, strongest first
    tiers : variable → tier, or None
    total_edges : the edges of the whole network (``edges`` may hold fewer:
        :meth:`strongest`)
    """

    probabilities: EdgeProbabilities
    threshold: float | str
    rule: str
    known: tuple[tuple[str, str], ...] | None
    edges: tuple[NetworkEdge, ...]
    tiers: dict | None = None
    total_edges: int = 0

    @property
    def n_known(self) -> int:
        return sum(e.known for e in self.edges)

    def strongest(self, n: int) -> NetworkData:
        """This network restricted to its ``n`` strongest discovered edges and the known
        relations that touch the variables they join: what a page can show of a large
        network (the known relations are given, so they do not crowd out what was
        found)."""
        if len(self.edges) <= n:
            return self
        top = set([e for e in self.edges if not e.known][:n])
        chosen = {v for e in top for v in (e.a, e.b)}
        kept = tuple(e for e in self.edges
                     if e in top or (e.known and (e.a in chosen or e.b in chosen)))
        if len(kept) == len(self.edges):
            return self
        drawn = {v for e in kept for v in (e.a, e.b)}
        names = [v for v in self.probabilities.names if v in drawn]
        index = {v: k for k, v in enumerate(self.probabilities.names)}
        local = {v: k for k, v in enumerate(names)}
        rows = self.probabilities.lookup(np.array([index[e.a] for e in kept]),
                                         np.array([index[e.b] for e in kept]))
        pairs = np.array([sorted((local[e.a], local[e.b])) for e in kept], dtype=np.int64)
        swap = np.array([local[e.a] > local[e.b] for e in kept])
        rows[swap] = rows[swap][:, list(self.probabilities.swap)]
        probs = EdgeProbabilities(names, pairs, rows, self.probabilities.n_boot)
        known = None if self.known is None else tuple((e.a, e.b) for e in kept if e.known)
        tiers = None if self.tiers is None else {v: t for v, t in self.tiers.items()
                                                 if v in local}
        return replace(self, probabilities=probs, known=known, edges=kept, tiers=tiers)

    def as_dict(self) -> dict:
        return {"threshold": self.threshold, "rule": self.rule,
                "total_edges": self.total_edges, "edges": [e.as_dict() for e in self.edges]}


@dataclass(frozen=True)
class Figures:
    """The figures' data: the known pairs' reliability diagram and the averaged network
    (each None where the run has none: causal relations, or no edges)."""

    reliability: ReliabilityData | None = None
    network: NetworkData | None = None


@dataclass(frozen=True)
class RunReport:
    """What a run says (module docstring).

    Attributes
    ----------
    settings : :class:`Settings`
    kind : the :class:`~causalcal.edgecal.RelationKind` of the run
    pairs : :class:`PairsHead`, the ranked pairs
    fit : the :class:`~causalcal.edgecal.FitReport` of the calibration: the map chosen
        with its candidates and scores (``fit.map``), the assumed and estimated related
        pairs, the answers' design and estimate (None for a bootstrap's report)
    known : the known relations' own results
        (:func:`~causalcal.edgecal.known_results`), None for a bootstrap's report
    recheck : the answers to recheck, likeliest wrong first
    figures : :class:`Figures`
    """

    settings: Settings
    kind: RelationKind
    pairs: PairsHead
    fit: FitReport | None = None
    known: pd.DataFrame | None = None
    recheck: tuple[RecheckEntry, ...] = ()
    figures: Figures = field(default_factory=Figures)

    @property
    def n_boot(self) -> int:
        return self.settings.n_boot


def threshold_words(probabilities: EdgeProbabilities, threshold: float | str) -> str:
    """``>= 0.5`` or ``> 0.31 (estimated)``: the averaged network's rule in words.

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.edges import EdgeProbabilities
    >>> from causalcal.report.model import threshold_words
    >>> probs = EdgeProbabilities(["a", "b"], np.array([[0, 1]]), np.array([[0.2, 0.8, 0, 0]]))
    >>> threshold_words(probs, 0.5)
    '>= 0.5'
    """
    if threshold == "estimated":
        return f"> {probabilities.estimated_threshold():.3g} (estimated)"
    return f">= {threshold:g}"


def network_data(probabilities: EdgeProbabilities, threshold: float | str,
                 known: list[tuple[str, str]] | None = None,
                 tiers: dict | None = None) -> NetworkData:
    """The :class:`NetworkData` of the averaged network of ``probabilities`` at
    ``threshold``; ``known``: the name pairs that are the user's known relations (None:
    none drawn); its edges strongest first.

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.edges import EdgeProbabilities
    >>> from causalcal.report import network_data
    >>> probs = EdgeProbabilities(["a", "b", "c"], np.array([[0, 1], [1, 2]]),
    ...                           np.array([[0.2, 0.8, 0, 0], [0, 0, 0, 1.0]]))
    >>> [(e.a, e.b, e.directed, e.known) for e in network_data(probs, 0.5, [("b", "c")]).edges]
    [('b', 'c', False, True), ('a', 'b', True, False)]
    """
    graph = probabilities.averaged_network(threshold)
    strength = probabilities.edge_strengths(graph, known)
    index = {n: k for k, n in enumerate(graph.names)}
    edges = sorted((NetworkEdge(a, b, float(d["weight"]),
                                bool(graph.has_directed(index[a], index[b])),
                                bool(d.get("known", 0)))
                    for (a, b), d in strength.items()),
                   key=lambda e: (-e.p_adjacent, not e.known))
    return NetworkData(probabilities, threshold, threshold_words(probabilities, threshold),
                       None if known is None else tuple(known), tuple(edges),
                       dict(tiers) if tiers else None, len(edges))
