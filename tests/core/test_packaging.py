"""The distribution installs the stage folders as causalcal.simulate/bootstrap/evaluate."""

import subprocess
import sys
import zipfile

import pytest

import causalcal


@pytest.mark.slow
def test_wheel_maps_stage_packages(tmp_path):
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-q", "-w", str(tmp_path / "dist"), str(root)],
        capture_output=True, text=True,
    )
    if build.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{build.stderr[-2000:]}")
    wheel = next((tmp_path / "dist").glob("causalcal-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for stage in ("simulate", "bootstrap", "evaluate"):
        assert f"causalcal/{stage}/__init__.py" in names
        assert not any(n.startswith(f"{stage}/") for n in names), f"top-level {stage} shipped"
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import causalcal, causalcal.simulate, causalcal.bootstrap, causalcal.evaluate, "
        "causalcal.calibration, causalcal.cli; "
        "print(causalcal.simulate.__file__)"
    )
    run = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {code}"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().startswith(str(site))


@pytest.mark.slow
def test_console_script_help_and_version(causalcal_cli):
    out = causalcal_cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"causalcal {causalcal.__version__}"
    out = causalcal_cli("--help")
    assert out.returncode == 0 and "usage: causalcal" in out.stdout
    bad = causalcal_cli("no-such-command")
    assert bad.returncode == 2


#: The scikit-learn version that introduced each name the package imports from it (the
#: release notes' "added in"); names older than 1.0 are listed as 1.0. Keywords need it too:
#: ``validate_data(…, ensure_all_finite=…)`` and the ``__sklearn_tags__`` dataclasses
#: (1.6), ``KBinsDiscretizer(subsample=None)`` (1.1).
SKLEARN_SINCE = {
    "sklearn.utils.validation.validate_data": (1, 6),
    "sklearn.utils.get_tags": (1, 6),
    **{name: (1, 0) for name in (
        "sklearn.base.BaseEstimator", "sklearn.base.ClassifierMixin", "sklearn.base.clone",
        "sklearn.exceptions.ConvergenceWarning", "sklearn.isotonic.IsotonicRegression",
        "sklearn.linear_model.LogisticRegression",
        "sklearn.metrics.roc_auc_score", "sklearn.mixture.BayesianGaussianMixture",
        "sklearn.model_selection.StratifiedKFold", "sklearn.model_selection.check_cv",
        "sklearn.neighbors.NearestNeighbors", "sklearn.preprocessing.KBinsDiscretizer",
        "sklearn.utils.check_random_state", "sklearn.utils.multiclass.check_classification_targets",
        "sklearn.utils.validation.check_is_fitted", "sklearn.utils.validation.has_fit_parameter",
    )},
}


def _sklearn_imports() -> set[str]:
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = set()
    for folder in ("causalcal", "simulate", "bootstrap", "evaluate"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
                    found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_scikit_learn_floor_covers_what_the_code_imports():
    """pyproject.toml's floor for scikit-learn is at least the release of every name the
    package imports from it (``import causalcal.calibration`` failed on 1.3–1.5)."""
    tomllib = pytest.importorskip("tomllib")
    from pathlib import Path

    import sklearn

    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    floors = [d for d in tomllib.loads(text)["project"]["dependencies"]
              if d.startswith("scikit-learn>=")]
    assert len(floors) == 1, floors
    floor = tuple(int(p) for p in floors[0].split(">=")[1].split(".")[:2])
    unknown = _sklearn_imports() - set(SKLEARN_SINCE)
    assert not unknown, f"add the scikit-learn release that introduced {sorted(unknown)}"
    needed = max(SKLEARN_SINCE[name] for name in _sklearn_imports())
    assert floor >= needed, f"scikit-learn>={floor} but the code needs {needed}"
    installed = tuple(int(p) for p in sklearn.__version__.split(".")[:2])
    assert installed >= floor
