"""Which map of 40 answers, and which rule for writing it, on the misspecification
benchmark (docs/results.md "What 40 answers can tell"; docs/design.md §9.12).

For every cached case (docs/design.md §9.11), both relation kinds and ``--draws`` draws of
40 suggested pairs answered from the truth (``clean``; ``wrong10``, 10 % answered wrongly,
on the n = 2000 and Sachs cases), as ``studies.misspec.calibrated --allocation equal``
draws them (the design of sessions 13–14, with which the records were made): the map
fitted on the answers is *forced* (``map="designed"``) in three shapes —

- ``logistic``: the library's, ``logit q = a · logit p + b`` under the identity prior
  a ~ N(1, 2²), b ~ N(0, 2²);
- ``isotonic``: the weighted isotonic regression of the answers on p (kept strictly
  increasing by 1e-6 · p, so ties of the bootstrap stay the only ties);
- ``evidence``: the logistic map with the prior's scale chosen by its evidence (type-II
  maximum likelihood over a grid, Laplace approximation): a scale near 0 is the
  bootstrap itself, so the answers decide how far the map may move —

and the held-out measures of each are recorded with the map's calibration-test p-value
and its 5-fold cross-validated improvement, so that every rule for writing it (the
library's: p < 0.05 and a positive improvement) is evaluated on the same draws
(``--summary``). The two shapes other than the library's are swapped in for the run with
``unittest.mock.patch``; they are measured here, not kept in the library.

    python -m experiments.answers_map_variants --draws 6     # resumes; one line per draw
    python -m experiments.answers_map_variants --summary
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import numpy as np
from sklearn.isotonic import IsotonicRegression

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import CalibrationSettings, relation_kind, suggest_pairs
from causalcal.edgecal.designed import IdentityPriorFit, identity_prior_mode
from causalcal.edgecal.simulated import LogitLinearMap
from causalcal.errors import InputError
from causalcal.pairs import pair_index
from studies.discover_known.cases import stable_seed
from studies.misspec.calibrated import VARIANTS, _held_out, _keys, answer
from studies.misspec.cases import CACHE, all_cases, load_case
from studies.misspec.measures import binary_measures

RECORDS = (Path(__file__).resolve().parents[1] / "results" / "misspec"
           / "answers_map_variants.jsonl")
SHAPES = ("logistic", "isotonic", "evidence")
#: prior scales the evidence chooses among (a scale near 0 keeps the bootstrap)
SCALES = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)


def _isotonic_fit(self, p, y, weights, what):
    LOGISTIC_FIT(self, p, y, weights, what)  # the slope and intercept the test needs
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    self.isotonic_ = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
        p, y, w)


def _isotonic_map(self, p):
    p = np.asarray(p, dtype=np.float64)
    return self.isotonic_.predict(p.ravel()).reshape(p.shape) * (1 - 1e-6) + 1e-6 * p


def _posterior_mode(x, y, w, scale):
    """The identity-prior fit at prior scale ``scale`` and its log evidence (Laplace)."""
    theta, loss, hessian = identity_prior_mode(x, y, w, scale)
    return theta, -loss - 2 * np.log(scale) - 0.5 * np.linalg.slogdet(hessian)[1]


def _evidence_solve(self, x, y, w):
    y, w = np.asarray(y, dtype=np.float64), w * (len(w) / w.sum())
    theta = max((_posterior_mode(x, y, w, s) for s in SCALES), key=lambda f: f[1])[0]
    return float(theta[0]), float(theta[1])


LOGISTIC_FIT = LogitLinearMap._fit_samples


def shaped(shape: str) -> contextlib.AbstractContextManager:
    """The library with the answers' map of ``shape`` swapped in."""
    if shape == "isotonic":
        stack = contextlib.ExitStack()
        stack.enter_context(mock.patch.object(LogitLinearMap, "_fit_samples", _isotonic_fit))
        stack.enter_context(mock.patch.object(LogitLinearMap, "map", _isotonic_map))
        return stack
    if shape == "evidence":
        return mock.patch.object(IdentityPriorFit, "_solve", _evidence_solve)
    return contextlib.nullcontext()


def run_draw(case: str, kind: str, variant: str, draw: int) -> dict:
    """One draw: every shape forced on the same answers (module doc)."""
    data, probs, edge_truth, causal_truth = load_case(case)
    raw = relation_kind(kind).raw(probs)
    seed = stable_seed(case, kind, draw)
    ask = suggest_pairs(raw, 40, seed=seed, allocation="equal")
    unknown, wrong, _ = VARIANTS[variant]
    answered = answer(ask, data.names, kind, edge_truth, causal_truth,
                      np.random.default_rng(seed), unknown, wrong)
    a, b = _keys(ask, data.names)
    asked = pair_index(np.minimum(a, b), np.maximum(a, b), data.n_vars)
    record = {"case": case, "kind": kind, "variant": variant, "draw": draw}
    for shape in SHAPES:
        with shaped(shape):
            try:
                result = causalcal.discover(
                    data, answered, relations=kind, probabilities=probs,
                    calibration=CalibrationSettings(map="designed"),
                    bootstrap=BootstrapSettings(seed=seed, progress=False))
                Q = result.fit.predict_all(np.float64)  # the shape's map: inside the patch
            except InputError as err:  # e.g. answers that contradict each other
                record[shape] = {"error": str(err)}
                continue
        y, p_raw, p_cal = _held_out(kind, probs, Q, raw, edge_truth, causal_truth, asked)
        c = result.fit.choice.candidates.get("designed")  # None: too few answers to judge
        record[shape] = {**binary_measures("raw", y, p_raw), **binary_measures("cal", y, p_cal),
                         "p": c and c.calibration_p, "gain": c and c.improvement,
                         "gain_se": c and c.improvement_se}
    return record


