"""Graphs out and in: causal-learn, networkx, pgmpy, GML, Graphviz DOT and JSON
(docs/design.md §3).

* :func:`to_causallearn` / :func:`from_causallearn`: causal-learn's ``GeneralGraph``
  (``graph[j, i] = 1, graph[i, j] = −1`` is ``i → j``; −1 both ways is ``i — j``), node
  names kept.
* :func:`to_networkx` / :func:`from_networkx`: a networkx ``DiGraph`` on the node names
  (an undirected edge is the two arcs; :func:`from_networkx` also reads one arc with
  ``undirected=1``).
* :func:`to_pgmpy`: pgmpy's ``PDAG`` (extra ``bif``: ``pip install causalcal[bif]``).
* :func:`write_graph` / :func:`read_graph` choose the format by the file's suffix:
  ``.gml`` and ``.graphml`` (directed graphs that networkx, Gephi and Cytoscape load;
  every edge is one edge, an undirected one with ``undirected=1``), ``.dot`` (a Graphviz
  digraph; an undirected edge is one line with ``dir=none``; read by :mod:`causalcal._dot`,
  so DOT written by Graphviz, pydot or networkx reads too) and ``.json`` (exact round
  trip). GML, GraphML and DOT files carry causalcal's mark on their first line
  (:mod:`causalcal._own`).
  Optional ``edge_data`` adds numeric attributes per edge (e.g. its probability); a
  ``.dot`` file then draws wider lines for larger ``weight`` values, and an edge with
  ``known=1`` (a relation given, not found) in another colour.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from xml.etree.ElementTree import ParseError

import networkx as nx

from causalcal._dot import parse_dot
from causalcal._io import atomic_write, input_file, parse_json
from causalcal._own import marked
from causalcal.errors import InputError
from causalcal.graph import PDAG

__all__ = ["GRAPH_SUFFIXES", "dot_quote", "from_causallearn", "from_networkx", "read_graph",
           "to_causallearn", "to_networkx", "to_pgmpy", "write_graph"]

GRAPH_SUFFIXES = (".gml", ".graphml", ".dot", ".json")
JSON_FORMAT = "causalcal.pdag"
PGMPY_HINT = "pip install causalcal[bif]"

#: The colour of an edge known beforehand (``known=1``), in DOT files and figures.
KNOWN_COLOUR = "#d95f02"

EdgeData = Mapping[tuple[str, str], Mapping[str, float]]


# ------------------------------------------------------------------ causal-learn
def to_causallearn(graph: PDAG):
    """causal-learn's ``GeneralGraph`` of ``graph`` (nodes named as ``graph.names``)."""
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode

    nodes = [GraphNode(name) for name in graph.names]
    out = GeneralGraph(nodes)
    for i, j in graph.directed_edges().tolist():
        out.add_edge(Edge(nodes[i], nodes[j], Endpoint.TAIL, Endpoint.ARROW))
    for i, j in graph.undirected_edges().tolist():
        out.add_edge(Edge(nodes[i], nodes[j], Endpoint.TAIL, Endpoint.TAIL))
    return out


def from_causallearn(graph, names: Sequence[str] | None = None,
                     conflicts_undirected: bool = False) -> PDAG:
    """A :class:`PDAG` from a causal-learn ``GeneralGraph`` (names: the graph's node names
    unless ``names`` is given). An endpoint pair other than tail–arrow or tail–tail (PC's
    bidirected conflicts, PAG circles) is an error, or undirected with
    ``conflicts_undirected``."""
    m = graph.graph
    v = m.shape[0]
    if names is None:
        names = [node.get_name() for node in graph.get_nodes()]
    g = PDAG(v, names)
    for i in range(v):
        for j in range(i + 1, v):
            a, b = int(m[i, j]), int(m[j, i])
            if a == 0 and b == 0:
                continue
            if a == -1 and b == 1:
                g.add_directed(i, j)
            elif a == 1 and b == -1:
                g.add_directed(j, i)
            elif (a == -1 and b == -1) or conflicts_undirected:
                g.add_undirected(i, j)
            else:
                raise InputError(f"unsupported causal-learn endpoint pair ({a}, {b}) between "
                                 f"{g.names[i]!r} and {g.names[j]!r}")
    return g


# --------------------------------------------------------------------- networkx
def to_networkx(graph: PDAG) -> nx.DiGraph:
    """A ``DiGraph`` on the node names; an undirected edge becomes arcs both ways."""
    g = nx.DiGraph()
    g.add_nodes_from(graph.names)
    names = graph.names
    g.add_edges_from((names[i], names[j]) for i, j in graph.directed_edges())
    for i, j in graph.undirected_edges():
        g.add_edge(names[i], names[j])
        g.add_edge(names[j], names[i])
    return g


