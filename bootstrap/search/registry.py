"""Structure searches with one signature, ``search(data, weights=None, **options) -> PDAG``.

Bootstrapping (thesis §6.2.3) works with "any discovery method that is fast enough to
run hundreds of times" (§6.2.6): :func:`get_search` returns

* ``"fges"`` — :func:`causalcal.bootstrap.fges` (BDeu; weights are native): GES's
  result at heuristic speed (full neighbourhood, candidate parents bounded by pairwise
  gain at large V; ``faithfulness_assumed=True`` for Tetrad's faster heuristic);
* ``"boss"`` — :func:`causalcal.bootstrap.boss`, the best order score search started
  from that result (BDeu; weights are native; slower, scores at least as high);
* ``"ges"`` — causal-learn's GES with its BDeu score (slow: meant for small V; weights
  must be integer multiplicities, the rows are repeated);
* ``"pc"`` — causal-learn's PC with the G² test (``alpha``, default 0.05; integer weights
  by repetition as for GES).

and a search that returns a PAG (latent variables allowed; also listed by
:func:`get_pag_search`): ``"gfci"`` — :func:`causalcal.bootstrap.search.gfci.gfci`. The
bootstrap counts a PAG search's seven PAG edge types (:func:`search_table`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.pag import PAG
from causalcal.pag_edges import PAGEdgeProbabilities

from .boss import boss
from .fges import fges
from .gfci import gfci

__all__ = ["available_pag_searches", "available_searches", "get_pag_search", "get_search",
           "ges_causallearn", "pc_causallearn", "search_table"]

GES_MAX_VARS = 60  # causal-learn's GES is exponential-ish in Python beyond this


def _repeat_rows(data: DiscreteData, weights) -> np.ndarray:
    """Codes with row r repeated ``weights[r]`` times (integer multiplicities only)."""
    codes = np.asarray(data.codes)
    if weights is None:
        return codes
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (data.n_samples,):
        raise InputError(f"weights must have shape ({data.n_samples},), got {w.shape}")
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise InputError("weights must be finite and non-negative")
    if np.any(w != np.round(w)):
        bad = int(np.flatnonzero(w != np.round(w))[0])
        raise InputError(
            f"causal-learn searches need integer weights (row multiplicities); "
            f"weights[{bad}] = {w[bad]}"
        )
    rows = np.repeat(np.arange(data.n_samples), w.astype(np.int64))
    if len(rows) < 2:
        raise InputError("weights leave fewer than 2 rows")
    return codes[rows]


def _dense_codes(codes: np.ndarray) -> np.ndarray:
    """Recode every column to 0 … (distinct values − 1), as causal-learn counts states."""
    out = np.empty(codes.shape, dtype=np.int64)
    for j in range(codes.shape[1]):
        _, inv = np.unique(codes[:, j], return_inverse=True)
        out[:, j] = inv.reshape(-1)
    return out


def ges_causallearn(
    data: DiscreteData, weights=None, *, max_parents: int | None = None, allow_large: bool = False
) -> PDAG:
    """causal-learn's GES (Chickering 2002) with its BDeu score (sample and structure
    prior 1). Refuses more than :data:`GES_MAX_VARS` variables unless ``allow_large``."""
    if data.n_vars > GES_MAX_VARS and not allow_large:
        raise InputError(
            f"causal-learn GES on {data.n_vars} variables would take very long; "
            f"use 'fges' or pass allow_large=True"
        )
    from causallearn.search.ScoreBased.GES import ges

    from causalcal.graph_io import from_causallearn

    x = _dense_codes(_repeat_rows(data, weights))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record = ges(x, score_func="local_score_BDeu", maxP=max_parents)
    return from_causallearn(record["G"], data.names)


def pc_causallearn(data: DiscreteData, weights=None, *, alpha: float = 0.05) -> PDAG:
    """causal-learn's PC (stable, Meek orientation) with the G² conditional-independence
    test at level ``alpha``; the result is its CPDAG (conflicting orientations become
    undirected)."""
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    from causallearn.search.ConstraintBased.PC import pc

    from causalcal.graph_io import from_causallearn

    x = _dense_codes(_repeat_rows(data, weights))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cg = pc(x, alpha, "gsq", stable=True, show_progress=False, verbose=False)
    return from_causallearn(cg.G, data.names, conflicts_undirected=True)


_SEARCHES: dict[str, Callable[..., PDAG]] = {
    "boss": boss,
    "fges": fges,
    "ges": ges_causallearn,
    "pc": pc_causallearn,
}


_PAG_SEARCHES: dict[str, Callable[..., PAG]] = {"gfci": gfci}


def available_searches() -> list[str]:
    """Names accepted by :func:`get_search`."""
    return sorted(_SEARCHES | _PAG_SEARCHES)


def get_search(name: str) -> Callable[..., PDAG | PAG]:
    """The search called ``name``: a callable ``(data, weights=None, **options) -> PDAG``
    (or ``-> PAG`` for the names of :func:`available_pag_searches`)."""
    try:
        return (_SEARCHES | _PAG_SEARCHES)[name.lower()]
    except (KeyError, AttributeError):
        raise InputError(
            f"unknown search {name!r}; available: {', '.join(available_searches())}"
        ) from None


def search_table(search: str | Callable) -> type[EdgeProbabilities]:
    """What the bootstrap counts of ``search``'s graphs: :class:`PAGEdgeProbabilities`
    for a PAG search (by name or the registered function), else the CPDAG's
    :class:`EdgeProbabilities` (a plug-in callable must return a PDAG)."""
    pag = (search.lower() in _PAG_SEARCHES if isinstance(search, str)
           else any(search is fn for fn in _PAG_SEARCHES.values()))
    return PAGEdgeProbabilities if pag else EdgeProbabilities


def available_pag_searches() -> list[str]:
    """Names accepted by :func:`get_pag_search`."""
    return sorted(_PAG_SEARCHES)


def get_pag_search(name: str) -> Callable[..., PAG]:
    """The PAG search called ``name``: ``(data, weights=None, **options) -> PAG``."""
    try:
        return _PAG_SEARCHES[name.lower()]
    except (KeyError, AttributeError):
        raise InputError(
            f"unknown PAG search {name!r}; available: {', '.join(available_pag_searches())}"
        ) from None
