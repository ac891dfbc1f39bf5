"""A :class:`BayesianNetwork` written as a BIF file (docs/design.md §4; no pgmpy needed).

The Bayesian Interchange Format as bnlearn's ``write.bif`` and pgmpy's ``BIFWriter``
write it: a ``variable`` block per node listing its states in order, a ``probability``
block per node with one line per parent configuration (the parents in the network's
order, the last varying fastest) and probabilities printed to round-trip exactly.

BIF names are words: variable and state names are written as they are when made of
letters, digits, ``_``, ``.`` and ``-``; any other is rewritten into such a word
(``<=``, ``>=``, ``<``, ``>`` as ``le``, ``ge``, ``lt``, ``gt``, every other run of
characters as ``_``; a bin ``[0.25, 1.5)`` becomes ``0.25_1.5`` and ``< 0.25``
``lt_0.25``), made unique, and the name as it was kept in a ``property label`` line
(a state's in ``property states``) as a JSON string (``"``, ``\\`` and line breaks
escaped, ``;`` as ``\\u003b``), which :func:`bif_labels` reads back. The order of the
states is the network's. The first line is causalcal's mark (a comment), so that a later
``causalcal fit`` replaces the file only if causalcal wrote it and nobody edited it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence

from causalcal._io import atomic_write
from causalcal._own import marked

from .network import BayesianNetwork

__all__ = ["bif_labels", "bif_text", "bif_word", "write_bif"]

_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
_OPERATORS = (("<=", " le "), (">=", " ge "), ("<", " lt "), (">", " gt "))


def bif_word(name: str) -> str:
    """``name`` as a BIF word (itself if it is one; see the module docstring)."""
    if _WORD.fullmatch(name):
        return name
    text = name
    for operator, word in _OPERATORS:
        text = text.replace(operator, word)
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", text).strip("_") or "_"


def _unique_words(names: Sequence[str]) -> list[str]:
    """:func:`bif_word` of each name, a clash made unique by ``_2``, ``_3``, …"""
    out: list[str] = []
    for name in names:
        word = base = bif_word(str(name))
        k = 1
        while word in out:
            k += 1
            word = f"{base}_{k}"
        out.append(word)
    return out


def _quoted(names: Sequence[str]) -> str:
    """Names as BIF strings: JSON strings (quotes, backslashes and line breaks escaped),
    with ``;``, which ends a BIF property, as ``\\u003b``."""
    return " ".join(json.dumps(str(n), ensure_ascii=False).replace(";", "\\u003b")
                    for n in names)


_PROPERTY = re.compile(r"^\s*property\s+(label|states)\s*=\s*(.*?)\s*;\s*$")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_VARIABLE = re.compile(r"^\s*variable\s+(\S+)\s*\{")


def _unquoted(text: str) -> str:
    """A BIF string of :func:`_quoted` as the name it holds (one of an older causalcal,
    not JSON, as written between its quotes)."""
    try:
        return str(json.loads(text))
    except ValueError:
        return text[1:-1]


def bif_labels(text: str) -> dict[str, tuple[str | None, list[str] | None]]:
    """The names as they were of a BIF text's variables (``property label``) and states
    (``property states``), by the variable's BIF word: what :func:`bif_text` wrote."""
    out: dict[str, tuple[str | None, list[str] | None]] = {}
    variable = None
    for line in text.split("\n"):  # not splitlines: a name may hold U+2028
        found = _VARIABLE.match(line)
        if found or line.startswith("probability"):
            variable = found.group(1) if found else None
            continue
        prop = _PROPERTY.match(line) if variable is not None else None
        if prop is None:
            continue
        values = [_unquoted(s) for s in _STRING.findall(prop.group(2))]
        label, states = out.get(variable, (None, None))
        if prop.group(1) == "label" and len(values) == 1:
            label = values[0]
        elif prop.group(1) == "states":
            states = values
        out[variable] = (label, states)
    return out


def bif_text(network: BayesianNetwork, properties: dict[str, str] | None = None) -> str:
    """The BIF text of ``network``; ``properties`` become ``property`` lines of the
    ``network`` block (for example the equivalent sample size of the CPTs)."""
    names = _unique_words(network.names)
    states = [_unique_words([str(s) for s in sn]) for sn in network.state_names]
    lines = ["network causalcal {"]
    lines += [f"  property {key} = {value};" for key, value in (properties or {}).items()]
    lines.append("}")
    for v, name in enumerate(names):
        lines.append(f"variable {name} {{")
        lines.append(f"  type discrete [ {len(states[v])} ] {{ {', '.join(states[v])} }};")
        if name != network.names[v]:
            lines.append(f"  property label = {_quoted([network.names[v]])};")
        if states[v] != [str(s) for s in network.state_names[v]]:
            lines.append(f"  property states = {_quoted(network.state_names[v])};")
        lines.append("}")
    for v, name in enumerate(names):
        pa = [int(p) for p in network.parents[v]]
        table = network.cpts[v]
        if not pa:
            lines.append(f"probability ( {name} ) {{")
            lines.append("  table " + ", ".join(repr(float(x)) for x in table[0]) + ";")
            lines.append("}")
            continue
        lines.append(f"probability ( {name} | {', '.join(names[p] for p in pa)} ) {{")
        for row, config in zip(table, _configurations([len(states[p]) for p in pa])):
            labels = ", ".join(states[p][c] for p, c in zip(pa, config))
            lines.append(f"  ({labels}) " + ", ".join(repr(float(x)) for x in row) + ";")
        lines.append("}")
    return "\n".join(lines) + "\n"


def _configurations(arities: list[int]) -> list[tuple[int, ...]]:
    """Every parent configuration, the last parent varying fastest."""
    configs: list[tuple[int, ...]] = [()]
    for r in arities:
        configs = [c + (k,) for c in configs for k in range(r)]
    return configs


#: what causalcal's mark on a BIF file it wrote says (causalcal._own)
BIF_MARK = "a Bayesian network (BIF)"


def write_bif(network: BayesianNetwork, path: str | os.PathLike,
              properties: dict[str, str] | None = None) -> None:
    """Write :func:`bif_text` of ``network`` to ``path`` (atomically), with causalcal's
    mark on its first line (a comment: a later ``causalcal fit`` replaces only a file it
    wrote, unedited)."""
    with atomic_write(path, encoding="utf-8", newline="\n") as handle:
        handle.write(marked(bif_text(network, properties), ".bif", BIF_MARK))
