"""The a,b,relation files (causalcal.relations_io): names match the data's exactly
(issue 27 item 7) and header names are compared without blanks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.errors import InputError
from causalcal.pairs import EdgeType
from causalcal.relations_io import (
    pairs_frame,
    read_known_pairs,
    truth_frame,
    truth_from_csv,
)


def _write(tmp_path, text: str):
    path = tmp_path / "known.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_names_with_blanks_match_exactly(tmp_path):
    names = ["X1", " X1", "Y"]
    path = _write(tmp_path, 'a,b,relation\n" X1",Y,->\nX1,Y,none\n')
    out = read_known_pairs(path, names)
    assert list(zip(out["i"], out["j"], out["label"])) == [
        (1, 2, EdgeType.FORWARD), (0, 2, EdgeType.NONE)]
    assert list(out["a"]) == [" X1", "X1"]


@pytest.mark.parametrize("cell, data_name", [(" X1", "X1"), ("X1", "X1 "), ("X1\t", " X1")])
def test_a_name_matching_only_without_blanks_is_refused(tmp_path, cell, data_name):
    path = _write(tmp_path, f'a,b,relation\n"{cell}",Y,->\n')
    with pytest.raises(InputError) as err:
        read_known_pairs(path, [data_name, "Y"])
    message = str(err.value)
    assert "\n" not in message
    assert repr(cell) in message and repr(data_name) in message
    assert message.startswith(f"{path}: variable {cell!r} is not in the data")
    frame = pd.DataFrame({"a": [cell], "b": ["Y"], "relation": ["->"]})
    with pytest.raises(InputError, match="names must match exactly"):
        read_known_pairs(frame, [data_name, "Y"])


def test_an_ambiguous_near_match_is_an_unknown_variable(tmp_path):
    path = _write(tmp_path, "a,b,relation\nX1,Y,->\n")
    with pytest.raises(ValueError, match=r"variables not in the data: 'X1'$"):
        read_known_pairs(path, [" X1", "X1 ", "Y"])


def test_header_names_and_relations_may_carry_blanks(tmp_path):
    path = _write(tmp_path, " a , b ,relation \nY,X1, <- \n")
    out = read_known_pairs(path, ["X1", "Y"])
    assert list(zip(out["i"], out["j"], out["label"])) == [(0, 1, EdgeType.FORWARD)]


def test_a_header_name_given_twice_after_stripping(tmp_path):
    path = _write(tmp_path, "a, a,b,relation\nX1,X1,Y,->\n")
    with pytest.raises(InputError, match="column 'a' given twice"):
        read_known_pairs(path, ["X1", "Y"])


def test_truth_round_trip_keeps_blank_names(tmp_path):
    names = [" a", "a", "b "]
    labels = np.array([EdgeType.FORWARD, EdgeType.UNDIRECTED], dtype=np.int8)
    keys = np.array([0, 2])
    truth_frame(keys, labels, names).to_csv(tmp_path / "truth.csv", index=False)
    dense = truth_from_csv(tmp_path / "truth.csv", names)
    np.testing.assert_array_equal(dense, [EdgeType.FORWARD, EdgeType.NONE,
                                          EdgeType.UNDIRECTED])
    assert list(pairs_frame(keys, labels, names)["relation"]) == ["->", "--"]
