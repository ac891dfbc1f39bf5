"""Binary and multi-class calibrators as scikit-learn estimators (docs/design.md §7).

``get(name, **params)`` builds a calibrator by its registry name; ``available()``
lists the names.
"""

from __future__ import annotations

from causalcal.calibration._base import BinaryCalibrator, MulticlassCalibrator
from causalcal.calibration.anchored_snn import AnchoredSNNCalibrator
from causalcal.calibration.apply import (
    calibrate_all_pairs,
    edge_calibrator,
    fit_calibrator,
    make_calibrator,
)
from causalcal.calibration.bayesian_binning import ABB, SBB
from causalcal.calibration.bbq import BBQ
from causalcal.calibration.classifier import CalibratedClassifier
from causalcal.calibration.dirichlet import DirichletCalibration
from causalcal.calibration.dpm import DPMCalibration
from causalcal.calibration.elite import ELiTE
from causalcal.calibration.enir import ENIR
from causalcal.calibration.equivariant import SwapEquivariant
from causalcal.calibration.histogram import HistogramBinning
from causalcal.calibration.isotonic import IsotonicCalibration
from causalcal.calibration.kde import KDECalibration
from causalcal.calibration.multi_classifier_isotonic import MultiClassifierIsotonic
from causalcal.calibration.one_vs_rest import OneVsRestCalibrator
from causalcal.calibration.platt import PlattScaling
from causalcal.calibration.registry import available, get
from causalcal.calibration.selection import SelectionDesign
from causalcal.calibration.snn import SNNCalibrator  # torch is imported lazily in fit
from causalcal.calibration.softmax import SoftmaxCalibrator
from causalcal.calibration.temperature import TemperatureScaling

__all__ = [
    "ABB",
    "AnchoredSNNCalibrator",
    "BBQ",
    "ELiTE",
    "ENIR",
    "SBB",
    "BinaryCalibrator",
    "CalibratedClassifier",
    "DPMCalibration",
    "DirichletCalibration",
    "HistogramBinning",
    "IsotonicCalibration",
    "KDECalibration",
    "MultiClassifierIsotonic",
    "MulticlassCalibrator",
    "OneVsRestCalibrator",
    "PlattScaling",
    "SNNCalibrator",
    "SelectionDesign",
    "SoftmaxCalibrator",
    "SwapEquivariant",
    "TemperatureScaling",
    "available",
    "calibrate_all_pairs",
    "edge_calibrator",
    "fit_calibrator",
    "get",
    "make_calibrator",
]