#: rules for writing the forced map (else the bootstrap stays)
RULES: dict[str, Callable[[dict], bool]] = {
    "always": lambda d: True,
    "library (p < 0.05, gain > 0)":
        lambda d: d["p"] is not None and d["p"] < 0.05 and d["gain"] > 0,
    "test alone (p < 0.05)": lambda d: d["p"] is not None and d["p"] < 0.05,
    "library, or p < 1e-6": lambda d: d["p"] is not None and (
        (d["p"] < 0.05 and d["gain"] > 0) or d["p"] < 1e-6),
}


def _setting(draws: list[dict], rule: Callable[[dict], bool]) -> dict:
    def value(d, measure):
        return d["cal_" + measure] if rule(d) else d["raw_" + measure]

    mean = {f"{w}_{m}": float(np.nanmean([d[f"raw_{m}"] if w == "raw" else value(d, m)
                                          for d in draws]))
            for w in ("raw", "cal") for m in ("brier", "ece", "auroc")}
    harm = (mean["cal_brier"] > mean["raw_brier"] + 0.002
            or mean["cal_ece"] > mean["raw_ece"] + 0.005
            or mean["cal_auroc"] < mean["raw_auroc"] - 0.005)
    better = float(np.mean([value(d, "brier") < d["raw_brier"] for d in draws]))
    return {**mean, "harm": harm, "better": better}


def summary(records: list[dict]) -> str:
    """Per kind, answer variant, shape and rule: the settings (family × n) failing a
    do-no-harm line, those with raw ECE > 0.01 whose calibrated Brier is below raw in
    ≥ 80 % of draws, and the mean changes of Brier and ECE."""
    lines = ["| kind | answers | map | rule | settings failing do-no-harm | better in ≥ 80 % "
             "(raw ECE > 0.01) | Brier change | ECE change |", "|---|---|---|---|---|---|---|---|"]
    for kind in ("edges", "causal"):
        for variant in ("clean", "wrong10"):
            ours = [r for r in records if r["kind"] == kind and r["variant"] == variant]
            groups: dict[str, list[dict]] = {}
            for r in ours:
                setting = r["case"] if r["case"].startswith("sachs") else \
                    r["case"].rsplit("-", 1)[0]
                groups.setdefault(setting, []).append(r)
            for shape in SHAPES:
                for name, rule in RULES.items():
                    valid = [[r[shape] for r in rs if "error" not in r[shape]]
                             for rs in groups.values()]
                    rows = [_setting(draws, rule) for draws in valid if draws]
                    strong = [s for s in rows if s["raw_ece"] > 0.01]
                    lines.append(
                        f"| {kind} | {variant} | {shape} | {name} | "
                        f"{sum(s['harm'] for s in rows)}/{len(rows)} | "
                        f"{sum(s['better'] >= 0.8 for s in strong)}/{len(strong)} | "
                        f"{np.mean([s['cal_brier'] - s['raw_brier'] for s in rows]):+.4f} | "
                        f"{np.mean([s['cal_ece'] - s['raw_ece'] for s in rows]):+.4f} |")
    return "\n".join(lines)


def _rounded(value):
    """``value`` with its floats to 6 decimals (the records' size; the measures are means
    of hundreds of pairs)."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return round(value, 6) if isinstance(value, float) else value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=6)
    parser.add_argument("--kinds", nargs="+", default=["edges", "causal"])
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--summary", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    records = ([json.loads(line) for line in args.records.open()]
               if args.records.exists() else [])
    if args.summary:
        print(summary(records))
        return
    done = {(r["case"], r["kind"], r["variant"], r["draw"]) for r in records}
    args.records.parent.mkdir(parents=True, exist_ok=True)
    for case in all_cases():
        if not (CACHE / f"{case}.npz").exists():
            continue
        wrong_too = "-n2000-" in case or case.startswith("sachs")
        for kind in args.kinds:
            for variant in ("clean", "wrong10") if wrong_too else ("clean",):
                for draw in range(args.draws):
                    if (case, kind, variant, draw) in done:
                        continue
                    record = run_draw(case, kind, variant, draw)
                    with args.records.open("a") as out:
                        out.write(json.dumps(_rounded(record)) + "\n")
                    print(case, kind, variant, draw, flush=True)


if __name__ == "__main__":
    main()
