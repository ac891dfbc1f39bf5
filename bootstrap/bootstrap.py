"""Bootstrapped edge-type probabilities (thesis §6.2.3–6.2.4 steps 3–5; docs/design.md §6).

The nonparametric bootstrap (Efron & Tibshirani 1994) applied to structure search as in
Friedman, Goldszmidt & Wyner (1999): for ``b = 0 … n_boot − 1`` the structure search is
run on a bootstrap replicate of the data and the edge type of every pair in the resulting
CPDAG is counted; ``P_e(A, B) = count / n_boot`` for each of the four
:class:`~causalcal.edges.EdgeType` classes. A replicate is a *weight vector*, not a
copied data set: its sample multiplicities are one multinomial(n, 1/n) draw from
``numpy.random.default_rng([seed, b])``, so replicate ``b`` is the same whatever
``n_jobs`` is, whichever machine runs it and in whatever order replicates finish; the
counts are integers, so their sum (and the result) is exactly reproducible.

Memory stays bounded at V = 5000: a replicate is returned as the sorted pair keys and
labels of its adjacent pairs only (O(E)), and counts are accumulated sparsely.
"""

from __future__ import annotations

import inspect
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from causalcal.data import DISCRETE, DiscreteData, MixedData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.knowledge import with_knowledge
from causalcal.pag import PAG

from .ancestral import AncestralAccumulator
from .checkpoint import Checkpoint, run_provenance, search_identity
from .counting import EdgeTypeCounter, edge_probabilities_from_graphs, graph_to_keys
from .pair_features import PairFeatureAccumulator, pairwise_gain_all
from .score.protocol import Score
from .score.registry import score_options

__all__ = [
    "bootstrap_edge_probabilities",
    "bootstrap_weights",
    "check_search_options",
    "edge_probabilities_from_graphs",
    "EdgeTypeCounter",
]

SearchFn = Callable[..., PDAG | PAG]
#: Most replicates one call accepts (the thesis uses 200; more is a typo, not a plan).
MAX_N_BOOT = 1_000_000
#: How often a local worker process checks that the process that started it still runs.
PARENT_POLL_SECONDS = 1.0
_WATCHED_PARENT: int | None = None
BACKENDS = ("loky", "threading", "dask")
DISTRIBUTED_HINT = "pip install causalcal[distributed]"


# ---------------------------------------------------------------- replicates
def bootstrap_weights(n_samples: int, seed: int, b: int) -> np.ndarray:
    """Sample multiplicities (int64, summing to ``n_samples``) of bootstrap replicate ``b``.

    One multinomial(n, 1/n) draw — the number of times each row is picked when ``n`` rows
    are drawn with replacement — from ``numpy.random.default_rng([seed, b])``. The pair
    ``[seed, b]`` feeds a :class:`numpy.random.SeedSequence`, so the replicates' streams are
    independent and each depends on ``(seed, b)`` only.
    """
    if n_samples < 1:
        raise InputError(f"n_samples must be positive, got {n_samples}")
    if seed < 0 or b < 0:
        raise InputError(f"seed and replicate index must be non-negative, got {seed}, {b}")
    rng = np.random.default_rng([int(seed), int(b)])
    return rng.multinomial(n_samples, np.full(n_samples, 1.0 / n_samples)).astype(np.int64)


def _search_table(search: str | SearchFn) -> type[EdgeProbabilities]:
    from causalcal.bootstrap.search.registry import search_table

    return search_table(search)


def _resolve_search(search: str | SearchFn) -> SearchFn:
    if callable(search):
        return search
    if not isinstance(search, str):
        raise TypeError(f"search must be a name or a callable, got {type(search)!r}")
    from causalcal.bootstrap.search.registry import get_search

    return get_search(search)


