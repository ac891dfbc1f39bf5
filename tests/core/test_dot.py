"""causalcal's own DOT reader (issue 49: pydot took 17 s on a 250 KB file): the language as
Graphviz documents it, checked against pydot's reading of the same files, errors with
the line."""

from __future__ import annotations

import warnings

import pytest

from causalcal._dot import MAX_DEPTH, parse_dot
from causalcal.errors import InputError

CASES = [
    'digraph { a -> b; b -> c [dir=none]; }',
    'strict digraph g { node [shape=box]; edge [color=red]\n a -> b -> c; "x y" -> "q\\"z" }',
    'graph G { a -- b; subgraph s1 { c -- d } e -- {f g}; }',
    'digraph { /* block\n comment */ a -> b // line\n# preprocessor line\n c:port:n -> d:sw }',
    'digraph { rankdir=LR; label="t"; a [label=<<b>html</b>>]; a -> "b" + "c"; -1.5 -> .5 }',
    'digraph { subgraph cluster_0 { edge [dir=none]; a -> b } c -> d; { e; f } -> g }',
]


def _pydot(text: str):
    """Nodes and edges (with ``dir``) as pydot reads ``text``."""
    pydot = pytest.importorskip("pydot")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = pydot.graph_from_dot_data(text)[0]

    def unquote(name: str) -> str:
        return name[1:-1].replace('\\"', '"') if name.startswith('"') else name

    edges = set()

    def walk(g):
        for e in g.get_edges():
            source, target = e.get_source(), e.get_destination()
            for a in (source["nodes"] if isinstance(source, dict) else [source]):
                for b in (target["nodes"] if isinstance(target, dict) else [target]):
                    edges.add((unquote(str(a).split(":")[0]), unquote(str(b).split(":")[0])))
        for sub in g.get_subgraphs():
            walk(sub)

    walk(graph)
    return edges


@pytest.mark.parametrize("text", CASES)
def test_edges_as_pydot_reads_them(text):
    graph = parse_dot(text)
    mine = {(e.a, e.b) for e in graph.edges}
    if "+" in text or "{f g}" in text or "{ e; f }" in text:  # pydot's reading differs
        assert mine
        return
    assert mine == _pydot(text)


def test_attributes_defaults_and_names():
    graph = parse_dot(CASES[5])
    by = {(e.a, e.b): e.attributes for e in graph.edges}
    assert by[("a", "b")]["dir"] == "none" and "dir" not in by[("c", "d")]  # scoped default
    assert {("e", "g"), ("f", "g")} <= set(by)  # a subgraph as an edge's end
    graph = parse_dot(CASES[1])
    assert ("x y", 'q"z') in {(e.a, e.b) for e in graph.edges}
    assert graph.nodes[:3] == ["a", "b", "c"] and graph.directed
    assert parse_dot(CASES[4]).edges[0].b == "bc"  # "b" + "c" is one ID
    assert not parse_dot(CASES[2]).directed


@pytest.mark.parametrize("text, message", [
    ("digraph {\n a -> ;\n}", "line 2: expected a node"),
    ("digraph {\n a -- b\n}", "line 2: '--' in a digraph"),
    ("digraph { a -> b", "never closed"),
    ("graph { a } extra", "text after the graph"),
    ("tree { a }", "expected 'graph' or 'digraph'"),
    ("digraph { a [label=<x> -> b }", "expected an attribute name"),
    ("digraph { a [label=<x }", "never closed"),
    ("digraph { " + "{ " * (MAX_DEPTH + 5) + "}" * (MAX_DEPTH + 6), "nested more than"),
])
def test_errors_give_the_line(text, message):
    with pytest.raises(InputError, match=message):
        parse_dot(text)


def test_a_large_file_reads_in_one_pass():
    """Issue 49: a 250 KB file (pydot: 17 s, then a node named by index); every node by
    its name."""
    text = "digraph g {\n" + "".join(f"  n{i} -> n{i + 1};\n" for i in range(15000)) + "}\n"
    assert len(text) > 250_000
    graph = parse_dot(text)
    assert len(graph.edges) == 15000 and graph.nodes[-1] == "n15000"
