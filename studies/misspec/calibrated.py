"""Calibrated against raw on held-out pairs of the misspecification benchmark, with 40
suggested pairs answered from the truth (issue 39's acceptance; docs/design.md §9.12).

For every case (:mod:`.cases`), relation kind and answer variant, ``--draws`` draws: 40
pairs suggested from the case's cached bootstrap (:func:`causalcal.edgecal.suggest_pairs`,
seeded by case, kind and draw), answered from the truth — ``clean``; ``unknown20``: 20 %
of them left ``unknown`` at random; ``wrong10``: 10 % answered wrongly (related ↔ not);
``literature10``: clean answers and 10 pairs of the scientist's own added, those a
literature would know (the 5 related pairs the bootstrap finds most often and the 5
unrelated it finds least often, not asked) —, then ``causalcal.discover`` on them with
the cached probabilities. Measured on the pairs
not asked (held out): the Brier score, ECE (10 equal-count bins) and AUROC of P(adjacent)
(unordered pairs) or P(A causes B) (ordered pairs), raw and calibrated, and the oracle:
the isotonic map of the raw probability fitted on the held-out truth itself. One JSON line
per draw in ``results/misspec/calibrated.jsonl`` (resumable by key).

With ``--rounds R`` the pairs are asked in R rounds of one design (``causalcal.suggest``
with ``more=`` the earlier rounds; e.g. ``--asked 40 --rounds 2``: 20 + 20), each round
answered alike, and ``discover`` takes the rounds' answers together; ``--asked`` and
``--rounds`` take several values, so that "20 + 20 in two rounds against 40 in one" and
the curve over 10, 20, 40, 80 answers are one run (:func:`.acceptance.rounds_text`).

    python -m studies.misspec.calibrated --draws 10            # run (resumes)
    python -m studies.misspec.calibrated --summary             # the tables and lines
    python -m studies.misspec.calibrated --variants clean --asked 10 20 40 80 --rounds 1 2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import CalibrationSettings, floored_probabilities, relation_kind
from causalcal.errors import InputError
from causalcal.metrics import cross_entropy, ece_micro
from causalcal.pairs import pair_from_index, pair_index
from studies.discover_known.cases import stable_seed
from studies.discover_known.records import RecordFile

from .cases import BOTH_WAYS, N_BOOT, all_cases, load_case, pag_truth
from .fallible import FALLIBLE, corrupt
from .measures import binary_measures, oracle_measures

RECORDS = Path(__file__).resolve().parents[2] / "results" / "misspec" / "calibrated.jsonl"
#: answer variants: (share left unknown, share answered wrongly, literature pairs added)
VARIANTS = {"clean": (0.0, 0.0, 0), "unknown20": (0.2, 0.0, 0), "wrong10": (0.0, 0.1, 0),
            "literature10": (0.0, 0.0, 10)}
N_ASKED = 40
#: the kinds calibrated from stated edges, answered from the observed DAG's edge types
EDGE_KINDS = ("edges", "pag")
#: replicates of the GFCI bootstraps behind the "pag" draws
PAG_N_BOOT = 100


def _keys(table: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    index = {n: k for k, n in enumerate(names)}
    a, b = table["a"].map(index).to_numpy(), table["b"].map(index).to_numpy()
    return a, b


def answer(ask: pd.DataFrame, names: list[str], kind: str, edge_truth: np.ndarray,
           causal_truth: np.ndarray, rng: np.random.Generator, unknown: float,
           wrong: float) -> pd.DataFrame:
    """The suggested file answered from the truth (``unknown`` and ``wrong`` shares at
    random); causal pairs in a cycle are left ``unknown``."""
    a, b = _keys(ask, names)
    keys = pair_index(np.minimum(a, b), np.maximum(a, b), len(names))
    flip = rng.random(len(ask)) < wrong
    gone = rng.random(len(ask)) < unknown
    rows = []
    for k, row in enumerate(ask.to_dict("records")):
        first = a[k] < b[k]  # the row reads the pair as (i, j), i < j
        if kind in EDGE_KINDS:
            t = int(edge_truth[keys[k]])
            related = (t != 0) != flip[k]
            t = t if related == (t != 0) else (0 if t else 1)
            if not first and t in (1, 2):
                t = 3 - t
            rows.append({**row, "relation": ("none", "->", "<-", "--")[t]})
            continue
        t = int(causal_truth[keys[k]])
        if t == BOTH_WAYS:
            rows.append({**row, "relation": "unknown"})
            continue
        if flip[k]:
            t = 0 if t else int(rng.integers(1, 3))
        forward = t == (1 if first else 2)
        if t == 0:
            rows.append({**row, "relation": "not-causes"})
            rows.append({"a": row["b"], "b": row["a"], "relation": "not-causes"})
        else:
            pair = (row["a"], row["b"]) if forward else (row["b"], row["a"])
            rows.append({**row, "a": pair[0], "b": pair[1], "relation": "causes"})
    out = pd.DataFrame(rows)
    out.loc[out.index.isin(np.flatnonzero(gone)) & out["stratum"].notna(), "relation"] = \
        "unknown"
    return out


def literature(raw, asked: np.ndarray, names: list[str], kind: str, edge_truth,
               causal_truth, n: int) -> tuple[pd.DataFrame, np.ndarray]:
    """``n`` known relations a scientist would add from the literature, and their pair
    keys: the n/2 truly related pairs (adjacent; one causes the other) the bootstrap finds
    most often and the n/2 truly unrelated it finds least often, none of them asked."""
    p = 1.0 - raw.column(0).astype(np.float64)
    truth = np.asarray(edge_truth if kind in EDGE_KINDS else causal_truth).astype(np.int64)
    free = np.ones(len(p), dtype=bool)
    free[asked] = False
    if kind not in EDGE_KINDS:
        free &= truth != BOTH_WAYS  # each causes the other: no answer in a DAG
    related, unrelated = np.flatnonzero(free & (truth != 0)), np.flatnonzero(free & (truth == 0))
    keys = np.concatenate([related[np.argsort(-p[related], kind="stable")][:n // 2],
                           unrelated[np.argsort(p[unrelated], kind="stable")][:n - n // 2]])
    i, j = pair_from_index(keys, len(names))
    rows = []
    for a, b, t in zip(np.asarray(names)[i], np.asarray(names)[j], truth[keys], strict=True):
        if kind in EDGE_KINDS:
            rows.append((a, b, ("none", "->", "<-", "--")[t]))
        elif t:
            rows.append((a, b, "causes") if t == 1 else (b, a, "causes"))
        else:
            rows += [(a, b, "not-causes"), (b, a, "not-causes")]
    return pd.DataFrame(rows, columns=["a", "b", "relation"]), keys


def _held_out(kind: str, probs, Q: np.ndarray, raw, edge_truth, causal_truth,
              asked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(y, p_raw, p_cal)`` over the held-out pairs: unordered for edge types (P(adjacent);
    a PAG's P(arc) against the arcs of the observed DAG), ordered for causal relations
    (P(A causes B); pairs in a cycle left out)."""
    keep = np.ones(probs.n_pairs, dtype=bool)
    keep[asked] = False
    if kind in EDGE_KINDS:
        y = (np.asarray(edge_truth) != 0)[keep].astype(int)
        return y, 1.0 - raw.dense(np.float64)[keep, 0], 1.0 - Q[keep, 0]
    truth = np.asarray(causal_truth)
    keep &= truth != BOTH_WAYS
    P = raw.dense(np.float64)
    y = np.concatenate([truth[keep] == 1, truth[keep] == 2]).astype(int)
    return (y, np.concatenate([P[keep, 1], P[keep, 2]]),
            np.concatenate([Q[keep, 1], Q[keep, 2]]))