def check_search_options(search: str | SearchFn, options: dict[str, Any]) -> None:
    """Refuse (``InputError``), before any work, a search not callable as the plug-in
    signature ``search(data, weights, **options)``, or option names it does not take (a
    search taking ``**options`` accepts every name; its own checks apply later)."""
    fn = _resolve_search(search)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to read (some builtins)
        return
    params = list(signature.parameters.values())
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        accepted = [p.name for p in params[2:]
                    if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        unknown = sorted(set(options) - set(accepted))
        if "knowledge" in unknown:
            raise InputError(
                f"search {search_identity(search)!r} takes no background knowledge (on the "
                "command line --knowledge, --tiers, --forbid-within-tiers, --context); the "
                "searches fges, boss and gfci do")
        if unknown:
            raise InputError(
                f"search {search_identity(search)!r} has no option "
                f"{', '.join(map(repr, unknown))}; it takes {', '.join(accepted) or 'no options'}"
            )
    try:
        signature.bind(None, None, **options)
    except TypeError as err:
        raise InputError(f"search {search_identity(search)!r} cannot be called as search(data, "
                         f"weights, **options) -> PDAG ({err}; its signature is {signature})"
                         ) from None
    _check_option_values(search, signature, options)


def _check_option_values(search: str | SearchFn, signature: inspect.Signature,
                         options: dict[str, Any]) -> None:
    """Refuse (``InputError``) an option value of the wrong type for the search's own
    default (a number, or True/False; e.g. ``--option alpha=x``, or ``alpha=nan``, read as
    text), before any work; ranges are the search's to check."""
    for name, value in options.items():
        param = signature.parameters.get(name)
        default = None if param is None else param.default
        if isinstance(default, bool):
            ok, want = isinstance(value, (bool, np.bool_)), "True or False"
        elif isinstance(default, (int, float)):
            ok = (isinstance(value, (int, float, np.integer, np.floating))
                  and not isinstance(value, (bool, np.bool_)) and value == value)
            want = "a number"
        else:
            continue
        if not ok:
            raise InputError(f"search {search_identity(search)!r}: option {name} must be "
                             f"{want}, got {value!r}")


def _exit_with_parent(parent_pid: int) -> None:
    """In a worker process: exit as soon as ``parent_pid`` is gone (even after kill -9).

    A daemon thread polls the parent process id every :data:`PARENT_POLL_SECONDS`; when the
    worker has been re-parented (its parent died), it ends the whole worker process.
    """
    global _WATCHED_PARENT
    if _WATCHED_PARENT == parent_pid or os.getpid() == parent_pid:
        return
    _WATCHED_PARENT = parent_pid

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="causalcal-parent-watch", daemon=True).start()


