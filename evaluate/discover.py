"""The real-data workflow: bootstrap a search, calibrate on known relations, rank all other pairs.

Thesis §6.2.1: a scientist supplies data and "a relatively small, unbiased sample of the
causal relationships … which we call a calibration training set"; the calibrator learned
on it turns the bootstrap edge-type frequencies of every other pair into calibrated
probabilities.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcal._io import read_csv_file
from causalcal.data import DiscreteData
from causalcal.edges import (
    PROBABILITY_COLUMNS,
    EdgeProbabilities,
    EdgeType,
    pair_from_index,
    pair_index,
)

from .study import calibrate_all_pairs, make_calibrator

__all__ = ["DiscoveryResult", "check_class_counts", "discover", "read_known_pairs",
           "MIN_PAIRS_PER_CLASS"]

# Known pairs each of the four classes needs before a calibrator is fitted. Methods that
# learn one parameter (temperature) need few pairs overall; the others estimate per-class
# parameters and need a handful of examples of every class.
MIN_PAIRS_PER_CLASS = {"temperature": 1}
DEFAULT_MIN_PAIRS_PER_CLASS = 5
BOOT_COLUMNS = tuple(c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS)


@dataclass
class DiscoveryResult:
    """What :func:`discover` returns: the ranked table and what went into it."""

    edges: pd.DataFrame
    probabilities: EdgeProbabilities
    calibrator: object
    known: pd.DataFrame
    diagnostics: dict = field(default_factory=dict)

    def summary(self, top: int = 10) -> str:
        """A short human-readable report: top candidate arcs, counts above 0.5 / 0.9, fit."""
        e = self.edges
        lines = [
            f"{len(e)} candidate pairs scored; {len(self.known)} known pairs used for "
            f"calibration ({self.diagnostics.get('calibrator', '?')}).",
            f"pairs with P(causal arc) > 0.5: {int((e['p_arc'] > 0.5).sum())}, "
            f"> 0.9: {int((e['p_arc'] > 0.9).sum())}",
        ]
        cv = self.diagnostics.get("cross_validated_log_loss")
        if cv is not None:
            lines.append(
                f"known pairs, {cv['folds']}-fold cross-validated log-loss: "
                f"bootstrap {cv['before']:.3f} -> calibrated {cv['after']:.3f}"
            )
        lines.append(f"top {min(top, len(e))} candidate arcs:")
        head = e.head(top)
        for row in head.itertuples(index=False):
            arrow = "->" if row.p_forward >= row.p_backward else "<-"
            lines.append(
                f"  {row.a} {arrow} {row.b}   P(arc)={row.p_arc:.3f}  "
                f"(->{row.p_forward:.3f}, <-{row.p_backward:.3f}, --{row.p_undirected:.3f}; "
                f"bootstrap arc {row.boot_forward + row.boot_backward:.3f})"
            )
        return "\n".join(lines)


def read_known_pairs(known: pd.DataFrame | str | os.PathLike, names: list[str]) -> pd.DataFrame:
    """Validate known relations and orient them to the data's variable order.

    Input columns ``a, b, relation`` with relation one of ``->``, ``<-``, ``--``, ``none``.
    Returns columns ``i, j`` (variable indices, ``i < j``), ``label`` (:class:`EdgeType`
    of the pair read as (i, j)), plus the original ``a, b, relation``. A pair listed twice
    with the same relation is kept once; with conflicting relations it is an error.
    """
    source = "known pairs"
    if not isinstance(known, pd.DataFrame):
        source = str(known)
        _, known = read_csv_file(known, comments=True, dtype=str, skipinitialspace=True,
                                 keep_default_na=False)
    missing = [c for c in ("a", "b", "relation") if c not in known.columns]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)}; need a,b,relation")
    if len(known) == 0:
        raise ValueError(f"{source}: no known pairs")
    blank = np.flatnonzero(known[["a", "b", "relation"]].isna().any(axis=1).to_numpy())
    if len(blank):
        raise ValueError(f"{source}: row {blank[0] + 1} lacks a, b or relation")
    frame = known[["a", "b", "relation"]].astype(str).apply(lambda s: s.str.strip())
    index = {n: k for k, n in enumerate(names)}
    unknown = sorted((set(frame["a"]) | set(frame["b"])) - set(index))
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:20])
        more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
        raise ValueError(f"{source}: variables not in the data: {shown}{more}")
    relations = frame["relation"].str.lower()
    valid = {t.symbol for t in EdgeType}
    bad = np.flatnonzero(~relations.isin(valid).to_numpy())
    if len(bad):
        rows = ", ".join(f"row {r + 1} ({frame['relation'].iloc[r]!r})" for r in bad[:10])
        raise ValueError(f"{source}: unknown relation at {rows}; use ->, <-, -- or none")
    a = frame["a"].map(index).to_numpy(np.int64)
    b = frame["b"].map(index).to_numpy(np.int64)
    same = np.flatnonzero(a == b)
    if len(same):
        raise ValueError(f"{source}: row {same[0] + 1} pairs {frame['a'].iloc[same[0]]!r} "
                         "with itself")
    label = np.array([EdgeType.from_symbol(r) for r in relations], dtype=np.int64)
    swap = a > b
    # Reading the pair the other way round swaps forward and backward.
    label[swap] = np.array([0, 2, 1, 3])[label[swap]]
    out = frame.assign(i=np.minimum(a, b), j=np.maximum(a, b), label=label)
    conflicts = out.groupby(["i", "j"])["label"].nunique()
    conflicts = conflicts[conflicts > 1]
    if len(conflicts):
        i, j = conflicts.index[0]
        rows = out[(out["i"] == i) & (out["j"] == j)]
        listed = "; ".join(f"{r.a} {r.relation} {r.b}" for r in rows.itertuples())
        raise ValueError(
            f"{source}: pair ({names[i]}, {names[j]}) listed with conflicting relations: {listed}"
        )
    return out.drop_duplicates(["i", "j"]).reset_index(drop=True)


def check_class_counts(labels: np.ndarray, calibrator_name: str) -> None:
    """Refuse known pairs with too few examples of some relation for ``calibrator_name``."""
    need = MIN_PAIRS_PER_CLASS.get(calibrator_name, DEFAULT_MIN_PAIRS_PER_CLASS)
    counts = np.bincount(labels, minlength=4)
    short = [EdgeType(k) for k in range(4) if counts[k] < need]
    if short:
        have = ", ".join(f"{t.symbol}: {counts[t]}" for t in EdgeType)
        raise ValueError(
            f"calibrator {calibrator_name!r} needs at least {need} known pairs of every "
            f"relation (->, <-, --, none); you have {have}. Add known pairs of "
            f"{', '.join(t.symbol for t in short)}, or use a simpler calibrator such as "
            "'temperature' (one parameter)."
        )


def _cross_validated_log_loss(calibrator, P: np.ndarray, y: np.ndarray, seed: int) -> dict:
    """Held-out log-loss of bootstrap vs calibrated probabilities on the known pairs."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    folds = int(min(5, np.bincount(y, minlength=4)[np.bincount(y, minlength=4) > 0].min()))
    if folds < 2:
        return {}
    eps = 1e-6
    before = after = 0.0
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(P, y):
        model = clone(calibrator).fit(P[train], y[train])
        Q = model.predict_proba(P[test])
        before -= np.log(np.clip(P[test, y[test]], eps, 1)).sum()
        after -= np.log(np.clip(Q[np.arange(len(test)), y[test]], eps, 1)).sum()
    return {"folds": folds, "before": before / len(y), "after": after / len(y)}


