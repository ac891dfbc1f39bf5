"""The former module of binning, kept so that its import path works: everything is in
:mod:`causalcal.data.binning` (docs/design.md §3.2)."""

from causalcal.data.binning import *  # noqa: F403
