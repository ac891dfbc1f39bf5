"""Answers that may be wrong, for the calibrated draws of the misspecification benchmark
(issue 48's acceptance; docs/design.md §9.14).

A share ``w`` of the answered pairs is answered wrongly, half of the wrong answers
inventing a relation among pairs that are unrelated (edge types: ``->`` in a random
direction; causal: ``causes`` in a random direction), half denying or reversing a true
one (a coin decides: ``none`` / two ``not-causes`` rows, or the arrow the other way
round; an undirected ``--`` can only be denied). ``round(w · answered)`` answers are
wrong, ``ceil`` of half of them invented; where one kind runs short the other takes the
rest. Pairs left ``unknown`` stay so.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: the fallible variants: the share of the answers that is wrong
FALLIBLE = {"wrong10h": 0.1, "wrong20": 0.2, "expert33": 1 / 3}

_EDGE_FLIP = {"->": "<-", "<-": "->"}


def _pairs(answered: pd.DataFrame) -> list[list[int]]:
    """The answered table's rows grouped by unordered pair (a causal "neither" is two
    rows), in the order the pairs first appear; ``unknown`` rows left out."""
    groups: dict[frozenset, list[int]] = {}
    for k, row in enumerate(answered.itertuples(index=False)):
        if str(row.relation).strip().lower() == "unknown":
            continue
        groups.setdefault(frozenset((row.a, row.b)), []).append(k)
    return list(groups.values())


def _related(answered: pd.DataFrame, rows: list[int]) -> bool:
    return answered.loc[rows[0], "relation"] not in ("none", "not-causes")


def corrupt(answered: pd.DataFrame, share: float, rng: np.random.Generator
            ) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The answers with ``share`` of the answered pairs made wrong (module), and the
    wrong pairs as ``(a, b)`` of their first row."""
    groups = _pairs(answered)
    related = [g for g in groups if _related(answered, g)]
    unrelated = [g for g in groups if not _related(answered, g)]
    wrong = int(round(share * len(groups)))
    invent = min(math.ceil(wrong / 2), len(unrelated))
    deny = min(wrong - invent, len(related))
    invent = min(wrong - deny, len(unrelated))
    chosen_invent = [unrelated[k] for k in rng.choice(len(unrelated), invent, replace=False)]
    chosen_deny = [related[k] for k in rng.choice(len(related), deny, replace=False)]
    out, drop, extra = answered.copy(), [], []
    for rows in chosen_invent:
        a, b = answered.loc[rows[0], "a"], answered.loc[rows[0], "b"]
        if answered.loc[rows[0], "relation"] == "none":
            out.loc[rows[0], "relation"] = "->" if rng.random() < 0.5 else "<-"
        else:  # two not-causes rows become one causes row
            first, second = (a, b) if rng.random() < 0.5 else (b, a)
            out.loc[rows[0], ["a", "b", "relation"]] = [first, second, "causes"]
            drop += rows[1:]
    for rows in chosen_deny:
        row = answered.loc[rows[0]]
        reverse = rng.random() < 0.5
        if row["relation"] in _EDGE_FLIP and reverse:
            out.loc[rows[0], "relation"] = _EDGE_FLIP[row["relation"]]
        elif row["relation"] in ("->", "<-", "--"):
            out.loc[rows[0], "relation"] = "none"
        elif reverse:  # a causes b becomes b causes a
            out.loc[rows[0], ["a", "b"]] = [row["b"], row["a"]]
        else:  # denied: neither causes the other, two rows
            out.loc[rows[0], "relation"] = "not-causes"
            extra.append({"a": row["b"], "b": row["a"], "relation": "not-causes"})
    out = out.drop(index=drop)
    if extra:
        out = pd.concat([out, pd.DataFrame(extra)], ignore_index=True)
    pairs = [(answered.loc[g[0], "a"], answered.loc[g[0], "b"])
             for g in chosen_invent + chosen_deny]
    return out.reset_index(drop=True), pairs
