"""Causal relations on the ``discover_known`` harness (``--relations causal``; issue 30).

"A causes B, possibly through other variables": A is an ancestor of B in the reference
DAG (the case's arcs). Per pair the true class is :class:`~causalcal.pairs.CausalType`
(neither, i causes j, j causes i; i < j). A reference graph with a cycle (sachs-real's
consensus network: PIP3 → plcg → PIP2 → PIP3) makes some pairs ancestors of each other;
they have no three-class truth (:data:`MUTUAL`) and are left out of the known draws and
of the held-out evaluation.

Schemes of drawing the scientist's known causal statements (``SCHEMES``):

* ``random10`` / ``random20``: k random truly causal pairs written cause first
  (``a,b,causes``) and k random pairs with no causal relation either way, written both
  ways (``a,b,not-causes`` and ``b,a,not-causes``);
* ``direct10``: k random arcs of the reference DAG written as ``causes`` (a scientist's
  known direct effects) plus k unrelated pairs as above.

A scheme whose classes have too few pairs is skipped with the reason: a class needs more
than k pairs, so that the held-out pairs keep some of it (asia's 10 unrelated pairs
would all be known under ``random10``, leaving 8 held-out pairs, all causal).

Held-out pairs are all pairs not in the known set, less the mutual ones. Raw = the
bootstrap's rule of docs/design.md §6.1 (``boot_*``), calibrated = ``p_*``. Measures of
P(a causes b) over every ordered held-out pair (both directions of each pair stacked)
against "a is an ancestor of b": Brier, ECE (10 equal-count bins), AUROC; three-class
against the true class: log-loss and overall MCE (the three columns stacked with one-hot
truth, bins of 100 instances: :func:`causalcal.metrics.mce_micro`). Log-loss
convention: a replicate adds ½ to a possible relation, so the raw floor is a quarter
count, ``(P + eps) / (1 + 3 eps)`` with ``eps = 0.25 / n_boot``; the probability of the
true class is then clipped at 1e-6 for both raw and calibrated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import causalcal
from causalcal.ancestry import ancestral_relations_from_edges
from causalcal.bootstrap import BootstrapSettings
from causalcal.edges import EdgeProbabilities, pair_from_index, pair_index
from causalcal.metrics import (
    brier_score,
    cross_entropy,
    ece_micro,
    expected_calibration_error,
    mce_micro,
)

from . import draws as draws_mod

#: scheme name -> (kind, pairs per class)
SCHEMES: dict[str, tuple[str, int]] = {
    "random10": ("random", 10),
    "random20": ("random", 20),
    "direct10": ("direct", 10),
}
#: class of a pair whose variables are ancestors of each other (a cyclic reference graph)
MUTUAL = -1
COLUMNS = ["p_neither", "p_a_causes_b", "p_b_causes_a"]  # CausalType order
BOOT_COLUMNS = [c.replace("p_", "boot_") for c in COLUMNS]
LOG_LOSS_CLIP = 1e-6
RELATIONS = ("causes", "not-causes")


def ancestors(n_vars: int, arcs: np.ndarray) -> np.ndarray:
    """V × V boolean matrix: ``[a, b]`` when a directed path of ``arcs`` leads from a to b
    (a cycle makes its nodes ancestors of each other)."""
    arcs = np.asarray(arcs, dtype=np.int64).reshape(-1, 2)
    return ancestral_relations_from_edges(n_vars, arcs, np.empty((0, 2), np.int64))[0]


def causal_truth(n_vars: int, arcs: np.ndarray) -> np.ndarray:
    """True class (int8) of every pair, row-major (i < j): 0 neither, 1 i causes j,
    2 j causes i, :data:`MUTUAL` both (only in a graph with a cycle)."""
    anc = ancestors(n_vars, arcs)
    i, j = np.triu_indices(n_vars, 1)
    forward, backward = anc[i, j], anc[j, i]
    out = np.zeros(len(i), dtype=np.int8)
    out[forward] = 1
    out[backward] = 2
    out[forward & backward] = MUTUAL
    return out


def _pools(case, scheme: str, truth: np.ndarray) -> dict[str, np.ndarray]:
    """Candidate pairs per class: causal ones as (cause, effect) rows, unrelated ones as
    pair keys; mutual pairs in neither."""
    kind, _ = SCHEMES[scheme]
    unrelated = np.flatnonzero(truth == 0)
    if kind == "direct":
        keys = pair_index(case.arcs.min(axis=1), case.arcs.max(axis=1), case.n_vars)
        return {"arc": case.arcs[truth[keys] != MUTUAL], "unrelated": unrelated}
    causal = np.flatnonzero((truth == 1) | (truth == 2))
    i, j = pair_from_index(causal, case.n_vars)
    forward = truth[causal] == 1
    return {"causal": np.column_stack([np.where(forward, i, j), np.where(forward, j, i)]),
            "unrelated": unrelated}


def draw_known(case, scheme: str, truth: np.ndarray, rng: np.random.Generator
               ) -> pd.DataFrame | str:
    """A known set (columns ``a, b, relation``) drawn by ``scheme``, or the reason it
    cannot be drawn (a class with fewer pairs than needed)."""
    _, k = SCHEMES[scheme]
    pools = _pools(case, scheme, truth)
    short = [f"{name} {len(pool)}" for name, pool in pools.items() if len(pool) <= k]
    if short:
        return (f"too few pairs (need more than {k} per class, so that some stay held out; "
                f"have {', '.join(short)})")
    names = case.names
    cause = next(pool for name, pool in pools.items() if name != "unrelated")
    picked = cause[rng.choice(len(cause), k, replace=False)]
    rows = [(names[a], names[b], "causes") for a, b in picked]
    none = pools["unrelated"][rng.choice(len(pools["unrelated"]), k, replace=False)]
    for a, b in zip(*pair_from_index(none, case.n_vars)):
        rows += [(names[a], names[b], "not-causes"), (names[b], names[a], "not-causes")]
    return pd.DataFrame(rows, columns=["a", "b", "relation"])


def known_counts(known: pd.DataFrame) -> dict[str, int]:
    """Known rows per relation (an unrelated pair is two ``not-causes`` rows)."""
    counts = known["relation"].value_counts()
    return {rel: int(counts.get(rel, 0)) for rel in RELATIONS}


def calibrate_draw(data, known: pd.DataFrame, probabilities: EdgeProbabilities, seed: int,
                   **kwargs) -> tuple[pd.DataFrame, dict]:
    """The method under test: calibrated causal probabilities of every pair not in
    ``known`` (``causalcal.discover(..., relations="causal")``).

    Returns ``(relations, diagnostics)``; ``relations`` has columns ``a, b``,
    ``p_a_causes_b, p_b_causes_a, p_neither`` (calibrated) and ``boot_…`` (raw).
    """
    result = causalcal.discover(data, known, relations="causal",
                                bootstrap=BootstrapSettings(seed=seed, progress=False),
                                calibration=draws_mod.calibration_settings(kwargs),
                                probabilities=probabilities)
    return result.table, result.kind.report(result.report)


def heldout_probabilities(table: pd.DataFrame, names: list[str], known: np.ndarray,
                          columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, P)``: the pair keys of the rows of ``table`` and their three-class
    probabilities in :class:`CausalType` order for the pair read as (i, j), i < j (rows
    written b-first are swapped); checks the rows are exactly the pairs not known."""
    keys = draws_mod.heldout_frame(table, names, known)
    index = {n: k for k, n in enumerate(names)}
    a = table["a"].map(index).to_numpy(np.int64)
    b = table["b"].map(index).to_numpy(np.int64)
    P = table[columns].to_numpy(np.float64, copy=True)
    swap = a > b
    P[swap] = P[swap][:, [0, 2, 1]]
    return keys, P


