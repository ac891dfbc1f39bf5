"""Random discrete Bayesian networks, ancestral sampling and true CPDAGs (thesis §6.2.4 steps 1–2)."""
