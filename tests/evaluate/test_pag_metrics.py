"""PAG edge-type measures (evaluate/pag_metrics.py) against hand-derived values."""

import numpy as np
import pytest

from causalcal.errors import InputError
from causalcal.evaluate.pag_metrics import pag_edge_metrics


def test_hand_case():
    # pairs: true o->, true <->, true none, true -->
    truth = np.array([2, 6, 0, 5])
    probs = np.array([[0.1, 0.2, 0.5, 0.0, 0.2, 0.0, 0.0],    # predicts o->: right
                      [0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.7],    # <->: right
                      [0.4, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0],    # o-o: wrong
                      [0.0, 0.0, 0.0, 0.5, 0.0, 0.4, 0.1]])   # <-o: wrong (tail end b)
    m = pag_edge_metrics(probs, truth)
    assert m["accuracy"] == 0.5 and m["n_pairs"] == 4
    # circle_arrow (o-> and <-o): predicted twice, true once (pair 0), found once
    assert m["circle_arrow_precision"] == 0.5 and m["circle_arrow_recall"] == 1.0
    assert m["tail_arrow_recall"] == 0.0 and m["none_recall"] == 0.0
    assert m["arrow_arrow_f1"] == 1.0
    arc = np.array([0.9, 0.0, 0.6, 0.9])
    assert m["arc_brier"] == pytest.approx(np.mean((arc - [1, 0, 0, 1]) ** 2))
    onehot = np.eye(7)[truth]
    assert m["overall_brier"] == pytest.approx(np.sum((probs - onehot) ** 2) / 4)
    assert m["arrow_arrow_brier"] == pytest.approx(np.mean((probs[:, 6] - [0, 1, 0, 0]) ** 2))


def test_perfect_probabilities_and_bad_input():
    truth = np.arange(7).repeat(30)
    m = pag_edge_metrics(np.eye(7)[truth], truth)
    assert m["accuracy"] == 1.0 and m["overall_brier"] == 0.0 and m["overall_ece"] == 0.0
    with pytest.raises(InputError, match="shape"):
        pag_edge_metrics(np.eye(4)[truth % 4], truth)
    with pytest.raises(InputError, match="PAG edge types 0..6"):
        pag_edge_metrics(np.eye(7)[truth], truth + 1)
