"""PAGs out and in: causal-learn's graph objects and files with Tetrad's endpoint marks
(docs/design.md §6.2; issue 40, item 2).

* :func:`to_causallearn_pag` / :func:`from_causallearn_pag`: causal-learn's
  ``GeneralGraph`` as its FCI returns it (``graph[i, j]`` is the endpoint at i of the
  edge i *-* j: −1 tail, 1 arrowhead, 2 circle), node names kept.
* :func:`write_pag` / :func:`read_pag` by the file's suffix: ``.txt`` (Tetrad's graph
  text, "Graph Nodes:" and numbered "Graph Edges:" such as ``1. A o-> B``, which Tetrad
  loads), ``.json`` (exact round trip), ``.dot`` (Graphviz: circles as ``odot``, arrowheads
  as ``normal``, tails as ``none``) and ``.gml``/``.graphml`` (each edge once, from a to
  b, with its marks as the attribute ``edge``, e.g. ``o->``). ``edge_data`` adds numeric
  attributes per edge, as for CPDAGs (:func:`causalcal.graph_io.write_graph`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import networkx as nx
import numpy as np

from causalcal._io import atomic_write, input_file, parse_json
from causalcal._own import marked
from causalcal.errors import InputError
from causalcal.graph_io import EdgeData, dot_quote
from causalcal.pag import PAG, Mark

__all__ = ["PAG_SUFFIXES", "from_causallearn_pag", "read_pag", "to_causallearn_pag",
           "write_pag"]

PAG_SUFFIXES = (".txt", ".json", ".dot", ".gml", ".graphml")
JSON_FORMAT = "causalcal.pag"
#: causal-learn's Endpoint values of our marks (pcalg codes 0–3), and back
_TO_CL = np.array([0, 2, 1, -1], dtype=np.int64)
_FROM_CL = {0: Mark.NONE, 2: Mark.CIRCLE, 1: Mark.ARROW, -1: Mark.TAIL}
_DOT_ARROW = {Mark.CIRCLE: "odot", Mark.ARROW: "normal", Mark.TAIL: "none"}
_EDGE_LINE = re.compile(r"\s*\d+\.\s+(\S+)\s+(\S{3})\s+(\S+)\s*$")


# ------------------------------------------------------------------ causal-learn
def to_causallearn_pag(pag: PAG):
    """causal-learn's ``GeneralGraph`` of ``pag`` (nodes named as ``pag.names``)."""
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode

    out = GeneralGraph([GraphNode(name) for name in pag.names])
    out.graph = _TO_CL[pag.marks.T]  # graph[i, j]: the mark at i, ours marks[j, i]
    out.reconstitute_dpath(out.get_graph_edges())
    return out


def from_causallearn_pag(graph, names=None) -> PAG:
    """The :class:`PAG` of a causal-learn ``GeneralGraph`` (its node names, or ``names``)."""
    matrix = np.asarray(graph.graph, dtype=np.int64)
    names = [n.get_name() for n in graph.get_nodes()] if names is None else list(names)
    unknown = sorted(set(np.unique(matrix).tolist()) - set(_FROM_CL))
    if unknown:
        raise InputError(f"causal-learn graph has endpoint codes {unknown}; a PAG has "
                         "tails (-1), arrowheads (1) and circles (2)")
    out = PAG(len(names), names)
    out.marks = np.vectorize(lambda v: int(_FROM_CL[v]), otypes=[np.int8])(matrix.T)
    if np.any((out.marks != 0) != (out.marks.T != 0)):
        raise InputError("causal-learn graph has an edge with a mark at one end only")
    return out


