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