def from_networkx(graph: nx.Graph, nodes: Sequence | None = None) -> PDAG:
    """A :class:`PDAG` from a networkx ``DiGraph`` (arcs both ways, or an arc with a true
    ``undirected`` attribute, are an undirected edge) or ``Graph`` (undirected).

    Node order is ``nodes`` if given, else ``graph``'s node order; node labels become names.
    """
    nodes = list(graph.nodes) if nodes is None else list(nodes)
    index = {node: k for k, node in enumerate(nodes)}
    g = PDAG(len(nodes), [str(n) for n in nodes])
    for u, v, undirected in graph.edges(data="undirected", default=0):
        i, j = index[u], index[v]
        if not graph.is_directed() or graph.has_edge(v, u) or int(undirected):
            if not g.is_adjacent(i, j):
                g.add_undirected(i, j)
        else:
            g.add_directed(i, j)
    return g


# ------------------------------------------------------------------------ pgmpy
def to_pgmpy(graph: PDAG):
    """pgmpy's ``PDAG`` of ``graph`` (needs the extra ``bif``)."""
    try:
        from pgmpy.base import PDAG as PgmpyPDAG
    except ImportError:
        raise ImportError(f"to_pgmpy needs pgmpy, the optional extra: {PGMPY_HINT}") from None
    names = graph.names
    out = PgmpyPDAG(
        directed_ebunch=[(names[i], names[j]) for i, j in graph.directed_edges().tolist()],
        undirected_ebunch=[(names[i], names[j]) for i, j in graph.undirected_edges().tolist()],
    )
    out.add_nodes_from(names)
    return out


