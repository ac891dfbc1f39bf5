"""The former module of a data set's raw columns, kept so that its import path works:
everything is in :mod:`causalcal.data.columns` (docs/design.md §3.2)."""

from causalcal.data.columns import *  # noqa: F403
from causalcal.data.columns import (  # noqa: F401  (names its callers used)
    ID_MIN_ROWS,
    LISTED_ROWS,
    MISSING_MARKERS,
    ROW_INDEX,
    log,
)
