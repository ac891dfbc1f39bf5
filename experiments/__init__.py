"""One-off experiments: scripts that answered one question, kept so that the figures
they gave can be checked. Run from the repository root as ``python -m experiments.NAME``.

Each is linked from the place that quotes its figures:

* ``causal_raw``: docs/results.md, "Causal relations: the raw bootstrap probabilities";
* ``compare_original_calibrators``: docs/design.md §7 (BBQ, ENIR and ELiTE against the
  authors' code);
* ``discover_known_mce``: docs/results.md, "Why the overall-MCE line still fails";
* ``discover_known_oracle``: docs/results.md, "Oracle maps";
* ``discover_simulations_cost``: docs/results.md, "Simulation-informed calibration"
  (Cost);
* ``pair_features``: docs/results.md, "Pair features of the learned graphs";
* ``selection_calibration``: docs/design.md §9.2 (selection-aware fitting on the reduced
  Table 33 protocol).

Timings the project keeps checking are in ``benchmarks/``; the discover_known harness is
the package ``studies.discover_known``.
"""