def discover(
    data: DiscreteData | pd.DataFrame | str | os.PathLike,
    known: pd.DataFrame | str | os.PathLike,
    *,
    n_boot: int = 200,
    calibrator: str = "snn",
    calibrator_params: dict | None = None,
    search: str = "fges",
    n_jobs: int = 1,
    seed: int = 0,
    checkpoint: str | os.PathLike | None = None,
    probabilities: EdgeProbabilities | str | os.PathLike | None = None,
    progress: bool = True,
    **search_options,
) -> DiscoveryResult:
    """Calibrated edge-type probabilities for every pair not in ``known`` (thesis §6.2).

    Parameters
    ----------
    data : discrete data (DiscreteData, DataFrame or CSV path with a header row).
    known : relations known from the literature, columns ``a, b, relation`` with relation
        one of ``->``, ``<-``, ``--``, ``none``; they train the calibrator.
    n_boot, search, n_jobs, seed, checkpoint, search_options : passed to
        :func:`causalcal.bootstrap.bootstrap_edge_probabilities`.
    calibrator : registry name of a multi-class calibrator (``snn``, ``softmax``,
        ``temperature``, ``dirichlet``, ``ovr-isotonic`` …).
    probabilities : precomputed bootstrap probabilities, or the path of a file of them
        (``.npz`` or ``.csv``, read with :meth:`EdgeProbabilities.load`); skips the bootstrap.

    Returns a :class:`DiscoveryResult` whose ``edges`` DataFrame has one row per unknown
    pair, columns ``a, b, p_none, p_forward, p_backward, p_undirected`` (calibrated),
    ``boot_none … boot_undirected`` (bootstrap frequencies) and ``p_arc`` =
    ``p_forward + p_backward``, the probability of a causal arc between the two in either
    direction, sorted by ``p_arc`` descending.
    """
    if not isinstance(data, DiscreteData):
        data = (DiscreteData.from_frame(data) if isinstance(data, pd.DataFrame)
                else DiscreteData.from_csv(data))
    if probabilities is not None and not isinstance(probabilities, EdgeProbabilities):
        probabilities = EdgeProbabilities.load(probabilities)
    pairs = read_known_pairs(known, data.names)
    labels = pairs["label"].to_numpy(np.int64)
    check_class_counts(labels, calibrator.lower())
    if probabilities is None:
        from causalcal.bootstrap import bootstrap_edge_probabilities

        probabilities = bootstrap_edge_probabilities(
            data, n_boot=n_boot, search=search, n_jobs=n_jobs, seed=seed,
            checkpoint=checkpoint, progress=progress, **search_options,
        )
    elif probabilities.names != data.names:
        raise ValueError("the probabilities were computed for other variables than the data's")

    i_known = pairs["i"].to_numpy(np.int64)
    j_known = pairs["j"].to_numpy(np.int64)
    P_known = probabilities.lookup(i_known, j_known)
    model = make_calibrator(calibrator, calibrator_params or {}, seed)
    diagnostics = {"calibrator": calibrator, "class_counts": np.bincount(labels, minlength=4)}
    diagnostics["cross_validated_log_loss"] = _cross_validated_log_loss(
        model, P_known, labels, seed
    ) or None
    model.fit(P_known, labels)

    n_vars = data.n_vars
    keep = np.ones(probabilities.n_pairs, dtype=bool)
    keep[pair_index(i_known, j_known, n_vars)] = False
    P = probabilities.dense(np.float64)[keep]
    i, j = pair_from_index(np.flatnonzero(keep), n_vars)
    # the model runs once per distinct probability row, not once per pair
    Q = calibrate_all_pairs(model, probabilities, dtype=np.float64)[keep]
    names = np.asarray(data.names, dtype=object)
    edges = pd.DataFrame({"a": names[i], "b": names[j]})
    for k, col in enumerate(PROBABILITY_COLUMNS):
        edges[col] = Q[:, k]
    for k, col in enumerate(BOOT_COLUMNS):
        edges[col] = P[:, k]
    edges["p_arc"] = edges["p_forward"] + edges["p_backward"]
    edges = edges.sort_values("p_arc", ascending=False, kind="stable").reset_index(drop=True)
    return DiscoveryResult(edges, probabilities, model, pairs, diagnostics)
