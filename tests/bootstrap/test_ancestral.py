"""Ancestor counts accumulated in the bootstrap pass (docs/design.md §6.1)."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.ancestry import ancestral_bounds_from_edges, ancestral_relations
from causalcal.bootstrap import bootstrap_edge_probabilities, bootstrap_weights
from causalcal.bootstrap.ancestral import (
    AncestralAccumulator,
    checkpoint_ancestral_counts,
    replicate_edges,
)
from causalcal.bootstrap.search.registry import get_search
from causalcal.edges import EdgeProbabilities, pair_index
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.knowledge import Knowledge
from causalcal.simulate import random_network


@pytest.fixture(scope="module")
def data():
    return random_network(9, 12, seed=5).sample(300, seed=6)


def _keys(g: PDAG):
    pairs, labels = g.pair_labels()
    return pair_index(pairs[:, 0], pairs[:, 1], g.n_vars), labels


def test_replicate_edges_rebuild_the_graph():
    g = PDAG.from_edges(5, directed=[(3, 0), (1, 4)], undirected=[(0, 2), (2, 4)])
    arcs, undirected = replicate_edges(*_keys(g), 5)
    assert PDAG.from_edges(5, arcs, undirected) == g


def test_counts_equal_relations_of_each_replicate_cpdag(data):
    n_boot, seed = 6, 3
    probs = bootstrap_edge_probabilities(data, n_boot=n_boot, seed=seed, progress=False,
                                         ancestral=True)
    definite = np.zeros((data.n_vars, data.n_vars), dtype=int)
    possible = np.zeros_like(definite)
    for b in range(n_boot):  # independent reference: FGES on each replicate, then its CPDAG
        d, p = ancestral_relations(get_search("fges")(data, bootstrap_weights(
            data.n_samples, seed, b)))
        definite += d
        possible += p
    counts = probs.ancestral
    assert counts.n_boot == n_boot
    assert np.array_equal(counts.definite, definite) and np.array_equal(counts.possible,
                                                                         possible)
    assert possible.any()


def test_same_for_two_jobs_and_after_resume_and_saved(data, tmp_path):
    one = bootstrap_edge_probabilities(data, n_boot=5, seed=2, progress=False, ancestral=True)
    two = bootstrap_edge_probabilities(data, n_boot=5, seed=2, n_jobs=2, backend="threading",
                                       progress=False, ancestral=True,
                                       checkpoint=tmp_path / "ck")
    assert two.ancestral == one.ancestral
    (tmp_path / "ck" / "rep-000001.npz").unlink()  # resume: 4 replicates from the folder
    again = bootstrap_edge_probabilities(data, n_boot=5, seed=2, progress=False,
                                         ancestral=True, checkpoint=tmp_path / "ck")
    assert again.ancestral == one.ancestral
    one.save(tmp_path / "p.npz")
    loaded = EdgeProbabilities.load(tmp_path / "p.npz")
    assert loaded.ancestral == one.ancestral and loaded == one
    assert bootstrap_edge_probabilities(data, n_boot=2, progress=False).ancestral is None


def test_with_knowledge_the_counts_are_the_bounds_of_each_replicate(data):
    knowledge = Knowledge(tiers={name: k // 3 for k, name in enumerate(data.names)})
    probs = bootstrap_edge_probabilities(data, n_boot=4, seed=1, progress=False,
                                         ancestral=True, knowledge=knowledge)
    search = get_search("fges")
    definite = np.zeros((data.n_vars, data.n_vars), dtype=int)
    possible = np.zeros_like(definite)
    for b in range(4):
        g = search(data, bootstrap_weights(data.n_samples, 1, b),
                   knowledge=knowledge)
        d, p = ancestral_bounds_from_edges(g.n_vars, g.directed_edges(), g.undirected_edges())
        definite += d
        possible += p
    assert np.array_equal(probs.ancestral.definite, definite)
    assert np.array_equal(probs.ancestral.possible, possible)
    tier = np.arange(data.n_vars) // 3  # no variable causes one of an earlier tier
    assert not probs.ancestral.possible[tier[:, None] > tier[None, :]].any()


def test_refusals():
    acc = AncestralAccumulator(3, 1)
    acc.add(np.array([0]), np.array([1]))
    with pytest.raises(InputError, match="more than"):
        acc.add(np.array([0]), np.array([1]))


def test_counts_read_from_a_checkpoint_equal_the_pass(data, tmp_path):
    """The study's ancestral counts come from a finished checkpoint (no search rerun)."""
    ck = tmp_path / "ck"
    probs = bootstrap_edge_probabilities(data, n_boot=4, seed=7, progress=False,
                                         ancestral=True, checkpoint=ck)
    assert checkpoint_ancestral_counts(data, ck, n_boot=4, seed=7) == probs.ancestral
    first = checkpoint_ancestral_counts(data, ck, n_boot=3, seed=7)  # the first replicates
    assert first.n_boot == 3 and np.all(first.possible <= probs.ancestral.possible)
    with pytest.raises(InputError, match="4 of 6 replicates"):
        checkpoint_ancestral_counts(data, ck, n_boot=6, seed=7)
    with pytest.raises(InputError, match="seed"):
        checkpoint_ancestral_counts(data, ck, n_boot=4, seed=8)
    with pytest.raises(InputError, match="knowledge"):
        checkpoint_ancestral_counts(data, ck, n_boot=4, seed=7, knowledge=Knowledge(
            forbidden=[(data.names[0], data.names[1])]))
