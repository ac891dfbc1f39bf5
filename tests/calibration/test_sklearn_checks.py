"""scikit-learn conventions of the binary calibrators (issue 17 item 6, partial): input
tags, ``classes_``, ``n_features_in_`` and scikit-learn's error messages for bad input.

``check_estimator`` as a whole is not run here: its generic checks feed 2-d X with many
features and multi-class y, which a 1-d probability-score calibrator cannot take (see
the CHANGELOG); the individual checks below are the ones that apply.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags

from causalcal.calibration import BinaryCalibrator, available, get

BINARY = [n for n in available() if isinstance(get(n), BinaryCalibrator)]
ONE_SCORE = [n for n in BINARY if n != "multi_classifier_isotonic"]  # that one takes (n, m)


def _fitted(name):
    rng = np.random.default_rng(0)
    s = rng.uniform(size=200)
    y = (rng.uniform(size=200) < s).astype(int)
    return get(name).fit(s, y), s


@pytest.mark.parametrize("name", BINARY)
def test_tags_classes_and_features(name):
    model = get(name)
    tags = get_tags(model)
    assert tags.input_tags.one_d_array and tags.target_tags.required
    with pytest.raises(NotFittedError):
        model.classes_  # noqa: B018
    model, s = _fitted(name)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.n_features_in_ == 1
    assert model.predict_proba(s[:5]).shape == (5, 2)  # columns in classes_ order


@pytest.mark.parametrize("name", ONE_SCORE)
def test_bad_input_messages(name):
    model = get(name)
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="NaN or infinity"):
        model.fit(np.r_[np.nan, np.full(9, 0.5)], y)
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        model.fit(np.zeros(0), np.zeros(0))
    with pytest.raises(TypeError, match="sparse input is not supported"):
        model.fit(sp.csr_array(np.full((10, 1), 0.5)), y)
    with pytest.raises(ValueError, match="complex data not supported"):
        model.fit(np.full(10, 0.5 + 1j), y)


def test_multi_classifier_isotonic_counts_its_columns():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(60, 3))
    y = (X.mean(axis=1) > 0.5).astype(int)
    model = get("multi_classifier_isotonic").fit(X, y)
    assert model.n_features_in_ == 3
    np.testing.assert_array_equal(model.classes_, [0, 1])