def _run_replicate(
    data: DiscreteData,
    search: str | SearchFn,
    options: dict[str, Any],
    seed: int,
    b: int,
    limit_threads: bool,
    parent_pid: int | None = None,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Worker task: replicate ``b`` → ``(b, keys, labels)``. With ``parent_pid`` (a local
    worker process) the worker exits when that process dies."""
    if parent_pid is not None:
        _exit_with_parent(parent_pid)
    fn = _resolve_search(search)
    weights = bootstrap_weights(data.n_samples, seed, b)
    if limit_threads:
        # One search per core: keep BLAS/OpenMP pools in the worker to a single thread.
        from threadpoolctl import threadpool_limits

        guard: Any = threadpool_limits(limits=1)
    else:
        guard = nullcontext()
    try:
        with guard:
            graph = fn(data, weights, **options)
        return (b, *graph_to_keys(graph, data.n_vars, _search_table(search)))
    except Exception as err:
        if hasattr(err, "add_note"):
            err.add_note(f"(in bootstrap replicate {b}, seed {seed})")
        raise


# ------------------------------------------------------------------- driver
def _as_data(data: Any, options: dict[str, Any]) -> DiscreteData | MixedData:
    """``data`` as the table the search's score takes: a DataFrame or an array is read
    as :class:`DiscreteData`, or as :class:`MixedData` for a continuous or mixed score."""
    if isinstance(data, (DiscreteData, MixedData)):
        return data
    import pandas as pd

    score = options.get("score")
    kind = score.data_kind if isinstance(score, Score) else DISCRETE
    if isinstance(data, np.ndarray) and kind == DISCRETE:
        return DiscreteData.from_array(data)
    if isinstance(data, np.ndarray):
        return MixedData.from_values(data)
    if isinstance(data, pd.DataFrame):
        return (DiscreteData.from_frame(data) if kind == DISCRETE
                else MixedData.from_frame(data, data_kind=kind))
    raise TypeError(f"data must be a DiscreteData, MixedData, DataFrame or array, got "
                    f"{type(data)!r}")


def check_score_data(data: DiscreteData | MixedData, options: dict[str, Any]) -> None:
    """Build the search's score on all of ``data`` once, before any replicate: data of
    the wrong kind, or a singular covariance (collinear columns), fail here, naming the
    score or the columns."""
    score = options.get("score")
    if isinstance(score, Score):
        score.build(data, device=options.get("device"), max_arity=options.get("max_arity"))
    elif isinstance(data, MixedData) and "score" not in options:
        raise InputError("continuous or mixed data needs a score that takes it: "
                         "score='sem-bic' (continuous) or 'dg-bic' (mixed)")


def _check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum
            or (maximum is not None and value > maximum)):
        bounds = f"from {minimum} to {maximum}" if maximum is not None else f"≥ {minimum}"
        raise InputError(f"{name} must be an integer {bounds}, got {value!r}")
    return int(value)


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    from causalcal._progress import progress

    desc = f"bootstrap ({initial} from checkpoint)" if initial else "bootstrap"
    return progress(total=total, initial=initial, desc=desc, unit="rep", enabled=enabled)


def _dask_client(scheduler: Any) -> tuple[Any, bool]:
    """A dask.distributed Client for ``scheduler`` and whether we own (must close) it."""
    try:
        import distributed
    except ImportError:
        raise ImportError(
            f"backend='dask' needs dask.distributed, the optional extra: {DISTRIBUTED_HINT}"
        ) from None
    if isinstance(scheduler, distributed.Client):
        return scheduler, False
    if scheduler is None:
        try:
            return distributed.get_client(), False
        except ValueError:
            raise InputError(
                "backend='dask' needs scheduler=ADDRESS (e.g. 'tcp://10.0.0.5:8786') "
                "or an active dask.distributed.Client"
            ) from None
    if hasattr(scheduler, "scheduler_address"):  # a LocalCluster or other cluster object
        scheduler = scheduler.scheduler_address
    try:
        return distributed.Client(str(scheduler), set_as_default=False, timeout=30), True
    except OSError as err:
        raise InputError(f"cannot connect to dask scheduler {scheduler}: {err}") from None


def _run_parallel(
    data: DiscreteData,
    search: str | SearchFn,
    options: dict[str, Any],
    seed: int,
    todo: list[int],
    n_jobs: int,
    backend: str,
    scheduler: Any,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(b, keys, labels)`` for every ``b`` in ``todo`` as replicates finish."""
    if not todo:
        return
    if backend != "dask" and n_jobs == 1:
        for b in todo:
            yield _run_replicate(data, search, options, seed, b, False)
        return
    from joblib import Parallel, delayed, parallel_config

    with ExitStack() as stack:
        if backend == "dask":
            client, owned = _dask_client(scheduler)
            if owned:
                stack.callback(client.close)
            # a key of its own: a content-hashed key shared with an earlier run on the
            # cluster can be released under this one (dask/distributed#3703)
            data = client.scatter(data, broadcast=True, hash=False)
            stack.enter_context(parallel_config(backend="dask", client=client))
            n_jobs = -1
            limit = True
        else:
            stack.enter_context(parallel_config(backend=backend))
            limit = backend == "loky"
        parent = os.getpid() if backend == "loky" else None
        parallel = Parallel(
            n_jobs=n_jobs, return_as="generator_unordered", batch_size=1, pre_dispatch="2*n_jobs"
        )
        results = parallel(
            delayed(_run_replicate)(data, search, options, seed, b, limit, parent) for b in todo
        )
        try:
            yield from results
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()  # abort outstanding tasks on error / interrupt


def _check_run_arguments(n_boot: Any, seed: Any, n_jobs: Any, backend: str | None,
                         scheduler: Any) -> tuple[int, int, int, str]:
    """Validated ``(n_boot, seed, n_jobs, backend)``; bad values are errors before any work."""
    n_boot = _check_int("n_boot", n_boot, 1, MAX_N_BOOT)
    seed = _check_int("seed", seed, 0)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise InputError(f"n_jobs must be a non-zero integer (-1 = all cores), got {n_jobs!r}")
    if backend is None:
        backend = "dask" if scheduler is not None else "loky"
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise InputError(f"scheduler= only applies to backend='dask', not {backend!r}")
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ImportError(
                f"backend='dask' needs dask.distributed, the optional extra: {DISTRIBUTED_HINT}"
            ) from None
    return n_boot, seed, int(n_jobs), backend


def _resume(ckpt: Checkpoint, n_boot: int, sinks: list) -> set[int]:
    """Add the replicates ``ckpt`` already holds to every sink (edge-type counter, pair
    features, ancestral counts); return their indices."""
    done: set[int] = set()
    for b in ckpt.finished():
        if b < n_boot:
            stored = ckpt.read(b)
            if stored is not None:
                for sink in sinks:
                    sink.add(*stored)
                done.add(b)
    return done


def _collect(data: DiscreteData, search, search_options: dict, seed: int, n_boot: int,
             n_jobs: int, backend, scheduler, checkpoint, progress: bool,
             sinks: list) -> set[int]:
    """Resume from ``checkpoint``, run the missing replicates and add every replicate to
    the ``sinks``; return the indices done."""
    done: set[int] = set()
    with ExitStack() as stack:
        ckpt: Checkpoint | None = None
        if checkpoint is not None:
            ckpt = Checkpoint.open(
                Path(checkpoint), data, n_boot=n_boot, seed=seed, search=search,
                search_options=search_options,
            )
            stack.callback(ckpt.close)
            done = _resume(ckpt, n_boot, sinks)
        todo = [b for b in range(n_boot) if b not in done]
        bar = stack.enter_context(_progress_bar(n_boot, len(done), progress))
        results = _run_parallel(data, search, search_options, seed, todo, n_jobs, backend,
                                scheduler)
        stack.callback(getattr(results, "close", lambda: None))
        for b, keys, labels in results:
            if ckpt is not None:
                ckpt.write(b, keys, labels)
            for sink in sinks:
                sink.add(keys, labels)
            done.add(b)
            bar.update(1)
    return done


def _sinks(data: DiscreteData, search, search_options: dict, n_boot: int, features: bool,
           ancestral: bool) -> tuple[EdgeTypeCounter, dict]:
    """The edge-type counter of the search's table, and the pair-feature and ancestral
    sinks asked for (``None`` where not)."""
    table = _search_table(search)
    if features and table is not EdgeProbabilities:
        raise InputError(f"pair features are of CPDAG edge types; search "
                         f"{search_identity(search)!r} returns PAGs")
    knowledge = search_options.get("knowledge") is not None
    return EdgeTypeCounter(data.n_vars, table=table), {
        "features": PairFeatureAccumulator(data.n_vars) if features else None,
        "ancestral": AncestralAccumulator(data.n_vars, n_boot, knowledge, table)
        if ancestral else None}


def bootstrap_edge_probabilities(
    data: DiscreteData,
    n_boot: int = 200,
    search: str | SearchFn = "fges",
    n_jobs: int = 1,
    seed: int = 0,
    checkpoint: str | os.PathLike | None = None,
    backend: str | None = None,
    scheduler: Any = None,
    progress: bool = True,
    knowledge: Any = None,
    features: bool = False,
    ancestral: bool = False,
    **search_options: Any,
) -> EdgeProbabilities:
    """Edge-type probabilities of every pair from ``n_boot`` bootstrap searches (docs/design.md §6).

    Parameters
    ----------
    data : the data: :class:`DiscreteData`, or :class:`MixedData` for the Gaussian scores
        (a DataFrame or array is encoded as the score takes it).
    n_boot : number of bootstrap replicates (1 … :data:`MAX_N_BOOT`).
    search : a registered search name (``"fges"``, ``"boss"``, ``"ges"``, ``"pc"``; see
        :func:`causalcal.bootstrap.get_search`) or a callable
        ``search(data, weights, **options) -> PDAG`` (picklable for parallel runs; a
        module-level function). ``weights`` are integer sample multiplicities.
    n_jobs : parallel replicates (joblib: ``-1`` = all cores; ``1`` in this process);
        the dask backend uses every worker thread.
    seed : non-negative integer; replicate ``b`` uses :func:`bootstrap_weights` ``(n, seed, b)``.
    checkpoint : a directory; every finished replicate is stored there atomically, and a
        rerun with the same arguments only computes the missing ones; one made with other
        arguments is refused (:mod:`causalcal.bootstrap.checkpoint`).
    backend : ``"loky"`` (processes; default without ``scheduler``), ``"threading"`` or
        ``"dask"`` (default when ``scheduler`` is given; needs ``causalcal[distributed]``).
    scheduler : the dask scheduler address (``"tcp://host:8786"``), a ``Client`` or a
        cluster; with ``backend="dask"`` and none, the active default client.
    progress : a tqdm progress bar on stderr (replicates done/total, rate, ETA).
    knowledge : a :class:`causalcal.Knowledge` every replicate's search enforces (fges and
        boss; a search without a ``knowledge`` option refuses it).
    features : also compute the pair features of the learned graphs in the same pass
        (:mod:`causalcal.bootstrap.pair_features`), stored as ``pair_features`` beside the
        probabilities (saved with them in ``.npz``).
    ancestral : also count, per ordered pair, the replicates whose CPDAG makes one node a
        definite and a possible ancestor of the other (docs/design.md §6.1), stored as
        ``ancestral`` (:class:`causalcal.ancestry.AncestralCounts`, saved in ``.npz``).
        With knowledge, whose graphs are not CPDAGs, the counts are of sound bounds:
        definite ones at most, possible ones at least the exact counts.
    **search_options : passed to the search, e.g. ``max_degree=…``; ``score=`` a
        :class:`~causalcal.bootstrap.score.protocol.Score` or a name, whose parameters
        may also be given flat (``score="bic", penalty_discount=2``: one ``Score``).

    Returns :class:`EdgeProbabilities` with ``n_boot`` and ``provenance`` (this run) set;
    each stored row is the count of each edge type divided by ``n_boot``, whatever
    ``n_jobs``, the backend or the order replicates finish in.
    """
    search_options = score_options(search_options)
    data = _as_data(data, search_options)
    n_boot, seed, n_jobs, backend = _check_run_arguments(n_boot, seed, n_jobs, backend,
                                                         scheduler)
    search_options = with_knowledge(data.names, knowledge, search_options)
    check_search_options(search, search_options)  # bad names fail before any worker starts
    if data.n_vars < 2:
        raise InputError(f"need at least 2 variables, got {data.n_vars}")
    check_score_data(data, search_options)

    counter, extra = _sinks(data, search, search_options, n_boot, features, ancestral)
    sinks: list = [counter] + [sink for sink in extra.values() if sink is not None]
    done = _collect(data, search, search_options, seed, n_boot, n_jobs, backend, scheduler,
                    checkpoint, progress, sinks)
    if len(done) != n_boot or counter.n_graphs != n_boot:  # pragma: no cover - defensive
        raise RuntimeError(f"{len(done)} of {n_boot} replicates finished")
    probs = counter.probabilities(data.names, n_boot)
    probs.provenance = run_provenance(data, n_boot=n_boot, seed=seed, search=search,
                                      search_options=search_options)
    if features:
        probs.pair_features = extra["features"].features(
            pairwise_gain_all(data, **search_options))
    if ancestral:
        probs.ancestral = extra["ancestral"].counts()
    return probs
