"""Pair features as calibrator inputs (thesis §6.2.6; docs/design.md §9.6).

Features of the learned graphs (computed by :mod:`causalcal.bootstrap.pair_features`)
are transformed for the calibrator: ``log1p`` of the counts, the v-structure fraction as
it is and ``sign · log1p(|gain|)`` of the pairwise gain. They are chosen by group (a node
feature comes for A and B together); writing a pair the other way round permutes them
(:func:`feature_columns` gives that permutation for :class:`SwapEquivariant`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalcal.bootstrap.pair_features import FEATURE_NAMES, FEATURE_SWAP
from causalcal.errors import InputError

__all__ = ["FEATURE_GROUPS", "feature_columns", "feature_groups", "transform_features"]

#: Feature groups, the unit of selection: a node feature comes for A and B together.
FEATURE_GROUPS: dict[str, tuple[int, ...]] = {
    "degree": (0, 1), "indegree": (2, 3), "common_neighbours": (4,),
    "v_structure": (5,), "pairwise_gain": (6,),
}


def transform_features(F: np.ndarray, names: tuple[str, ...] = FEATURE_NAMES) -> np.ndarray:
    """Calibrator inputs from raw features: ``log1p`` of the counts, the v-structure
    fraction as it is, ``sign · log1p(|gain|)`` of the pairwise gain (heavy-tailed)."""
    F = np.asarray(F, dtype=np.float64)
    out = np.empty_like(F)
    for k, name in enumerate(names):
        col = F[:, k]
        if name == "v_structure":
            out[:, k] = col
        elif name == "pairwise_gain":
            out[:, k] = np.sign(col) * np.log1p(np.abs(col))
        else:
            out[:, k] = np.log1p(col)
    return out


def feature_columns(groups: Sequence[str]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Columns of the feature ``groups`` (in ``FEATURE_NAMES`` order) and the swap
    permutation of that selection (for :class:`SwapEquivariant`)."""
    unknown = [g for g in groups if g not in FEATURE_GROUPS]
    if unknown:
        raise InputError(f"unknown pair feature group {unknown[0]!r}; choose from "
                         f"{', '.join(FEATURE_GROUPS)}")
    cols = np.array(sorted({c for g in groups for c in FEATURE_GROUPS[g]}), dtype=np.int64)
    where = {int(c): k for k, c in enumerate(cols)}
    return cols, tuple(where[FEATURE_SWAP[int(c)]] for c in cols)


def feature_groups(features: bool | Sequence[str] | None) -> tuple[str, ...]:
    """Feature groups asked for: ``True`` every group, ``False``/``None`` none, or the
    named groups (checked)."""
    if features is True:
        return tuple(FEATURE_GROUPS)
    groups = tuple(features or ())
    feature_columns(groups)  # unknown groups are an error now, not after the bootstrap
    return groups
