"""Figures (docs/design.md §9.8), drawn by ``discover`` and by the study alike.

* :mod:`.plots` — reliability diagrams before and after calibration, the averaged network;
* :mod:`.layout` — where the averaged network's variables go in its figure.

Each is a matplotlib ``Figure`` built without pyplot; they need the optional ``plot`` extra.
"""
