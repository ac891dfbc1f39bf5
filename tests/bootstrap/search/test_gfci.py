"""GFCI (bootstrap/search/gfci.py): the true PAG from a large sample, weights as row
multiplicities, background knowledge, the registry; FCI's knowledge handling on an
oracle."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.bootstrap import get_pag_search, get_search, gfci
from causalcal.bootstrap.search.registry import search_table
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.fci import fci
from causalcal.knowledge import Knowledge
from causalcal.pag_edges import PAGEdgeProbabilities
from causalcal.simulate.latent_truth import DSeparation, true_pag
from causalcal.simulate.network import BayesianNetwork

# A -> B <- L -> C <- D, B -> E, L hidden: A o-> B <-> C <-o D, B --> E
NAMES = ["A", "B", "C", "D", "E", "L"]
PARENTS = [[], [0, 5], [3, 5], [], [1], []]


def _cpt(parents: int) -> np.ndarray:
    """A binary CPT: P(child = 1) rises from 0.1 to 0.9 with the number of parents at 1."""
    if not parents:
        return np.array([[0.5, 0.5]])
    on = np.array([bin(cfg).count("1") for cfg in range(2 ** parents)])
    p = 0.1 + 0.8 * on / parents
    return np.column_stack([1 - p, p])


def _data(n: int, seed: int = 0) -> DiscreteData:
    net = BayesianNetwork(NAMES, [2] * 6, PARENTS, [_cpt(len(p)) for p in PARENTS])
    full = net.sample(n, seed=seed)
    return DiscreteData(np.ascontiguousarray(full.codes[:, :5]), NAMES[:5], [2] * 5)


def test_gfci_finds_the_true_pag():
    pag = gfci(_data(20_000))
    assert pag == true_pag(PARENTS, range(5), NAMES[:5])
    assert pag.edges() == [("A", "o->", "B"), ("B", "<->", "C"), ("B", "-->", "E"),
                           ("C", "<-o", "D")]


def test_integer_weights_are_row_multiplicities():
    data = _data(3000, seed=1)
    w = np.random.default_rng(2).poisson(1.0, data.n_samples)
    repeated = DiscreteData(np.repeat(data.codes, w, axis=0), data.names, data.arities)
    assert gfci(data, w.astype(float), alpha=0.05) == gfci(repeated, alpha=0.05)


def test_knowledge_in_gfci():
    data = _data(20_000)
    # E before everything: B --> E is impossible, so the edge gets an arrowhead at B
    tiers = Knowledge(tiers={"E": 0, "A": 1, "B": 1, "C": 1, "D": 1})
    pag = gfci(data, knowledge=tiers)
    assert pag.edge(1, 4)[0] == "<"
    # a required arc is a tail-arrow edge (A o-> B without it)
    assert gfci(data, knowledge=Knowledge(required=[("A", "B")])).edge(0, 1) == "-->"
    # forbidding both arcs between B and C removes their adjacency
    apart = Knowledge(forbidden=[("B", "C"), ("C", "B")])
    assert not gfci(data, knowledge=apart).adjacent(1, 2)


def test_knowledge_in_fci_orientation():
    """Chain X0 - X1 - X2 (all o-o without knowledge); tiers put arrowheads at later
    tiers, R1 then orients X1 --> X2; a required arc is a tail-arrow edge."""
    oracle = DSeparation([[], [0], [1]], [0, 1, 2])
    complete = ~np.eye(3, dtype=bool)
    assert [e for _, e, _ in fci(complete, oracle).edges()] == ["o-o", "o-o"]
    tiers = Knowledge(tiers={"X0": 0, "X1": 1, "X2": 2}).bind(["X0", "X1", "X2"])
    assert [e for _, e, _ in fci(complete, oracle, knowledge=tiers).edges()] == ["o->", "-->"]
    required = Knowledge(required=[("X1", "X0")]).bind(["X0", "X1", "X2"])
    assert fci(complete, oracle, knowledge=required).edge(1, 0) == "-->"


def test_registry():
    assert get_pag_search("GFCI") is gfci and get_search("gfci") is gfci
    assert search_table("gfci") is PAGEdgeProbabilities and search_table(gfci) is \
        PAGEdgeProbabilities and search_table("fges") is EdgeProbabilities
    with pytest.raises(InputError, match="unknown PAG search"):
        get_pag_search("fges")
