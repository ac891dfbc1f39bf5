"""causalcal._validation: declared parameter constraints, their messages, the names check,
and every calibrator declaring a constraint for each of its parameters."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from causalcal._validation import (
    BOOLEAN,
    HasMethods,
    Integral,
    Interval,
    Options,
    Real,
    Satisfies,
    check_unique_names,
    validate_params,
)
from causalcal.calibration import (
    CalibratedClassifier,
    SwapEquivariant,
    available,
    get,
)
from causalcal.errors import InputError


@pytest.mark.parametrize(
    "interval, inside, outside, text",
    [
        (Interval(Integral, 1, None), [1, 7, np.int64(3)], [0, 2.5, True, -1], "an integer >= 1"),
        (Interval(Real, 0, 1, closed="neither"), [0.5, 1e-9, np.float32(0.2)],
         [0, 1, np.nan, np.inf, "0.5"], "a number in (0, 1)"),
        (Interval(Real, 0.5, 1, closed="right"), [1, 0.75], [0.5, 1.01], "a number in (0.5, 1]"),
        (Interval(Real, 0, None), [0, 3.0], [-1e-12, np.inf], "a number >= 0"),
        (Interval(Real, None, 0, closed="neither"), [-1.0], [0.0], "a number < 0"),
    ],
)
def test_interval(interval, inside, outside, text):
    assert all(interval.accepts(v) for v in inside)
    assert not any(interval.accepts(v) for v in outside)
    assert str(interval) == text


def test_other_constraints():
    assert Options("a", "b").accepts("a") and not Options("a", "b").accepts("c")
    assert not Options("a").accepts(["a"])  # unhashable values are no error
    assert BOOLEAN.accepts(np.bool_(True)) and not BOOLEAN.accepts(1)
    assert HasMethods("fit").accepts(GaussianNB()) and not HasMethods("fit").accepts(3)
    positive = Satisfies(lambda v: v > 0, "positive")
    assert positive.accepts(1) and not positive.accepts("x")  # TypeError counts as false


class _Toy:
    _parameter_constraints = {"n": [Interval(Integral, 1, None)],
                              "mode": [Options("x", "y"), None]}

    def __init__(self, n=1, mode=None):
        self.n, self.mode = n, mode


def test_validate_params_names_parameter_constraint_and_value():
    validate_params(_Toy())
    validate_params(_Toy(3, "y"))
    with pytest.raises(InputError, match=r"^n must be an integer >= 1, got 0$"):
        validate_params(_Toy(0))
    with pytest.raises(ValueError, match=r"^mode must be one of 'x', 'y' or None, got 'z'$"):
        validate_params(_Toy(mode="z"))


def test_check_unique_names():
    assert check_unique_names(("a", "b")) == ["a", "b"]
    with pytest.raises(InputError, match="duplicate column name 'b'"):
        check_unique_names(["a", "b", "c", "b"], "column name")


def _every_calibrator():
    models = [get(name) for name in available()]
    models += [get("ovr-histogram"), SwapEquivariant(get("softmax"), (0, 2, 1, 3)),
               CalibratedClassifier(GaussianNB())]
    return models


@pytest.mark.parametrize("model", _every_calibrator(), ids=lambda m: type(m).__name__)
def test_every_calibrator_declares_each_parameter(model):
    """Each parameter has a constraint, the defaults satisfy them, and a value no
    constraint allows is an error naming the parameter."""
    params = model.get_params(deep=False)
    assert set(type(model)._parameter_constraints) == set(params)
    validate_params(model)
    for name in params:
        bad = type(model)(**{**params, name: object()})
        with pytest.raises(InputError, match=rf"^{name} must be "):
            validate_params(bad)


def test_progress_threshold():
    from causalcal._progress import LineProgress, progress

    quiet = progress(range(10), enabled=None, min_total=11)
    assert isinstance(quiet, LineProgress) and quiet.silent
    assert list(quiet) == list(range(10))
    assert list(progress(np.arange(3), enabled=False)) == [0, 1, 2]  # arrays iterate too
