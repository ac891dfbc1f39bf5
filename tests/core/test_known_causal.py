"""Known causal statements (issue 30 item 3): ``causes`` and ``not-causes`` in the
a,b,relation table, the classes every relation allows, how rows of one pair combine, the
edge reader skipping them, and their check against background knowledge."""

from __future__ import annotations

import pandas as pd
import pytest

from causalcal.errors import InputError
from causalcal.knowledge import Knowledge
from causalcal.known_causal_checks import check_known_causal_relations
from causalcal.pairs import CausalType, EdgeType
from causalcal.relations_io import (
    CAUSAL_PAIR_COLUMNS,
    read_known_causal_pairs,
    read_known_pairs,
    truth_from_csv,
)

NAMES = ["A", "B", "C", "D"]


def _frame(*rows):
    return pd.DataFrame(list(rows), columns=["a", "b", "relation"])


def _classes(out, k=0):
    """The CausalType classes row ``k`` allows."""
    row = out.iloc[k]
    return {t for t, col in zip(CausalType, ("neither", "forward", "backward")) if row[col]}


# ------------------------------------------------------------------ each relation
N, F, B = CausalType.NEITHER, CausalType.FORWARD, CausalType.BACKWARD


@pytest.mark.parametrize("relation, as_ab, as_ba", [
    ("causes", {F}, {B}),
    ("->", {F}, {B}),
    ("<-", {B}, {F}),
    ("--", {F, B}, {F, B}),
    ("not-causes", {N, B}, {N, F}),
    (" Causes ", {F}, {B}),
])
def test_each_relation_allows_its_classes(relation, as_ab, as_ba):
    out = read_known_causal_pairs(_frame(("A", "B", relation)), NAMES)
    assert list(out.columns) == list(CAUSAL_PAIR_COLUMNS)
    assert (out["i"].iloc[0], out["j"].iloc[0]) == (0, 1)
    assert _classes(out) == as_ab
    # Written the other way round, the pair is still read as (A, B): directions swap.
    out = read_known_causal_pairs(_frame(("B", "A", relation)), NAMES)
    assert (out["i"].iloc[0], out["j"].iloc[0]) == (0, 1)
    assert _classes(out) == as_ba
    assert (out["a"].iloc[0], out["b"].iloc[0], out["relation"].iloc[0]) == (
        "B", "A", relation.strip())
    assert out.attrs["ignored_none"] == 0


def test_columns_have_their_types():
    out = read_known_causal_pairs(_frame(("C", "A", "causes"), ("B", "D", "--")), NAMES)
    assert [str(out[c].dtype) for c in ("i", "j", "neither", "forward", "backward")] == [
        "int64", "int64", "bool", "bool", "bool"]
    assert list(zip(out["i"], out["j"])) == [(0, 2), (1, 3)]  # order of first appearance


# -------------------------------------------------------------- combining rows
def test_two_not_causes_in_both_orientations_leave_neither():
    out = read_known_causal_pairs(_frame(("A", "B", "not-causes"), ("B", "A", "not-causes")),
                                  NAMES)
    assert len(out) == 1 and _classes(out) == {N}
    assert out["relation"].iloc[0] == "A not-causes B; B not-causes A"
    assert (out["a"].iloc[0], out["b"].iloc[0]) == ("A", "B")


@pytest.mark.parametrize("rows, left", [
    ([("A", "B", "--"), ("A", "B", "not-causes")], {B}),
    ([("A", "B", "--"), ("B", "A", "not-causes")], {F}),
    ([("B", "A", "not-causes"), ("A", "B", "causes")], {F}),
    ([("A", "B", "->"), ("A", "B", "causes")], {F}),
])
def test_rows_of_a_pair_intersect(rows, left):
    out = read_known_causal_pairs(_frame(*rows), NAMES)
    assert len(out) == 1 and _classes(out) == left


def test_exact_duplicates_are_kept_once():
    out = read_known_causal_pairs(_frame(("A", "B", "causes"), ("A", "B", "causes")), NAMES)
    assert len(out) == 1 and out["relation"].iloc[0] == "causes" and _classes(out) == {F}


