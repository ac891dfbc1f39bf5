"""The one parser of NAME=VALUE arguments (--param, --option)."""

from __future__ import annotations

import pytest

from causalcal.cli import CLIError, describe_error, parse_params
from causalcal.cli._options import parse_params as low
from causalcal.errors import InputError


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


def test_exit_codes_bad_input_2_other_value_errors_1():
    assert describe_error(InputError("data.csv: row 3: missing value")) == (
        2, "data.csv: row 3: missing value")
    assert describe_error(CLIError("--out: missing"))[0] == 2
    code, message = describe_error(ValueError("operands could not be broadcast"))
    assert code == 1 and "internal error" in message
