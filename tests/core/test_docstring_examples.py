"""Every public name's docstring has an Examples section that runs (issue 51 item 3).

The test walks the ``__all__`` of the package and its subpackages (the names the API
reference documents, docs/conf.py) and runs each Examples section as a doctest. Names
without one yet are listed in docs/examples-missing.txt: the list may only shrink (a name
that gains its Examples must leave it, and no other name may join it)."""

from __future__ import annotations

import doctest
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("causalcal", "causalcal.data", "causalcal.workflow", "causalcal.report",
            "causalcal.edgecal", "causalcal.calibration", "causalcal.bootstrap",
            "causalcal.simulate", "causalcal.evaluate", "causalcal.figures.plots")


def _public():
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue  # constants and modules have no docstring of their own
            yield f"{package}.{name}", obj


def _has_examples(obj) -> bool:
    return "Examples\n    --------" in (obj.__doc__ or "") or "Examples\n--------" in (
        inspect.getdoc(obj) or "")


def test_every_public_name_has_examples_or_is_listed():
    missing = {line.strip() for line in
               (ROOT / "docs/examples-missing.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    names = dict(_public())
    without = {n for n, obj in names.items() if not _has_examples(obj)}
    assert not without - missing, f"public names without an Examples section: " \
                                  f"{sorted(without - missing)}"
    assert not missing - without, f"remove from docs/examples-missing.txt (documented " \
                                  f"or gone): {sorted(missing - without)}"


@pytest.mark.parametrize("name", sorted(n for n, obj in _public() if _has_examples(obj)))
def test_the_examples_run(name):
    obj = dict(_public())[name]
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(obj, name, globs={}):
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed"
