"""Calibrated output never contradicts the user's background knowledge (issue 41 item 1;
docs/design.md §9.10): excluded classes at exactly 0, their mass to the allowed ones."""

from __future__ import annotations

import numpy as np

from causalcal import Knowledge
from causalcal.edgecal import CausalRelations, EdgeTypes, respect_knowledge

NAMES = ["a", "b", "c", "d"]  # pairs in order: ab, ac, ad, bc, bd, cd


def test_edge_types_by_hand():
    knowledge = Knowledge(forbidden=[("a", "b")], required=[("c", "d")],
                          tiers={"a": 0, "b": 0, "c": 1}, forbid_within_tiers=True)
    Q = np.tile([0.4, 0.3, 0.2, 0.1], (6, 1))
    out = respect_knowledge(EdgeTypes(), Q, knowledge, NAMES)
    np.testing.assert_allclose(out[0], [1, 0, 0, 0])        # a, b: one tier, edges forbidden
    np.testing.assert_allclose(out[1], [0.4 / 0.7, 0.3 / 0.7, 0, 0])  # c before a: no c -> a
    np.testing.assert_allclose(out[2], Q[2])                # d has no tier, nothing listed
    np.testing.assert_allclose(out[3], [0.4 / 0.7, 0.3 / 0.7, 0, 0])  # b tier 0 -> c tier 1
    np.testing.assert_allclose(out[5], [0, 1, 0, 0])        # c -> d required: only forward
    assert (out[[0, 1, 3, 5]][Q[[0, 1, 3, 5]] > 0] >= 0).all()
    np.testing.assert_allclose(out.sum(axis=1), 1)
    assert respect_knowledge(EdgeTypes(), Q, None, NAMES) is Q
    # no mass on the allowed classes: shared evenly
    empty = respect_knowledge(EdgeTypes(), np.tile([0.0, 0.0, 1.0, 0.0], (6, 1)), knowledge, NAMES)
    np.testing.assert_allclose(empty[1], [0.5, 0.5, 0, 0])


def test_causal_relations_by_hand():
    Q = np.tile([0.2, 0.5, 0.3], (6, 1))
    tiered = Knowledge(tiers={"a": 0, "b": 1, "c": 1, "d": 2})
    out = respect_knowledge(CausalRelations(), Q, tiered, NAMES)
    np.testing.assert_allclose(out[0], [0.2 / 0.7, 0.5 / 0.7, 0])  # b cannot cause a
    np.testing.assert_allclose(out[3], Q[3])  # b, c in one tier: either may cause the other
    partly = Knowledge(tiers={"a": 0, "b": 1}, required=[("c", "a"), ("a", "d")])
    out = respect_knowledge(CausalRelations(), Q, partly, NAMES)
    np.testing.assert_allclose(out[0], Q[0])  # c, d untiered: a path may lead back to a
    np.testing.assert_allclose(out[1], [0, 0, 1])  # c -> a required: c causes a
    np.testing.assert_allclose(out[5], [0, 1, 0])  # c -> a -> d: c causes d
    context = Knowledge(context=["a", "b"])  # two context columns, c and d the system
    out = respect_knowledge(CausalRelations(), Q, context, NAMES)
    np.testing.assert_allclose(out[0], Q[0])  # between context columns: free
    np.testing.assert_allclose(out[1], [0.2 / 0.7, 0.5 / 0.7, 0])  # c cannot cause a
    np.testing.assert_allclose(out[5], Q[5])  # c, d: both system variables