# ----------------------------------------------------------------------- files
def _suffix(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in PAG_SUFFIXES:
        raise InputError(f"{path}: unknown PAG file format {suffix or '(no suffix)'!r}; use "
                         f"{', '.join(PAG_SUFFIXES)}")
    return suffix


def write_pag(pag: PAG, path: str | os.PathLike, edge_data: EdgeData | None = None) -> None:
    """Write ``pag`` to ``path`` (atomically) in the format of its suffix (module doc)."""
    suffix = _suffix(path)
    writer = {".txt": _tetrad, ".json": _json, ".dot": _dot, ".gml": _networkx,
              ".graphml": _networkx}[suffix]
    text = writer(pag, edge_data or {}, suffix)
    if suffix in (".dot", ".gml", ".graphml"):  # the formats with comments
        text = marked(text, suffix, "a PAG")
    with atomic_write(path, newline="\n", encoding="utf-8") as handle:
        handle.write(text)


def _data(edge_data: EdgeData, a: str, b: str) -> dict[str, float]:
    found = edge_data.get((a, b), edge_data.get((b, a), {}))
    return {str(k): float(v) for k, v in found.items()}


def _tetrad(pag: PAG, edge_data: EdgeData, suffix: str) -> str:
    bad = [n for n in pag.names if not n or re.search(r"[\s;]", n)]
    if bad:
        raise InputError(f"Tetrad's graph text cannot hold the name {bad[0]!r} (blank, space "
                         "or ';'); write .json instead")
    edges = [f"{k}. {a} {e} {b}" for k, (a, e, b) in enumerate(pag.edges(), start=1)]
    return "Graph Nodes:\n" + ";".join(pag.names) + "\n\nGraph Edges:\n" + "".join(
        line + "\n" for line in edges)


def _json(pag: PAG, edge_data: EdgeData, suffix: str) -> str:
    doc = {"format": JSON_FORMAT, "version": 1, "nodes": pag.names,
           "edges": [[a, e, b] for a, e, b in pag.edges()]}
    if edge_data:
        doc["edge_data"] = [[a, b, _data(edge_data, a, b)] for a, _, b in pag.edges()]
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def _dot(pag: PAG, edge_data: EdgeData, suffix: str) -> str:
    lines = ["digraph causalcal {"] + [f"  {dot_quote(n)};" for n in pag.names]
    index = {n: k for k, n in enumerate(pag.names)}
    for a, e, b in pag.edges():
        i, j = index[a], index[b]
        attrs = ["dir=both", f"arrowtail={_DOT_ARROW[pag.mark(j, i)]}",
                 f"arrowhead={_DOT_ARROW[pag.mark(i, j)]}", f'edge="{e}"']
        attrs += [f"{k}={v:.6g}" for k, v in _data(edge_data, a, b).items()
                  if re.fullmatch(r"[A-Za-z_]\w*", k)]
        lines.append(f"  {dot_quote(a)} -> {dot_quote(b)} [{', '.join(attrs)}];")
    return "\n".join(lines + ["}"]) + "\n"


def _networkx(pag: PAG, edge_data: EdgeData, suffix: str) -> str:
    g = nx.DiGraph()
    g.add_nodes_from(pag.names)
    for a, e, b in pag.edges():
        g.add_edge(a, b, edge=e, **_data(edge_data, a, b))
    lines = nx.generate_gml(g) if suffix == ".gml" else nx.generate_graphml(g)
    return "\n".join(lines) + "\n"


def read_pag(path: str | os.PathLike) -> PAG:
    """Read a ``.txt`` (Tetrad's graph text) or ``.json`` PAG file; errors name the file."""
    suffix = _suffix(path)
    if suffix not in (".txt", ".json"):
        raise InputError(f"{path}: PAGs are read from .txt (Tetrad) or .json files")
    try:
        text = input_file(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    try:
        if suffix == ".json":
            doc = parse_json(text, path)
            if not isinstance(doc, dict) or doc.get("format") != JSON_FORMAT:
                raise InputError(f"'format' is not {JSON_FORMAT!r}")
            return _build([str(n) for n in doc["nodes"]], doc["edges"])
        return _parse_tetrad(text)
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(f"{path}: not a {suffix[1:]} PAG file: {err}") from None


def _parse_tetrad(text: str) -> PAG:
    lines = text.splitlines()
    try:
        nodes = lines[lines.index("Graph Nodes:") + 1]
        start = lines.index("Graph Edges:") + 1
    except ValueError:
        raise InputError("no 'Graph Nodes:' and 'Graph Edges:' sections") from None
    edges = []
    for number, line in enumerate(lines[start:], start=start + 1):
        if not line.strip():
            break
        match = _EDGE_LINE.match(line)
        if match is None:
            raise InputError(f"line {number} is not an edge such as '1. A o-> B': {line!r}")
        edges.append([match.group(1), match.group(2), match.group(3)])
    return _build(nodes.split(";") if nodes else [], edges)


def _build(names: list[str], edges) -> PAG:
    index = {n: k for k, n in enumerate(names)}
    missing = sorted({n for a, _, b in edges for n in (a, b)} - set(index))
    if missing:
        raise InputError(f"edges name nodes not listed: {', '.join(map(repr, missing[:5]))}")
    return PAG.from_edges(len(names), [(index[a], e, index[b]) for a, e, b in edges], names)