def class_measures(kind: str, probs, Q: np.ndarray, raw, eps: float, edge_truth,
                   causal_truth, asked: np.ndarray) -> dict:
    """The k-class log-loss and micro ECE (the k columns stacked, 10 equal-count bins),
    raw and calibrated floored alike at half the bootstrap's smallest step (a map that
    writes the bootstrap's zeros is not charged for them where the bootstrap is not), of
    the held-out pairs against their true class:
    the 4 CPDAG edge types, or neither / a causes b / b causes a (cycles left out); for
    a PAG's edge types the 7 types of the true PAG (``edge_truth`` is then that; the
    calibrated groups spread over the types as the table does)."""
    keep = np.ones(probs.n_pairs, dtype=bool)
    keep[asked] = False
    truth = np.asarray(edge_truth if kind in EDGE_KINDS else causal_truth).astype(np.int64)
    keep &= truth != BOTH_WAYS
    held = np.flatnonzero(keep)
    table = raw.pag if kind == "pag" else raw
    P = floored_probabilities(table.dense(np.float64)[held], eps)
    Q = floored_probabilities(raw.spread(Q[held], held) if kind == "pag" else Q[held], eps)
    out = {"k_floor": "both"}  # records without it floored the raw probabilities only
    for name, R in (("raw", P), ("cal", Q)):
        out[f"{name}_logloss_k"] = cross_entropy(truth[held], R, eps=1e-6)
        out[f"{name}_ece_k"] = ece_micro(truth[held], R, n_bins=10)
    return out