def measures(P: np.ndarray, t: np.ndarray, smooth: float = 0.0) -> dict[str, float | None]:
    """Held-out measures of three-class probabilities ``P`` (CausalType order) against
    the true classes ``t`` (0, 1, 2; ``smooth``: the raw rule's quarter-count floor, used
    for the log-loss only)."""
    t = t.astype(np.int64)
    p = np.clip(np.concatenate([P[:, 1], P[:, 2]]), 0.0, 1.0)  # every ordered pair
    y = np.concatenate([t == 1, t == 2]).astype(np.int64)
    Q = (P + smooth) / (1 + 3 * smooth)
    p_causal = np.clip(P[:, 1] + P[:, 2], 0.0, 1.0)
    related = t != 0
    return {
        "brier": brier_score(y, p),
        "ece": expected_calibration_error(y, p, n_bins=10),
        "auroc": draws_mod.auroc_or_none(y, p),
        "logloss3": cross_entropy(t, Q, eps=LOG_LOSS_CLIP),
        "mce": mce_micro(t, P, bin_size=100),
        "ece_k": ece_micro(t, P, n_bins=10),
        "sum_p_causal": float(p_causal.sum()),
        "mean_p_causal_unrelated": float(p_causal[~related].mean()) if (~related).any()
        else None,
        "mean_p_causal_related": float(p_causal[related].mean()) if related.any() else None,
    }


def evaluate_draw(table: pd.DataFrame, case, truth: np.ndarray, known: np.ndarray,
                  n_boot: int) -> dict:
    """Raw and calibrated measures on the held-out pairs (mutual ones left out), and what
    they were measured on."""
    keys, cal = heldout_probabilities(table, case.names, known, COLUMNS)
    _, raw = heldout_probabilities(table, case.names, known, BOOT_COLUMNS)
    t = truth[keys]
    keep = t != MUTUAL
    t, raw, cal = t[keep], raw[keep], cal[keep]
    return {"n_heldout": int(keep.sum()), "n_heldout_mutual_left_out": int((~keep).sum()),
            "n_heldout_causal": int((t != 0).sum()),
            "base_rate": float((t != 0).mean()),
            "base_rate_ordered": float((t != 0).mean() / 2),
            "raw": measures(raw, t, smooth=0.25 / n_boot), "cal": measures(cal, t)}


def small_diagnostics(diagnostics: dict, edges_small) -> dict:
    """The scalar part of the causal ``discover``'s diagnostics (``edges_small``: the edge
    harness's :func:`small_diagnostics`) plus the estimated number of related pairs."""
    out = edges_small({k: v for k, v in diagnostics.items() if k != "related_pairs_estimate"})
    estimate = diagnostics.get("related_pairs_estimate") or {}
    if estimate:
        out["related_pairs_estimate"] = [  # NaN (not estimable) as null
            float(v) if np.isfinite(v) else None
            for v in (estimate["estimate"], estimate["low"], estimate["high"])]
    return out
