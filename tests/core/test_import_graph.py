"""The module import graph of the installed package (docs/design.md §2): no cycles, imports
inside functions included, and a layer contract in pyproject.toml that names every module.

Modules are the ``*.py`` files of every package listed in pyproject.toml's
``[tool.setuptools] packages``, found where Python imports them from (``causalcal.simulate``
is the ``simulate/`` folder through ``package-dir``). Each module's imports are read from
its syntax tree: every ``import`` and ``from … import`` statement anywhere in it, relative
ones resolved; ``from P import name`` is an import of the module ``P.name`` if there is
one, else of ``P``.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _installed_packages() -> list[str]:
    return list(_pyproject()["tool"]["setuptools"]["packages"])


def _folder(package: str) -> Path:
    return Path(importlib.util.find_spec(package).origin).parent


def modules_in(package: str, folder: Path) -> dict[str, Path]:
    """The modules of one package (not its subpackages) and their source files."""
    return {package if path.stem == "__init__" else f"{package}.{path.stem}": path
            for path in sorted(folder.glob("*.py"))}


def installed_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in _installed_packages():
        modules.update(modules_in(package, _folder(package)))
    return modules


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from {'.' * level}{name} import …`` written in ``module``."""
    if level == 0:
        return name or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def imports_of(module: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that ``module`` (source ``path``) imports anywhere."""
    known = set(known)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node.level, node.module)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                     for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known and n != module)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def _components(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while not component or w != v:
                w = stack.pop()
                component.add(w)
            if len(component) > 1:
                out.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _shortest_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    start = min(component)
    came_from = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v] & component):
            if w == start:
                path = [v]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if w not in came_from:
                came_from[w] = v
                queue.append(w)
    raise AssertionError(f"{sorted(component)} holds no cycle")


def find_cycles(graph: dict[str, set[str]]) -> dict[frozenset[str], list[str]]:
    """Each group of mutually importing modules and one shortest cycle through it."""
    return {frozenset(c): _shortest_cycle(graph, c) for c in _components(graph)}


def test_no_import_cycles():
    cycles = find_cycles(import_graph(installed_modules()))
    found = [" -> ".join(path) for path in cycles.values()]
    assert not found, "import cycles:\n  " + "\n  ".join(found)


def test_cycle_check_sees_imports_inside_functions(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "a.py").write_text("from pkg.b import helper\n")
    (folder / "b.py").write_text("def helper():\n    from . import a\n    return a\n")
    (folder / "c.py").write_text("from .a import helper\nimport json\n")
    graph = import_graph(modules_in("pkg", folder))
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}}
    assert list(find_cycles(graph).values()) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_every_package_folder_is_installed():
    packages = _installed_packages()
    for package in packages:
        for init in _folder(package).glob("*/__init__.py"):
            assert f"{package}.{init.parent.name}" in packages, (
                f"{init.parent} is a package missing from pyproject.toml's packages")


def _contract_modules() -> set[str]:
    named = set()
    for contract in _pyproject()["tool"]["importlinter"]["contracts"]:
        entries = list(contract.get("layers", [])) + list(contract.get("modules", []))
        prefixes = [f"{c}." for c in contract.get("containers", [])] or [""]
        for entry in entries:
            for name in re.split(r"[|:]", entry):
                named.update(prefix + name.strip().strip("()") for prefix in prefixes)
    return named


def test_layer_contract_names_every_module():
    """Every module (but the package root, the contract's container) is in a layer of the
    import-linter contract or inside a package that is, so none escapes the layers."""
    named = _contract_modules()
    root = _pyproject()["tool"]["importlinter"]["root_package"]
    missing = []
    for module in installed_modules():
        parts = module.split(".")
        if module != root and not any(".".join(parts[:k]) in named
                                      for k in range(2, len(parts) + 1)):
            missing.append(module)
    assert not missing, f"modules in no layer of [tool.importlinter]: {', '.join(missing)}"
