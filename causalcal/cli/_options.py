"""``NAME=VALUE`` arguments of the command line (``--param``, ``--option``): the one parser
of them, below every command module and :mod:`causalcal.cli` itself."""

from __future__ import annotations

import ast

from causalcal.errors import InputError

__all__ = ["parse_params"]


def parse_params(items: list[str] | None, option: str = "--param",
                 word: str = "NAME") -> dict[str, object]:
    """``["k=v", …]`` → dict, values read as Python literals where possible (else kept as
    text). An item without ``=`` or whose key is no Python identifier is an ``InputError``
    ``{option} 'item': expected {word}=VALUE``."""
    params: dict[str, object] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise InputError(f"{option} {item!r}: expected {word}=VALUE")
        try:
            params[key.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[key.strip()] = value
    return params
