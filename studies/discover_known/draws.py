"""Known sets, the calibration call and the held-out measures of ``discover_known`` (issue 26).

Schemes of drawing the scientist's known relations (``SCHEMES``):

* ``random10`` / ``random20``: k random true DAG arcs written cause first (``a,b,->``)
  and k random non-adjacent pairs (``none``);
* ``cpdag10``: 10 per edge type of the true CPDAG: directed edges cause first (``->``),
  undirected edges (``--``), non-adjacent pairs (``none``);
* ``easy10``: pairs a scientist would state: true arcs among those with bootstrap
  P(adjacent) > 0.8, non-adjacent pairs among those with P(adjacent) < 0.05, 10 + 10.

A scheme whose classes have too few pairs is skipped with the reason.

Held-out pairs are all pairs not in the known set. Raw = the bootstrap frequencies
(``boot_*``), calibrated = ``p_*``. Measures of P(adjacent) = 1 − p_none against adjacency
in the true DAG: Brier, ECE (10 equal-count bins), AUROC; four-class against the true
CPDAG edge type: log-loss and overall MCE (bins of 100 instances,
:func:`causalcal.evaluate.edge_type_metrics`), and the MCE of each type. Log-loss
convention: the raw frequencies are floored at half a count as the project's edge
calibrator does,
``(P + eps) / (1 + 4 eps)`` with ``eps = 0.5 / n_boot``; the probability of the true type
is then clipped at 1e-6 for both raw and calibrated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import CalibrationSettings
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities, pair_from_index, pair_index
from causalcal.evaluate import edge_type_metrics
from causalcal.metrics import (
    brier_score,
    cross_entropy,
    ece_micro,
    expected_calibration_error,
    roc_auc,
)

#: scheme name -> (kind, pairs per class)
SCHEMES: dict[str, tuple[str, int]] = {
    "random10": ("random", 10),
    "random20": ("random", 20),
    "cpdag10": ("cpdag", 10),
    "easy10": ("easy", 10),
}
EASY_ADJACENT, EASY_NONE = 0.8, 0.05
BOOT_COLUMNS = [c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS]
#: the edge types whose own MCE a record also keeps (``mce_none`` …; docs/results.md, "Why
#: the overall-MCE line still fails")
MCE_TYPES = ("none", "directed", "undirected")
LOG_LOSS_CLIP = 1e-6


def _rows(names: list[str], cause: np.ndarray, effect: np.ndarray, relation: str
          ) -> list[tuple[str, str, str]]:
    return [(names[a], names[b], relation) for a, b in zip(cause, effect)]


def _pick(pool: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    return pool[rng.choice(len(pool), k, replace=False)]


def _pools(case, scheme: str, p_adjacent: np.ndarray) -> dict[str, np.ndarray]:
    """Candidate pairs per class of ``scheme``: arcs as (cause, effect) rows, others as
    pair keys."""
    kind, _ = SCHEMES[scheme]
    none = np.flatnonzero(case.truth == 0)
    if kind == "random":
        return {"arc": case.arcs, "none": none}
    if kind == "easy":
        keys = pair_index(case.arcs.min(axis=1), case.arcs.max(axis=1), case.n_vars)
        return {"arc": case.arcs[p_adjacent[keys] > EASY_ADJACENT],
                "none": none[p_adjacent[none] < EASY_NONE]}
    directed = np.flatnonzero((case.truth == 1) | (case.truth == 2))
    i, j = pair_from_index(directed, case.n_vars)
    forward = case.truth[directed] == 1
    arcs = np.column_stack([np.where(forward, i, j), np.where(forward, j, i)])
    return {"arc": arcs, "undirected": np.flatnonzero(case.truth == 3), "none": none}


def draw_known(case, scheme: str, p_adjacent: np.ndarray, rng: np.random.Generator
               ) -> pd.DataFrame | str:
    """A known set (columns ``a, b, relation``) drawn by ``scheme``, or the reason it
    cannot be drawn (a class with fewer pairs than needed)."""
    _, k = SCHEMES[scheme]
    pools = _pools(case, scheme, p_adjacent)
    short = [f"{name} {len(pool)}" for name, pool in pools.items() if len(pool) < k]
    if short:
        return f"too few pairs (need {k} per class; have {', '.join(short)})"
    names = case.names
    arcs = _pick(pools["arc"], k, rng)
    rows = _rows(names, arcs[:, 0], arcs[:, 1], "->")
    if "undirected" in pools:
        rows += _rows(names, *pair_from_index(_pick(pools["undirected"], k, rng),
                                              case.n_vars), "--")
    rows += _rows(names, *pair_from_index(_pick(pools["none"], k, rng), case.n_vars), "none")
    return pd.DataFrame(rows, columns=["a", "b", "relation"])


def known_keys(known: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Pair keys (row-major, i < j) of the known pairs."""
    index = {n: k for k, n in enumerate(names)}
    a = known["a"].map(index).to_numpy(np.int64)
    b = known["b"].map(index).to_numpy(np.int64)
    return np.unique(pair_index(np.minimum(a, b), np.maximum(a, b), len(names)))


def calibrate_draw(data, known: pd.DataFrame, probabilities: EdgeProbabilities, seed: int,
                   **kwargs) -> tuple[pd.DataFrame, dict]:
    """The method under test: calibrated probabilities of every pair not in ``known``.

    Returns ``(edges, diagnostics)``; ``edges`` has columns ``a, b`` (data order, a before
    b), ``p_none … p_undirected`` (calibrated) and ``boot_none … boot_undirected`` (raw).
    Swap this function (or pass ``kwargs``) to measure another method.
    """
    result = causalcal.discover(data, known, bootstrap=BootstrapSettings(seed=seed,
                                                                         progress=False),
                                calibration=calibration_settings(kwargs),
                                probabilities=probabilities)
    return result.table, result.kind.report(result.report)


