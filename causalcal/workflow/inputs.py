"""What :func:`~causalcal.discover` and :func:`~causalcal.suggest` share of their inputs:
the data, given probabilities, and the checks the inputs alone decide, made before any
replicate (docs/design.md §9.10, §9.12; issue 48 item 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from causalcal.bootstrap import BootstrapSettings, data_for
from causalcal.bootstrap.search.registry import search_table
from causalcal.data import DISCRETE, DiscreteData, MixedData
from causalcal.edgecal import PAGEdges, RelationKind
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.pag_edges import PAGEdgeProbabilities
from causalcal.pairs import n_pairs, pair_from_index

__all__ = ["as_data", "check_search", "decided_pairs", "given_probabilities"]


def as_data(data, bootstrap: BootstrapSettings,
            simulations: int | str | None = None) -> DiscreteData | MixedData:
    """``data`` as the search's score takes it (a frame or a CSV path read as
    :class:`DiscreteData`, or as :class:`MixedData` for a Gaussian score,
    ``bootstrap.options["score"]``); simulated worlds are discrete networks fitted to
    discrete data, so ``simulations`` with continuous columns are refused."""
    kind = getattr(bootstrap.options.get("score"), "data_kind", DISCRETE)
    if not isinstance(data, (DiscreteData, MixedData)):
        if kind == DISCRETE:
            data = (DiscreteData.from_frame(data) if isinstance(data, pd.DataFrame)
                    else DiscreteData.from_csv(data))
        else:
            data = (MixedData.from_frame(data, data_kind=kind)
                    if isinstance(data, pd.DataFrame) else MixedData.from_csv(data, kind))
    if isinstance(data, MixedData) and isinstance(simulations, int) and simulations:
        raise InputError("simulations fit discrete networks (CPTs) to the data; with "
                         "continuous or mixed columns leave them out")
    return data


def given_probabilities(probabilities, data: DiscreteData | MixedData
                        ) -> tuple[EdgeProbabilities | None, DiscreteData | MixedData]:
    """The given probabilities (read if a path) and the data in their variables' order,
    checked against the data fingerprint they record
    (:func:`causalcal.bootstrap.data_for`)."""
    if probabilities is None:
        return None, data
    source = "the probabilities"
    if not isinstance(probabilities, EdgeProbabilities):
        source = str(probabilities)
        probabilities = EdgeProbabilities.load(probabilities)
    return probabilities, data_for(probabilities, data, source)


def check_search(kind: RelationKind, given: EdgeProbabilities | None,
                 bootstrap: BootstrapSettings) -> None:
    """The relation kind against what the search's graphs are, before any replicate: a
    PAG search's edge types are calibrated as ``relations="pag"`` (or causal relations),
    and ``"pag"`` needs a PAG search."""
    table = type(given) if given is not None else search_table(bootstrap.search)
    pag = issubclass(table, PAGEdgeProbabilities)
    where = "the probabilities are" if given is not None else "the search's graphs are"
    if pag and kind.name == "edges":
        raise InputError(f"{where} PAGs (search {bootstrap.search!r}: hidden common causes "
                         "allowed), whose edge types are calibrated with relations='pag' "
                         "(--relations pag), or causal relations (--relations causal)")
    if not pag and isinstance(kind, PAGEdges):
        raise InputError("relations='pag' calibrates a PAG search's edge types: bootstrap "
                         f"with search='gfci' (--search gfci), not {bootstrap.search!r}")


def decided_pairs(kind: RelationKind, knowledge, names: list[str]) -> np.ndarray:
    """Pair keys whose relatedness the background ``knowledge`` decides — every class it
    leaves possible is unrelated (e.g. both arcs forbidden, one tier with its edges
    forbidden, no chain of allowed arcs either way), or every one is related (a required
    arc) — for ``kind``'s classes (docs/design.md §9.12). Such a pair is never asked: its
    answer is known, and its bootstrap frequency is forced, so it is no evidence."""
    if knowledge is None or knowledge.is_empty or len(names) < 2:
        return np.zeros(0, dtype=np.int64)
    keys = np.arange(n_pairs(len(names)), dtype=np.int64)
    i, j = pair_from_index(keys, len(names))
    possible = ~kind.excluded(knowledge.bind(names), i, j)
    return keys[~possible[:, 0] | ~possible[:, 1:].any(axis=1)]