# ----------------------------------------------------------------------- files
def _suffix(path: str | os.PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in GRAPH_SUFFIXES:
        raise InputError(f"{path}: unknown graph format {suffix or '(no suffix)'!r}; use "
                         f"{', '.join(GRAPH_SUFFIXES)}")
    return suffix


def _edges(graph: PDAG) -> list[tuple[str, str, bool]]:
    """``(a, b, directed)`` for every edge, directed ones first, sorted."""
    n = graph.names
    return ([(n[i], n[j], True) for i, j in graph.directed_edges().tolist()]
            + [(n[i], n[j], False) for i, j in graph.undirected_edges().tolist()])


def _attributes(edge_data: EdgeData | None, a: str, b: str) -> dict[str, float]:
    if not edge_data:
        return {}
    found = edge_data.get((a, b), edge_data.get((b, a), {}))
    return {str(k): float(v) for k, v in found.items()}


def write_graph(graph: PDAG, path: str | os.PathLike, edge_data: EdgeData | None = None) -> None:
    """Write ``graph`` to ``path`` (atomically) as GML, DOT or JSON by its suffix.

    ``edge_data`` maps a pair of names ``(a, b)`` (either order) to numeric attributes of
    that edge, e.g. ``{"weight": 0.93}``.
    """
    suffix = _suffix(path)
    writer = {".gml": _gml, ".graphml": _graphml, ".dot": _dot, ".json": _json}[suffix]
    text = writer(graph, edge_data)
    if suffix != ".json":  # JSON says what it is in its "format"
        text = marked(text, suffix, "a graph")
    with atomic_write(path, newline="\n", encoding="utf-8") as handle:
        handle.write(text)


def _attributed(graph: PDAG, edge_data: EdgeData | None) -> nx.DiGraph:
    """One arc per edge, ``undirected`` 0 or 1, and the edge's ``edge_data``."""
    g = nx.DiGraph()
    g.add_nodes_from(graph.names)
    for a, b, directed in _edges(graph):
        g.add_edge(a, b, undirected=int(not directed), **_attributes(edge_data, a, b))
    return g


def _gml(graph: PDAG, edge_data: EdgeData | None) -> str:
    return "\n".join(nx.generate_gml(_attributed(graph, edge_data))) + "\n"


def _graphml(graph: PDAG, edge_data: EdgeData | None) -> str:
    return "\n".join(nx.generate_graphml(_attributed(graph, edge_data))) + "\n"


def dot_quote(name: str) -> str:
    """``name`` as a quoted DOT ID (quotes, backslashes and line breaks escaped)."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n").replace("\r", "\\r") + '"'


def _dot(graph: PDAG, edge_data: EdgeData | None) -> str:
    lines = ["digraph causalcal {"]
    lines += [f"  {dot_quote(n)};" for n in graph.names]
    for a, b, directed in _edges(graph):
        extra = _attributes(edge_data, a, b)
        attrs = [] if directed else ["dir=none"]
        attrs += [f"{k}={v:.6g}" for k, v in extra.items() if re.fullmatch(r"[A-Za-z_]\w*", k)]
        if "weight" in extra and math.isfinite(extra["weight"]):
            attrs.append(f"penwidth={0.5 + 4.5 * min(max(extra['weight'], 0.0), 1.0):.3g}")
        if extra.get("known") == 1:
            attrs.append(f'color="{KNOWN_COLOUR}"')
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {dot_quote(a)} -> {dot_quote(b)}{tail};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _json(graph: PDAG, edge_data: EdgeData | None) -> str:
    doc = {
        "format": JSON_FORMAT, "version": 1, "nodes": graph.names,
        "directed": [[a, b] for a, b, d in _edges(graph) if d],
        "undirected": [[a, b] for a, b, d in _edges(graph) if not d],
    }
    if edge_data:
        doc["edge_data"] = [[a, b, _attributes(edge_data, a, b)] for a, b, _ in _edges(graph)]
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def read_graph(path: str | os.PathLike) -> PDAG:
    """Read a graph file (format by suffix; errors name the file): ``.gml``/``.graphml``:
    any directed graph (arcs both ways, or one arc with ``undirected=1``, are an undirected
    edge) or undirected one; ``.dot``: any Graphviz graph (:mod:`causalcal._dot`'s parser;
    ``dir=none``, ``undirected=1``, arcs both ways or an undirected ``graph``: undirected
    edges); ``.json``: what :func:`write_graph` writes. A PAG (an edge with a PAG's marks,
    such as ``o->`` or ``<->``, as :mod:`causalcal.pag_io` writes them, or DOT's
    ``dir=both``) is refused naming the edge: its marks are not arcs."""
    suffix = _suffix(path)
    try:
        text = input_file(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; not a {suffix[1:]} graph file") from None
    doc = parse_json(text, path) if suffix == ".json" else None
    try:
        if suffix == ".gml":
            return _from_files_graph(nx.parse_gml(text.splitlines()))
        if suffix == ".graphml":
            return _from_files_graph(nx.parse_graphml(text))
        if suffix == ".dot":
            return _from_files_graph(_parse_dot(text))
        return _parse_json(doc)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError,
            nx.NetworkXError, ParseError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else err
        raise InputError(f"{path}: not a {suffix[1:]} graph file: {reason}") from None


#: a PAG's edges as causalcal.pag_io writes them (the attribute ``edge``)
_PAG_EDGES = ("o-o", "o->", "<-o", "<->", "-->", "<--")
#: DOT's arrow shapes at an end of a ``dir=both`` edge, as a PAG's marks
_DOT_MARKS = {"none": "-", "odot": "o", "dot": "o"}


def _marks(data: dict) -> str | None:
    """An edge's PAG marks (``o->``, ``<->``, …) from its attributes: pag_io's ``edge``, or
    DOT's ``dir=both`` with ``arrowtail`` and ``arrowhead``; ``None`` for a plain edge."""
    mark = str(data.get("edge", "")).strip('"')
    if mark in _PAG_EDGES:
        return mark
    if str(data.get("dir", "")).strip('"') != "both":
        return None
    tail = _DOT_MARKS.get(str(data.get("arrowtail", "normal")).strip('"'), "<")
    head = _DOT_MARKS.get(str(data.get("arrowhead", "normal")).strip('"'), ">")
    return f"{tail}-{head}"


def _from_files_graph(graph: nx.Graph) -> PDAG:
    """:func:`from_networkx` of a graph read from a file. An edge with a PAG's marks is an
    arc only as ``-->`` (``<--`` the other way); any other (circles, arrowheads at both
    ends) is refused naming it: its marks are not arcs."""
    plain = nx.DiGraph() if graph.is_directed() else nx.Graph()
    plain.add_nodes_from(graph.nodes)
    for a, b, data in graph.edges(data=True):
        mark = _marks(data)
        if mark not in (None, "-->", "<--"):
            raise InputError(f"edge {a} {mark} {b} carries a PAG's marks (circles, or "
                             "arrowheads at both ends: a hidden common cause), not an arc "
                             "or an undirected edge; a DAG or CPDAG is needed here")
        kept = {k: v for k, v in data.items() if k == "undirected"}
        plain.add_edge(*((b, a) if mark == "<--" else (a, b)), **kept)
    return from_networkx(plain)


def _parse_dot(text: str) -> nx.DiGraph:
    """A DOT graph as a ``DiGraph`` (undirected edges: arcs with ``undirected=1``; the
    edges' ``edge`` and ``dir`` attributes kept)."""
    parsed = parse_dot(text)
    out = nx.DiGraph()
    out.add_nodes_from(parsed.nodes)
    for edge in parsed.edges:
        attrs = edge.attributes
        undirected = (not parsed.directed or attrs.get("dir") == "none"
                      or attrs.get("undirected", "0") == "1")
        kept = {k: attrs[k] for k in ("edge", "dir", "arrowtail", "arrowhead") if k in attrs}
        out.add_edge(edge.a, edge.b, undirected=int(undirected), **kept)
    return out


def _parse_json(doc: dict) -> PDAG:
    if isinstance(doc, dict) and doc.get("format") == "causalcal.pag":
        raise InputError("a PAG (format 'causalcal.pag': its marks are not arcs), not a "
                         "DAG or CPDAG")
    if doc.get("format") != JSON_FORMAT:
        raise InputError(f"'format' is not {JSON_FORMAT!r}")
    names = [str(n) for n in doc["nodes"]]
    index = {n: k for k, n in enumerate(names)}
    return PDAG.from_edges(len(names), [(index[a], index[b]) for a, b in doc["directed"]],
                           [(index[a], index[b]) for a, b in doc["undirected"]], names)
