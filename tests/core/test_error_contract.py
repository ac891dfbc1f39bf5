"""The error contract (causalcal.errors): bad input is an InputError everywhere, and the
probability rows are checked by one validator with one tolerance."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from causalcal import _validation, metrics
from causalcal._validation import ROW_SUM_TOL, check_probability_matrix, check_probability_rows
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = ("causalcal", "simulate", "bootstrap", "evaluate")


def _package_files() -> list[Path]:
    return sorted(p for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*.py"))


def _plain_value_errors(path: Path) -> list[str]:
    """``ValueError(...)`` built (raised or kept) and classes derived from ``ValueError``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "ValueError":
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: ValueError(...)")
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Name) \
                and node.exc.id == "ValueError":
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: raise ValueError")
        elif isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id == "ValueError" for b in node.bases) \
                and path.name != "errors.py":
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: class {node.name}(ValueError)")
    return found


def test_the_package_raises_no_plain_value_error():
    files = _package_files()
    assert len(files) > 50 and any(p.name == "bdeu.py" for p in files)  # the scan sees them
    found = [hit for path in files for hit in _plain_value_errors(path)]
    assert not found, "bad input raises causalcal.errors.InputError:\n" + "\n".join(found)


def test_package_value_errors_are_input_errors():
    from causalcal.bootstrap.checkpoint import CheckpointMismatchError
    from causalcal.edgecal.sampling import ClassTooSmallError

    assert issubclass(CheckpointMismatchError, InputError)
    assert issubclass(ClassTooSmallError, InputError)
    assert issubclass(InputError, ValueError)  # callers' `except ValueError` still works


# ---------------------------------------------------------------- one row-sum tolerance
def _check_metrics(row):
    metrics.multiclass_brier_score([0], np.array([row]))


def _check_validation(row):
    check_probability_matrix(np.array([row]))


def _check_edges(row):
    EdgeProbabilities(["a", "b"], [[0, 1]], [row])


CHECKS = {"metrics": _check_metrics, "_validation": _check_validation, "edges": _check_edges}


def _row(total_excess: float, dtype=np.float64) -> np.ndarray:
    return np.array([0.25, 0.25, 0.25, 0.25 + total_excess], dtype=dtype)


def test_one_tolerance_everywhere():
    assert metrics.ROW_SUM_TOL is _validation.ROW_SUM_TOL


@pytest.mark.parametrize("where", CHECKS)
@pytest.mark.parametrize("sign", [1, -1])
def test_rows_within_the_tolerance_pass_in_all_three(where, sign):
    CHECKS[where](_row(sign * 0.5 * ROW_SUM_TOL))


@pytest.mark.parametrize("where", CHECKS)
@pytest.mark.parametrize("sign", [1, -1])
def test_rows_outside_the_tolerance_fail_in_all_three(where, sign):
    with pytest.raises(InputError, match=r"sums? to .*, not 1"):
        CHECKS[where](_row(sign * 2 * ROW_SUM_TOL))


@pytest.mark.parametrize("where", CHECKS)
def test_float32_rows_and_8_digit_csv_values_pass(where):
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.dirichlet(np.ones(4))
        CHECKS[where](p.astype(np.float32))
        CHECKS[where](np.array([float(f"{x:.8g}") for x in p]))


def test_messages_name_the_row_or_the_pair():
    with pytest.raises(InputError, match=r"row 1 of Q sums to 0\.9, not 1"):
        check_probability_rows(np.array([[1.0, 0.0], [0.5, 0.4]]), name="Q")
    with pytest.raises(InputError, match=r"prob row 0 sums to 0\.9, not 1"):
        _check_metrics([0.5, 0.4])
    with pytest.raises(InputError, match=r"pair \(a, b\) sum to 0\.9, not 1"):
        _check_edges([0.5, 0.4, 0.0, 0.0])
    with pytest.raises(InputError, match="not 1"):
        check_probability_rows(np.array([[np.nan, 1.0]]))

