"""Graphviz DOT text read by a small parser of its own (docs/design.md §10): linear in the
file's length (pydot's took 17 s on a 250 KB file), with errors that give the line.

The DOT language as Graphviz documents it: ``[strict] (graph|digraph) [ID] { ... }`` with
node, edge, attribute and ``ID = ID`` statements, subgraphs (``subgraph x { ... }`` or
``{ ... }``, also as an edge's end), edge chains (``a -> b -> c``), ports (``a:p:n``,
dropped), attribute lists (``[k=v, k=v]``, repeatable), default attributes (``edge [...]``
for the edges after it, in its subgraph) and IDs as names, numerals, double-quoted strings
(joined by ``+``) or HTML strings (``<...>``). Comments: ``//``, ``/* */`` and lines
starting with ``#``. A quoted ID's ``\\"``, ``\\\\``, ``\\n`` and ``\\r`` are a quote,
a backslash, a line feed and a carriage return, as :func:`causalcal.graph_io.dot_quote`
writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from causalcal.errors import InputError

__all__ = ["DotEdge", "DotGraph", "parse_dot"]

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n\f\v]+|//[^\n]*|/\*.*?\*/|(?:(?<=\n)|^)\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<html><)
  | (?P<op>->|--)
  | (?P<punct>[{}\[\];,=:+])
  | (?P<word>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)
      |[A-Za-z_\x80-\U0010ffff][A-Za-z_0-9\x80-\U0010ffff]*)
  | (?P<bad>.)
""", re.VERBOSE | re.DOTALL)
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
#: how deep subgraphs may nest (a crafted file cannot exhaust the stack)
MAX_DEPTH = 100


@dataclass
class DotEdge:
    """One edge, from ``a`` to ``b``, with its attributes (defaults applied)."""

    a: str
    b: str
    attributes: dict[str, str]


@dataclass
class DotGraph:
    """A DOT graph: ``directed`` (``digraph``), its nodes in file order and its edges."""

    directed: bool
    nodes: list[str] = field(default_factory=list)
    edges: list[DotEdge] = field(default_factory=list)


def _unquote(text: str) -> str:
    controls = {"n": "\n", "r": "\r"}
    return re.sub(r"\\(.)", lambda m: controls.get(m.group(1), m.group(1)), text[1:-1],
                  flags=re.DOTALL)