@pytest.mark.parametrize("rows, listed", [
    ([("A", "B", "causes"), ("A", "B", "not-causes")],
     "row 1: A causes B; row 2: A not-causes B"),
    ([("C", "D", "->"), ("A", "B", "causes"), ("B", "A", "causes")],
     "row 2: A causes B; row 3: B causes A"),
    ([("A", "B", "<-"), ("B", "A", "not-causes")], "row 1: A <- B; row 2: B not-causes A"),
    ([("A", "B", "--"), ("A", "B", "not-causes"), ("B", "A", "not-causes")],
     "row 1: A -- B; row 2: A not-causes B; row 3: B not-causes A"),
])
def test_contradictions_name_the_pair_and_rows(tmp_path, rows, listed):
    path = tmp_path / "known.csv"
    _frame(*rows).to_csv(path, index=False)
    with pytest.raises(InputError) as err:
        read_known_causal_pairs(path, NAMES)
    assert str(err.value) == (f"{path}: pair (A, B) listed with contradictory causal "
                              f"relations: {listed}")


def test_none_rows_are_dropped_and_counted():
    out = read_known_causal_pairs(
        _frame(("A", "B", "none"), ("C", "D", "causes"), ("A", "C", " none ")), NAMES)
    assert list(zip(out["i"], out["j"])) == [(2, 3)]
    assert out.attrs["ignored_none"] == 2
    with pytest.raises(InputError, match="no causal relations"):
        read_known_causal_pairs(_frame(("A", "B", "none")), NAMES)


def test_none_beside_an_arc_is_refused():
    with pytest.raises(InputError, match=r"pair \(A, B\) listed with conflicting relations"):
        read_known_causal_pairs(_frame(("A", "B", "none"), ("B", "A", "--")), NAMES)
    # none beside a causal statement is consistent: an indirect effect.
    out = read_known_causal_pairs(_frame(("A", "B", "none"), ("A", "B", "causes")), NAMES)
    assert _classes(out) == {F} and out.attrs["ignored_none"] == 1


def test_unknown_relation_lists_all_six():
    for reader in (read_known_causal_pairs, read_known_pairs):
        with pytest.raises(InputError) as err:
            reader(_frame(("A", "B", "causes"), ("A", "C", "=>")), NAMES)
        assert str(err.value) == ("known pairs: unknown relation at row 2 ('=>'); use ->, <-, "
                                  "--, none (edge types), causes, not-causes (causal "
                                  "relations), or unknown where you cannot tell")


def test_shared_validation_applies_to_causal_rows(tmp_path):
    with pytest.raises(InputError, match="variables not in the data: 'Z'"):
        read_known_causal_pairs(_frame(("A", "Z", "causes")), NAMES)
    with pytest.raises(InputError, match="row 1 pairs 'A' with itself"):
        read_known_causal_pairs(_frame(("A", "A", "not-causes")), NAMES)
    path = tmp_path / "known.csv"
    path.write_text(" a , b ,relation \nB,A, not-causes \n", encoding="utf-8")
    assert _classes(read_known_causal_pairs(path, NAMES)) == {N, F}


# ------------------------------------------------------------- the edge reader
def test_edge_reader_skips_causal_rows():
    out = read_known_pairs(_frame(("A", "B", "->"), ("A", "C", "causes"),
                                  ("B", "A", "not-causes"), ("C", "D", "none")), NAMES)
    assert list(zip(out["i"], out["j"], out["label"])) == [(0, 1, EdgeType.FORWARD),
                                                          (2, 3, EdgeType.NONE)]
    assert out.attrs["ignored_causal"] == 2
    assert read_known_pairs(_frame(("A", "B", "->")), NAMES).attrs["ignored_causal"] == 0


def test_edge_reader_on_causal_rows_only_suggests_the_causal_reading(tmp_path):
    path = tmp_path / "known.csv"
    _frame(("A", "B", "causes"), ("C", "D", "not-causes")).to_csv(path, index=False)
    with pytest.raises(InputError) as err:
        read_known_pairs(path, NAMES)
    message = str(err.value)
    assert message.startswith(f"{path}: no known pairs: the file holds only causal relations")
    assert "--relations causal" in message and "\n" not in message


