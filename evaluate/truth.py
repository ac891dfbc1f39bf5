"""True relations (``a,b,relation`` CSV) as dense edge-type labels: the core's
:mod:`causalcal.relations_io`, re-exported where the evaluate stage has always offered it."""

from causalcal.relations_io import pairs_frame, truth_frame, truth_from_csv

__all__ = ["pairs_frame", "truth_frame", "truth_from_csv"]
