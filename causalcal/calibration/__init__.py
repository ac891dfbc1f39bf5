"""Binary and multi-class calibrators as scikit-learn estimators (SPEC §7).

``get(name, **params)`` builds a calibrator by its registry name; ``available()``
lists the names.
"""

from __future__ import annotations

import importlib

from causalcal.calibration._base import BinaryCalibrator, MulticlassCalibrator
from causalcal.calibration.bayesian_binning import ABB, SBB
from causalcal.calibration.bbq import BBQ
from causalcal.calibration.classifier import CalibratedClassifier
from causalcal.calibration.dirichlet import DirichletCalibration
from causalcal.calibration.dpm import DPMCalibration
from causalcal.calibration.elite import ELiTE
from causalcal.calibration.enir import ENIR
from causalcal.calibration.histogram import HistogramBinning
from causalcal.calibration.isotonic import IsotonicCalibration
from causalcal.calibration.kde import KDECalibration
from causalcal.calibration.multi_classifier_isotonic import MultiClassifierIsotonic
from causalcal.calibration.one_vs_rest import OneVsRestCalibrator
from causalcal.calibration.platt import PlattScaling
from causalcal.calibration.snn import SNNCalibrator  # torch is imported lazily in fit
from causalcal.calibration.softmax import SoftmaxCalibrator
from causalcal.calibration.temperature import TemperatureScaling

# registry name -> "module:Class" inside causalcal.calibration
_REGISTRY: dict[str, str] = {}
_REGISTRY.update(
    {
        "histogram": "histogram:HistogramBinning",
        "platt": "platt:PlattScaling",
        "isotonic": "isotonic:IsotonicCalibration",
        "kde": "kde:KDECalibration",
        "dpm": "dpm:DPMCalibration",
        "sbb": "bayesian_binning:SBB",
        "abb": "bayesian_binning:ABB",
    }
)
_REGISTRY.update(
    {
        "snn": "snn:SNNCalibrator",
        "softmax": "softmax:SoftmaxCalibrator",
        "temperature": "temperature:TemperatureScaling",
        "dirichlet": "dirichlet:DirichletCalibration",
        "multi_classifier_isotonic": "multi_classifier_isotonic:MultiClassifierIsotonic",
    }
)
_REGISTRY["bbq"] = "bbq:BBQ"
_REGISTRY["enir"] = "enir:ENIR"
_REGISTRY["elite"] = "elite:ELiTE"

__all__ = ["BinaryCalibrator", "MulticlassCalibrator", "available", "get"]
__all__ += ["ABB", "SBB", "CalibratedClassifier", "DPMCalibration", "HistogramBinning"]
__all__ += ["IsotonicCalibration", "KDECalibration", "PlattScaling"]
__all__ += [
    "DirichletCalibration",
    "MultiClassifierIsotonic",
    "OneVsRestCalibrator",
    "SNNCalibrator",
    "SoftmaxCalibrator",
    "TemperatureScaling",
]
__all__ += ["BBQ", "ENIR", "ELiTE"]


def available() -> list[str]:
    """Registry names of all calibrators."""
    return sorted(_REGISTRY)


def get(name: str, **params):
    """A new calibrator of registry name ``name`` (case-insensitive) with ``params``."""
    key = name.lower().replace("-", "_")
    if key.startswith("ovr_") and key[4:] in _REGISTRY:
        # "ovr-NAME": one-vs-rest over the binary calibrator NAME (params go to NAME)
        return OneVsRestCalibrator(get(key[4:], **params))
    if key not in _REGISTRY:
        raise ValueError(f"unknown calibrator {name!r}; choose one of {', '.join(available())}")
    module, cls = _REGISTRY[key].split(":")
    return getattr(importlib.import_module(f"causalcal.calibration.{module}"), cls)(**params)
