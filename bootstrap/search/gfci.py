"""GFCI: FGES's adjacencies pruned by G² tests, then FCI's orientation (Ogarrio, Spirtes &
Ramsey 2016, "A hybrid causal search algorithm for latent variable models"; Zhang 2008;
docs/design.md §5.1; issue 40).

1. FGES (:mod:`.fges`, BDeu unless told) gives a CPDAG G₁ — in the large sample limit a
   supergraph of the true MAG's skeleton.
2. Starting from G₁'s adjacencies, x — y is removed when a subset of x's or y's
   current adjacencies makes them independent by the score's test (the G² test counted
   on FGES's own score, :class:`~causalcal.bootstrap.score.discrete.gsquare.GSquareTest`;
   Fisher-z or the degenerate-Gaussian LRT on its covariance for the Gaussian scores),
   smallest subsets first (PC-stable's levels).
3. Colliders: an unshielded a *-* b *-* c is a collider when the separating set of a
   and c lacks b — the set of step 2, or for a pair not adjacent in G₁ one searched
   among subsets of a's or c's adjacencies — and, only where no set separates them,
   when a → b ← c in G₁. (Ogarrio et al. and Tetrad take G₁'s colliders first; at
   n = 50,000 that gave the true PAG far less often: docs/design.md §5.1.)
4. Possible-D-SEP step (FCI's), colliders again on the final skeleton, then R1–R4 and
   R8–R10 (:mod:`causalcal.fci_rules`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData, MixedData
from causalcal.fci import fci
from causalcal.knowledge import Knowledge, bind_knowledge
from causalcal.pag import PAG

from ..score.protocol import DEFAULT_ALPHA, Score
from ..score.registry import as_score
from .fges import FGES

__all__ = ["DEFAULT_PDS_DEPTH", "gfci"]

#: the largest conditioning set of GFCI's Possible-D-SEP step unless told: the step tries
#: every subset of a node's Possible-D-SEP up to this size, which grows as 2^|PDS|
#: (child, each of its five hubs hidden in turn, n = 50,000: 30 s at 3, four times as
#: long unbounded)
DEFAULT_PDS_DEPTH = 3


def gfci(
    data: DiscreteData | MixedData,
    weights: np.ndarray | Sequence[float] | None = None,
    *,
    alpha: float = DEFAULT_ALPHA,
    depth: int | None = None,
    possible_dsep: bool = True,
    pds_depth: int | None = DEFAULT_PDS_DEPTH,
    score: Score | str = "bdeu",
    max_degree: int | None = None,
    faithfulness_assumed: bool = False,
    max_candidates: int | str | None = "auto",
    device: str | None = None,
    max_arity: int = DEFAULT_MAX_ARITY,
    knowledge: Knowledge | None = None,
) -> PAG:
    """GFCI on ``data`` (rows weighted by ``weights``): the PAG over ``data.names``.

    ``score`` is FGES's (a :class:`~causalcal.bootstrap.score.protocol.Score` or a name)
    and chooses the tests: G² for the discrete scores, Fisher-z for ``sem-bic``, the
    degenerate-Gaussian likelihood-ratio test for ``dg-bic``. ``alpha`` is the tests'
    significance level; ``depth`` bounds the size of their
    conditioning sets (``None``: unbounded); ``possible_dsep=False`` skips FCI's
    Possible-D-SEP step, ``pds_depth`` bounds its conditioning sets (``None``: all subsets
    of Possible-D-SEP, exponential in its size). The other options are FGES's (:func:`.fges.fges`).
    ``knowledge`` is enforced in FGES and in the orientation (docs/design.md §5.1).
    """
    spec = as_score(score)
    scorer = spec.build(data, weights, device=device, max_arity=max_arity)
    test = spec.independence_test(scorer, alpha)  # checks alpha before the search runs
    cpdag = FGES(scorer, max_degree=max_degree, faithfulness_assumed=faithfulness_assumed,
                 max_candidates=max_candidates, knowledge=knowledge).search()
    skeleton = np.zeros((data.n_vars, data.n_vars), dtype=bool)
    for v in range(data.n_vars):
        skeleton[v, list(cpdag.parents(v) | cpdag.children(v) | cpdag.neighbors(v))] = True

    def fges_collider(a: int, b: int, c: int) -> bool:
        return a in cpdag.parents(b) and c in cpdag.parents(b)

    return fci(skeleton, test, names=data.names, knowledge=bind_knowledge(knowledge, data.names),
               reference=fges_collider, depth=depth, pds_step=possible_dsep, pds_depth=pds_depth)
