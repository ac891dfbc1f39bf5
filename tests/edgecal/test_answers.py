"""The answer file and its design (docs/design.md §9.12; issue 49 items 4, 9, 10; issue
48 items 3, 8): rounds with exact rates, the design record that catches edits, confidence,
strata left without answers, and the messages of a careless file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from causalcal.calibration import probability_bins
from causalcal.edgecal import (
    CONFIDENCE_ERRORS,
    AnswerDesign,
    CausalRelations,
    EdgeTypes,
    draw_round,
    read_answers,
    round_draws,
    write_suggested,
)
from causalcal.edgecal.sampling import proportional_draws
from causalcal.edges import EdgeProbabilities, pair_from_index, pair_index
from causalcal.errors import InputError


def _probs(v: int = 30, seed: int = 0, n_boot: int = 20) -> EdgeProbabilities:
    rng = np.random.default_rng(seed)
    m = v * (v - 1) // 2
    p = np.where(rng.random(m) < 0.7, 0.0, rng.beta(0.7, 0.7, size=m))
    hits = rng.binomial(n_boot, p)
    fwd = rng.binomial(hits, 0.5)
    i, j = pair_from_index(np.arange(m), v)
    return EdgeProbabilities.from_counts([f"x{k}" for k in range(v)], np.column_stack([i, j]),
                                         np.column_stack([fwd, hits - fwd, np.zeros(m, int)]),
                                         n_boot)


def _suggested(tmp_path, probs, n=20, name="ask.csv", previous=None, seed=0):
    draw = draw_round(probs, n, seed=seed, previous=previous, relations="edges")
    write_suggested(tmp_path / name, draw)
    return draw, pd.read_csv(tmp_path / name, dtype=str, keep_default_na=False)


def _answered(table: pd.DataFrame) -> pd.DataFrame:
    """Every other pair related (a fixed, arbitrary truth)."""
    return table.assign(relation=np.where(np.arange(len(table)) % 2 == 0, "->", "none"))


def test_rounds_rates_are_the_drawn_counts_over_the_stratum_sizes_round_by_round():
    probs = _probs()
    draw = None
    for k, n in enumerate((12, 10, 15), start=1):
        draw = draw_round(probs, n, seed=7, previous=draw, relations="edges")
        p = 1 - probs.column(0).astype(float)
        sizes = np.bincount(probability_bins(p), minlength=5)
        assert draw.sizes.tolist() == sizes.tolist()
        drawn = np.zeros(5, int)
        for r in draw.rounds:
            drawn += np.bincount(r.strata, minlength=5)
        assert draw.drawn.tolist() == drawn.tolist() and drawn.sum() == [12, 22, 37][k - 1]
        np.testing.assert_allclose(draw.rates(), drawn / sizes)
        # proportional to the cumulative total where the cumulative allocation allows
        assert (draw.drawn >= np.minimum(proportional_draws(sizes, drawn.sum()), sizes) - 1).all()
        assert len(np.unique(draw.keys)) == len(draw.keys)  # no pair asked twice


def test_the_union_of_rounds_is_a_simple_random_sample_of_each_stratum():
    # every pair of a stratum is asked, over many draws, as often as (drawn / size) says
    probs = _probs(v=16, seed=3)
    counts = np.zeros(probs.n_pairs)
    runs = 400
    for seed in range(runs):
        first = draw_round(probs, 8, seed=seed)
        both = draw_round(probs, 6, seed=seed, previous=first)
        counts[both.keys] += 1
    strata = probability_bins(1 - probs.column(0).astype(float))
    rates = both.rates()
    for s in range(5):
        members = strata == s
        if both.sizes[s] == 0 or rates[s] in (0, 1):
            continue
        freq = counts[members] / runs
        sd = np.sqrt(rates[s] * (1 - rates[s]) / runs)
        assert abs(freq.mean() - rates[s]) < 4 * sd / np.sqrt(members.sum())
        assert np.abs(freq - rates[s]).max() < 4.5 * sd


def test_round_allocation_by_hand():
    rng = np.random.default_rng(0)
    sizes = np.array([100, 10, 5, 3, 2])
    first = round_draws(sizes, np.zeros(5, int), 20, "proportional", rng)
    assert first.tolist() == proportional_draws(sizes, 20).tolist()
    second = round_draws(sizes, first, 20, "proportional", rng)
    assert (first + second).tolist() == proportional_draws(sizes, 40).tolist()
    with pytest.raises(InputError, match="only 80 are not asked"):
        round_draws(sizes, first + second, 81, "proportional", rng)


def test_a_later_round_on_other_probabilities_is_refused():
    first = draw_round(_probs(seed=0), 10, seed=1)
    with pytest.raises(InputError, match="other strata than the earlier rounds"):
        draw_round(_probs(seed=1), 10, seed=1, previous=first)


def test_two_rounds_answered_in_two_files_form_one_design(tmp_path):
    probs = _probs()
    first, t1 = _suggested(tmp_path, probs, 12)
    both, t2 = _suggested(tmp_path, probs, 12, "ask2.csv", previous=first)
    _answered(t1).to_csv(tmp_path / "ask.csv", index=False)
    _answered(t2).to_csv(tmp_path / "ask2.csv", index=False)
    answers = read_answers([tmp_path / "ask.csv", tmp_path / "ask2.csv"], probs.names,
                           EdgeTypes())
    assert answers.design.rounds == 2 and answers.design.drawn.tolist() == both.drawn.tolist()
    keys = _keys(answers, probs)
    stratum = dict(zip(both.keys, np.concatenate([r.strata for r in both.rounds]),
                       strict=True))
    np.testing.assert_allclose(answers.rates, [both.rates()[stratum[k]] for k in keys])
    # the second round alone: the first round's pairs are drawn, not answered
    alone = read_answers(tmp_path / "ask2.csv", probs.names, EdgeTypes())
    assert alone.design.drawn.tolist() == both.drawn.tolist()
    assert alone.design.answered.sum() == 12
    # two independent first rounds are not one design
    _, other = _suggested(tmp_path, probs, 12, "other.csv", seed=9)
    _answered(other).to_csv(tmp_path / "other.csv", index=False)
    with pytest.raises(InputError, match="two independent draws"):
        read_answers([tmp_path / "ask.csv", tmp_path / "other.csv"], probs.names, EdgeTypes())


def _keys(answers, probs):
    return pair_index(answers.pairs["i"].to_numpy(), answers.pairs["j"].to_numpy(),
                      probs.n_vars)


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.drop(columns="stratum_drawn"), "column stratum_drawn is missing"),
    (lambda t: t.rename(columns={"stratum": "bin"}), "column stratum is missing"),
    (lambda t: t.assign(stratum_pairs=t["stratum_drawn"].astype(int) - 1),
     "row 1, column stratum_drawn"),
    (lambda t: t.assign(stratum_pairs=np.where(t.index == 3, "300", t["stratum_pairs"])),
     "row 4, column stratum_pairs: 300, but the design record says"),
    (lambda t: t.assign(stratum_pairs=np.where(t.index == 3, "5000", t["stratum_pairs"])),
     "row 4, column stratum_pairs: '5000' is more than the 435 pairs"),
    (lambda t: t.assign(stratum=np.where(t.index == 2, "1", t["stratum"])),
     "row 3, column stratum: 1, but the design record says"),
    (lambda t: t.assign(b=np.where(t.index == 0, "x29", t["b"]),
                        a=np.where(t.index == 0, "x28", t["a"])),
     "row 1, columns a, b: round 1 never asked about this pair"),
    (lambda t: t.assign(stratum_pairs=np.where(t.index == 0, "0", t["stratum_pairs"])),
     "row 1, column stratum_pairs: '0'"),
    (lambda t: t.assign(stratum_pairs=np.where(t.index == 0, "1e23", t["stratum_pairs"])),
     "row 1, column stratum_pairs: '1e23' is more than the 435 pairs"),
    (lambda t: t.assign(stratum_pairs=np.where(t.index == 0, "2.5", t["stratum_pairs"])),
     "row 1, column stratum_pairs: '2.5' is not a whole number"),
    (lambda t: t.assign(stratum=np.where(t.index == 0, "7", t["stratum"])),
     "row 1, column stratum: '7'; the strata are 0 to 4"),
    (lambda t: t.assign(round=np.where(t.index == 0, "2", t["round"])),
     "row 1, column round: round 2 is not in the design record"),
])
def test_an_edited_design_is_an_error_naming_file_row_and_column(tmp_path, edit, message):
    probs = _probs()
    _, table = _suggested(tmp_path, probs, 20)
    edit(_answered(table)).to_csv(tmp_path / "ask.csv", index=False)
    with pytest.raises(InputError, match=f"ask.csv: {message}" if message.startswith(
            ("row", "column")) else message) as err:
        read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())
    assert "ask.csv" in str(err.value)


def test_a_record_edited_lost_or_of_other_variables(tmp_path):
    probs = _probs()
    _, table = _suggested(tmp_path, probs, 20)
    _answered(table).to_csv(tmp_path / "ask.csv", index=False)
    record = tmp_path / "ask.csv.json"
    doc = json.loads(record.read_text())
    with pytest.raises(InputError, match="drawn on 30 variables, the data has 28"):
        read_answers(tmp_path / "ask.csv", probs.names[:28], EdgeTypes())
    # the same variables in another order: the same design
    answers = read_answers(tmp_path / "ask.csv", probs.names[::-1], EdgeTypes())
    assert answers.design.answered.sum() == 20
    doc["sizes"][0] += 1
    record.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="the design record was edited"):
        read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())
    record.unlink()
    with pytest.raises(InputError, match="the design record ask.csv.json is missing"):
        read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())


def test_a_frame_design_is_checked_for_consistency():
    probs = _probs()
    table = _answered(draw_round(probs, 20, seed=0).table())
    with pytest.raises(InputError, match="rows 4 and 5, column stratum_pairs: 300 and"):
        read_answers(table.assign(stratum_pairs=np.where(table.index == 3, 300,
                                                         table["stratum_pairs"])),
                     probs.names, EdgeTypes())
    with pytest.raises(InputError, match="the pairs were drawn on other variables"):
        small = table[table["a"].isin(probs.names[:6]) & table["b"].isin(probs.names[:6])]
        read_answers(small if len(small) else table, probs.names[:6], EdgeTypes())
    other = _answered(draw_round(probs, 20, seed=5).table())
    with pytest.raises(InputError, match="a pair is asked in two rounds|two designs|not the "
                                         "round 1"):
        read_answers([table, other], probs.names, EdgeTypes())


def test_capitalised_headers_and_the_relation_column_of_a_careless_file(tmp_path):
    probs = _probs()
    rows = [("x0", "x1", "->"), ("x0", "x2", "none")]
    pd.DataFrame(rows, columns=["A", "B", "Relation"]).to_csv(tmp_path / "k.csv", index=False)
    assert len(read_answers(tmp_path / "k.csv", probs.names, EdgeTypes()).pairs) == 2
    for marker in ("?", "UNK", "NA", "don't know"):
        pd.DataFrame(rows + [("x0", "x3", marker)], columns=["a", "b", "relation"]).to_csv(
            tmp_path / "k.csv", index=False)
        with pytest.raises(InputError, match="k.csv: unknown relation at row 3") as err:
            read_answers(tmp_path / "k.csv", probs.names, EdgeTypes())
        assert "unknown where you cannot tell" in str(err.value)
    pd.DataFrame([("x0", "x1", "unknown"), ("x0", "x2", "Unknown")],
                 columns=["a", "b", "relation"]).to_csv(tmp_path / "k.csv", index=False)
    with pytest.raises(InputError, match="every row is unknown"):
        read_answers(tmp_path / "k.csv", probs.names, EdgeTypes())
    # a suggested file: unknown rows are left out, the rest read
    _, table = _suggested(tmp_path, probs, 10)
    answered = _answered(table)
    answered.loc[:3, "relation"] = "unknown"
    answered.rename(columns=str.upper).to_csv(tmp_path / "ask.csv", index=False)
    answers = read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())
    assert answers.unknown == 4 and len(answers.pairs) == 6


def test_confidence_column_reaches_the_calibration_set(tmp_path):
    from causalcal.edgecal import PairInputs, known_calibration_set

    probs = _probs()
    _, table = _suggested(tmp_path, probs, 12)
    answered = _answered(table)
    answered["confidence"] = ["sure", "Likely ", "GUESS", "0.2", ""] + [""] * 7
    answered.to_csv(tmp_path / "ask.csv", index=False)
    answers = read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())
    keys = _keys(answers, probs)
    rows = pair_index(*np.sort(np.array([[probs.names.index(a), probs.names.index(b)]
                                         for a, b in zip(answered.a, answered.b,
                                                         strict=True)]), axis=1).T,
                      probs.n_vars)
    stated = dict(zip(rows, [CONFIDENCE_ERRORS["sure"], CONFIDENCE_ERRORS["likely"],
                             CONFIDENCE_ERRORS["guess"], 0.2] + [np.nan] * 8, strict=True))
    np.testing.assert_allclose(answers.errors, [stated[k] for k in keys])
    calset = known_calibration_set(PairInputs(probs), answers.pairs, answers.rates,
                                   answers.errors)
    np.testing.assert_allclose(calset.errors, answers.errors)
    np.testing.assert_allclose(calset.subset(np.array([0, 2])).errors, answers.errors[[0, 2]])
    for bad in ("very", "0.5", "-0.1"):
        answered["confidence"] = [bad] + [""] * 11
        answered.to_csv(tmp_path / "ask.csv", index=False)
        with pytest.raises(InputError, match="row 1, column confidence"):
            read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())


def test_causal_pairs_take_the_least_sure_of_their_rows():
    names = [f"x{k}" for k in range(6)]
    known = pd.DataFrame({"a": ["x0", "x1", "x2", "x3"], "b": ["x1", "x0", "x3", "x4"],
                          "relation": ["not-causes", "not-causes", "causes", "causes"],
                          "confidence": ["sure", "guess", "", "likely"]})
    answers = read_answers(known, names, CausalRelations())
    np.testing.assert_allclose(answers.errors, [CONFIDENCE_ERRORS["guess"], np.nan,
                                                CONFIDENCE_ERRORS["likely"]])


def test_a_stratum_without_answers_is_not_counted_as_unrelated():
    design = AnswerDesign(sizes=np.array([100, 10, 30, 0, 20]), drawn=np.array([5, 3, 2, 0, 5]),
                          answered=np.array([4, 3, 0, 0, 5]), related=np.array([1, 1, 0, 0, 5]),
                          means=np.array([0.01, 0.3, 0.48, np.nan, 0.9]))
    estimate, se = design.related_pairs()
    assert estimate == pytest.approx(100 / 4 + 10 / 3 + 30 * 0.48 + 20)
    smooth = (np.array([1, 1, 5]) + 0.5) / (np.array([4, 3, 5]) + 1)
    answered = (np.array([100, 10, 20]) ** 2 * (1 - np.array([4, 3, 5]) / np.array([100, 10, 20]))
                * smooth * (1 - smooth) / np.array([4, 3, 5]))
    assert se == pytest.approx(np.sqrt(answered.sum() + 30 ** 2 * 0.48 * 0.52))
    assert design.unanswered.tolist() == [False, False, True, False, False]
    # without a recorded mean, the stratum's middle
    plain = AnswerDesign(design.sizes, design.drawn, design.answered, design.related)
    assert plain.related_pairs()[0] == pytest.approx(100 / 4 + 10 / 3 + 30 * 0.5 + 20)