def run_draw(case: str, kind: str, variant: str, draw: int, asked: int = N_ASKED,
             allocation: str = "proportional", rounds: int = 1,
             calibration: dict | None = None) -> dict:
    """One draw's record (see the module); ``asked``: pairs suggested, shared between the
    strata by ``allocation`` (:func:`causalcal.suggest`), in ``rounds`` rounds of one
    design (their sizes as equal as may be, the first the largest); ``calibration``:
    :class:`CalibrationSettings` other than the library's defaults (e.g. the share of
    wrong answers assumed, ``answer_error``). A fallible variant (:data:`.fallible.
    FALLIBLE`) makes its share of each round's answers wrong (:func:`.fallible.corrupt`)."""
    pag = kind == "pag"
    data, probs, edge_truth, causal_truth = load_case(
        case, n_boot=PAG_N_BOOT if pag else N_BOOT, search="gfci" if pag else "fges")
    relations = relation_kind(kind)
    raw = relations.raw(probs)
    seed = stable_seed(case, kind, draw)
    unknown, wrong, added = VARIANTS.get(variant, (0.0, 0.0, 0))
    rng, errs = np.random.default_rng(seed), np.random.default_rng([seed, 48])
    suggestion, answered, wrong_pairs = None, [], []
    for size in _round_sizes(asked, rounds):
        suggestion = causalcal.suggest(data, size, relations=kind, probabilities=probs,
                                       seed=seed, more=suggestion, allocation=allocation)
        answered.append(answer(suggestion.table, data.names, kind, edge_truth, causal_truth,
                               rng, unknown, wrong))
        if variant in FALLIBLE:
            answered[-1], made = corrupt(answered[-1], FALLIBLE[variant], errs)
            wrong_pairs += made
    asked_keys = suggestion.draw.keys
    if added:
        own, own_keys = literature(raw, asked_keys, data.names, kind, edge_truth,
                                   causal_truth, added)
        answered.append(own)
        asked_keys = np.concatenate([asked_keys, own_keys])
    answered = answered[0] if len(answered) == 1 else answered
    start = time.perf_counter()
    result = causalcal.discover(data, answered, relations=kind, probabilities=probs,
                                bootstrap=BootstrapSettings(seed=seed, progress=False),
                                calibration=CalibrationSettings(**(calibration or {})))
    seconds = time.perf_counter() - start
    Q = result.fit.predict_all(np.float64)
    y, p_raw, p_cal = _held_out(kind, probs, Q, raw, edge_truth, causal_truth, asked_keys)
    truth_k = pag_truth(case) if pag else edge_truth
    k_class = {} if truth_k is None else class_measures(
        kind, probs, Q, raw, result.fit.calibration_set.inputs.eps, truth_k, causal_truth,
        asked_keys)
    report = result.report
    return {"case": case, "kind": kind, "variant": variant, "draw": draw, "seed": seed,
            "asked": asked, "allocation": allocation, **({"rounds": rounds} if rounds > 1
                                                         else {}),
            "answer_error": result.fit.settings.answer_error,
            "answer_guard": result.fit.settings.answer_guard,
            "held_back": len(report.map.held_back),
            **(_wrong_ranks(result, wrong_pairs) if variant in FALLIBLE else {}),
            "chosen": report.map.chosen, "answered": int(report.answers.answered.sum())
            if report.answers is not None else 0,
            "related_estimate": report.related_pairs, "seconds": seconds,
            **binary_measures("raw", y, p_raw), **binary_measures("cal", y, p_cal),
            **oracle_measures("raw", y, p_raw), **k_class,
            **(_cpdag_beside(case, asked_keys, y) if pag else {})}


