"""Binary calibration on the thesis's simulated data (chapter 4, Tables 3 and 14–15).

Design (thesis §4.1, §4.3.1): two 2-d binary problems whose classes are not linearly
separable — the *circular* configuration (class 0 inside a disc, class 1 in a surrounding
ring, with overlap; thesis Figure 5(b)) and the *XOR* configuration (four Gaussian blobs,
label = sign(x₁·x₂); Figure 5(a)). 1000 instances train the classifier, 1000 test it. The
base classifiers are SVMs with a linear and a quadratic kernel (scikit-learn ``SVC``); their
decision values are mapped to [0, 1] by the sigmoid 1/(1 + e^{−f}) (thesis footnote 5), and
every calibrator is trained on the *training-set* outputs, as the thesis does. Printed for
the raw SVM and every binary calibrator in the registry: RMSE, AUC, ACC, MCE, ECE on the test
set (10 equal-frequency bins).

Run:  python examples/binary_calibration.py [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import expit
from sklearn.svm import SVC

from causalcal.calibration import BinaryCalibrator, available, get
from causalcal.metrics import (
    accuracy,
    expected_calibration_error,
    maximum_calibration_error,
    roc_auc,
    root_mean_squared_error,
)


def circular(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Class 0 uniform in a disc of radius 2.5, class 1 in the ring 2 … 4 (they overlap)."""
    y = rng.permutation(np.repeat([0, 1], [n // 2, n - n // 2]))
    r = np.where(y == 0, 2.5 * np.sqrt(rng.random(n)),
                 np.sqrt(rng.uniform(2.0**2, 4.0**2, n)))
    a = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([r * np.cos(a), r * np.sin(a)]), y


def xor(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Four unit-variance blobs at (±1.5, ±1.5); the label is 1 where x₁·x₂ > 0."""
    centres = np.array([[1.5, 1.5], [-1.5, -1.5], [1.5, -1.5], [-1.5, 1.5]])
    k = rng.integers(0, 4, n)
    return centres[k] + rng.normal(size=(n, 2)), (k < 2).astype(int)


MEASURES = {
    "RMSE": root_mean_squared_error,
    "AUC": roc_auc,
    "ACC": accuracy,
    "MCE": maximum_calibration_error,
    "ECE": expected_calibration_error,
}


# the ten binary methods of thesis chapters 2–3, in the thesis's order
BINARY = ["histogram", "platt", "isotonic", "kde", "dpm", "sbb", "abb", "bbq", "enir", "elite"]


def binary_methods() -> list[str]:
    """The thesis's binary calibrators that the registry provides."""
    names = set(available())
    return [n for n in BINARY if n in names and isinstance(get(n), BinaryCalibrator)]


def run(seed: int) -> None:
    rng = np.random.default_rng(seed)
    methods = binary_methods()
    for data_name, make in (("circular", circular), ("XOR", xor)):
        X, y = make(2000, rng)
        Xtr, ytr, Xte, yte = X[:1000], y[:1000], X[1000:], y[1000:]
        for kernel, svm in (("linear", SVC(kernel="linear", C=1.0)),
                            ("quadratic", SVC(kernel="poly", degree=2, coef0=1.0, C=1.0))):
            svm.fit(Xtr, ytr)
            str_ = expit(svm.decision_function(Xtr))
            ste = expit(svm.decision_function(Xte))
            cols = {"SVM": ste}
            secs = {}
            for name in methods:
                t = time.perf_counter()
                cols[name] = get(name).fit(str_, ytr).predict(ste)
                secs[name] = time.perf_counter() - t
            print(f"\n{data_name} data, SVM with a {kernel} kernel "
                  f"(1000 train / 1000 test, seed {seed})")
            print(f"{'':6s}" + "".join(f"{c:>10s}" for c in cols))
            for mname, fn in MEASURES.items():
                print(f"{mname:6s}" + "".join(f"{fn(yte, p):10.3f}" for p in cols.values()))
            print(f"{'fit s':6s}{'':10s}" + "".join(f"{secs[c]:10.3f}" for c in methods))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    run(ap.parse_args().seed)


if __name__ == "__main__":
    main()
