"""Scores on a weighted covariance (docs/design.md §5.4).

* :mod:`.moments` — a table as float columns (the degenerate-Gaussian embedding of
  discrete columns) and a replicate's weighted covariance, one Gram product;
* :mod:`.score` — :class:`~.score.GaussianScore`: SEM-BIC and the degenerate-Gaussian
  BIC of a family from the covariance, the gains of every pair and of many candidates;
* :mod:`.independence` — Fisher's z and the degenerate-Gaussian likelihood-ratio test;
* :mod:`.specs` — both scores by name with their parameters (``sem-bic``, ``dg-bic``).
"""
