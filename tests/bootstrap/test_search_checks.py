"""A search's options and result checked as input (issue 49 items 9 and 14): wrong value
types, ranges beyond what the score can compute, memory it cannot have, knowledge it
cannot take and a plug-in returning no graph are input errors naming what, before or at
the first replicate (they were TypeErrors behind "an internal error", or numpy's
warnings)."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal import _validation
from causalcal.bootstrap import BDeuScore, BICScore, BootstrapSettings, bootstrap_edge_probabilities
from causalcal.data import DiscreteData
from causalcal.errors import InputError
from causalcal.knowledge import Knowledge


def _data(n: int = 60, v: int = 3) -> DiscreteData:
    rng = np.random.default_rng(0)
    return DiscreteData(rng.integers(0, 2, (n, v)), [f"V{k}" for k in range(v)], [2] * v)


@pytest.mark.parametrize("value", ["x", "nan", float("nan"), True, [0.1]])
def test_an_option_of_the_wrong_type_is_refused_before_any_work(value):
    with pytest.raises(InputError, match="search 'gfci': option alpha must be a number"):
        BootstrapSettings(n_boot=2, search="gfci", options={"alpha": value})
    with pytest.raises(InputError, match="option possible_dsep must be True or False"):
        BootstrapSettings(n_boot=2, search="gfci", options={"possible_dsep": "no"})
    BootstrapSettings(n_boot=2, search="gfci", options={"alpha": 0.05, "depth": 2})


def test_a_plugin_returning_no_graph_is_an_input_error():
    def plugin(data, weights=None):
        return None

    with pytest.raises(InputError, match="the search returned None, not a causalcal PDAG"):
        bootstrap_edge_probabilities(_data(), n_boot=1, search=plugin, progress=False)

    def wrong_size(data, weights=None):
        from causalcal.graph import PDAG

        return PDAG(2)

    with pytest.raises(InputError, match="graph over 2 nodes, not the data's 3"):
        bootstrap_edge_probabilities(_data(), n_boot=1, search=wrong_size, progress=False)


@pytest.mark.parametrize("search", ["pc", "ges"])
def test_a_search_without_knowledge_says_which_searches_take_it(search):
    """It said "has no option 'knowledge'", which the user never gave (--context)."""
    with pytest.raises(InputError, match=f"'{search}' takes no background knowledge.*--context"):
        bootstrap_edge_probabilities(_data(), n_boot=1, search=search, progress=False,
                                     knowledge=Knowledge(context=["V0"]))


@pytest.mark.parametrize("value", [1e308, np.inf, 0.0, -1.0])
def test_the_penalty_discount_must_keep_the_score_finite(value):
    with pytest.raises(InputError, match=r"penalty_discount must be a number in \(0, 1e\+12\]"):
        BICScore(_data(), penalty_discount=value)


@pytest.mark.parametrize("value", [1e308, 1e-308, np.inf, 0.0])
def test_the_sample_prior_must_keep_the_score_precise(value):
    with pytest.raises(InputError, match="sample_prior must be a number in"):
        BDeuScore(_data(), sample_prior=value)


def test_counts_beyond_the_memory_available_are_refused_before_they_are_made(monkeypatch):
    """A 1e5-level text context column took 6.4 GB before "out of memory"."""
    monkeypatch.setattr(_validation, "_available_memory", lambda: 1e6)
    codes = np.column_stack([np.arange(2000) % 1000, np.arange(2000) % 2])
    data = DiscreteData(codes, ["cond", "x"], [1000, 2])
    with pytest.raises(InputError, match="'cond', with 1000 categories.*needs about"):
        BDeuScore(data, max_arity=1000)
