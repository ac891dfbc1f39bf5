"""The columns of a run's tables explained in words, for the report's page (the PAG's
edge marks above all; docs/design.md §6.2, §9.13, §9.15)."""

from __future__ import annotations

__all__ = ["column_words", "explained_columns"]

_BOOT = "the bootstrap's frequency of the same (the share of replicates), before calibration"

#: Each column's meaning; ``p_…`` columns are calibrated (or the bootstrap's frequencies
#: where no map earned its changes: the summary says which).
_WORDS = {
    "a": "the first variable of the pair",
    "b": "the second variable of the pair",
    "p_adjacent": "P(a and b are adjacent): a direct causal arc between them, oriented or "
                  "not by the search (1 − p_none)",
    "p_directed": "P(an oriented arc between a and b, either way) = p_forward + p_backward",
    "p_none": "P(no edge between a and b)",
    "p_forward": "P(a → b): the arc oriented from a to b",
    "p_backward": "P(b → a): the arc oriented from b to a",
    "p_undirected": "P(a — b): adjacent, the direction left open by the equivalence class",
    "p_a_causes_b": "P(a causes b, directly or through other variables: a is an ancestor "
                    "of b)",
    "p_b_causes_a": "P(b causes a, directly or through other variables)",
    "p_neither": "P(neither causes the other)",
    "p_arc": "PAG: P(an edge other than <->): a causes b or b causes a, possibly with a "
             "hidden common cause as well",
    "p_circle_circle": "PAG a o-o b: adjacent, no end decided: a may cause b, b may cause a, "
                       "or a hidden common cause joins them",
    "p_circle_arrow": "PAG a o-> b: b does not cause a; a causes b or a hidden common cause "
                      "joins them (or both)",
    "p_arrow_circle": "PAG a <-o b: a does not cause b; b causes a or a hidden common cause "
                      "joins them (or both)",
    "p_tail_arrow": "PAG a --> b: a causes b (a is an ancestor of b in every graph the "
                    "PAG stands for)",
    "p_arrow_tail": "PAG a <-- b: b causes a",
    "p_arrow_arrow": "PAG a <-> b: neither causes the other; a hidden common cause joins them",
    "stated": "the relation as you stated it (a known relation, or your answer)",
    "source": "answer: an answer to a suggested pair (its inclusion rate known); own: a "
              "relation you added",
    "p_stated": "the calibrated probability of what the statement allows (in-sample: the "
                "map was fitted on these pairs)",
    "boot_stated": "the bootstrap's frequency of what the statement allows",
    "association_p": "the data's G² test of the two columns' marginal independence: a small "
                     "p shows a dependence, whatever the search found",
    "p_wrong": "the probability that the answer is wrong, from the calibrated map and the "
               "answers' assumed error rates",
}


def column_words(column: str) -> str | None:
    """What a table column means, in words (None for a column without an entry).

    Examples
    --------
    >>> from causalcal.report import column_words
    >>> column_words("p_arrow_arrow")
    'PAG a <-> b: neither causes the other; a hidden common cause joins them'
    >>> column_words("boot_forward").startswith("the bootstrap's frequency")
    True
    """
    if column.startswith("boot_"):
        base = column_words("p_" + column[len("boot_"):])
        return None if base is None else f"{_BOOT}: {base}"
    return _WORDS.get(column)


def explained_columns(columns) -> list[tuple[str, str]]:
    """``(column, words)`` for each of ``columns`` that has words, in their order; the
    bootstrap's columns (``boot_…``) once, as one entry.

    Examples
    --------
    >>> from causalcal.report import explained_columns
    >>> [c for c, _ in explained_columns(["a", "p_none", "boot_none", "boot_forward"])]
    ['a', 'p_none', 'boot_*']
    """
    out, boot = [], False
    for column in columns:
        if column.startswith("boot_"):
            if not boot:
                out.append(("boot_*", f"{_BOOT}; the same column names after boot_"))
            boot = True
            continue
        words = column_words(column)
        if words is not None:
            out.append((column, words))
    return out