class _Tokens:
    """The tokens of a DOT text: ``(kind, value, line)``."""

    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, str, int]] = []
        line, at = 1, 0
        while at < len(text):
            found = _TOKEN.match(text, at)
            kind, value = found.lastgroup, found.group()
            if kind == "html":
                value, end = self._html(text, at, line)
                kind = "id"
                found_end = end
            else:
                found_end = found.end()
            if kind == "bad":
                raise InputError(f"line {line}: unexpected character {value!r}")
            if kind == "string":
                kind, value = "id", _unquote(value)
            elif kind == "word":
                kind = "keyword" if value.lower() in _KEYWORDS else "id"
                value = value.lower() if kind == "keyword" else value
            if kind != "space":
                self.items.append((kind, value, line))
            line += text.count("\n", at, found_end)
            at = found_end
        self.items.append(("end", "the end of the file", line))
        self.at = 0

    @staticmethod
    def _html(text: str, at: int, line: int) -> tuple[str, int]:
        depth, k = 0, at
        while k < len(text):
            depth += {"<": 1, ">": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                return text[at + 1:k - 1], k
        raise InputError(f"line {line}: an HTML string '<…' is never closed")

    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        return self.items[min(self.at + offset, len(self.items) - 1)]

    def take(self) -> tuple[str, str, int]:
        item = self.peek()
        self.at += 1
        return item

    def accept(self, value: str) -> bool:
        kind, got, _ = self.peek()
        if kind in ("punct", "op", "keyword") and got == value:
            self.at += 1
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.accept(value):
            kind, got, line = self.peek()
            raise InputError(f"line {line}: expected {value!r}, got {got!r}")

    def identifier(self, what: str, keywords: bool = False) -> str:
        """An ID (``keywords``: a keyword too, as attribute lists take them)."""
        kind, value, line = self.take()
        if kind != "id" and not (keywords and kind == "keyword"):
            raise InputError(f"line {line}: expected {what}, got {value!r}")
        while self.accept("+"):  # "a" + "b": one ID
            value += self.identifier("a string after '+'")
        return value


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _Tokens(text)
        self.graph = DotGraph(directed=True)
        self.seen: set[str] = set()

    def parse(self) -> DotGraph:
        tokens = self.tokens
        tokens.accept("strict")
        kind, value, line = tokens.take()
        if value not in ("graph", "digraph") or kind != "keyword":
            raise InputError(f"line {line}: expected 'graph' or 'digraph', got {value!r}")
        self.graph.directed = value == "digraph"
        if tokens.peek()[0] == "id":
            tokens.identifier("the graph's name")
        tokens.expect("{")
        self._statements({}, 1)
        kind, value, line = tokens.peek()
        if kind != "end":
            raise InputError(f"line {line}: text after the graph's closing '}}': {value!r}")
        return self.graph

    def _node(self, name: str) -> str:
        if name not in self.seen:
            self.seen.add(name)
            self.graph.nodes.append(name)
        return name

    def _attributes(self) -> dict[str, str]:
        tokens, out = self.tokens, {}
        while tokens.accept("["):
            while not tokens.accept("]"):
                key = tokens.identifier("an attribute name", keywords=True)
                out[key] = (tokens.identifier("an attribute value", keywords=True)
                            if tokens.accept("=") else "true")
                if not tokens.accept(","):
                    tokens.accept(";")
        return out

    def _statements(self, defaults: dict[str, str], depth: int) -> list[str]:
        """The statements up to the closing ``}``; the nodes they name."""
        if depth > MAX_DEPTH:
            raise InputError(f"line {self.tokens.peek()[2]}: subgraphs nested more than "
                             f"{MAX_DEPTH} deep")
        tokens, named = self.tokens, []
        defaults = dict(defaults)
        while not tokens.accept("}"):
            kind, value, line = tokens.peek()
            if kind == "end":
                raise InputError(f"line {line}: a '{{' is never closed")
            if kind == "keyword" and value in ("graph", "node", "edge"):
                tokens.take()
                attributes = self._attributes()
                if value == "edge":
                    defaults.update(attributes)
            elif kind == "id" and tokens.peek(1)[1] == "=" and tokens.peek(1)[0] == "punct":
                tokens.identifier("a graph attribute")
                tokens.expect("=")
                tokens.identifier("a value after '='")
            else:
                named += self._edge_or_node(defaults, depth)
            tokens.accept(";")
        return named

    def _operand(self, defaults: dict[str, str], depth: int) -> list[str]:
        """A node ID (port dropped) or a subgraph: the nodes it stands for."""
        tokens = self.tokens
        if tokens.accept("subgraph"):
            if tokens.peek()[0] == "id":
                tokens.identifier("a subgraph's name")
            tokens.expect("{")
            return self._statements(defaults, depth + 1)
        if tokens.accept("{"):
            return self._statements(defaults, depth + 1)
        name = tokens.identifier("a node, an edge or a subgraph")
        for _ in range(2):  # :port[:compass]
            if tokens.accept(":"):
                tokens.identifier("a port after ':'")
        return [self._node(name)]

    def _edge_or_node(self, defaults: dict[str, str], depth: int) -> list[str]:
        tokens = self.tokens
        ends = [self._operand(defaults, depth)]
        while tokens.peek()[0] == "op":
            _, op, line = tokens.take()
            if (op == "->") != self.graph.directed:
                raise InputError(f"line {line}: '{op}' in a "
                                 f"{'digraph' if self.graph.directed else 'graph'}")
            ends.append(self._operand(defaults, depth))
        attributes = {**defaults, **self._attributes()} if len(ends) > 1 else self._attributes()
        for tails, heads in zip(ends, ends[1:]):
            self.graph.edges += [DotEdge(a, b, dict(attributes)) for a in tails for b in heads]
        return [name for group in ends for name in group]


def parse_dot(text: str) -> DotGraph:
    """The graph of a DOT text; a syntax error is an ``InputError`` naming the line."""
    return _Parser(text).parse()
