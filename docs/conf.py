"""Sphinx configuration of causalcal's documentation site (``make docs``; issue 51).

The API reference is generated from every package's ``__all__`` (autosummary, numpydoc
docstrings); docs/design.md, docs/results.md and the command line's pages are Markdown
(myst-parser). Warnings are errors (``make docs`` runs sphinx-build -W).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import causalcal

project = "causalcal"
author = "the causalcal developers"
release = version = causalcal.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.mathjax",
              "numpydoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "results/**", "results-0.1.md", "api/generated/**.md"]
html_theme = "pydata_sphinx_theme"
html_theme_options = {"navigation_with_keys": False, "show_prev_next": False}
html_title = f"causalcal {version}"
templates_path = ["_templates"]
autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks: set = set()
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "myst.xref_missing", "ref.python", "autosummary"]

#: The packages whose ``__all__`` the reference documents (one page each).
PACKAGES = ("causalcal", "causalcal.data", "causalcal.workflow", "causalcal.report",
            "causalcal.edgecal", "causalcal.calibration", "causalcal.bootstrap",
            "causalcal.simulate", "causalcal.evaluate", "causalcal.figures.plots")


def _documented_below(package: str, name: str, obj) -> str | None:
    """The more specific package of :data:`PACKAGES` whose page documents the class
    ``obj`` too (``causalcal.DiscreteData`` is ``causalcal.data.DiscreteData``): a class
    is described once, where it lives, or Sphinx warns of a duplicate."""
    if not isinstance(obj, type):
        return None
    for other in PACKAGES:
        if other.startswith(package + ".") and getattr(
                importlib.import_module(other), name, None) is obj and name in getattr(
                importlib.import_module(other), "__all__", ()):
            return other
    return None


def _api_pages(folder: Path) -> None:
    """One page per package: its docstring and an autosummary of its ``__all__`` (a
    class that a subpackage's page describes is linked to there)."""
    folder.mkdir(exist_ok=True)
    for name in PACKAGES:
        module = importlib.import_module(name)
        names = sorted(getattr(module, "__all__", []))
        below = {n: _documented_below(name, n, getattr(module, n)) for n in names}
        rows = "\n".join(f"   {name}.{n}" for n in names if below[n] is None)
        links = "".join(f"* ``{name}.{n}`` is :class:`{below[n]}.{n}`\n"
                        for n in names if below[n] is not None)
        text = (f"{name}\n{'=' * len(name)}\n\n.. automodule:: {name}\n   :no-members:\n\n"
                f".. autosummary::\n   :toctree: generated\n\n{rows}\n"
                + (f"\n{links}" if links else ""))
        path = folder / f"{name}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


_api_pages(Path(__file__).parent / "api")
