"""Definite and possible ancestors of a PAG (causalcal.ancestry.pag_ancestral_bounds)
against brute force: the ancestral relations of every MAG in the PAG's Markov
equivalence class, enumerated (tests/simulate/test_latent_truth.py's reference)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from causalcal.ancestry import pag_ancestral_bounds
from causalcal.pag import PAG, Mark
from causalcal.simulate.latent_truth import true_mag, true_pag

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "simulate"))
from test_latent_truth import equivalent_mags, random_case  # noqa: E402

T, A = int(Mark.TAIL), int(Mark.ARROW)


def _ancestors(marks: np.ndarray) -> np.ndarray:
    """``[a, b]``: a is an ancestor of b in the MAG (directed paths of tail → arrow)."""
    k = len(marks)
    reach = (marks == A) & (marks.T == T)
    for v in range(k):  # Warshall
        reach |= reach[:, [v]] & reach[[v], :]
    return reach


def test_hand_cases():
    # a o-> b <-o c (collider), b --> d: a, c possible ancestors of d, b a definite one
    g = PAG.from_edges(4, [(0, "o->", 1), (2, "o->", 1), (1, "-->", 3)])
    definite, possible = pag_ancestral_bounds(4, *g.pair_labels())
    assert definite[1, 3] and not definite[0, 3] and possible[0, 3] and possible[2, 3]
    assert not possible[3, 0] and not possible[1, 0]
    # a <-> b: neither is an ancestor of the other
    g = PAG.from_edges(2, [(0, "<->", 1)])
    definite, possible = pag_ancestral_bounds(2, *g.pair_labels())
    assert not possible.any()
    # x o-o u, x o-o w, u, w not adjacent, u --> y <-- w: x causes y in every MAG
    g = PAG.from_edges(4, [(0, "o-o", 1), (0, "o-o", 2), (1, "-->", 3), (2, "-->", 3)])
    definite, _ = pag_ancestral_bounds(4, *g.pair_labels())
    assert definite[0, 3] and not definite[1, 0]


@pytest.mark.parametrize("seed", range(6))
def test_bounds_are_sound_against_every_mag(seed):
    rng = np.random.default_rng(seed)
    exact = total = 0
    for _ in range(25):
        parents, observed = random_case(rng, 4, 7, 2)
        if len(observed) > 5:
            observed = observed[:5]
        pag = true_pag(parents, observed)
        mags = np.stack([_ancestors(m) for m in equivalent_mags(true_mag(parents, observed))])
        in_all, in_some = mags.all(axis=0), mags.any(axis=0)
        definite, possible = pag_ancestral_bounds(pag.n_vars, *pag.pair_labels())
        assert not (definite & ~in_all).any(), "a definite ancestor not so in every MAG"
        assert not (in_some & ~possible).any(), "an ancestor in some MAG not possible"
        exact += int(np.array_equal(definite, in_all) and np.array_equal(possible, in_some))
        total += 1
    assert exact >= 0.95 * total  # exact on 300 of 300 small PAGs when measured


@pytest.mark.parametrize("seed", range(4))
def test_any_searched_pag_gives_each_pair_one_distribution(seed):
    # random marks, as a search on data may return them (cycles of --> included)
    rng = np.random.default_rng(seed)
    for _ in range(50):
        n = int(rng.integers(3, 9))
        edges = [(a, str(rng.choice(["o-o", "o->", "<-o", "-->", "<--", "<->"])), b)
                 for a in range(n) for b in range(a + 1, n) if rng.random() < 0.5]
        pag = PAG.from_edges(n, edges)
        definite, possible = pag_ancestral_bounds(n, *pag.pair_labels())
        assert not (definite & definite.T).any()
        assert not (possible & definite.T).any()
        assert not (definite & ~possible).any()
        p = (definite.astype(int) + possible) / 2  # one replicate's P(a causes b)
        assert (p + p.T <= 1).all()


def test_directed_cycle_keeps_neither_definite():
    g = PAG.from_edges(3, [(0, "-->", 1), (1, "-->", 2), (0, "<--", 2)])
    definite, possible = pag_ancestral_bounds(3, *g.pair_labels())
    assert not definite.any() and (possible | np.eye(3, dtype=bool)).all()
