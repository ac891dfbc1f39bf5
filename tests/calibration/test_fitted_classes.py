"""``classes_`` after ``fit`` on every calibrator of the registry, as scikit-learn's
estimators have it (issue 28 point 7): [0, 1] for the binary ones, the class indices for
the multi-class ones (dirichlet, softmax, snn and snn_thesis had none)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from causalcal.calibration import available, get
from causalcal.calibration._base import BinaryCalibrator, MulticlassCalibrator
from causalcal.calibration.equivariant import SwapEquivariant

RNG = np.random.default_rng(0)
P = RNG.dirichlet(np.ones(4), size=60)
Y = np.array([RNG.choice(4, p=p) for p in P])
SCORES = RNG.uniform(size=60)
LABELS = (RNG.uniform(size=60) < SCORES).astype(int)
FAST = {"snn": {"n_models": 2}, "snn-thesis": {"n_models": 2}}


@pytest.mark.parametrize("name", [*available(), "ovr-platt"])
def test_classes_after_fit(name):
    calibrator = get(name, **FAST.get(name, {}))
    with pytest.raises(NotFittedError):
        calibrator.classes_  # noqa: B018
    if isinstance(calibrator, BinaryCalibrator):
        calibrator.fit(SCORES, LABELS)
        expected = [0, 1]
    else:
        assert isinstance(calibrator, MulticlassCalibrator)
        calibrator.fit(P, Y)
        expected = [0, 1, 2, 3]
    np.testing.assert_array_equal(calibrator.classes_, expected)
    assert calibrator.predict_proba(P if expected != [0, 1] else SCORES).shape[1] == len(
        expected)


def test_swap_equivariant_classes():
    wrapped = SwapEquivariant(get("softmax"), (0, 2, 1, 3)).fit(P, Y)
    np.testing.assert_array_equal(wrapped.classes_, [0, 1, 2, 3])