def test_edge_reader_still_validates_causal_rows():
    with pytest.raises(InputError, match="variables not in the data: 'Z'"):
        read_known_pairs(_frame(("A", "B", "->"), ("A", "Z", "causes")), NAMES)


def test_truth_refuses_causal_rows():
    with pytest.raises(InputError, match="truth file lists edge types"):
        truth_from_csv(_frame(("A", "B", "->"), ("C", "D", "--"), ("A", "C", "causes")),
                       NAMES)


# ------------------------------------------------------- background knowledge
def _check(knowledge, *rows, names=NAMES):
    check_known_causal_relations(knowledge, read_known_causal_pairs(_frame(*rows), names),
                                 names, source="known.csv")


TIERS = {"A": 1, "B": 1, "C": 2, "D": 3}


@pytest.mark.parametrize("row", [("D", "A", "causes"), ("A", "D", "<-"), ("C", "B", "->")])
def test_a_later_tier_cannot_cause_an_earlier_one(row):
    with pytest.raises(InputError) as err:
        _check(Knowledge(tiers=TIERS), row)
    message = str(err.value)
    a, b, relation = row
    assert message.startswith(f"known.csv: the known relation {a} {relation} {b} of the pair")
    assert "no causal path leads into an earlier tier" in message and "\n" not in message


def test_an_earlier_tier_may_cause_a_later_one():
    _check(Knowledge(tiers=TIERS), ("A", "D", "causes"), ("B", "C", "->"), ("A", "B", "causes"),
           ("D", "A", "not-causes"), ("C", "D", "--"))


def test_an_untiered_variable_may_mediate():
    # E has no tier: D -> E -> A respects every tier, so D may cause A.
    _check(Knowledge(tiers=TIERS), ("D", "A", "causes"), names=NAMES + ["E"])


def test_the_later_tier_rule_in_two_rows():
    # C -- D alone allows C causes D; with C not-causes D only D causes C is left, which
    # the tiers exclude (D is in tier 3, C in tier 2).
    with pytest.raises(InputError, match=r"C -- D; C not-causes D of the pair \(C, D\)"):
        _check(Knowledge(tiers=TIERS), ("C", "D", "--"), ("C", "D", "not-causes"))


def test_no_cause_within_a_tier_whose_edges_are_forbidden():
    knowledge = Knowledge(tiers=TIERS, forbid_within_tiers=[1])
    with pytest.raises(InputError, match="both in tier 1, within which edges are forbidden"):
        _check(knowledge, ("A", "B", "causes"))
    _check(knowledge, ("A", "B", "not-causes"), ("B", "A", "not-causes"))
    _check(Knowledge(tiers=TIERS), ("A", "B", "causes"))  # within tier 1 allowed there


def test_not_causes_against_a_required_path():
    knowledge = Knowledge(required=[("A", "C"), ("C", "B")])
    with pytest.raises(InputError) as err:
        _check(knowledge, ("A", "B", "not-causes"))
    assert str(err.value) == (
        "known.csv: the known relation A not-causes B of the pair (A, B) contradicts the "
        "background knowledge: the required arcs A -> C -> B make A a cause of B")
    _check(knowledge, ("B", "A", "not-causes"), ("A", "B", "causes"), ("D", "A", "not-causes"))
    for row in (("B", "A", "causes"), ("A", "B", "<-")):  # a cycle, in either reading
        with pytest.raises(InputError, match="make A a cause of B"):
            _check(knowledge, row)
    reverse = Knowledge(required=[("B", "C"), ("C", "A")])
    with pytest.raises(InputError, match="the required arcs B -> C -> A make B a cause of A"):
        _check(reverse, ("A", "B", "causes"))


def test_no_knowledge_checks_nothing():
    _check(None, ("A", "B", "not-causes"))
    _check(Knowledge(), ("D", "A", "causes"))
