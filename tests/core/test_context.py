"""Context columns (Joint Causal Inference, issue 40 item 4): the arcs they exclude and
the contradictions refused (docs/design.md §5.2)."""

from __future__ import annotations

import pandas as pd
import pytest

from causalcal import Context, Knowledge
from causalcal.errors import InputError
from causalcal.knowledge import check_known_relations
from causalcal.known_causal_checks import check_known_causal_relations

NAMES = ["C", "D", "X", "Y", "Z"]


def test_context_forbids_exactly_the_arcs_into_it():
    bound = Knowledge(context=["C"]).bind(NAMES)
    assert bound.forbidden == {(2, 0), (3, 0), (4, 0), (1, 0)}  # every other variable -> C
    assert bound.context == {0}
    # two context columns: arcs between them are free
    bound = Knowledge(context=["C", "D"]).bind(NAMES)
    assert bound.forbidden == {(x, c) for c in (0, 1) for x in (2, 3, 4)}
    assert not bound.forbids(0, 1) and not bound.forbids(1, 0)


def test_known_targets_are_the_only_children():
    bound = Knowledge(context=[Context("C", ("Y",)), "D"]).bind(NAMES)
    into = {(x, c) for c in (0, 1) for x in (2, 3, 4)}
    assert bound.forbidden == into | {(0, 2), (0, 4)}  # C -> X, C -> Z; C -> D stays free
    assert not bound.forbids(0, 3) and not bound.forbids(0, 1)


def test_context_combines_with_the_users_knowledge():
    k = Knowledge(required=[("X", "Y")], forbidden=[("C", "Z")], tiers={"C": 0, "X": 0,
                                                                         "Y": 1})
    k = k.with_context(["C"])
    bound = k.bind(NAMES)
    assert (2, 3) in bound.required
    assert bound.forbids(0, 4) and bound.forbids(4, 0)  # the user's and the context's
    assert bound.forbids(3, 0) and not bound.forbids(0, 3)
    assert k == Knowledge(required=[("X", "Y")], forbidden=[("C", "Z")],
                          tiers={"C": 0, "X": 0, "Y": 1}, context=[Context("C")])
    assert "context=" in repr(k) and "context=" not in repr(Knowledge(tiers={"C": 0}))
    assert not Knowledge(context=["C"]).is_empty


@pytest.mark.parametrize("make, message", [
    (lambda: Knowledge(required=[("X", "C")], context=["C"]),
     "required arc 'X' -> 'C' contradicts the context: C is a context column"),
    (lambda: Knowledge(required=[("C", "Z")], context=[Context("C", ("Y",))]),
     "required arc 'C' -> 'Z'.*not among the known targets"),
    (lambda: Knowledge(tiers={"C": 2, "X": 1}, context=["C"]),
     "context column 'C' is in tier 2, after the system variable 'X'"),
    (lambda: Knowledge(context=["C", Context("C", ("X",))]), "'C' is given twice"),
    (lambda: Knowledge(context=[Context("C", ("D",)), "D"]),
     "target 'D' is itself a context column"),
    (lambda: Context("C", ()), "at least one variable"),
    (lambda: Context("C", "Y"), "expected names"),
])
def test_contradictions_are_refused(make, message):
    with pytest.raises(InputError, match=message):
        make()


def test_allowed_combinations_pass():
    Knowledge(required=[("C", "Y"), ("C", "D")], tiers={"C": 0, "D": 0, "X": 0},
              context=[Context("C", ("Y",)), "D"])


def test_known_relations_against_the_context():
    k = Knowledge(context=[Context("C", ("Y",))])
    with pytest.raises(InputError, match="X -> C contradicts.*context column"):
        check_known_relations(k, [("X", "C", "->")], "known.csv")
    with pytest.raises(InputError, match="not among the known targets"):
        check_known_relations(k, [("C", "X", "->")], "known.csv")
    check_known_relations(k, [("C", "Y", "->"), ("X", "C", "none")], "known.csv")
    causal = pd.DataFrame({"i": [2], "j": [0], "a": ["X"], "b": ["C"], "relation": ["causes"],
                           "neither": [False], "forward": [True], "backward": [False]})
    with pytest.raises(InputError, match="no system variable causes one"):
        check_known_causal_relations(k, causal, NAMES)
