"""The calibrators by registry name (docs/design.md §7): :func:`get` builds one,
:func:`available` lists the names; both are re-exported by :mod:`causalcal.calibration`."""

from __future__ import annotations

from causalcal.calibration._base import BinaryCalibrator
from causalcal.calibration.anchored_snn import AnchoredSNNCalibrator
from causalcal.calibration.bayesian_binning import ABB, SBB
from causalcal.calibration.bbq import BBQ
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

__all__ = ["available", "get"]

# registry name -> calibrator class
_REGISTRY: dict[str, type] = {
    # binary (thesis ch. 2-3)
    "histogram": HistogramBinning,
    "platt": PlattScaling,
    "isotonic": IsotonicCalibration,
    "kde": KDECalibration,
    "dpm": DPMCalibration,
    "sbb": SBB,
    "abb": ABB,
    "bbq": BBQ,
    "enir": ENIR,
    "elite": ELiTE,
    "multi_classifier_isotonic": MultiClassifierIsotonic,
    # multi-class (thesis §6.1; Guo et al. 2017; Kull et al. 2019)
    "snn": AnchoredSNNCalibrator,  # the default: identity-anchored, selection-aware
    "snn_thesis": SNNCalibrator,  # the thesis's SNN as published
    "softmax": SoftmaxCalibrator,
    "temperature": TemperatureScaling,
    "dirichlet": DirichletCalibration,
}

def available() -> list[str]:
    """Registry names of all calibrators (``ovr-NAME`` works for every binary NAME)."""
    return sorted(_REGISTRY)


def get(name: str, **params):
    """A new calibrator of registry name ``name`` (case-insensitive) with ``params``.

    ``"ovr-NAME"`` (or ``"ovr_NAME"``) is :class:`OneVsRestCalibrator` over the binary
    calibrator ``NAME``; ``params`` then go to ``NAME``.
    """
    key = name.lower().replace("-", "_")
    if key.startswith("ovr_") and key[4:] in _REGISTRY:
        inner = _REGISTRY[key[4:]]
        if not issubclass(inner, BinaryCalibrator):
            raise ValueError(f"{name!r}: one-vs-rest needs a binary calibrator, "
                             f"{key[4:]!r} is multi-class")
        return OneVsRestCalibrator(inner(**params))
    if key not in _REGISTRY:
        raise ValueError(f"unknown calibrator {name!r}; choose one of {', '.join(available())}")
    return _REGISTRY[key](**params)
