"""Does GFCI find the true PAG on large samples, and how does it compare with causal-learn's
FCI on the same G² test (issue 40, item 1 acceptance)?

    python -m experiments.gfci_truth [--family random|strong|shipped] [--networks 30]
        [--n 50000] [--alpha 0.01]

Cases. ``random``: a random network (``random_network``, V = 8, E = 10, arities 2–3,
flat-Dirichlet CPTs, seeded), one or two of its nodes with at least two children hidden.
``strong``: the same graphs, binary, P(child = 1) = 0.1 + 0.8 × the share of its parents
at 1. ``shipped``: asia, sachs and child, each node with at least two children hidden in
turn. ``--n`` rows of the other variables; truth:
:func:`causalcal.simulate.latent_truth.true_pag`.

Printed: how often GFCI's PAG is the true PAG exactly, its adjacency and edge-mark
agreement with the truth; the same for causalcal's FCI (complete start, same test,
Possible-D-SEP sets up to GFCI's default size) and causal-learn's ``fci`` (``gsq``, same
alpha), and the agreement between causalcal's FCI and causal-learn's.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from causalcal.bootstrap.score.discrete.bdeu import BDeuScore
from causalcal.bootstrap.score.discrete.gsquare import GSquareTest
from causalcal.bootstrap.search.gfci import DEFAULT_PDS_DEPTH, gfci
from causalcal.data import DiscreteData
from causalcal.fci import fci
from causalcal.pag import PAG
from causalcal.simulate import load_network, random_network
from causalcal.simulate.latent_truth import true_pag
from causalcal.simulate.network import BayesianNetwork

_FROM_CAUSALLEARN = {0: 0, -1: 3, 1: 2, 2: 1}  # causal-learn endpoint → pcalg mark code


def causallearn_fci(data: DiscreteData, alpha: float) -> PAG:
    """causal-learn's FCI with its G² test, as a :class:`PAG`."""
    from causallearn.search.ConstraintBased.FCI import fci as cl_fci

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, _ = cl_fci(np.asarray(data.codes, dtype=np.int64), "gsq", alpha,
                      show_progress=False, verbose=False)
    out = PAG(data.n_vars, data.names)
    out.marks[:] = np.vectorize(_FROM_CAUSALLEARN.get)(np.asarray(g.graph).T)
    return out


def _observed(full: DiscreteData, observed: list[int]) -> DiscreteData:
    return DiscreteData(np.ascontiguousarray(full.codes[:, observed]),
                        [full.names[v] for v in observed], full.arities[observed])


def _strong(net: BayesianNetwork) -> BayesianNetwork:
    """The same graph, binary, P(child = 1) = 0.1 + 0.8 · (parents at 1) / (parents)."""
    cpts = []
    for pa in net.parents:
        on = np.array([bin(c).count("1") for c in range(2 ** len(pa))])
        p = 0.1 + 0.8 * on / max(len(pa), 1) if len(pa) else np.array([0.5])
        cpts.append(np.column_stack([1 - p, p]))
    return BayesianNetwork(net.names, [2] * net.n_vars, net.parents, cpts)


def random_cases(networks: int, n: int, strong: bool):
    """Random networks with 1–2 hidden nodes of ≥ 2 children: observed data, true PAG."""
    for seed in range(networks):
        net = random_network(8, 10, arities=(2, 3), seed=seed)
        net = _strong(net) if strong else net
        rng = np.random.default_rng(seed)
        hubs = np.flatnonzero(np.bincount(np.concatenate(net.parents), minlength=8) >= 2)
        hidden = set(rng.choice(hubs, min(len(hubs), int(rng.integers(1, 3))), replace=False))
        observed = [v for v in range(8) if v not in hidden]
        data = _observed(net.sample(n, seed=seed), observed)
        yield data, true_pag(net.parents, observed, data.names)


def shipped_cases(n: int):
    """asia, sachs, child with each node of ≥ 2 children hidden in turn."""
    for name in ("asia", "sachs", "child"):
        net = load_network(name)
        hubs = np.flatnonzero(np.bincount(np.concatenate(net.parents),
                                          minlength=net.n_vars) >= 2)
        for h in hubs:
            observed = [v for v in range(net.n_vars) if v != h]
            data = _observed(net.sample(n, seed=int(h)), observed)
            yield data, true_pag(net.parents, observed, data.names)


def agreement(a: PAG, b: PAG) -> tuple[float, float]:
    """Share of pairs with the same adjacency; share of both-adjacent pairs with the same
    edge (both marks)."""
    i, j = np.triu_indices(a.n_vars, 1)
    adj_a, adj_b = a.marks[i, j] != 0, b.marks[i, j] != 0
    both = adj_a & adj_b
    same = (a.marks[i, j] == b.marks[i, j]) & (a.marks[j, i] == b.marks[j, i])
    return float(np.mean(adj_a == adj_b)), float(same[both].mean()) if both.any() else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=("random", "strong", "shipped"), default="random")
    parser.add_argument("--networks", type=int, default=30)
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--alpha", type=float, default=0.01)
    args = parser.parse_args()
    rows = {"gfci": [], "fci": [], "causal-learn fci": [], "fci vs causal-learn": []}
    start = time.perf_counter()
    cases = (shipped_cases(args.n) if args.family == "shipped"
             else random_cases(args.networks, args.n, strong=args.family == "strong"))
    for data, truth in cases:
        test = GSquareTest(BDeuScore(data), args.alpha)
        ours = fci(~np.eye(data.n_vars, dtype=bool), test, names=data.names,
                   pds_depth=DEFAULT_PDS_DEPTH)
        cl = causallearn_fci(data, args.alpha)
        for name, got, ref in (("gfci", gfci(data, alpha=args.alpha), truth),
                               ("fci", ours, truth), ("causal-learn fci", cl, truth),
                               ("fci vs causal-learn", ours, cl)):
            rows[name].append((got == ref, *agreement(got, ref)))
    print(f"{len(rows['gfci'])} cases ({args.family}), n = {args.n}, alpha = {args.alpha}, "
          f"{time.perf_counter() - start:.0f} s")
    for name, r in rows.items():
        exact, adj, marks = np.mean(r, axis=0)
        print(f"{name:>20}: identical PAG {exact:.0%}, same adjacency {adj:.1%} of pairs, "
              f"same edge {marks:.1%} of pairs adjacent in both")


if __name__ == "__main__":
    main()
