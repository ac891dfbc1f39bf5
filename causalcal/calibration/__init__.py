"""Binary and multi-class calibrators as scikit-learn estimators (SPEC §7).

``get(name, **params)`` builds a calibrator by its registry name; ``available()``
lists the names.
"""

from __future__ import annotations

import importlib

from causalcal.calibration._base import BinaryCalibrator, MulticlassCalibrator
from causalcal.calibration.bbq import BBQ
from causalcal.calibration.enir import ENIR

# registry name -> "module:Class" inside causalcal.calibration
_REGISTRY: dict[str, str] = {}
_REGISTRY["bbq"] = "bbq:BBQ"
_REGISTRY["enir"] = "enir:ENIR"

__all__ = ["BinaryCalibrator", "MulticlassCalibrator", "available", "get"]
__all__ += ["BBQ", "ENIR"]


def available() -> list[str]:
    """Registry names of all calibrators."""
    return sorted(_REGISTRY)


def get(name: str, **params):
    """A new calibrator of registry name ``name`` (case-insensitive) with ``params``."""
    key = name.lower().replace("-", "_")
    if key not in _REGISTRY:
        raise ValueError(f"unknown calibrator {name!r}; choose one of {', '.join(available())}")
    module, cls = _REGISTRY[key].split(":")
    return getattr(importlib.import_module(f"causalcal.calibration.{module}"), cls)(**params)
