"""Structural models of continuous and mixed data: sampling, mechanisms, truth, files
(docs/design.md §4.1)."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.bootstrap import fges
from causalcal.errors import InputError
from causalcal.simulate import StructuralModel, random_sem
from causalcal.simulate.latent_truth import pag_labels


def _model_two_nodes(function: str) -> StructuralModel:
    return StructuralModel(["a", "b"], [[], [0]], [0, 0], [[], [{"weight": 1.0,
                                                                "function": function}]],
                           [1.0, 0.5], [[], []])


def test_linear_mechanism_recovered_by_least_squares():
    data = _model_two_nodes("linear").sample(20000, seed=1)
    a, b = data.values.T
    z = (a - a.mean()) / a.std()
    slope, intercept = np.polyfit(z, b, 1)
    assert slope == pytest.approx(1.0, abs=0.02) and intercept == pytest.approx(0, abs=0.02)
    assert np.std(b - slope * z - intercept) == pytest.approx(0.5, rel=0.03)


def test_square_mechanism_is_uncorrelated_but_dependent():
    data = _model_two_nodes("square").sample(20000, seed=2)
    a, b = data.values.T
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.03
    assert np.corrcoef(a * a, b)[0, 1] > 0.8


def test_discrete_root_follows_its_softmax_and_shifts_its_child():
    model = StructuralModel(["c", "x"], [[], [0]], [3, 0], [[], [{"shifts": [-2.0, 0, 2.0]}]],
                            [0.0, 1.0], [[0.0, 1.0, -1.0], []])
    data = model.sample(30000, seed=3)
    codes, x = data.codes[:, 0], data.values[:, 0]
    p = np.exp([0.0, 1.0, -1.0])
    np.testing.assert_allclose(np.bincount(codes) / len(codes), p / p.sum(), atol=0.01)
    means = [x[codes == k].mean() for k in range(3)]
    np.testing.assert_allclose(means, [-2, 0, 2], atol=0.05)
    assert data.kind == "mixed" and data.arities.tolist() == [3, 0]


@pytest.mark.parametrize("kind", ["linear-gaussian", "nonlinear", "mixed"])
def test_random_models_seeded_and_saved(tmp_path, kind):
    model = random_sem(12, 18, kind, seed=5)
    again = random_sem(12, 18, kind, seed=5)
    assert model.to_dict() == again.to_dict()
    assert model.n_edges == 18 and model.cpdag().n_vars == 12
    assert model.sample(100, seed=1) == again.sample(100, seed=1)
    model.save(tmp_path / "m.json")
    loaded = StructuralModel.load(tmp_path / "m.json")
    assert loaded.sample(100, seed=1) == model.sample(100, seed=1)
    functions = {e.get("function") for node in model.effects for e in node} - {None}
    assert functions == ({"linear"} if kind != "nonlinear" else {"tanh", "sin", "square"})
    assert (model.arities > 0).any() == (kind == "mixed")


@pytest.mark.parametrize("seed", range(3))
def test_fges_sem_bic_finds_the_true_cpdag_with_much_data(seed):
    model = random_sem(8, 10, "linear-gaussian", seed=seed, weight_range=(0.8, 1.5))
    data = model.sample(20000, seed=seed + 10)
    found = fges(data, score="sem-bic")
    assert found == model.cpdag()


def test_fges_dg_bic_finds_the_mixed_skeleton_with_much_data():
    model = random_sem(8, 9, "mixed", seed=4, weight_range=(1.0, 2.0))
    data = model.sample(20000, seed=7)
    found = fges(data, score="dg-bic")
    true_pairs = {tuple(p) for p in model.cpdag().pair_labels()[0].tolist()}
    found_pairs = {tuple(p) for p in found.pair_labels()[0].tolist()}
    assert found_pairs == true_pairs


def test_hidden_nodes_give_the_pag_of_the_observed():
    model = random_sem(7, 9, "linear-gaussian", seed=2)
    observed = [0, 1, 2, 4, 5, 6]
    data = model.sample(50, seed=1, observed=observed)
    assert data.names == [model.names[k] for k in observed]
    np.testing.assert_array_equal(model.pag_truth(observed), pag_labels(model.parents, observed))


def test_bad_models_refused():
    with pytest.raises(InputError, match="kind must be one of"):
        random_sem(5, 4, "quadratic")
    with pytest.raises(InputError, match="unknown function 'cube'"):
        _model_two_nodes("cube")
    with pytest.raises(InputError, match="n must be an integer >= 2"):
        _model_two_nodes("linear").sample(1)
