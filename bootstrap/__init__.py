"""BDeu scoring, FGES structure search and bootstrapped edge-type probabilities (thesis §6.2.2–6.2.4)."""
