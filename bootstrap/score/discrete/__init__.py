"""Scores on the counts of discrete data (docs/design.md §5).

* :mod:`.bdeu` — :class:`~.bdeu.BDeuScore`, the local score with sample weights and its
  cache;
* :mod:`.bic` — :class:`~.bic.BICScore`, the discrete BIC on the same counting;
* :mod:`.specs` — both by name with their parameters (``bdeu``, ``bic``);
* :mod:`.pair_gains` — the gains of every pair from one count product;
* :mod:`.family_gains` — the one-hot layout and the batched gains of every candidate
  parent of many families;
* :mod:`.lngamma_sums` — the lnΓ sums of stacked families from their counts;
* :mod:`.kernel` — the same counts and sums as compiled numba loops (bit for bit);
* :mod:`.device` — the count products on a torch device;
* :mod:`.gsquare` — the G² conditional-independence test on the score's counts (GFCI).
"""
