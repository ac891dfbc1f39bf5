"""Compare our BBQ, ENIR and ELiTE with the authors' original code (docs/design.md §7).

The original implementations (github.com/pakdaman/calibration: BBQ in MATLAB, ENIR and
ELiTE in R) are run on the same training scores, and the mean absolute difference of the
calibrated test predictions is printed per method and data set (target: about 0.02).

Usage:
    python -m experiments.compare_original_calibrators PATH_TO_CHECKOUT [--glmgen PATH]

``PATH_TO_CHECKOUT`` is a checkout of github.com/pakdaman/calibration (never committed
here). BBQ needs ``octave``; ENIR needs ``R`` with a C++ compiler (the bundled ``neariso``
package is installed into a temporary library); ELiTE needs ``R`` and a source checkout of
``glmgen`` (github.com/glmgen/glmgen, the version with ``trendfilter(x, y, …)`` that
``ELiTE.R`` calls; the ``glmgen_elite.tar.gz`` bundled in the repository predates that
interface) given by ``--glmgen``. Anything missing is reported and skipped.

Data: the thesis's chapter-4 designs (circular and XOR configurations, SVMs with linear
and quadratic kernels, 1000 train / 1000 test, sigmoid of the decision values; see
``examples/binary_calibration.py``) plus a miscalibrated 1-d problem. The column ELiTE*
leaves the original's non-converged fits (df = n) out of its average (see ELITE_VALID).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
from scipy.special import expit
from sklearn.svm import SVC

from causalcal.calibration import BBQ, ENIR, ELiTE


def _load_example():
    path = Path(__file__).resolve().parents[1] / "examples" / "binary_calibration.py"
    spec = importlib.util.spec_from_file_location("binary_calibration_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def datasets(seed: int = 0):
    """(name, train scores, train labels, test scores) tuples."""
    ex = _load_example()
    rng = np.random.default_rng(seed)
    out = []
    for dname, make in (("circular", ex.circular), ("XOR", ex.xor)):
        X, y = make(2000, rng)
        for kernel, svm in (("linear", SVC(kernel="linear")),
                            ("quadratic", SVC(kernel="poly", degree=2, coef0=1.0))):
            svm.fit(X[:1000], y[:1000])
            out.append((f"{dname}/{kernel}", expit(svm.decision_function(X[:1000])), y[:1000],
                        expit(svm.decision_function(X[1000:]))))
    x = rng.normal(size=4000)
    y = (rng.random(4000) < expit(2 * x)).astype(int)
    out.append(("miscalibrated", expit(x[:2000] - 1.2), y[:2000], expit(x[2000:] - 1.2)))
    return out


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> None:
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        tail = (res.stdout + res.stderr)[-3000:]
        raise RuntimeError(f"{' '.join(cmd[:2])} failed: {tail}")


def run_bbq(repo: Path, work: Path, ytr, ztr, yte) -> np.ndarray:
    np.savetxt(work / "ytr.csv", ytr, delimiter=",")
    np.savetxt(work / "ztr.csv", ztr, delimiter=",")
    np.savetxt(work / "yte.csv", yte, delimiter=",")
    script = (f"addpath('{repo / 'BBQ'}');"
              "ytr = csvread('ytr.csv'); ztr = csvread('ztr.csv'); yte = csvread('yte.csv');"
              "m = build(ytr, ztr, struct()); p = predict(m, yte, 1);"
              "csvwrite('out.csv', p);")
    _run(["octave", "--no-gui", "--quiet", "--eval", script], work)
    return np.loadtxt(work / "out.csv", delimiter=",")


def _r_lib(work: Path) -> Path:
    lib = work / "rlib"
    lib.mkdir(exist_ok=True)
    return lib


def install_neariso(repo: Path, work: Path) -> Path:
    lib = _r_lib(work)
    if not (lib / "neariso").exists():
        _run(["R", "CMD", "INSTALL", "-l", str(lib),
              str(repo / "ENIR" / "R package" / "neariso_1.0.tar.gz")], work)
    return lib


def install_glmgen(glmgen: Path, work: Path) -> Path:
    lib = _r_lib(work)
    if not (lib / "glmgen").exists():
        _run(["R", "CMD", "INSTALL", "-l", str(lib), str(glmgen / "R_pkg" / "glmgen")], work)
    return lib


def _extract_r_source(tarball: Path, member: str, work: Path) -> Path:
    with tarfile.open(tarball) as tf:
        data = tf.extractfile(member).read()
    out = work / Path(member).name
    out.write_bytes(data)
    return out


def run_r(work: Path, lib: Path, source: Path, build: str, predict: str, ytr, ztr, yte):
    np.savetxt(work / "ytr.csv", ytr, delimiter=",")
    np.savetxt(work / "ztr.csv", ztr, delimiter=",")
    np.savetxt(work / "yte.csv", yte, delimiter=",")
    script = (f".libPaths(c('{lib}', .libPaths()));"
              "suppressMessages(library(methods));"
              f"source('{source}');"
              "ytr <- as.numeric(read.csv('ytr.csv', header=FALSE)$V1);"
              "ztr <- as.numeric(read.csv('ztr.csv', header=FALSE)$V1);"
              "yte <- as.numeric(read.csv('yte.csv', header=FALSE)$V1);"
              f"m <- {build}; p <- {predict};"
              "write.table(p, 'out.csv', row.names=FALSE, col.names=FALSE)")
    _run(["Rscript", "-e", script], work)
    return np.loadtxt(work / "out.csv")


# ELiTE* = the original with its non-converged ADMM fits left out of the average: glmgen
# sometimes returns a fit with df = n (no fused slopes), whose AICc denominator n − df − 1
# is negative, giving a score near −10⁶ that takes all the weight.
ELITE_VALID = (
    "{ m <- elite.build(ytr, ztr, 'AICc'); ok <- m$df < length(m$y) - 1;"
    " sc <- sapply(which(ok), function(i) get_score_local(m$y, m$beta[, i], m$weights,"
    " m$df[i], 'AICc', NULL));"
    " sv <- rep(0, length(m$df)); sv[ok] <- exp((min(sc) - sc) / 2); m$SV <- sv / sum(sv); m }"
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path, help="checkout of github.com/pakdaman/calibration")
    ap.add_argument("--glmgen", type=Path, default=None,
                    help="source checkout of github.com/glmgen/glmgen (for ELiTE)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    repo = args.repo.resolve()
    if not (repo / "BBQ" / "build.m").exists():
        print(f"skipped: {repo} is not a checkout of pakdaman/calibration")
        return 0
    have_octave = shutil.which("octave") is not None
    have_r = shutil.which("Rscript") is not None and shutil.which("R") is not None
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        runners = {}
        if have_octave:
            runners["BBQ"] = (lambda a, b, c: run_bbq(repo, work, a, b, c), BBQ())
        else:
            print("BBQ: skipped (octave not found)")
        if have_r:
            try:
                lib = install_neariso(repo, work)
                enir_src = _extract_r_source(repo / "ENIR" / "R package" / "enir_1.0.tar.gz",
                                             "enir/R/enir.R", work)
                runners["ENIR"] = (
                    lambda a, b, c: run_r(work, lib, enir_src, "enir.build(ytr, ztr, 'BIC')",
                                          "enir.predict(m, yte, 1)", a, b, c), ENIR())
            except Exception as exc:  # noqa: BLE001 - report and skip
                print(f"ENIR: skipped ({str(exc).splitlines()[0]})")
            if args.glmgen is not None:
                try:
                    lib = install_glmgen(args.glmgen.resolve(), work)
                    elite_src = _extract_r_source(repo / "ELiTE" / "R" / "ELiTE_1.0.tar.gz",
                                                  "ELiTE/R/ELiTE.R", work)
                    runners["ELiTE"] = (
                        lambda a, b, c: run_r(work, lib, elite_src,
                                              "elite.build(ytr, ztr, 'AICc')",
                                              "elite.predict(m, yte, 1)", a, b, c), ELiTE())
                    runners["ELiTE*"] = (
                        lambda a, b, c: run_r(work, lib, elite_src, ELITE_VALID,
                                              "elite.predict(m, yte, 1)", a, b, c), ELiTE())
                except Exception as exc:  # noqa: BLE001 - report and skip
                    print(f"ELiTE: skipped ({str(exc).splitlines()[0]})")
            else:
                print("ELiTE: skipped (no --glmgen checkout given)")
        else:
            print("ENIR, ELiTE: skipped (R not found)")
        print(f"{'data set':20s}" + "".join(f"{m:>10s}" for m in runners))
        for name, ytr, ztr, yte in datasets(args.seed):
            row = []
            for method, (original, ours) in runners.items():
                p_orig = original(ytr, ztr, yte)
                p_ours = ours.fit(ytr, ztr).predict(yte)
                mad = float(np.mean(np.abs(p_orig - p_ours)))
                results.setdefault(method, []).append(mad)
                row.append(mad)
            print(f"{name:20s}" + "".join(f"{v:10.4f}" for v in row))
        print(f"{'mean':20s}" + "".join(f"{np.mean(v):10.4f}" for v in results.values()))
        print("mean absolute difference of calibrated test predictions, ours vs original")
    return 0


if __name__ == "__main__":
    sys.exit(main())
