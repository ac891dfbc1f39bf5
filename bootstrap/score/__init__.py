"""The local scores of the searches (thesis §6.2.2; docs/design.md §5, §5.3).

* :mod:`.protocol` — the score seam: :class:`~.protocol.Score` (a score named with its
  parameters) and :class:`~.protocol.LocalScore` (what a search asks of one data set);
* :mod:`.registry` — every score by name (:func:`~.registry.get_score`);
* :mod:`.discrete` — the scores on counts, BDeu and the discrete BIC, their counting
  (pair and family gains, lnΓ sums, the compiled kernel, a torch device) and the G² test;
* :mod:`.gaussian` — the scores on a weighted covariance, SEM-BIC and the degenerate
  Gaussian (mixed data), and their tests (Fisher-z, the degenerate-Gaussian LRT).
"""
