"""The data layer (docs/design.md §3, §3.2): tables of discrete, continuous and mixed
columns, read, checked and encoded.

* :mod:`.discrete` — :class:`DiscreteData`, integer codes with names, arities, labels;
* :mod:`.mixed` — :class:`MixedData`, continuous float columns and discrete codes side
  by side (the Gaussian scores' data);
* :mod:`.kinds` — which columns are continuous (detected; :class:`ColumnKinds` overrides
  by name) and the checks of a continuous column;
* :mod:`.binning` — binning numeric columns into ordered categories (``--discretize``);
* :mod:`.columns` — a real data set's columns before encoding: missing values,
  identifiers, numbers written as text.

Everything is importable from ``causalcal.data`` (as before this was a package).
"""

from causalcal.data.binning import (
    DISCRETIZE_METHODS,
    Bins,
    BinSpec,
    Cuts,
    Discretization,
    Keep,
    discretize,
    discretize_by,
    equal_count_cuts,
    parse_discretize,
)
from causalcal.data.columns import (
    MISSING_POLICIES,
    MissingReport,
    drop_missing,
    missing_summary,
    refuse_identifier,
    refuse_missing_markers,
    row_number,
    typed_column,
    without_columns,
)
from causalcal.data.discrete import (
    DEFAULT_MAX_ARITY,
    DiscreteData,
    check_column_names,
    smallest_int_dtype,
    warn_constant,
)
from causalcal.data.kinds import CONTINUOUS, DATA_KINDS, DISCRETE, MIXED, ColumnKinds
from causalcal.data.mixed import MixedData

__all__ = ["CONTINUOUS", "DATA_KINDS", "DEFAULT_MAX_ARITY", "DISCRETE", "DISCRETIZE_METHODS",
           "MISSING_POLICIES", "MIXED", "BinSpec", "Bins", "ColumnKinds", "Cuts",
           "DiscreteData", "Discretization", "Keep", "MissingReport", "MixedData",
           "check_column_names", "discretize", "discretize_by", "drop_missing",
           "equal_count_cuts", "missing_summary", "parse_discretize", "refuse_identifier",
           "refuse_missing_markers", "row_number", "smallest_int_dtype", "typed_column",
           "warn_constant", "without_columns"]
