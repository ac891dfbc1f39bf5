"""The calibrators by name: ``get(name, **params)``, ``available()`` and
:func:`make_calibrator` (docs/design.md §7)."""

from __future__ import annotations

from sklearn.base import clone

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
from causalcal.errors import InputError

__all__ = ["available", "get", "make_calibrator"]

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
    "snn-thesis": SNNCalibrator,  # the thesis's SNN as published
    "softmax": SoftmaxCalibrator,
    "temperature": TemperatureScaling,
    "dirichlet": DirichletCalibration,
}

def available() -> list[str]:
    """Registry names of all calibrators, as :func:`get` and ``--calibrator`` take them
    (``ovr-NAME`` works for every binary NAME; ``_`` and ``-`` are interchangeable)."""
    return sorted(_REGISTRY)


def _registered(name: str) -> str | None:
    """The registry name that ``name`` spells (any case, ``_`` for ``-`` or back)."""
    spelled = {key.replace("_", "-"): key for key in _REGISTRY}
    return spelled.get(name.lower().replace("_", "-"))


def get(name: str, **params):
    """A new calibrator of registry name ``name`` (case-insensitive, ``snn_thesis`` for
    ``snn-thesis``) with ``params``.

    ``"ovr-NAME"`` (or ``"ovr_NAME"``) is :class:`OneVsRestCalibrator` over the binary
    calibrator ``NAME``; ``params`` then go to ``NAME``.
    """
    key = _registered(name)
    inner = _registered(name[4:]) if name.lower()[:4] in ("ovr-", "ovr_") else None
    if key is None and inner is not None:
        if not issubclass(_REGISTRY[inner], BinaryCalibrator):
            raise InputError(f"{name!r}: one-vs-rest needs a binary calibrator, "
                             f"{inner!r} is multi-class")
        return OneVsRestCalibrator(_REGISTRY[inner](**params))
    if key is None:
        raise InputError(f"unknown calibrator {name!r}; choose one of {', '.join(available())}")
    return _REGISTRY[key](**params)


def make_calibrator(name, params: dict | None = None, seed: int = 0):
    """A fresh calibrator: ``name`` is a registry name or an estimator (cloned).

    ``params`` go to the calibrator (for ``ovr-NAME``, to the binary NAME);
    ``random_state`` is set to ``seed`` unless ``params`` give one. An unknown parameter
    name is an ``InputError`` listing the valid ones.
    """
    params = dict(params or {})
    base = get(name) if isinstance(name, str) else clone(name)
    target = getattr(base, "binary_calibrator", base)
    valid = target.get_params(deep=False)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        label = name if isinstance(name, str) else type(base).__name__
        raise InputError(f"calibrator {label!r} has no parameter {', '.join(unknown)}; "
                         f"its parameters are {', '.join(sorted(valid)) or 'none'}")
    target.set_params(**params)
    if "random_state" in valid and "random_state" not in params:
        target.set_params(random_state=seed)
    return base
