"""Binary and multi-class calibrators as scikit-learn estimators (docs/design.md §7).

Only generic estimators live here: the binary and multi-class suite, :class:`SwapEquivariant`,
:class:`SelectionDesign` and the registry (``get(name, **params)``, ``available()``,
``make_calibrator``). Fitting one to edge types is the calibrate stage's job
(:mod:`causalcal.edgecal`).
"""

from __future__ import annotations

from causalcal.calibration._base import BinaryCalibrator, MulticlassCalibrator
from causalcal.calibration._multiclass import check_label_sets, check_offsets
from causalcal.calibration.anchored_snn import AnchoredSNNCalibrator
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
from causalcal.calibration.registry import available, get, make_calibrator
from causalcal.calibration.selection import (
    N_BINS,
    SelectionDesign,
    inclusion_weights,
    probability_bins,
)
from causalcal.calibration.snn import SNNCalibrator  # torch is imported lazily in fit
from causalcal.calibration.softmax import SoftmaxCalibrator
from causalcal.calibration.temperature import TemperatureScaling

__all__ = [
    "ABB",
    "N_BINS",
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
    "check_label_sets",
    "check_offsets",
    "get",
    "inclusion_weights",
    "make_calibrator",
    "probability_bins",
]
