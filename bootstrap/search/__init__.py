"""Structure searches over the BDeu score (thesis §6.2.2; docs/design.md §5).

* :mod:`.fges` — FGES (GES's neighbourhood, Ramsey et al.'s operator schedule);
* :mod:`.ges_operators` — Chickering's Insert and Delete on a CPDAG and its re-completion;
* :mod:`.bes` — GES's backward phase;
* :mod:`.boss` — best order score search with grow-shrink trees;
* :mod:`.gfci` — GFCI: FGES's adjacencies pruned by G² tests, FCI's orientation (a PAG);
* :mod:`.registry` — every search by name, one signature
  ``search(data, weights=None, **options) -> PDAG``.
"""