def _round_sizes(asked: int, rounds: int) -> list[int]:
    """``asked`` pairs in ``rounds`` rounds, as equal as may be (the first the largest)."""
    if rounds < 1 or asked < rounds:
        raise ValueError(f"cannot ask {asked} pairs in {rounds} rounds")
    return [asked // rounds + (k < asked % rounds) for k in range(rounds)]


def _wrong_ranks(result, wrong_pairs: list) -> dict:
    """The wrong answers and where the recheck list names them (0: first; -1: not among
    the answers ranked, e.g. a scientist's own pair)."""
    known = result.known
    order = [frozenset((known.iloc[r.row]["a"], known.iloc[r.row]["b"]))
             for r in result.recheck]
    ranks = [order.index(frozenset(p)) if frozenset(p) in order else -1 for p in wrong_pairs]
    return {"wrong_pairs": [list(p) for p in wrong_pairs], "wrong_ranks": ranks}


def scheme_of(kind: str, variant: str, asked: int, rounds: int,
              calibration: dict | None = None) -> str:
    """The records' key of a setting (as before rounds for one round of 40), with
    ``/eRATE`` and ``/gN`` for the answers' error share and guard when given."""
    calibration = calibration or {}
    return (f"{kind}/{variant}" + ("" if asked == N_ASKED else f"/{asked}")
            + ("" if rounds == 1 else f"/r{rounds}")
            + ("" if "answer_error" not in calibration else
               f"/e{calibration['answer_error']:g}")
            + ("" if "answer_guard" not in calibration else
               f"/g{calibration['answer_guard']}"))


def _cpdag_beside(case: str, asked: np.ndarray, y: np.ndarray) -> dict:
    """The FGES bootstrap's P(adjacent) on the same held-out pairs (``fges_…``), beside
    a PAG's P(arc)."""
    probs = load_case(case)[1]
    keep = np.ones(probs.n_pairs, dtype=bool)
    keep[asked] = False
    return binary_measures("fges", y, 1.0 - probs.dense(np.float64)[keep, 0])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.misspec.calibrated",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--kinds", nargs="+", default=["edges", "causal"])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS),
                        choices=[*VARIANTS, *FALLIBLE])
    parser.add_argument("--cases", nargs="+", default=None, help="default: every case")
    parser.add_argument("--asked", type=int, nargs="+", default=[N_ASKED],
                        help="pairs suggested (40; several: one setting each)")
    parser.add_argument("--rounds", type=int, nargs="+", default=[1],
                        help="rounds the pairs are asked in (1; several: one setting each)")
    parser.add_argument("--allocation", choices=("proportional", "equal"),
                        default="proportional",
                        help="how the suggested pairs are shared between the strata (the "
                             "records of the equal design: results/misspec/"
                             "calibrated-equal.jsonl, calibrated_pag-equal.jsonl)")
    parser.add_argument("--answer-error", type=float, default=None,
                        help="the share of wrong answers the calibration assumes "
                             "(default: the library's); recorded in the scheme as /eRATE")
    parser.add_argument("--answer-guard", type=int, default=None,
                        help="answers likeliest wrong the map must survive without "
                             "(default: the library's); recorded in the scheme as /gN")
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--summary", action="store_true", help="print the tables only")
    args = parser.parse_args(argv)
    if args.summary:
        from .acceptance import rounds_text, summary_text

        print(summary_text(args.records))
        print(rounds_text(args.records))
        return
    store = RecordFile(args.records)
    calibration = {k: v for k, v in (("answer_error", args.answer_error),
                                     ("answer_guard", args.answer_guard)) if v is not None}
    for case in args.cases or all_cases():
        for kind in args.kinds:
            for variant in args.variants:
                for asked in args.asked:
                    for rounds in args.rounds:
                        _run_setting(store, case, kind, variant, asked, rounds, args.draws,
                                     args.allocation, calibration)


def _run_setting(store: RecordFile, case: str, kind: str, variant: str, asked: int,
                 rounds: int, draws: int, allocation: str, calibration: dict) -> None:
    """The draws of one setting not in ``store`` yet, each appended as it finishes."""
    scheme = scheme_of(kind, variant, asked, rounds, calibration)
    for draw in range(draws):
        if store.has(case, scheme, draw):
            continue
        try:
            record = run_draw(case, kind, variant, draw, asked, allocation, rounds,
                              calibration)
        except InputError as err:  # e.g. answers of one kind only
            store.append({"case": case, "kind": kind, "variant": variant, "draw": draw,
                          "scheme": scheme, "asked": asked, "error": str(err),
                          **({"rounds": rounds} if rounds > 1 else {})})
            print(f"{case:28s} {scheme:22s} {draw:2d} refused: {err}")
            continue
        store.append({**record, "scheme": scheme})
        print(f"{case:28s} {scheme:22s} {draw:2d} {record['chosen']:9s} Brier "
              f"{record['raw_brier']:.4f}->{record['cal_brier']:.4f} ECE "
              f"{record['raw_ece']:.4f}->{record['cal_ece']:.4f} (oracle "
              f"{record['raw_oracle_ece']:.4f})", flush=True)


if __name__ == "__main__":
    main()