#: The harness's ``--kwargs`` names (those ``discover`` took before issue 38, kept so the
#: records' ``kwargs`` keep their meaning) and the :class:`CalibrationSettings` fields.
_SETTINGS = {"calibrator": "calibrator", "calibrator_params": "params",
             "expected_edges": "related_pairs", "evidence_strength": "evidence_strength",
             "map": "map", "simulations": "simulations"}


def calibration_settings(kwargs: dict) -> CalibrationSettings:
    """The :class:`CalibrationSettings` of a draw's ``--kwargs`` (``_SETTINGS`` names)."""
    unknown = sorted(set(kwargs) - set(_SETTINGS))
    if unknown:
        raise ValueError(f"--kwargs: unknown name {unknown[0]!r}; choose from "
                         f"{', '.join(_SETTINGS)}")
    return CalibrationSettings(**{_SETTINGS[k]: v for k, v in kwargs.items()})


def heldout_frame(edges: pd.DataFrame, names: list[str], known: np.ndarray) -> np.ndarray:
    """Pair keys of the rows of ``edges``; checks they are exactly the pairs not known."""
    index = {n: k for k, n in enumerate(names)}
    a = edges["a"].map(index).to_numpy(np.int64)
    b = edges["b"].map(index).to_numpy(np.int64)
    keys = pair_index(np.minimum(a, b), np.maximum(a, b), len(names))
    expected = np.setdiff1d(np.arange(len(names) * (len(names) - 1) // 2), known)
    if not np.array_equal(np.sort(keys), expected):
        raise AssertionError("the calibrated table is not exactly the held-out pairs")
    return keys


def auroc_or_none(y: np.ndarray, p: np.ndarray) -> float | None:
    """The AUROC, or None where ``y`` holds one class."""
    return float(roc_auc(y, p)) if 0 < y.sum() < len(y) else None


def measures(P: np.ndarray, y: np.ndarray, smooth: float = 0.0) -> dict[str, float | None]:
    """Held-out measures of four-class probabilities ``P`` against CPDAG edge types ``y``
    (``smooth``: the raw frequencies' half-count floor, used for the log-loss only)."""
    adjacent = (y != 0).astype(np.int64)
    p_adj = np.clip(1.0 - P[:, 0], 0.0, 1.0)
    Q = (P + smooth) / (1 + 4 * smooth)
    metrics = edge_type_metrics(P, y.astype(np.int64), bin_size=100)
    return {
        "brier": brier_score(adjacent, p_adj),
        "ece": expected_calibration_error(adjacent, p_adj, n_bins=10),
        "auroc": auroc_or_none(adjacent, p_adj),
        "logloss4": cross_entropy(y.astype(np.int64), Q, eps=LOG_LOSS_CLIP),
        "mce": float(metrics["overall_mce"]),
        **{f"mce_{kind}": float(metrics[f"{kind}_mce"]) for kind in MCE_TYPES},
        "ece_k": ece_micro(y.astype(np.int64), P, n_bins=10),
        **{f"ece_{kind}": float(metrics[f"{kind}_ece"]) for kind in MCE_TYPES},
        "sum_p_adj": float(p_adj.sum()),
        "mean_p_adj_nonadj": float(p_adj[adjacent == 0].mean()) if (adjacent == 0).any()
        else None,
        "mean_p_adj_adj": float(p_adj[adjacent == 1].mean()) if adjacent.any() else None,
    }


def evaluate_draw(edges: pd.DataFrame, case, known: np.ndarray, n_boot: int) -> dict:
    """Raw and calibrated measures on the held-out pairs, and what they were measured on."""
    keys = heldout_frame(edges, case.names, known)
    y = case.truth[keys]
    raw = edges[BOOT_COLUMNS].to_numpy(np.float64)
    cal = edges[list(PROBABILITY_COLUMNS)].to_numpy(np.float64)
    return {"n_heldout": len(keys), "n_heldout_adjacent": int((y != 0).sum()),
            "base_rate": float((y != 0).mean()),
            "raw": measures(raw, y, smooth=0.5 / n_boot), "cal": measures(cal, y)}


def known_counts(known: pd.DataFrame) -> dict[str, int]:
    """Known pairs per relation."""
    counts = known["relation"].value_counts()
    return {rel: int(counts.get(rel, 0)) for rel in ("->", "--", "none")}


def small_diagnostics(diagnostics: dict) -> dict:
    """The scalar part of ``discover``'s diagnostics worth keeping in a record."""
    keep = ("calibrator", "expected_edges", "em_iterations", "em_converged")
    out = {k: diagnostics[k] for k in keep if k in diagnostics}
    choice = diagnostics.get("map") or {}
    if choice.get("candidates"):
        out["cv"] = {name: {"brier": entry["brier"]["mean"],
                            "log_loss": entry["log_loss"]["mean"],
                            **{k: entry[k] for k in ("improvement", "improvement_se")
                               if k in entry}}
                     for name, entry in choice["candidates"].items()}
    if choice:
        out["map"] = choice["chosen"]
    estimate = diagnostics.get("adjacent_pairs_estimate") or {}
    if estimate:
        out["adjacent_pairs_estimate"] = [estimate["estimate"], estimate["low"],
                                          estimate["high"]]
    for key, value in diagnostics.items():  # scalars a swapped-in method may report
        if key not in out and isinstance(value, (int, float, str, bool)):
            out[key] = value
    return out
