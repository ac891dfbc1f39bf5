"""Thesis §6.1.1 protocol: compare multi-class calibrators on bundled data sets.

    python examples/multiclass_calibration.py --quick    # ~1 minute on an idle 2-core machine
    python examples/multiclass_calibration.py --runs 1   # all 10 data sets, ~2 minutes
    python examples/multiclass_calibration.py            # full protocol, 5 × 5-fold, ~10 minutes

For every data set, base classifier (multinomial LR, SVM, naive Bayes) and fold of
``--runs`` × 5-fold cross-validation, the base classifier is trained on the training part
and six calibrators — IsoReg one-vs-rest, Platt one-vs-rest (Zadrozny & Elkan 2002), softmax
regression, SNN (thesis §6.1), temperature scaling and Dirichlet calibration — are fitted on
the training part's *out-of-fold* probabilities (3-fold cross_val_predict; the thesis says it
"always used the train data for calibrating", and out-of-fold predictions keep the
calibration data from being the classifier's own fitted outputs). The test fold is scored
by accuracy, Hand–Till AUC, cross-entropy, Brier score, ECE_micro and MCE_micro (thesis
§6.1.1: the k columns and one-hot labels stacked into one binary problem, 10 bins).

Per base classifier it prints the average rank of each method over the data sets (as the
thesis's Tables 28–30), the Iman–Davenport "improved" Friedman test, and Holm's step-down
procedure with SNN as the control at α = 0.05: ``*`` marks a method SNN is significantly
better than, ``⊛`` one it is significantly worse than.

Data sets: scikit-learn's bundled multi-class sets (iris, wine, digits) plus synthetic
``make_classification`` problems (3–5 classes; seeded), because three data sets are too few
for a Friedman test. The SVM's probabilities are the softmax of its one-vs-rest decision
values (an uncalibrated score, which is what the calibrators are for).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats
from scipy.special import softmax
from sklearn.datasets import load_digits, load_iris, load_wine, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from causalcal import metrics
from causalcal.calibration import get

METHODS = ["IsoReg", "Platt", "Softmax", "SNN", "Temperature", "Dirichlet"]
MEASURES = [  # name, function, higher is better
    ("ACC", metrics.multiclass_accuracy, True),
    ("AUC", metrics.hand_till_auc, True),
    ("Cross_entropy", metrics.cross_entropy, False),
    ("Brier_score", metrics.multiclass_brier_score, False),
    ("ECE_micro", metrics.ece_micro, False),
    ("MCE_micro", metrics.mce_micro, False),
]


def make_calibrator(name: str, seed: int):
    return {
        "IsoReg": lambda: get("ovr-isotonic"),
        "Platt": lambda: get("ovr-platt"),
        "Softmax": lambda: get("softmax"),
        "SNN": lambda: get("snn", random_state=seed),
        "Temperature": lambda: get("temperature"),
        "Dirichlet": lambda: get("dirichlet"),
    }[name]()


class SoftmaxSVC(SVC):
    """SVC whose ``predict_proba`` is the softmax of its one-vs-rest decision values."""

    def predict_proba(self, X):
        return softmax(self.decision_function(X), axis=1)


def base_classifiers():
    return {
        "LR": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "SVM": make_pipeline(StandardScaler(), SoftmaxSVC(decision_function_shape="ovr")),
        "NB": GaussianNB(),
    }


def datasets(quick: bool):
    out = {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}
    if not quick:
        out["digits"] = load_digits(return_X_y=True)
    configs = [(3, 1.0), (4, 0.8), (5, 1.2)] if quick else [
        (3, 0.6), (3, 1.0), (4, 0.8), (4, 1.2), (5, 0.8), (5, 1.2), (6, 1.0)]
    for i, (k, sep) in enumerate(configs):
        X, y = make_classification(
            n_samples=300 if quick else 600, n_features=10, n_informative=6, n_redundant=2,
            n_classes=k, n_clusters_per_class=1, class_sep=sep, flip_y=0.03, random_state=i,
        )
        out[f"synth{k}_{sep}"] = (X, y)
    return out


def evaluate(X, y, clf, runs: int, seed: int) -> np.ndarray:
    """Mean over runs × folds of each measure (rows: METHODS, columns: MEASURES)."""
    from sklearn.base import clone

    scores = np.zeros((len(METHODS), len(MEASURES)))
    count = 0
    for run in range(runs):
        cv = StratifiedKFold(5, shuffle=True, random_state=seed + run)
        for tr, te in cv.split(X, y):
            inner = StratifiedKFold(3, shuffle=True, random_state=seed + run)
            P_cal = cross_val_predict(clone(clf), X[tr], y[tr], cv=inner, method="predict_proba")
            P_te = clone(clf).fit(X[tr], y[tr]).predict_proba(X[te])
            P_cal = P_cal / P_cal.sum(axis=1, keepdims=True)
            P_te = P_te / P_te.sum(axis=1, keepdims=True)
            for i, name in enumerate(METHODS):
                Q = make_calibrator(name, seed + run).fit(P_cal, y[tr]).predict_proba(P_te)
                Q = np.asarray(Q, dtype=np.float64)
                Q /= Q.sum(axis=1, keepdims=True)
                for j, (_, fn, _) in enumerate(MEASURES):
                    scores[i, j] += fn(y[te], Q)
            count += 1
    return scores / count


def friedman_holm(values: np.ndarray, higher_better: bool, control: int, alpha: float = 0.05):
    """Average ranks, Iman–Davenport p-value and Holm decisions vs ``control``.

    ``values``: (n_datasets, k_methods). Returns (avg_ranks, p_FF, marks) with marks[i] in
    {"", "*", "⊛"}: control significantly better / worse than method i.
    """
    N, k = values.shape
    ranks = np.array([stats.rankdata(-v if higher_better else v) for v in values])
    R = ranks.mean(axis=0)
    chi2 = 12 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4)
    denom = N * (k - 1) - chi2
    FF = (N - 1) * chi2 / denom if denom > 0 else np.inf
    p_ff = float(stats.f.sf(FF, k - 1, (k - 1) * (N - 1))) if np.isfinite(FF) else 0.0
    se = np.sqrt(k * (k + 1) / (6 * N))
    others = [i for i in range(k) if i != control]
    z = np.array([(R[i] - R[control]) / se for i in others])
    p = 2 * stats.norm.sf(np.abs(z))
    marks = [""] * k
    if p_ff < alpha:
        for step, o in enumerate(np.argsort(p)):  # Holm: compare p_(i) with α / (m − i)
            if p[o] > alpha / (len(others) - step):
                break
            marks[others[o]] = "*" if z[o] > 0 else "⊛"
    return R, p_ff, marks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer, smaller data sets; 1 run")
    ap.add_argument("--runs", type=int, default=None, help="CV repetitions (default 5; quick 1)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 5)
    warnings.filterwarnings("ignore", category=UserWarning)
    data = datasets(args.quick)
    t0 = time.perf_counter()
    for clf_name, clf in base_classifiers().items():
        table = np.zeros((len(data), len(METHODS), len(MEASURES)))
        for d, (name, (X, y)) in enumerate(data.items()):
            table[d] = evaluate(X, y, clf, runs, args.seed)
            print(f"  {clf_name} on {name}: done ({time.perf_counter() - t0:.0f} s)", flush=True)
        print(f"\nAverage rank of the calibration methods over {len(data)} data sets, "
              f"base classifier {clf_name} (*/⊛: SNN significantly better/worse, Holm, α=0.05)")
        print(f"{'measure':<14}" + "".join(f"{m:>13}" for m in METHODS) + "   Friedman p")
        snn = METHODS.index("SNN")
        for j, (mname, _, hb) in enumerate(MEASURES):
            R, p_ff, marks = friedman_holm(table[:, :, j], hb, snn)
            cells = "".join(f"{R[i]:>12.2f}{marks[i] or ' '}" for i in range(len(METHODS)))
            print(f"{mname:<14}{cells}   {p_ff:.3g}")
        print()


if __name__ == "__main__":
    main()
