"""FCI with context columns (Joint Causal Inference, issue 40 item 4) and a d-separation
oracle on small JCI DAGs, against a brute force over the MAGs the JCI assumptions allow
(docs/design.md §5.2)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from test_latent_truth import equivalent_mags

from causalcal import Context, Knowledge
from causalcal.fci import fci
from causalcal.pag import Mark
from causalcal.simulate.latent_truth import DSeparation, true_mag

T, A = int(Mark.TAIL), int(Mark.ARROW)


def _fci(parents, observed, context=()):
    names = [f"V{v}" for v in observed]
    knowledge = Knowledge(context=[names[k] for k in context]) if context else None
    bound = None if knowledge is None else knowledge.bind(names)
    k = len(observed)
    return fci(~np.eye(k, dtype=bool), DSeparation(parents, observed), names=names,
               knowledge=bound)


def test_context_orients_the_chain():
    # C -> X -> Y: without context no orientation; C exogenous gives C --> X --> Y (R1)
    parents = [[], [0], [1]]
    assert _fci(parents, [0, 1, 2]).edges() == [("V0", "o-o", "V1"), ("V1", "o-o", "V2")]
    assert _fci(parents, [0, 1, 2], context=[0]).edges() == [("V0", "-->", "V1"),
                                                            ("V1", "-->", "V2")]


def test_context_with_a_hidden_confounder():
    # C -> X <- L -> Z (L hidden), X -> Y: C --> X <-o Z, X --> Y (without context C o-> X)
    parents = [[], [0, 4], [1], [4], []]
    got = _fci(parents, [0, 1, 2, 3], context=[0])
    assert got.edges() == [("V0", "-->", "V1"), ("V1", "-->", "V2"), ("V1", "<-o", "V3")]
    assert _fci(parents, [0, 1, 2, 3]).edge(0, 1) == "o->"


def test_no_arrowhead_at_a_context_column():
    # data where C is a collider (X -> C <- Y, against JCI): the knowledge still wins
    got = _fci([[1, 2], [], []], [0, 1, 2], context=[0])
    assert got.edges() == [("V0", "-->", "V1"), ("V0", "-->", "V2")]
    assert _fci([[1, 2], [], []], [0, 1, 2]).edges() == [("V0", "<-o", "V1"),
                                                          ("V0", "<-o", "V2")]


def _random_jci(rng):
    """A DAG whose first 1-2 nodes are context (roots, no hidden parent shared with a
    system node: JCI1-2), the rest system nodes with up to two of them hidden."""
    n_context, n_system = int(rng.integers(1, 3)), int(rng.integers(3, 6))
    n = n_context + n_system
    parents: list[list[int]] = [[] for _ in range(n)]
    order = n_context + rng.permutation(n_system)
    for a, b in combinations(range(n_system), 2):
        if rng.random() < 0.4:
            parents[int(order[b])].append(int(order[a]))
    for c in range(n_context):
        for x in range(n_context, n):
            if rng.random() < 0.4:
                parents[x].append(c)
    if n_context == 2 and rng.random() < 0.5:
        parents[1].append(0)  # context columns may depend on each other
    hidden = set((n_context + rng.choice(n_system, int(rng.integers(0, 3)),
                                         replace=False)).tolist())
    observed = [v for v in range(n) if v not in hidden][:5]
    return parents, observed, list(range(n_context))


def _jci_brute_force(parents, observed, context) -> np.ndarray:
    """The marks shared by every MAG with the DAG's separations whose edges between a
    context and a system node are context --> system (JCI1-2)."""
    mag = true_mag(parents, observed)
    arcs = [(int(c), int(x)) for c, x in zip(*np.nonzero(mag.marks)) if c in context
            and x not in context]
    mags = np.stack([m for m in equivalent_mags(mag)
                     if all(m[x, c] == T and m[c, x] == A for c, x in arcs)])
    out = np.where((mags == mags[0]).all(axis=0), mags[0], int(Mark.CIRCLE))
    out[mag.marks == 0] = 0
    return out


def test_fci_with_context_matches_the_jci_brute_force():
    rng = np.random.default_rng(40)
    exact = 0
    for _ in range(60):
        parents, observed, context = _random_jci(rng)
        got = _fci(parents, observed, context).marks
        want = _jci_brute_force(parents, observed, context)
        # sound: every mark FCI decides is one all allowed MAGs share
        decided = got != int(Mark.CIRCLE)
        np.testing.assert_array_equal(got[decided], want[decided],
                                      err_msg=f"{parents} {observed}")
        for c in context:  # never an arrowhead at a context node facing a system node
            assert not any(got[x, c] == A for x in np.flatnonzero(got[c])
                           if x not in context)
        exact += np.array_equal(got, want)
    assert exact == 60


def _jci_data(n: int, seed: int = 0):
    """C (a 3-valued condition) -> X <- L -> Z, X -> Y; L hidden."""
    from causalcal.data import DiscreteData

    rng = np.random.default_rng(seed)
    c, hidden = rng.integers(0, 3, n), rng.integers(0, 2, n)
    x = (rng.random(n) < 0.1 + 0.35 * c / 2 + 0.45 * hidden).astype(int)
    y = np.where(rng.random(n) < 0.85, x, 1 - x)
    z = np.where(rng.random(n) < 0.85, hidden, 1 - hidden)
    return DiscreteData(np.column_stack([c, x, y, z]), ["C", "X", "Y", "Z"])


def test_gfci_with_context():
    from causalcal.bootstrap import gfci

    data = _jci_data(20_000)
    plain = gfci(data)
    assert plain.edges() == [("C", "o->", "X"), ("X", "-->", "Y"), ("X", "<-o", "Z")]
    pag = gfci(data, knowledge=Knowledge(context=["C"]))
    assert pag.edges() == [("C", "-->", "X"), ("X", "-->", "Y"), ("X", "<-o", "Z")]
    # its true target named: the same PAG; a wrong one (Z) keeps C away from X
    assert gfci(data, knowledge=Knowledge(context=[Context("C", ("X",))])) == pag
    wrong = gfci(data, knowledge=Knowledge(context=[Context("C", ("Z",))]))
    assert wrong.edges() == [("X", "o-o", "Y"), ("X", "o-o", "Z")]
