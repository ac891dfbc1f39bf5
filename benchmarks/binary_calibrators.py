"""Fit + predict time of every binary calibrator in the registry (docs/design.md §11).

For each registry name whose class is a ``BinaryCalibrator`` the script fits on N
miscalibrated scores and predicts N fresh ones, for N = 10^3, 10^4, 10^5, 10^6, stopping
at the largest N docs/design.md §11 sets for the method (SBB/ABB 10^4; KDE, ELiTE, DPM 10^5; the
rest 10^6), and prints a table with the docs/design.md §11 target beside the time at the
target's N.
Peers timed in the same run: scikit-learn's ``IsotonicRegression`` (beside isotonic) and
its sigmoid calibrator (beside Platt). KDE is also timed with the gaussian kernel.

Usage::

    python benchmarks/binary_calibrators.py            # full (a few minutes)
    python benchmarks/binary_calibrators.py --quick    # N = 10^3, 10^4 only

Timings on a shared machine are only indicative; say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.special import expit  # noqa: E402

from causalcal import calibration  # noqa: E402
from causalcal.calibration import BinaryCalibrator  # noqa: E402

# largest N and target seconds at that N (docs/design.md §11)
TARGETS: dict[str, tuple[int, float]] = {
    "histogram": (10**6, 5.0),
    "platt": (10**6, 5.0),
    "isotonic": (10**6, 5.0),
    "bbq": (10**6, 5.0),
    "enir": (10**6, 5.0),
    "kde": (10**5, 20.0),
    "elite": (10**5, 20.0),
    "dpm": (10**5, 30.0),
    "sbb": (10**4, 10.0),
    "abb": (10**4, 10.0),
}


# binary-label calibrators whose input is several classifiers' scores, not one score
MULTI_INPUT = {"multi_classifier_isotonic"}


def data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores expit(x − 1.2) of labels with P(y = 1 | x) = expit(2x), x ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return expit(x - 1.2), (rng.random(n) < expit(2 * x)).astype(np.int64)


def time_fit_predict(make, n: int) -> float:
    s, y = data(n, 0)
    q, _ = data(n, 1)
    t0 = time.perf_counter()
    make().fit(s, y).predict(q)
    return time.perf_counter() - t0


def peers() -> dict[str, tuple[str, object]]:
    from sklearn.isotonic import IsotonicRegression

    out: dict[str, tuple[str, object]] = {
        "isotonic": ("sklearn IsotonicRegression", lambda: _SkIso(IsotonicRegression))
    }
    try:
        from sklearn.calibration import _SigmoidCalibration

        out["platt"] = ("sklearn _SigmoidCalibration", lambda: _SkSig(_SigmoidCalibration))
    except ImportError:  # private API; skip the peer if it moved
        pass
    return out


class _SkIso:
    def __init__(self, cls):
        self.m = cls(out_of_bounds="clip")

    def fit(self, s, y):
        self.m.fit(s, y)
        return self

    def predict(self, q):
        return self.m.predict(q)


class _SkSig:
    def __init__(self, cls):
        self.m = cls()

    def fit(self, s, y):
        self.m.fit(s, y)
        return self

    def predict(self, q):
        return self.m.predict(q)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only N = 10^3 and 10^4")
    ap.add_argument("--only", nargs="*", help="registry names to time (default: all binary)")
    args = ap.parse_args(argv)
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5, 10**6]

    rows: list[tuple[str, object, int, float | None]] = []
    for name in calibration.available():
        if args.only and name not in args.only:
            continue
        try:
            est = calibration.get(name)
        except Exception as exc:  # a registry entry that cannot be built is reported
            print(f"{name}: cannot build ({exc})")
            continue
        if not isinstance(est, BinaryCalibrator) or name in MULTI_INPUT:
            continue
        max_n, target = TARGETS.get(name, (10**6, None))
        rows.append((name, lambda name=name: calibration.get(name), max_n, target))
        if name == "kde":
            rows.append(("kde[gaussian]", lambda: calibration.get("kde", kernel="gaussian"),
                         max_n, target))
    peer = peers()

    header = "method".ljust(16) + "".join(f"{f'N=1e{len(str(n)) - 1}':>10s}" for n in sizes)
    print(header + "   design target")
    for name, make, max_n, target in rows:
        cells = []
        at_target = None
        for n in sizes:
            if n > max_n:
                cells.append(f"{'-':>10s}")
                continue
            try:
                dt = time_fit_predict(make, n)
            except Exception as exc:  # report and go on with the other methods
                print(f"{name} failed at N={n}: {type(exc).__name__}: {exc}")
                cells.append(f"{'error':>10s}")
                break
            cells.append(f"{dt:9.3f}s")
            if n == max_n:
                at_target = dt
        if target is None:
            note = "(no design target)"
        elif max_n in sizes:
            ok = "meets" if at_target is not None and at_target <= target else "MISSES"
            note = f"<= {target:g} s at N=1e{int(np.log10(max_n))}: {ok}"
        else:
            note = f"<= {target:g} s at N=1e{int(np.log10(max_n))} (not run)"
        print(f"{name:<16s}" + "".join(cells) + "   " + note, flush=True)
        if name in peer:
            label, pmake = peer[name]
            pcells = []
            for n in sizes:
                if n > max_n:
                    pcells.append(f"{'-':>10s}")
                    continue
                pcells.append(f"{time_fit_predict(pmake, n):9.3f}s")
            print(f"{'  peer':<16s}" + "".join(pcells) + f"   {label}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
