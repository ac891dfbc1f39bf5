"""The one parser of NAME=VALUE arguments (--param, --option)."""

from __future__ import annotations

import pytest

from causalcal.cli import describe_error, parse_params
from causalcal.cli._options import parse_params as low


def test_values_are_literals_or_text():
    assert parse_params(["a=1", " b =[2, 3]", "c=x y", "d=", "e=1=2"]) == {
        "a": 1, "b": [2, 3], "c": "x y", "d": "", "e": "1=2"}
    assert parse_params(None) == {} and parse_params is low


@pytest.mark.parametrize("item", ["a", "=3", "1a=2", "a b=1"])
@pytest.mark.parametrize("option, word", [("--param", "NAME"), ("--option", "KEY")])
def test_bad_items_are_bad_input(item, option, word):
    with pytest.raises(ValueError) as err:
        parse_params([item], option, word)
    assert str(err.value) == f"{option} {item!r}: expected {word}=VALUE"
    assert describe_error(err.value)[0] == 2
