"""The true MAG and PAG of the observed variables of a DAG with latent variables
(issue 40, item 5; docs/design.md §5.1).

- **d-separation** in the DAG (:func:`d_separated`, reachability: Koller & Friedman 2009,
  Alg. 3.1), the oracle that stands in for a conditional-independence test.
- **MAG** (Richardson & Spirtes 2002, §4.2; no selection variables): observed a and b are
  adjacent iff an inducing path joins them, i.e. iff no set of observed variables
  d-separates them, i.e. iff ``An({a, b}) ∩ O \\ {a, b}`` does not (a d-connecting path
  given that set has only latent non-colliders and colliders that are ancestors of a or
  b: an inducing path). An edge is a → b when a is an ancestor of b, a ↔ b when neither
  is an ancestor of the other.
- **PAG**: the marks shared by every MAG Markov equivalent to it — FCI's orientation
  (R0–R4, R8–R10, complete by Zhang 2008) on the MAG's skeleton with the separating sets
  above.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalcal.errors import InputError
from causalcal.fci import Sepsets, orient
from causalcal.pag import PAG, Mark
from causalcal.pairs import n_pairs, pair_index
from causalcal.simulate.misspecified_truth import _children_lists, ancestor_matrix

__all__ = ["DSeparation", "d_separated", "pag_labels", "true_mag", "true_pag"]


def d_separated(parents: Sequence[Sequence[int]], x: int, y: int,
                given: Sequence[int] = ()) -> bool:
    """Whether ``given`` d-separates ``x`` and ``y`` in the DAG of ``parents`` lists."""
    children = _children_lists(parents)
    z = set(given)
    anc_z, stack = set(z), list(z)  # z and its ancestors: a collider there is open
    while stack:
        for p in parents[stack.pop()]:
            if p not in anc_z:
                anc_z.add(p)
                stack.append(p)
    # (node, True) reached from a child (travelling up), (node, False) from a parent
    stack, seen = [(x, True)], set()
    while stack:
        v, up = stack.pop()
        if (v, up) in seen:
            continue
        seen.add((v, up))
        if v == y:
            return False
        if up and v not in z:
            stack += [(p, True) for p in parents[v]] + [(c, False) for c in children[v]]
        elif not up:
            if v not in z:
                stack += [(c, False) for c in children[v]]
            if v in anc_z:
                stack += [(p, True) for p in parents[v]]
    return True


class DSeparation:
    """The d-separation oracle over observed nodes ``observed`` (indices into the DAG),
    called with observed positions like a conditional-independence test."""

    def __init__(self, parents: Sequence[Sequence[int]], observed: Sequence[int]) -> None:
        self.parents = [list(map(int, p)) for p in parents]
        self.observed = [int(v) for v in observed]
        if len(set(self.observed)) != len(self.observed) or not all(
                0 <= v < len(parents) for v in self.observed):
            raise InputError("observed must list distinct nodes of the DAG")
        self.ancestor = ancestor_matrix(self.parents)

    def __call__(self, x: int, y: int, s: tuple[int, ...]) -> bool:
        o = self.observed
        return d_separated(self.parents, o[x], o[y], [o[v] for v in s])

    def ancestral_set(self, x: int, y: int) -> tuple[int, ...]:
        """The observed positions, other than x and y, that are ancestors of x or y."""
        o, anc = self.observed, self.ancestor
        return tuple(k for k, v in enumerate(o) if k not in (x, y)
                     and (anc[v, o[x]] or anc[v, o[y]]))


def _mag_and_sepsets(parents, observed, names) -> tuple[PAG, Sepsets]:
    oracle = DSeparation(parents, observed)
    n = len(oracle.observed)
    if names is not None and len(names) != n:
        raise InputError(f"{len(names)} names for {n} observed variables")
    mag, sepsets = PAG(n, names), Sepsets(oracle)
    o, anc = oracle.observed, oracle.ancestor
    for x in range(n):
        for y in range(x + 1, n):
            s = oracle.ancestral_set(x, y)
            if oracle(x, y, s):
                sepsets.record(x, y, s)
            elif anc[o[x], o[y]]:
                mag.add_edge(x, y, Mark.TAIL, Mark.ARROW)
            elif anc[o[y], o[x]]:
                mag.add_edge(x, y, Mark.ARROW, Mark.TAIL)
            else:
                mag.add_edge(x, y, Mark.ARROW, Mark.ARROW)
    return mag, sepsets


def true_mag(parents: Sequence[Sequence[int]], observed: Sequence[int],
             names: Sequence[str] | None = None) -> PAG:
    """The MAG (marks tail/arrowhead only) over ``observed`` of the DAG given by each
    node's ``parents``; ``names`` label the observed variables in ``observed`` order."""
    return _mag_and_sepsets(parents, observed, names)[0]


def true_pag(parents: Sequence[Sequence[int]], observed: Sequence[int],
             names: Sequence[str] | None = None) -> PAG:
    """The PAG over ``observed`` (the MAG's Markov equivalence class) of the DAG given by
    each node's ``parents``."""
    mag, sepsets = _mag_and_sepsets(parents, observed, names)
    return orient(mag, sepsets)



def pag_labels(parents: Sequence[Sequence[int]], observed: Sequence[int]) -> np.ndarray:
    """The true PAG's :class:`~causalcal.pairs.PAGEdgeType` (int8) of every pair of the
    ``observed`` nodes (in that order), dense in row-major pair order: the truth that PAG
    edge-type probabilities are measured against (docs/design.md §6.2)."""
    pag = true_pag(parents, observed)
    out = np.zeros(n_pairs(pag.n_vars), dtype=np.int8)
    pairs, labels = pag.pair_labels()
    out[pair_index(pairs[:, 0], pairs[:, 1], pag.n_vars)] = labels
    return out
